// Does deferred work hold the next hook? A plain module hooking the per-turn events, pass-through, vs the
// same with one `$` read started in a hook (unawaited) or from `$.clock.after(0)`: each event's median settle.
//   PROBE_ROUNDS=4 node --import ./test/tools/ts-loader.mjs test/bench/probe-defer.ts
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { cleanupTmp, hookSettles, runClaude, tmpDir, writePlugin } from '../e2e/engine.ts'
import { startMockModel } from '../e2e/mock-model.ts'

const READ = `$.session.usage({ breakdown: 'summary' }).catch(() => {})`
const STORE = `(async () => { for (let i = 0; i < 4; i++) await $.store.set('k' + i, { i, at: Date.now() }) })().catch(() => {})`
const pass = (e: string) => `  on('${e}', ($, e, next) => next(e))`
const variants: Record<string, Record<string, string>> = {
  pass: {},
  'measure: read in the hook': { 'session.measure': `  on('session.measure', ($, e, next) => { ${READ}; return next(e) })` },
  'measure: read after(0)': { 'session.measure': `  on('session.measure', ($, e, next) => { $.clock.after(0, () => { ${READ} }); return next(e) })` },
  'measure: read after next': { 'session.measure': `  on('session.measure', async ($, e, next) => { const r = await next(e); ${READ}; return r })` },
  'turn.start: read after(0)': { 'turn.start': `  on('turn.start', ($, e, next) => { $.clock.after(0, () => { ${READ} }); return next(e) })` },
  'turn.start: 4 store writes after(0)': { 'turn.start': `  on('turn.start', ($, e, next) => { $.clock.after(0, () => { ${STORE} }); return next(e) })` },
}
const EVENTS = ['turn.start', 'prompt.compose', 'http.fetch', 'turn.complete', 'session.measure']
const moduleOf = (v: Record<string, string>) => `export function register(on) {\n${EVENTS.map((e) => v[e] ?? pass(e)).join('\n')}\n}\n`
const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length ? (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2 : NaN }

const mock = await startMockModel()
try {
  const dirs = Object.entries(variants).map(([name, v]) => {
    const dir = join(tmpDir('probe'), 'p')
    mkdirSync(dir, { recursive: true })
    writePlugin(dir, 'p', moduleOf(v))
    return [name, dir] as const
  })
  const samples: Record<string, Record<string, number[]>> = {}
  const rounds = Number(process.env.PROBE_ROUNDS ?? 4)
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? [...dirs].reverse() : dirs
    for (const [name, dir] of order) {
      const first = await runClaude({ prompt: 'hello', pluginDirs: [dir], mock })
      const second = await runClaude({ prompt: 'and again', pluginDirs: [dir], mock, home: first.home, cwd: first.cwd, resume: first.sessionId })
      for (const run of [first, second]) for (const s of hookSettles(run.debugLog).filter((h) => h.plugins[0] === 'p')) ((samples[name] ??= {})[s.event] ??= []).push(s.ms)
    }
  }
  console.log(`${'variant'.padEnd(38)} ${EVENTS.map((e) => e.padStart(16)).join('')}`)
  for (const [name] of dirs) console.log(`${name.padEnd(38)} ${EVENTS.map((e) => `${median(samples[name]?.[e] ?? []).toFixed(1)} (${samples[name]?.[e]?.length ?? 0})`.padStart(16)).join('')}`)
} finally {
  await mock.close()
  cleanupTmp()
}
