// One routed request over curl (§3.3, measured in routing.md §2.3–2.4): a child per request, the
// key and body in its standard input, its output read as it comes (the head, then the event stream
// decoded into the engine's chunks). The engine ends the child when the dispatch that started it
// ends (Esc aborts the engine's request, and with it the http.fetch hook running this), so
// cancellation needs nothing here. What this adds: retries before any output, the watchdog for a
// provider that stops sending, and one typed failure for every way a request breaks.
import { curlConfig, createCurlReader, retryAfterMs, retryPlan, type BodyMode, type CurlHead, type CurlRequest } from './curl.ts'
import { sampleOf, type RouteFailure } from './failure.ts'
import { createSseParser } from './sse.ts'
import type { Decoded, StepChunk, StepEnd, StreamDecoder } from './step.ts'
import { curlStopped, EMPTY_ANSWER, NO_RESPONSE } from './strings.ts'
import { messageOf, toUndefined } from '../../lib/message.ts'

export type SpawnPiece = { readonly stream: 'stdout' | 'stderr'; readonly text: string }
export type SpawnEnd = { readonly code: number | null; readonly signal: string | null }

export type TransportEdges = {
  /** Starts the child (`$.process.spawn`); its first pull rejects when it cannot start. */
  spawn(argv: readonly string[], input: string): AsyncGenerator<SpawnPiece, SpawnEnd>
  /** A wait out of the hook's own budget (`$.clock.sleep` on the dispatch's signal). */
  sleep(ms: number): Promise<void>
  /** A repeating timer on the engine's clock; the function it returns stops it. */
  every(ms: number, fn: () => void): () => void
  now(): Promise<number>
  /** The dispatch's own time left (`next.budget.remainingMs`). */
  remainingMs(): number
  /** The dispatch was abandoned (Esc, an abort): no retry. */
  aborted(): boolean
}

/** A decoder a whole JSON answer can feed too (a provider that ignored `stream: true`). */
export type Decoder = StreamDecoder & { pushCompletion?(json: string): Decoded }

export type TransportOptions = {
  /** curl's argv: its absolute path and the fixed arguments (constants.ts). */
  readonly curl: readonly string[]
  readonly bodyMode: BodyMode
  /** No byte for this long fails the request (the watchdog). */
  readonly idleMs: number
  /** A fresh decoder per attempt, so a retried request starts its answer over. */
  makeDecoder(): Decoder
}

/** How the request ended: the whole answer, or the failure that ended it (its caller tells it: NOTES §11.1). */
export type Outcome = ({ readonly end: StepEnd; readonly failure?: undefined } | { readonly failure: RouteFailure; readonly end?: undefined }) & { readonly retries: number }

/** How many quiet ticks make a stall: the watchdog ticks at a quarter of the idle time, so it fires within 1.25x of it. */
const STALL_TICKS = 4
/** What curl's standard error and an error body keep: enough for the first line of a message. */
const KEPT_TEXT = 16 * 1024
const STALL = Symbol('stall')
/** How much of a stream's opening is kept to quote when it held no event. */
const OPENING_KEPT = 200

/** One try: the whole answer, or its failure with what the retry rule reads. */
type Attempt =
  | { readonly end: StepEnd; readonly failure?: undefined }
  | { readonly failure: RouteFailure; readonly end?: undefined; readonly status?: number; readonly curlExit?: number; readonly retryAfter?: string }

const keep = (text: string, more: string) => (text.length >= KEPT_TEXT ? text : (text + more).slice(0, KEPT_TEXT))
const isJson = (head: CurlHead) => /\bjson\b/i.test(head.headers['content-type'] ?? '') && !/event-stream/i.test(head.headers['content-type'] ?? '')
const isError = (head: CurlHead) => head.status < 200 || head.status >= 300

/** Yields what one event (or a whole JSON answer) decoded to, noting that output was sent; returns its failure, if any. */
function* yielded(decoded: Decoded, sent: { any: boolean }): Generator<StepChunk, RouteFailure | undefined> {
  for (const chunk of decoded.chunks) {
    sent.any = true
    yield chunk
  }
  return decoded.failure
}

/**
 * Sends the request and yields the answer's chunks as they come, the stop included; returns how it
 * ended. A failure before any output is retried when retryPlan allows it; any other ends the
 * stream where it broke (what was yielded stands) and is returned, not yielded.
 */
export async function* sendRequest(edges: TransportEdges, request: CurlRequest, opts: TransportOptions): AsyncGenerator<StepChunk, Outcome> {
  for (let retries = 0; ; retries++) {
    const decoder = opts.makeDecoder()
    const sent = { any: false }
    const attempt = yield* attemptOnce(edges, request, opts, decoder, sent)
    if (attempt.end) {
      yield* attempt.end.chunks
      return { end: attempt.end, retries }
    }
    const plan = edges.aborted()
      ? 'stop'
      : retryPlan({
          retries,
          outputSent: sent.any,
          remainingMs: edges.remainingMs(),
          status: attempt.status,
          curlExit: attempt.curlExit,
          retryAfterMs: attempt.retryAfter === undefined ? undefined : retryAfterMs(attempt.retryAfter, await edges.now()),
        })
    if (plan !== 'stop') {
      await edges.sleep(plan.delayMs)
      continue
    }
    return { failure: attempt.failure, retries }
  }
}

async function* attemptOnce(edges: TransportEdges, request: CurlRequest, opts: TransportOptions, decoder: Decoder, sent: { any: boolean }): AsyncGenerator<StepChunk, Attempt> {
  const child = edges.spawn(opts.curl, curlConfig(request, opts.bodyMode))
  const reader = createCurlReader()
  const sse = createSseParser()
  let head: CurlHead | undefined
  let body = ''
  let stderr = ''
  let ended: SpawnEnd | undefined
  /** Events the stream gave, and its first text: a 2xx answer with none is no answer (a proxy's login page). */
  let events = 0
  let opening = ''
  // The watchdog: a piece counter, looked at on the engine's clock (no clock read per piece).
  let pieces = 0
  let quiet = 0
  let seen = 0
  let stalled!: () => void
  const stall = new Promise<typeof STALL>((resolve) => (stalled = () => resolve(STALL)))
  const stop = edges.every(Math.max(1, Math.floor(opts.idleMs / STALL_TICKS)), () => {
    quiet = pieces === seen ? quiet + 1 : 0
    seen = pieces
    if (quiet >= STALL_TICKS) stalled()
  })
  const leave = () => void child.return({ code: null, signal: null }).catch(toUndefined)
  try {
    for (;;) {
      const r = await Promise.race([child.next(), stall])
      if (r === STALL) {
        leave()
        return { failure: { kind: 'stall', idleMs: opts.idleMs } }
      }
      pieces++
      if (r.done) {
        ended = r.value
        break
      }
      if (r.value.stream === 'stderr') {
        stderr = keep(stderr, r.value.text)
        continue
      }
      for (const out of reader.push(r.value.text)) {
        if (out.kind === 'head') {
          head = out.head
          continue
        }
        // The reader gives the head before any body text.
        if (!head || isError(head)) {
          body = keep(body, out.text)
          continue
        }
        if (isJson(head)) {
          body += out.text
          continue
        }
        if (opening.length < OPENING_KEPT) opening += out.text
        for (const event of sse.push(out.text)) {
          events++
          const failure = yield* yielded(decoder.push(event.data), sent)
          if (failure) {
            leave()
            return { failure }
          }
        }
      }
    }
  } catch (err) {
    // The first pull rejects when curl cannot start; a later one when the dispatch is torn down.
    return { failure: { kind: 'other', reason: messageOf(err) } }
  } finally {
    stop()
  }
  if (ended.code === null) return { failure: { kind: 'other', reason: curlStopped(ended.signal ?? 'a signal') } }
  const code = ended.code
  if (!head) {
    if (code !== 0) return { failure: { kind: 'curl', code, stderr }, curlExit: code }
    return { failure: { kind: 'other', reason: NO_RESPONSE } }
  }
  if (isError(head)) return { failure: { kind: 'status', status: head.status, body }, status: head.status, retryAfter: head.headers['retry-after'] || undefined }
  if (isJson(head)) {
    // A failed completion yields no chunk: the failure comes alone.
    const failure = yield* yielded(decoder.pushCompletion?.(body) ?? { chunks: [], failure: { kind: 'unreadable', sample: body.slice(0, 80) } }, sent)
    if (failure) return { failure }
  }
  // Cut off after the head (a dropped connection, curl's 18 or 56): what came stands, the line says why.
  if (code !== 0) return { failure: { kind: 'curl', code, stderr } }
  // A clean end: a last event without its blank line still counts (sse.ts `end()`).
  for (const event of sse.end()) {
    events++
    const failure = yield* yielded(decoder.push(event.data), sent)
    if (failure) return { failure }
  }
  if (!isJson(head) && events === 0) return { failure: { kind: 'unreadable', sample: sampleOf(opening) || EMPTY_ANSWER } }
  const end = decoder.finish()
  return end ? { end } : { failure: { kind: 'unfinished' } }
}
