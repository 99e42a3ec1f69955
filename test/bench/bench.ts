// `npm run bench`: what keel costs, as ratios measured in one run.
//   1. Node: registry dispatch, ns per event through N no-op features vs a direct handler.
//   2. The bundle's syntax-tree nodes (what the engine's loader scales with), by feature, and the
//      loader's time on it against a bare module (the debug-log gap).
//   3. The real engine: the median `settled in` time of a keel package's hooks vs a bare
//      pass-through module hooking the same events, over the same scripted headless session (settle.ts).
//   4. Routing (routing.ts): time to first token and stream time through keel (klyth) vs claude-code-router
//      and the engine straight to the provider; a tool-call and subagent probe; klyth's hooks on a native session.
import { createRuntime } from '../../src/runtime/runtime.ts'
import type { Template } from '../../src/runtime/activation.ts'
import type { Feature } from '../../src/registry.ts'
import { fakeNext, fakePort } from '../unit/fakes.ts'
import { cleanupTmp } from '../e2e/engine.ts'
import { startMockModel } from '../e2e/mock-model.ts'
import { captionModelCallsPer100ToolCalls } from './captions.ts'
import { routingBench } from './routing.ts'
import { engineSettle } from './settle.ts'
import { bundleNodeCounts, NODE_BUDGET, NODE_LIMIT } from '../tools/nodes.mjs'
import { loaderGap } from './loader.ts'

const NODE_LIMIT_NS = 2000
const STREAM_LIMIT_NS = 5000
const ENGINE_PACKAGE = process.env.BENCH_PACKAGE ?? 'keel'
const ENGINE_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6)

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
    const t: Template = { version: '0', packages: {}, features: Object.fromEntries(names.map((f) => [f, {}])) }
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
    const t: Template = { version: '0', packages: {}, features: Object.fromEntries(names.map((f) => [f, {}])) }
    const rt = createRuntime(features.map((f) => () => f), t, Object.fromEntries(names.map((f) => [f, 'on'])))
    rt.bind(fakePort('bench').port, {})
    const through = await time(() => rt.stream('turn.step', step, engine))
    const overhead = through - direct
    line(`Node: a stream through ${n} pass-through feature(s)`, `${through.toFixed(0)} ns/chunk (overhead ${overhead.toFixed(0)} ns/chunk) ${overhead < STREAM_LIMIT_NS ? 'OK' : 'OVER'} (< ${STREAM_LIMIT_NS} ns through 4)`)
  }
}

/** The bundle's nodes and each group's share; then what the engine's loader spends on them at a start. */
async function bundleNodes(withLoader: boolean): Promise<void> {
  const { total, byGroup } = bundleNodeCounts()
  const verdict = total <= NODE_BUDGET ? 'OK' : total <= NODE_LIMIT ? `OVER the ${NODE_BUDGET} budget` : `OVER the ${NODE_LIMIT} limit`
  line('Bundle: dist/hooks.js syntax-tree nodes', `${total} (budget ${NODE_BUDGET}, limit ${NODE_LIMIT}) ${verdict}`)
  const shares = Object.entries(byGroup).sort((a, b) => b[1] - a[1]).map(([group, n]) => `${group} ${((100 * n) / total).toFixed(1)}%`)
  line('Bundle: by feature', shares.join(', '))
  if (!withLoader) return
  const gap = await loaderGap()
  line('Bundle: the loader at a start (debug-log gap, medians)', `keel ${gap.keel.toFixed(0)} ms vs a bare module ${gap.bare.toFixed(0)} ms (+${(gap.keel - gap.bare).toFixed(0)} ms: ${((gap.keel - gap.bare) / (total / 1000)).toFixed(1)} ms per 1,000 nodes; ${gap.rounds} alternating runs)`)
}

/** Every feature switch (an on/off picker) set to one value. */
const allSwitches = (value: boolean) => (manifest: any) =>
  Object.fromEntries(Object.entries(manifest.userConfig ?? {}).filter(([, f]: [string, any]) => Array.isArray(f.options) && f.options.includes('on') && f.options.includes('off')).map(([k]) => [k, value ? 'on' : 'off']))

console.log(`keel bench (${new Date().toISOString()}, node ${process.version})`)
// BENCH_SETTLE=off,installed,on: only those engine settle configurations, nothing else (a quick per-turn check).
const only = process.env.BENCH_SETTLE?.split(',')
if (!only) {
  await nodeDispatch()
  await nodeStream()
  // BENCH_NODE_ONLY=1: the Node measures and the bundle's count only (a quick check of the registry's cost).
  await bundleNodes(process.env.BENCH_NODE_ONLY !== '1')
  if (process.env.BENCH_NODE_ONLY === '1') process.exit(0)
  line('Captions: model calls per 100 tool calls (scripted session)', `${(await captionModelCallsPer100ToolCalls()).toFixed(0)} (captioning each call alone: 100)`)
}
const mock = await startMockModel()
try {
  const settle = { mock, pkg: ENGINE_PACKAGE, rounds: ENGINE_ROUNDS }
  const configurations = [
    ['off', 'with every feature off (the registry and runtime alone)', allSwitches(false)],
    ['installed', 'as installed (default options)', () => undefined],
    ['on', 'with every feature on', allSwitches(true)],
  ] as const
  for (const [key, label, optionsOf] of configurations) if (!only || only.includes(key)) await engineSettle({ ...settle, label, optionsOf })
  // BENCH_ROUTING=0 leaves the routing bench out (it needs curl and claude-code-router).
  if (!only && process.env.BENCH_ROUTING !== '0') await routingBench(mock)
} finally {
  await mock.close()
  cleanupTmp()
}
