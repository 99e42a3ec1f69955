// `npm run bench`: what keel costs, as ratios measured in one run.
//   1. Node: registry dispatch, ns per event through N no-op features vs a direct handler.
//   2. The bundle's size.
//   3. The real engine: the median `settled in` time of a keel package's hooks vs a bare
//      pass-through module hooking the same events, over the same scripted headless session.
import { mkdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { createRuntime } from '../../src/lib/runtime.ts'
import type { Template } from '../../src/lib/activation.ts'
import type { Feature } from '../../src/registry.ts'
import template from '../../plugin.json'
import { fakeNext, fakePort } from '../unit/fakes.ts'
import { hookSettles, loadedModules, repoRoot, runClaude, tmpDir, cleanupTmp, writePlugin } from '../e2e/engine.ts'
import { startMockModel } from '../e2e/mock-model.ts'

const BUNDLE_LIMIT = 150 * 1024
const NODE_LIMIT_NS = 2000
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
    const t: Template = { version: '0', packages: {}, features: Object.fromEntries(names.map((f) => [f, { title: f, description: f, sessionActing: false }])) }
    const rt = createRuntime(features, t, Object.fromEntries(names.map((f) => [f, true])))
    const { port } = fakePort('bench')
    const through = await time(() => rt.dispatch('turn.complete', port, input, engine))
    const overhead = through - direct
    line(`Node: through the registry, ${n} no-op feature(s)`, `${through.toFixed(0)} ns/event (${(through / direct).toFixed(2)}x direct; overhead ${overhead.toFixed(0)} ns, ${(overhead / n).toFixed(0)} ns/feature) ${through < NODE_LIMIT_NS ? 'OK' : 'OVER'} (< ${NODE_LIMIT_NS} ns)`)
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

async function engineSettle(): Promise<void> {
  const mock = await startMockModel()
  const keelDir = join(repoRoot(), 'packages', ENGINE_PACKAGE)
  // Every feature the package carries switched on, so the measure covers the most work it can do.
  const manifest = JSON.parse(readFileSync(join(keelDir, '.claude-plugin/plugin.json'), 'utf8'))
  const options = Object.fromEntries(Object.entries(manifest.userConfig ?? {}).filter(([, f]: [string, any]) => f.type === 'boolean').map(([k]) => [k, true]))
  const settings = { pluginConfigs: { [`${ENGINE_PACKAGE}@inline`]: { options } } }
  const probe = await runClaude({ prompt: 'hello', pluginDirs: [keelDir], mock, settings })
  const events = [...new Set(loadedModules(probe.debugLog).find((m) => m.plugin === ENGINE_PACKAGE)?.events ?? [])]
  const bareDir = join(tmpDir('bare'), 'bare')
  mkdirSync(bareDir, { recursive: true })
  writePlugin(bareDir, 'bare', bareModule(events))
  const samples: Record<'keel' | 'bare', number[]> = { keel: [], bare: [] }
  for (let round = 0; round < ENGINE_ROUNDS; round++) {
    for (const [who, dir, name] of [['keel', keelDir, ENGINE_PACKAGE], ['bare', bareDir, 'bare']] as const) {
      const first = await runClaude({ prompt: 'hello', pluginDirs: [dir], mock, settings })
      const second = await runClaude({ prompt: 'and again', pluginDirs: [dir], mock, settings, home: first.home, cwd: first.cwd, resume: first.sessionId })
      for (const run of [first, second]) {
        samples[who].push(...hookSettles(run.debugLog).filter((s) => s.plugins.length === 1 && s.plugins[0] === name).map((s) => s.ms))
      }
    }
  }
  await mock.close()
  cleanupTmp()
  const k = median(samples.keel)
  const b = median(samples.bare)
  line(`Engine: median hook settle, ${ENGINE_PACKAGE} (${samples.keel.length} hooks)`, `${k.toFixed(2)} ms`)
  line(`Engine: median hook settle, bare pass-through (${samples.bare.length} hooks)`, `${b.toFixed(2)} ms`)
  line(`Engine: ${ENGINE_PACKAGE} / bare`, `${(k / b).toFixed(3)}x ${k / b <= ENGINE_LIMIT ? 'OK' : 'OVER'} (<= ${ENGINE_LIMIT}x); events: ${events.join(', ')}`)
}

console.log(`keel bench (${new Date().toISOString()}, node ${process.version})`)
await nodeDispatch()
bundleSize()
await engineSettle()
