// Where can a turn's summary usage read be made off the hooks' path and still be answered in print mode? A plain
// module reads `$.session.usage({ breakdown: 'summary' })` from a `$.clock.after(0)` timer set in session.measure,
// or in the session.end hook; each `-p` process logs whether the read came back with a breakdown. (Measured
// 2026-12-02, two runs: the timer read was not answered in 4 and 2 of 12 processes, the session.end read had no
// breakdown in 12 of 12 both times: the session is unbound there. So checkpoint's read stays started in its measure hook and reconnect shares it: FINDINGS.md.)
//   PROBE_ROUNDS=6 node --import ./test/tools/ts-loader.mjs test/bench/probe-endread.ts
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { cleanupTmp, runClaude, tmpDir, writePlugin } from '../e2e/engine.ts'
import { startMockModel } from '../e2e/mock-model.ts'

const READ = `$.session.usage({ breakdown: 'summary' }).then((u) => 'read: ' + (u.context.breakdown ? 'breakdown' : 'no breakdown'), (err) => 'read failed: ' + err.message).then((r) => $.ui.log('PROBE ' + r, { to: 'debug' }))`
const variants: Record<string, string> = {
  'measure: read from after(0)': `  on('session.measure', ($, e, next) => { $.clock.after(0, () => { ${READ} }); return next(e) })`,
  'session.end: read in the hook': `  on('session.end', async ($, e, next) => { await ${READ}; return next(e) })`,
}
const rounds = Number(process.env.PROBE_ROUNDS ?? 6)

const mock = await startMockModel()
try {
  for (const [name, hook] of Object.entries(variants)) {
    const dir = join(tmpDir('probe'), 'p')
    mkdirSync(dir, { recursive: true })
    writePlugin(dir, 'p', `export function register(on) {\n${hook}\n}\n`)
    const answers: string[] = []
    for (let i = 0; i < rounds; i++) {
      const first = await runClaude({ prompt: 'hello', pluginDirs: [dir], mock })
      const second = await runClaude({ prompt: 'and again', pluginDirs: [dir], mock, home: first.home, cwd: first.cwd, resume: first.sessionId })
      for (const run of [first, second]) answers.push(/PROBE (.*)/.exec(run.debugLog)?.[1] ?? 'never logged')
    }
    const counts = answers.reduce<Record<string, number>>((n, a) => ({ ...n, [a]: (n[a] ?? 0) + 1 }), {})
    console.log(`${name}: ${Object.entries(counts).map(([a, n]) => `${a} ${n}`).join(', ')} (of ${answers.length} processes)`)
  }
} finally {
  await mock.close()
  cleanupTmp()
}
