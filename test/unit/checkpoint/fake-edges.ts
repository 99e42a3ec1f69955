// A fake world for the checkpoint core: files and store in maps, a clock whose timers run on `tick`.
import type { Edges } from '../../../src/features/checkpoint/session.ts'

export function fakeEdges(over: Partial<Edges> = {}) {
  const files = new Map<string, string>()
  /** When each file was last written, on the world's clock: what the folder lists as its mtime. */
  const written = new Map<string, number>()
  const store = new Map<string, unknown>()
  const timers: { at: number; fn: () => Promise<void> }[] = []
  /** Each `sleep` asked for: it resolves when the test calls its `wake` (a save's bound; apart from `timers`). */
  const sleeps: { ms: number; wake: () => void }[] = []
  const seen = { toasts: [] as string[], logs: [] as string[], commands: [] as string[], submitted: [] as string[], compacts: 0, redraws: 0 }
  const world = { now: 1_000_000, tokens: 150_000 as number | undefined, breakdown: { isAutoCompactEnabled: true, autoCompactThreshold: 167_000 } as { isAutoCompactEnabled?: boolean; autoCompactThreshold?: number } | undefined, surfaces: ['terminal'] as readonly string[], compactAnswer: {} as { skip?: string }, compactions: { running: 0, entered: 0 } }
  const io: Edges = {
    dataDir: async () => '/data',
    read: async (path) => {
      const text = files.get(path)
      if (text === undefined) throw new Error(`ENOENT ${path}`)
      return text
    },
    write: async (path, text) => {
      files.set(path, text)
      written.set(path, world.now)
    },
    remove: async (path) => {
      files.delete(path)
      written.delete(path)
    },
    list: async (folder) => [...files.keys()].filter((p) => p.startsWith(`${folder}/`) && !p.slice(folder.length + 1).includes('/')).map((p) => ({ name: p.slice(folder.length + 1), mtimeMs: written.get(p) ?? 0 })),
    storeGet: async (key) => store.get(key),
    storeSet: async (key, value) => void store.set(key, value),
    storeKeys: async () => [...store.keys()],
    storeDelete: async (key) => void store.delete(key),
    now: async () => world.now,
    log: (line) => void seen.logs.push(line),
    toast: (text) => void seen.toasts.push(text),
    usage: async () => ({ tokens: world.tokens, breakdown: world.breakdown }),
    fill: async () => world.tokens,
    surfaces: async () => world.surfaces,
    runCheckpoint: async () => void seen.commands.push('checkpoint'),
    compact: async () => (seen.compacts++, world.compactAnswer),
    compactCommand: async () => void seen.commands.push('compact'),
    compactions: () => ({ ...world.compactions }),
    submit: async (text) => void seen.submitted.push(text),
    redraw: () => void seen.redraws++,
    after: (ms, fn) => void timers.push({ at: world.now + ms, fn }),
    sleep: (ms) => new Promise((wake) => void sleeps.push({ ms, wake: () => wake() })),
    recallTool: () => undefined,
    ...over,
  }
  /** Moves the clock on, running every timer that falls due, in order. */
  async function tick(ms: number) {
    const until = world.now + ms
    for (;;) {
      timers.sort((a, b) => a.at - b.at)
      const due = timers[0]
      if (!due || due.at > until) break
      timers.shift()
      world.now = due.at
      await due.fn()
    }
    world.now = until
  }
  return { io, files, written, store, seen, world, tick, timers, sleeps }
}
