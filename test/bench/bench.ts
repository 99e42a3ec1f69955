// `npm run bench`: what keel costs, as ratios measured in one run.
//   1. Node: registry dispatch, ns per event through N no-op features vs a direct handler.
//   2. The bundle's size.
//   3. The real engine: the median `settled in` time of a keel package's hooks vs a bare
//      pass-through module hooking the same events, over the same scripted headless session.
import { mkdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { createRuntime } from '../../src/runtime/runtime.ts'
import type { Template } from '../../src/runtime/activation.ts'
import type { Feature } from '../../src/registry.ts'
import { fakeNext, fakePort } from '../unit/fakes.ts'
import { hookSettles, loadedModules, repoRoot, runClaude, tmpDir, cleanupTmp, writePlugin } from '../e2e/engine.ts'
import { startMockModel, type MockModel } from '../e2e/mock-model.ts'
import { captionModelCallsPer100ToolCalls } from './captions.ts'

const BUNDLE_LIMIT = 150 * 1024
const NODE_LIMIT_NS = 2000
const STREAM_LIMIT_NS = 5000
const ENGINE_LIMIT = 1.05
const ENGINE_PACKAGE = process.env.BENCH_PACKAGE ?? 'keel'
const ENGINE_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6)

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length ? (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2 : NaN }
const line = (label: string, value: string) => console.log(`${label.padEnd(58)} ${value}`)

async function nodeDispatch(): Promise<void> {
  const EVENTS = 200_000
  const input = { answer: 'a', durationMs: 1, isAborted: false, turnId: 't', reason: 'answer' } as never
  const engine = fakeNext(() => ({ text: 'x' }))
  const time = async (run: () => Promise<unknown>) => {
    for (let i = 0; i < 20_000; i++) await run() // warm up
    const started = process.hrtime.bigint()
    for (let i = 0; i < EVENTS; i++) await run()
    return Number(process.hrtime.bigint() - started) / EVENTS
  }
  const direct = await time(() => (engine as (e: never) => Promise<unknown>)(input))
  line('Node: direct handler', `${direct.toFixed(0)} ns/event`)
  for (const n of [1, 4, 8]) {
    const names = Array.from({ length: n }, (_, i) => `f${i}`)
    const features: Feature[] = names.map((name) => ({ name, sessionActing: false, hooks: { 'turn.complete': (_p, e, next) => next(e) } }))
    const t: Template = { version: '0', packages: {}, features: Object.fromEntries(names.map((f) => [f, { sessionActing: false }])) }
    const rt = createRuntime(features.map((f) => () => f), t, Object.fromEntries(names.map((f) => [f, 'on'])))
    const { port } = fakePort('bench')
    rt.bind(port, {})
    const through = await time(() => rt.dispatch('turn.complete', input, engine))
    const overhead = through - direct
    line(`Node: through the registry, ${n} no-op feature(s)`, `${through.toFixed(0)} ns/event (${(through / direct).toFixed(2)}x direct; overhead ${overhead.toFixed(0)} ns, ${(overhead / n).toFixed(0)} ns/feature) ${through < NODE_LIMIT_NS ? 'OK' : 'OVER'} (< ${NODE_LIMIT_NS} ns)`)
  }
}

/** The stream chain's cost per chunk: a 1000-chunk step through N pass-through `async function*` features vs the engine's stream alone. */
async function nodeStream(): Promise<void> {
  const CHUNKS = 1000
  const STEPS = 300
  const step = { turnId: 't', index: 0, model: 'm', messageCount: 1 } as never
  const result = { turnId: 't', index: 0, answer: '', toolUses: [], stopReason: 'end_turn', usage: {} }
  const chunk = { kind: 'text', index: 0, text: 'x' }
  const engine = Object.assign(() => (async function* () { for (let i = 0; i < CHUNKS; i++) yield chunk; return result })(), { signal: new AbortController().signal, budget: { ms: 1e4, remainingMs: 1e4 } }) as never
  const drain = async (g: AsyncGenerator<unknown, unknown>) => { for (let r = await g.next(); !r.done; r = await g.next()); }
  const time = async (make: () => AsyncGenerator<unknown, unknown>) => {
    for (let i = 0; i < 30; i++) await drain(make())
    const started = process.hrtime.bigint()
    for (let i = 0; i < STEPS; i++) await drain(make())
    return Number(process.hrtime.bigint() - started) / (STEPS * CHUNKS)
  }
  const direct = await time(() => (engine as () => AsyncGenerator<unknown, unknown>)())
  line('Node: the engine\'s stream alone', `${direct.toFixed(0)} ns/chunk`)
  for (const n of [1, 4]) {
    const names = Array.from({ length: n }, (_, i) => `s${i}`)
    const features: Feature[] = names.map((name) => ({ name, sessionActing: false, hooks: { 'turn.step': async function* (_p, e, next) { return yield* next(e) } } }))
    const t: Template = { version: '0', packages: {}, features: Object.fromEntries(names.map((f) => [f, { sessionActing: false }])) }
    const rt = createRuntime(features.map((f) => () => f), t, Object.fromEntries(names.map((f) => [f, 'on'])))
    rt.bind(fakePort('bench').port, {})
    const through = await time(() => rt.stream('turn.step', step, engine))
    const overhead = through - direct
    line(`Node: a stream through ${n} pass-through feature(s)`, `${through.toFixed(0)} ns/chunk (overhead ${overhead.toFixed(0)} ns/chunk) ${overhead < STREAM_LIMIT_NS ? 'OK' : 'OVER'} (< ${STREAM_LIMIT_NS} ns through 4)`)
  }
}

function bundleSize(): void {
  const size = statSync(join(repoRoot(), 'dist/hooks.js')).size
  line('Bundle: dist/hooks.js', `${(size / 1024).toFixed(1)} kB (${(size / BUNDLE_LIMIT).toFixed(2)}x the ${BUNDLE_LIMIT / 1024} kB budget) ${size <= BUNDLE_LIMIT ? 'OK' : 'OVER'}`)
}

/** A module hooking `events` with pass-throughs: what the engine costs without keel's work. */
function bareModule(events: string[]): string {
  return `export function register(on) {\n${events.map((e) => `  on(${JSON.stringify(e)}, ($, e, next) => next(e))`).join('\n')}\n}\n`
}

/** Events raised once per engine process (a headless run is one process): reported apart from the per-turn hooks. */
const ONCE_PER_PROCESS = new Set(['session.start', 'session.end'])
type Samples = Record<string, number[]>

/** One configuration of the package against a bare module hooking the same events, alternating runs. */
async function engineSettle(mock: MockModel, label: string, optionsOf: (manifest: any) => Record<string, string> | undefined): Promise<void> {
  const dir = join(repoRoot(), 'packages', ENGINE_PACKAGE)
  const manifest = JSON.parse(readFileSync(join(dir, '.claude-plugin/plugin.json'), 'utf8'))
  const options = optionsOf(manifest)
  const settings = options ? { pluginConfigs: { [`${ENGINE_PACKAGE}@inline`]: { options } } } : {}
  const probe = await runClaude({ prompt: 'hello', pluginDirs: [dir], mock, settings })
  const events = [...new Set(loadedModules(probe.debugLog).find((m) => m.plugin === ENGINE_PACKAGE)?.events ?? [])]
  const bareDir = join(tmpDir('bare'), 'bare')
  mkdirSync(bareDir, { recursive: true })
  writePlugin(bareDir, 'bare', bareModule(events))
  const samples: Record<'keel' | 'bare', Samples> = { keel: {}, bare: {} }
  for (let round = 0; round < ENGINE_ROUNDS; round++) {
    for (const [who, pluginDir, name] of [['keel', dir, ENGINE_PACKAGE], ['bare', bareDir, 'bare']] as const) {
      const first = await runClaude({ prompt: 'hello', pluginDirs: [pluginDir], mock, settings })
      const second = await runClaude({ prompt: 'and again', pluginDirs: [pluginDir], mock, settings, home: first.home, cwd: first.cwd, resume: first.sessionId })
      for (const run of [first, second]) {
        for (const settle of hookSettles(run.debugLog).filter((h) => h.plugins.length === 1 && h.plugins[0] === name)) {
          ;(samples[who][settle.event] ??= []).push(settle.ms)
        }
      }
    }
  }
  // The headline: the geometric mean over the per-turn events of each event's median ratio. A median
  // over every settle mixes events an order of magnitude apart (turn.start waits on the model).
  const perTurnEvents = Object.keys(samples.keel).filter((event) => !ONCE_PER_PROCESS.has(event))
  const ratios = perTurnEvents.map((event) => median(samples.keel[event]!) / median(samples.bare[event] ?? []))
  const geomean = Math.exp(ratios.reduce((sum, r) => sum + Math.log(r), 0) / ratios.length)
  console.log(`\nEngine: ${ENGINE_PACKAGE} ${label} (${ENGINE_ROUNDS} rounds of a two-turn session, alternating with a bare pass-through module on the same events)`)
  if (perTurnEvents.length === 0) line('  per-turn hooks', 'none registered: no per-turn event costs anything')
  else line(`  per-turn hooks (${perTurnEvents.join(', ')})`, `${geomean.toFixed(3)}x the bare module (geometric mean of the per-event median ratios) ${geomean <= ENGINE_LIMIT ? 'OK' : 'OVER'} (<= ${ENGINE_LIMIT}x)`)
  for (const event of Object.keys(samples.keel)) {
    const [ke, be] = [median(samples.keel[event]!), median(samples.bare[event] ?? [])]
    line(`  ${event}${ONCE_PER_PROCESS.has(event) ? ' (once per process)' : ''}, ${samples.keel[event]!.length} settles`, `${ke.toFixed(2)} ms vs ${be.toFixed(2)} ms (${(ke / be).toFixed(2)}x)`)
  }
}

/** Every feature switch (an on/off picker) set to one value. */
const allSwitches = (value: boolean) => (manifest: any) =>
  Object.fromEntries(Object.entries(manifest.userConfig ?? {}).filter(([, f]: [string, any]) => Array.isArray(f.options) && f.options.includes('on') && f.options.includes('off')).map(([k]) => [k, value ? 'on' : 'off']))

console.log(`keel bench (${new Date().toISOString()}, node ${process.version})`)
await nodeDispatch()
await nodeStream()
bundleSize()
line('Captions: model calls per 100 tool calls (scripted session)', `${(await captionModelCallsPer100ToolCalls()).toFixed(0)} (captioning each call alone: 100)`)
const mock = await startMockModel()
try {
  await engineSettle(mock, 'with every feature off (the registry and runtime alone)', allSwitches(false))
  await engineSettle(mock, 'as installed (default options)', () => undefined)
  await engineSettle(mock, 'with every feature on', allSwitches(true))
} finally {
  await mock.close()
  cleanupTmp()
}
