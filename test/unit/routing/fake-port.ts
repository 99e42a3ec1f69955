// The routing feature over a fake RoutingPort (bind.ts): an in-memory keel home, store, dialog,
// status line and clock; commands answered by the test (curl --version, the key commands); curl's
// children scripted with fake-child.ts. The context is the runtime's (test/unit/fakes.ts), and the
// engine beneath each hook is a fake `next` the test writes: for a routed step, one that sends the
// engine's own request through the feature's http.fetch hook, as the engine does.
import { readConfig } from '../../../src/features/routing/config.ts'
import { createRoutingFeature } from '../../../src/features/routing/index.ts'
import { providerFingerprint, trustKey } from '../../../src/features/routing/trust.ts'
import type { StepChunk } from '../../../src/features/routing/step.ts'
import type { SpawnEnd, SpawnPiece } from '../../../src/features/routing/transport.ts'
import { fakeFiles, type FakeFiles } from '../fake-files.ts'
import { fakeNext, fakePort, hooksOf } from '../fakes.ts'
import type { FakeChild } from './fake-child.ts'
import { fixture } from './fixtures/read.ts'

export const PKG = 'klyth'
export const KEY = 'sk-test-SECRET-1234'
export const MOON_KEY = 'sk-moon-SECRET-5678'
export const CONFIG_DIR = '/cfg'
export const CONFIG_PATH = `${CONFIG_DIR}/keel/routing.json`
export const PLUGIN_DATA = '/cfg/plugins/data/klyth-inline'
export const CURL_VERSION = 'curl 7.88.1 (x86_64-pc-linux-gnu) libcurl/7.88.1 OpenSSL/3.0.19\nRelease-Date: 2023-02-20\n'

export const CONFIG = {
  providers: {
    example: { api: 'openai-chat', baseUrl: 'https://api.example.com/v1', auth: { env: 'EXAMPLE_KEY' } },
    moon: { api: 'anthropic-messages', baseUrl: 'https://api.moon.example/anthropic', auth: { helper: ['/usr/bin/pass', 'show', 'moon'] } },
  },
  models: {
    'gpt-5': { provider: 'example', model: 'gpt-5-2025', context: 400000, label: 'GPT-5' },
    kimi: { provider: 'moon', model: 'kimi-k2', context: 128000, label: 'Kimi K2' },
  },
}

type RunResult = { exitCode: number | null; stdout: string; stderr: string }
type Timer = { ms: number; fn: () => void; stopped: boolean }

export type World = {
  env: { configDir?: string; home?: string; pluginData?: string }
  /** What readText finds; a path in `unreadable` rejects. */
  files: Map<string, string>
  unreadable: Set<string>
  reads: string[]
  main: string | Error
  windows: number[]
  windowDeny?: string
  /** Managed settings hold a key on this machine. */
  managed?: boolean
  store: Map<string, unknown>
  storeFails: boolean
  asks: { question: string; options: readonly string[] }[]
  answer: string | Error
  toasts: string[]
  statuses: (string | undefined)[]
  runs: (readonly string[])[]
  /** The answer to each `$.process.run`, by argv; the default knows curl and the two key commands. */
  run: (argv: readonly string[]) => Promise<RunResult>
  children: FakeChild[]
  spawned: { argv: readonly string[]; input: string }[]
  sleeps: number[]
  everys: Timer[]
  afters: Timer[]
  clock: number
  disk: FakeFiles
  pluginData: string | undefined
  /** What happened, in order, where order matters (the window before the switch). */
  events: string[]
  /** What `fetchText` finds, by URL (a local server's listing); any other URL rejects. */
  web: Map<string, string>
  /** The tools registered, and the subagents spawned with what the engine answered each. */
  tools: { name: string; description: string; inputSchema?: unknown }[]
  spawns: { prompt: string; description: string }[]
  spawnAnswer: { agentId: string } | { deny: string }
  /** Whether a surface places a pane (the terminal UI), or not (headless). */
  paneOpens: boolean
}

export function defaultRun(argv: readonly string[]): Promise<RunResult> {
  const ok = (stdout: string): Promise<RunResult> => Promise.resolve({ exitCode: 0, stdout, stderr: '' })
  if (argv[1] === '--version') return ok(CURL_VERSION)
  if (argv.join(' ') === '/usr/bin/printenv EXAMPLE_KEY') return ok(`${KEY}\n`)
  if (argv.join(' ') === '/usr/bin/pass show moon') return ok(`${MOON_KEY}\n`)
  return Promise.resolve({ exitCode: 1, stdout: '', stderr: `${argv[0]}: not set up\n` })
}

export function routingWorld(over: Partial<World> = {}, options: Record<string, string | number | boolean> = {}) {
  const w: World = {
    env: { configDir: CONFIG_DIR, home: '/home/me' },
    files: new Map([[CONFIG_PATH, JSON.stringify(CONFIG)]]),
    web: new Map(),
    tools: [],
    spawns: [],
    spawnAnswer: { agentId: 'agent-1' },
    unreadable: new Set(),
    reads: [],
    main: 'claude-opus-5-5',
    windows: [],
    store: new Map(),
    storeFails: false,
    asks: [],
    answer: 'Allow',
    toasts: [],
    statuses: [],
    runs: [],
    run: defaultRun,
    children: [],
    spawned: [],
    sleeps: [],
    everys: [],
    afters: [],
    clock: 1_000_000,
    disk: fakeFiles({}, [PLUGIN_DATA]),
    pluginData: PLUGIN_DATA,
    events: [],
    paneOpens: false,
    ...over,
  }
  const timer = (list: Timer[], ms: number, fn: () => void) => {
    const t = { ms, fn, stopped: false }
    list.push(t)
    return () => void (t.stopped = true)
  }
  const fake = fakePort(PKG, {
    homeFacts: async () => ({ ...w.env }),
    readText: async (path: string) => {
      w.reads.push(path)
      if (w.unreadable.has(path)) throw new Error(`EACCES: permission denied, open '${path}'`)
      return w.files.get(path)
    },
    managed: async () => w.managed === true,
    mainModel: async () => {
      if (w.main instanceof Error) throw w.main
      return w.main
    },
    setUnknownModelWindow: async (tokens: number) => {
      w.events.push(`window ${tokens}`)
      if (w.windowDeny) throw new Error(w.windowDeny)
      w.windows.push(tokens)
    },
    storeGet: async (key: string) => {
      if (w.storeFails) throw new Error('store down')
      return w.store.get(key)
    },
    storeSet: async (key: string, value: unknown) => void w.store.set(key, value),
    ask: async (question: string, options: readonly string[]) => {
      w.asks.push({ question, options })
      w.events.push('ask')
      if (w.answer instanceof Error) throw w.answer
      return w.answer
    },
    toast: (text: string) => void w.toasts.push(text),
    status: (text: string | undefined) => void w.statuses.push(text),
    run: (argv: readonly string[]) => {
      w.runs.push(argv)
      return w.run(argv)
    },
    spawn: (argv: readonly string[], input: string): AsyncGenerator<SpawnPiece, SpawnEnd> => {
      w.spawned.push({ argv, input })
      w.events.push('spawn')
      const child = w.children.shift()
      if (!child) throw new Error('no child scripted')
      return child.gen
    },
    sleep: async (ms: number, signal: AbortSignal) => {
      w.sleeps.push(ms)
      w.events.push(`sleep ${ms}${typeof signal?.aborted === 'boolean' ? ' on the signal' : ''}`)
    },
    every: (ms: number, fn: () => void) => timer(w.everys, ms, fn),
    after: (ms: number, fn: () => void) => timer(w.afters, ms, fn),
    now: async () => w.clock,
    randomBytes: (length: number) => new Uint8Array(length).fill(0xab),
    transcriptPath: async () => '/home/me/.claude/projects/p/session-1.jsonl',
    registerTool: async (spec: { name: string; description: string; inputSchema?: unknown }) => {
      w.tools.push(spec)
      return `mcp__klyth__${spec.name}`
    },
    spawnAgent: async (args: { prompt: string; description: string }) => {
      w.spawns.push(args)
      return w.spawnAnswer
    },
    exists: async (path: string) => w.disk.files.has(path) || path.endsWith('session-1.jsonl'),
    fetchText: async (url: string) => {
      w.events.push(`fetch ${url}`)
      const text = w.web.get(url)
      if (text === undefined) throw new Error(`${url} answered 404`)
      return text
    },
    files: w.disk.edges,
    pluginDataDir: async () => {
      if (!w.pluginData) throw new Error('no plugin data folder')
      return w.pluginData
    },
    openPane: async (pane: { id: string; title: string }) => (w.events.push(`pane open ${w.paneOpens} ${pane.id}: ${pane.title}`), w.paneOpens),
    redraw: () => void w.events.push('redraw'),
    // Every element as its name and props: a tree a test walks.
    elements: () => new Proxy({}, { get: (_, type) => (props: object) => ({ type, props }) }),
  })
  const feature = createRoutingFeature()
  const hooks = hooksOf(feature)
  const ctx = fake.ctx(feature, { routingFile: '', routingCurl: '', routingIdleSeconds: 120, ...options })
  return { w, port: fake.port, lines: fake.lines, feature, hooks, ctx }
}

export type Routing = ReturnType<typeof routingWorld>

/** Approves a provider as `/<pkg> route trust` would: its fingerprint in the store. */
export async function approve(w: World, id: string, path = CONFIG_PATH): Promise<void> {
  const read = readConfig(w.files.get(path))
  if (read.state !== 'loaded' || !read.config.providers[id]) throw new Error(`no provider ${id} in ${path}`)
  w.store.set(trustKey(await providerFingerprint(read.config.providers[id]!)), true)
}

/** The engine's own model request for a loop, as http.fetch carries it. */
export function engineFetch(body: Record<string, unknown>, over: { url?: string; headers?: Record<string, string>; rawBody?: unknown } = {}) {
  return {
    url: over.url ?? 'https://api.anthropic.com/v1/messages?beta=true',
    init: {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', 'x-api-key': '[redacted]', ...over.headers },
      body: 'rawBody' in over ? over.rawBody : JSON.stringify(body),
    },
  }
}

/** The engine's loop request (the fixture) naming `model`. */
export const loopBody = (model = 'gpt-5', over: Record<string, unknown> = {}): Record<string, unknown> => ({ ...JSON.parse(fixture('engine-request.json')), model, ...over })

/** The step's `next`: the engine beneath, its stream made by `beneath`; calls counted. */
export function stepNext(beneath: (e: unknown) => AsyncGenerator<unknown, unknown>, calls: unknown[] = []) {
  const controller = new AbortController()
  return Object.assign(
    (e: unknown) => {
      calls.push(e)
      return beneath(e)
    },
    { signal: controller.signal, budget: { ms: 10_000, remainingMs: 10_000 }, origin: { plugin: 'engine' } },
  )
}

/** http.fetch's `next`: the network, which records what reached it; `origin` is the plugin that made the request (null: none said). */
export function fetchNext(reached: unknown[], origin: string | null = 'engine') {
  return Object.assign(
    async (e: unknown) => {
      reached.push(e)
      return { value: { status: 200, ok: true, headers: {}, text: 'from the network' } }
    },
    { signal: new AbortController().signal, budget: { ms: 10_000, remainingMs: 10_000 }, origin: origin === null ? undefined : { plugin: origin } },
  )
}

/** Reads a hook's stream to its end. */
export async function drain<C, R>(gen: AsyncGenerator<C, R>): Promise<{ chunks: C[]; result: R }> {
  const chunks: C[] = []
  for (;;) {
    const r = await gen.next()
    if (r.done) return { chunks, result: r.value }
    chunks.push(r.value)
  }
}

// ---- The hooks as the registry runs them ----

/** session.start; the engine beneath answers `{ started: true }`. */
export const start = (r: Routing) => r.hooks['session.start']!(r.port, { cwd: '/w', surface: null, isInteractive: false }, fakeNext(() => ({ started: true })), r.ctx)

/** http.fetch with the network beneath; `reached` collects what got through to it. */
export const fetchHook = (r: Routing, e: unknown, reached: unknown[] = [], origin: string | null = 'engine') => r.hooks['http.fetch']!(r.port, e, fetchNext(reached, origin), r.ctx)

export const stepEvent = (model = 'gpt-5', over: Record<string, unknown> = {}) => ({ turnId: 't1', index: 0, model, messageCount: 3, ...over })

/** A turn.step through the feature, the engine beneath made by `beneath`; `calls` gets each `next(e)`. */
export const stepHook = (r: Routing, e: unknown, beneath: (e: unknown) => AsyncGenerator<unknown, unknown>, calls: unknown[] = []) =>
  drain(r.hooks['turn.step']!(r.port, e, stepNext(beneath, calls), r.ctx) as AsyncGenerator<StepChunk, unknown>)

/** The engine's fake response to the captured request, as the step drains it (nothing of it may pass up). */
export const ENGINE_RESULT = { turnId: 't1', index: 0, answer: '.', toolUses: [], stopReason: 'end_turn', usage: null }
/** The engine's own API error for a refused request: one item of its stream (its error row), and no response. */
export const ENGINE_ERROR = { kind: 'engine', ref: 7 }
export const ENGINE_ERROR_RESULT = { turnId: 't1', index: 0, answer: '', toolUses: [], stopReason: null, usage: null }

type FetchAnswer = { deny?: string; value?: { status: number; ok: boolean; headers: Record<string, string>; text: string } }

/** The line an engine request was refused with: a deny's reason, or an error status's message (what the engine shows). */
export function refusal(answer: unknown): string | undefined {
  const a = answer as FetchAnswer
  if (a.deny !== undefined) return a.deny
  return a.value && a.value.status >= 400 ? JSON.parse(a.value.text).error.message : undefined
}

/**
 * The engine beneath a routed step: it sends its own request for the loop through the feature's
 * http.fetch, then streams the answer it got: the fake response, or, refused, its own API error.
 */
export function capturing(r: Routing, body: Record<string, unknown> = loopBody(), headers: Record<string, string> = {}) {
  const answers: unknown[] = []
  const reached: unknown[] = []
  async function* beneath(): AsyncGenerator<unknown, unknown> {
    const answer = await fetchHook(r, engineFetch(body, { headers }), reached)
    answers.push(answer)
    if (refusal(answer) !== undefined) {
      yield ENGINE_ERROR
      return ENGINE_ERROR_RESULT
    }
    yield { kind: 'text', index: 0, text: '.' }
    return ENGINE_RESULT
  }
  return { beneath, answers, reached }
}

/** Waits, a macrotask at a time (the fingerprint's digest settles off the microtask queue), until `ready` holds. */
export async function until(ready: () => boolean, what = 'the condition'): Promise<void> {
  const later = (globalThis as unknown as { setTimeout(fn: () => void, ms: number): unknown }).setTimeout
  for (let i = 0; i < 200 && !ready(); i++) await new Promise<void>((resolve) => later(resolve, 0))
  if (!ready()) throw new Error(`${what} never came`)
}
