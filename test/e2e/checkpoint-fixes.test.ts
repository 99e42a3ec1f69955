// Checkpoint fixes proven in the real engine (issue: fixes found when the features were tried as a
// new user would): the "NOT saved" line reaches the person alone; a one-shot -p skip record names the
// harness's trigger; the status after --resume reads the session's skip record.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { byKind, startMockModel, type MockModel } from './mock-model.ts'
import { cleanupTmp, debugLines, findFiles, repoRoot, runClaude, tmpDir, writePlugin, type RunResult } from './engine.ts'
import { startLive, type LiveSession } from './live.ts'

const PKG = 'superheroes'
const plugin = () => join(repoRoot(), 'packages', PKG)
const NOT_SAVED = 'Checkpoint notes NOT saved: the previous notes are still in place'

let mock: MockModel | undefined
let live: LiveSession | undefined
test.after.each(async () => {
  await live?.stop()
  await mock?.close()
  live = undefined
  mock = undefined
})
test.after(() => cleanupTmp())

function ok(r: RunResult): void {
  assert.ok(!r.timedOut && r.code === 0, `engine exit ${r.code} (timedOut=${r.timedOut})\nstderr: ${r.stderr}\nstdout: ${r.stdout}`)
}

/** The engine's informational rows in a stream-json output: where it shows a changed turn text. */
function notices(out: string): string[] {
  return out.split('\n').flatMap((line) => {
    try {
      const row = JSON.parse(line)
      return row.type === 'system' && row.subtype === 'informational' ? [String(row.content)] : []
    } catch {
      return []
    }
  })
}

test('a failed save: the engine shows the "NOT saved" line alone under the long answer, whole', async () => {
  // An answer of 20 kB ending with a block over the 256 KiB cap: the save fails.
  const answer = `${'Long work log line.\n'.repeat(1000)}\n\`\`\`${PKG}-checkpoint\n${'n'.repeat(300 * 1024)}\n\`\`\`\n`
  mock = await startMockModel(byKind({ main: { text: answer } }))
  live = await startLive({ mode: 'stream-json', pluginDirs: [plugin()], mock })
  await live.send('work')
  const shown = await live.waitFor('the notice under the answer', () => notices(live!.output()).find((n) => n.startsWith(`${PKG}: `)))
  assert.is(shown, `${PKG}: ${NOT_SAVED}`)
  assert.ok(debugLines(live.debugLog(), PKG).some((l) => l.includes('over the notes cap')))
})

// The harness compacts this session at its window less its own margin; the trigger is that less
// the 20000 allowance, below the 150000 option: the record must say so.
const PROBE = `export function register(on) {
  on('session.measure', async ($, e, next) => {
    const b = (await $.session.usage({ breakdown: 'summary' })).context.breakdown
    $.ui.log('harness ' + JSON.stringify({ at: b.autoCompactThreshold, on: b.isAutoCompactEnabled }), { to: 'debug' })
    return next(e)
  })
}
`

test('a one-shot -p run past the trigger: the skip record names the harness trigger, and a --resume status reads it', async () => {
  mock = await startMockModel(byKind({ main: { text: 'big', inputTokens: 160_000 } }))
  const env = { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '200000' }
  const r = await runClaude({ prompt: 'fill the context', pluginDirs: [plugin(), writePlugin(tmpDir('probe'), 'probe', PROBE)], mock, env })
  ok(r)
  const harness = debugLines(r.debugLog, 'probe').map((l) => JSON.parse(l.slice('harness '.length)) as { at: number; on: boolean })[0]
  assert.ok(harness?.on && harness.at < 170_000, `the harness compacts below 170000 here: ${JSON.stringify(harness)}`)
  const skips = findFiles(r.home, '.skip')
  assert.is(skips.length, 1, debugLines(r.debugLog, PKG).join('\n'))
  const record = JSON.parse(readFileSync(skips[0]!, 'utf8'))
  assert.is(record.trigger, harness!.at - 20_000, 'the trigger is the harness threshold less the allowance, not the option')
  assert.is(record.reason, 'headless')

  mock.setScript(byKind({ main: { text: 'ok' } }))
  const status = await runClaude({ prompt: `/${PKG} status`, pluginDirs: [plugin()], mock, home: r.home, cwd: r.cwd, resume: r.sessionId, env })
  ok(status)
  assert.match(String(status.json?.result), new RegExp(`last skip: headless:past at ${record.at.replace(/[.]/g, '\\.')}`), String(status.json?.result))
})

test.run()
