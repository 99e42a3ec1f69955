// Measurements for the checkpoint feature's notes (NOTES.md), on engine 2.1.328 headless: whether
// `$.session.compact()` works in a `-p` session, and what the harness does with a precompute.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { startMockModel, byKind, type MockModel } from './mock-model.ts'
import { runClaude, writePlugin, tmpDir, cleanupTmp, debugLines } from './engine.ts'

// Logs every session.compact it sees, and calls $.session.compact() from session.measure.
const PROBE = `export function register(on) {
  on('session.compact', async ($, e, next) => {
    $.ui.log('compact hook trigger=' + e.trigger + (e.agentId ? ' agent' : ''), { to: 'debug' })
    const r = await next(e)
    $.ui.log('compact hook settled ' + ('skip' in r && r.skip !== undefined ? 'skip ' + r.skip : 'compacted'), { to: 'debug' })
    return r
  })
  on('session.measure', async ($, e, next) => {
    try {
      const r = await $.session.compact()
      $.ui.log('plugin compact resolved ' + JSON.stringify(r.skip === undefined ? 'compacted' : { skip: r.skip }), { to: 'debug' })
    } catch (err) {
      $.ui.log('plugin compact rejected ' + String(err), { to: 'debug' })
    }
    return next(e)
  })
}
`

let mock: MockModel | undefined
test.after.each(async () => { await mock?.close(); mock = undefined })
test.after(() => cleanupTmp())

test('$.session.compact() in a headless session', async () => {
  mock = await startMockModel()
  const r = await runClaude({ prompt: 'hello', pluginDirs: [writePlugin(tmpDir('probe'), 'probe', PROBE)], mock })
  const lines = debugLines(r.debugLog, 'probe')
  // Measured: it rejects, naming `/compact` as the way; nothing is compacted and no hook hears it.
  assert.equal(lines.filter((l) => l.startsWith('plugin compact ')).map((l) => /^plugin compact rejected .*not available in a headless \(-p \/ SDK\) session/.test(l)), [true], lines.join('\n'))
  assert.not.ok(lines.some((l) => l.startsWith('compact hook')))
  assert.equal(mock.messages().map((m) => m.kind), ['main'])
})

for (const fill of [900_000, 960_000]) {
  test(`precompute: none is raised headless at a fill of ${fill} (auto-compact at 967000)`, async () => {
    mock = await startMockModel(byKind({ main: { text: 'big', inputTokens: fill } }))
    const quiet = writePlugin(tmpDir('probe'), 'probe', PROBE.replace(/  on\('session.measure'[\s\S]*?\n  \}\)\n/, ''))
    const t1 = await runClaude({ prompt: 'one', pluginDirs: [quiet], mock })
    const t2 = await runClaude({ prompt: 'two', pluginDirs: [quiet], mock, home: t1.home, cwd: t1.cwd, resume: t1.sessionId })
    const lines = [...debugLines(t1.debugLog, 'probe'), ...debugLines(t2.debugLog, 'probe')]
    assert.ok(t1.debugLog.includes('events: session.compact'), 'the probe hooks session.compact only')
    assert.equal(lines, [], 'no session.compact at all, precompute included')
    assert.equal(mock.messages().map((m) => m.kind), ['main', 'main'])
  })
}

test.run()
