// `npm run bench`: what keel costs, as ratios measured in one run.
//   1. Node: registry dispatch, ns per event through N no-op features vs a direct handler.
//   2. The bundle's size.
//   3. The real engine: the median `settled in` time of a keel package's hooks vs a bare
//      pass-through module hooking the same events, over the same scripted headless session (settle.ts).
//   4. Routing (routing.ts): time to first token and stream time through keel (klyth) vs claude-code-router
//      and the engine straight to the provider; a tool-call and subagent probe; klyth's hooks on a native session.
import { statSync } from 'node:fs'
import { join } from 'node:path'
import { createRuntime } from '../../src/runtime/runtime.ts'
import type { Template } from '../../src/runtime/activation.ts'
import type { Feature } from '../../src/registry.ts'
import { fakeNext, fakePort } from '../unit/fakes.ts'
import { repoRoot, cleanupTmp } from '../e2e/engine.ts'
import { startMockModel } from '../e2e/mock-model.ts'
import { captionModelCallsPer100ToolCalls } from './captions.ts'
import { routingBench } from './routing.ts'
import { engineSettle } from './settle.ts'

/**
 * The bundle's size budget. What a person feels is the start: the engine's loader checks the whole
 * module on every start, about 1.8 ms of wall time per kB of code (test/bench/FINDINGS.md; text and
 * comments are nearly free, minifying does not help), and every package carries the whole bundle. With
 * all eight features (routing, manual and mailbox added) it is about 360 kB, so the budget is 400 kB:
 * past it the check alone would add about 0.7 s to each `claude` start. whole.ts measures the start
 * itself (session.start and the whole process against a bare module); this line keeps the size in
 * sight between those runs.
 */
const BUNDLE_LIMIT = 400 * 1024
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
  line('Bundle: dist/hooks.js', `${(size / 1024).toFixed(1)} kB (${(size / BUNDLE_LIMIT).toFixed(2)}x the ${BUNDLE_LIMIT / 1024} kB budget; the start's cost: whole.ts below) ${size <= BUNDLE_LIMIT ? 'OK' : 'OVER'}`)
}

/** Every feature switch (an on/off picker) set to one value. */
const allSwitches = (value: boolean) => (manifest: any) =>
  Object.fromEntries(Object.entries(manifest.userConfig ?? {}).filter(([, f]: [string, any]) => Array.isArray(f.options) && f.options.includes('on') && f.options.includes('off')).map(([k]) => [k, value ? 'on' : 'off']))

console.log(`keel bench (${new Date().toISOString()}, node ${process.version})`)
await nodeDispatch()
await nodeStream()
bundleSize()
// BENCH_NODE_ONLY=1: the Node measures and the bundle only (a quick check of the registry's cost).
if (process.env.BENCH_NODE_ONLY === '1') process.exit(0)
line('Captions: model calls per 100 tool calls (scripted session)', `${(await captionModelCallsPer100ToolCalls()).toFixed(0)} (captioning each call alone: 100)`)
const mock = await startMockModel()
try {
  const settle = { mock, pkg: ENGINE_PACKAGE, rounds: ENGINE_ROUNDS }
  await engineSettle({ ...settle, label: 'with every feature off (the registry and runtime alone)', optionsOf: allSwitches(false) })
  await engineSettle({ ...settle, label: 'as installed (default options)', optionsOf: () => undefined })
  await engineSettle({ ...settle, label: 'with every feature on', optionsOf: allSwitches(true) })
  // BENCH_ROUTING=0 leaves the routing bench out (it needs curl and claude-code-router).
  if (process.env.BENCH_ROUTING !== '0') await routingBench(mock)
} finally {
  await mock.close()
  cleanupTmp()
}
