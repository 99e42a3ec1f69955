// A fake `$.process.spawn` child for the routing tests: an async generator of curl's output pieces
// fed by the test, either scripted whole before the first pull or pushed as the test goes (a
// stream that arrives while the step yields, a provider that stalls).
import type { SpawnEnd, SpawnPiece } from '../../../src/features/routing/transport.ts'

type Item = { readonly piece: SpawnPiece } | { readonly end: SpawnEnd } | { readonly error: unknown }

export type FakeChild = {
  readonly gen: AsyncGenerator<SpawnPiece, SpawnEnd>
  /** curl's standard output, in one piece or several. */
  out(...texts: string[]): FakeChild
  err(text: string): FakeChild
  /** curl exits; `null` is a signal. */
  exit(code: number | null): FakeChild
  /** The next pull rejects (the child could not start, or the dispatch was torn down). */
  fail(error: unknown): FakeChild
  /** Whether the transport let the child go (`return()`). */
  readonly left: boolean
  /** Pulls made so far. */
  readonly pulls: number
}

export function fakeChild(): FakeChild {
  const queue: Item[] = []
  let wake: (() => void) | undefined
  const state = { left: false, pulls: 0 }
  const push = (item: Item) => {
    queue.push(item)
    wake?.()
    wake = undefined
  }
  async function* run(): AsyncGenerator<SpawnPiece, SpawnEnd> {
    for (;;) {
      while (!queue.length) await new Promise<void>((resolve) => (wake = resolve))
      const item = queue.shift()!
      if ('end' in item) return item.end
      if ('error' in item) throw item.error
      yield item.piece
    }
  }
  const inner = run()
  // `return()` on a generator waiting at a pull is queued behind that pull: the flag says it was asked.
  const gen = {
    next: () => {
      state.pulls++
      return inner.next()
    },
    return: (value: SpawnEnd) => {
      state.left = true
      return inner.return(value)
    },
    throw: (e: unknown) => inner.throw(e),
    [Symbol.asyncIterator]() {
      return gen
    },
  } as AsyncGenerator<SpawnPiece, SpawnEnd>
  const child: FakeChild = {
    gen,
    out(...texts) {
      for (const text of texts) push({ piece: { stream: 'stdout', text } })
      return child
    },
    err(text) {
      push({ piece: { stream: 'stderr', text } })
      return child
    },
    exit(code) {
      push({ end: { code, signal: code === null ? 'SIGTERM' : null } })
      return child
    },
    fail(error) {
      push({ error })
      return child
    },
    get left() {
      return state.left
    },
    get pulls() {
      return state.pulls
    },
  }
  return child
}

/** curl's `-i` head for a status and headers. */
export const head = (status: number, headers: Record<string, string> = {}, reason = 'OK') =>
  `HTTP/1.1 ${status} ${reason}\r\n${Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n`
export const SSE_HEAD = head(200, { 'content-type': 'text/event-stream' })

/** Cuts a text at the given offsets (sorted, within it), so pieces split anywhere: inside a head, an event, a CRLF, a code point. */
export function cutAt(text: string, cuts: readonly number[]): string[] {
  const points = [...new Set(cuts.filter((c) => c > 0 && c < text.length))].sort((a, b) => a - b)
  return [0, ...points].map((from, i) => text.slice(from, points[i] ?? text.length))
}

/** Seeded cut points: the same every run. */
export function seededCuts(length: number, count: number, seed: number): number[] {
  let s = seed
  const random = () => (s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  return Array.from({ length: count }, () => 1 + Math.floor(random() * (length - 1)))
}
