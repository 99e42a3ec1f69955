// Mailbox engine facts, part 4 (src/features/mailbox/NOTES.md, question 4): mail to an interactive session
// (the terminal UI in a pseudo-terminal) that waits on a permission dialog for a Bash call
// (`--permission-mode default`, no --allowedTools; the UI's own default here is auto mode, which asks no one).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { randomUUID } from 'node:crypto'
import { cleanupTmp, debugLines, tmpDir, writePlugin } from './engine.ts'
import { hasPty, startLive, type LiveSession } from './live.ts'
import { requestText } from './mock-model.ts'
import { DO, PROBE, probe, probeScript, sleep, startStampedMock, type StampedMock } from './multi.ts'

let mock: StampedMock | undefined
const running: LiveSession[] = []
test.after.each(async () => {
  for (const s of running.splice(0)) await s.stop()
  await mock?.close()
  mock = undefined
})
test.after(() => cleanupTmp())

const ENV = { ENABLE_TOOL_SEARCH: 'false' }
/** The terminal's text with escapes and spacing dropped (the UI places words with cursor moves). */
const screen = (s: LiveSession) => s.output().replace(/\x1b\[[0-9;?>]*[a-zA-Z]/g, '').replace(/\x1b\][^\x07]*\x07/g, '').replace(/\s+/g, '')

for (const [answer, key] of [['approved', '\r'], ['refused', '\x1b']] as const) {
  test(`tui, permission dialog open: the mail is received at once and held; dialog ${answer}: ${answer === 'approved' ? 'joined at that tool boundary, same turn' : 'the turn ends, the mail starts a new one'}`, async () => {
    if (!hasPty()) throw new Error('this test needs util-linux `script` for a pseudo-terminal')
    mock = await startStampedMock(probeScript())
    const home = tmpDir('home')
    const plug = writePlugin(tmpDir('probe'), 'probe', PROBE)
    const sidB = randomUUID()
    const A = await startLive({ mode: 'stream-json', home, pluginDirs: [plug], mock, env: ENV })
    running.push(A)
    const B = await startLive({ mode: 'tui', home, pluginDirs: [plug], mock, env: ENV, extraArgs: ['--session-id', sidB, '--name', 'keel-T', '--permission-mode', 'default'] })
    running.push(B)
    await A.waitFor('A started', () => probe(A.debugLog(), 'REG-SEEN').length)
    await B.send('DO-BASH touch perm-probe.txt')
    await B.waitFor('the permission dialog', () => screen(B).includes('Doyouwanttoproceed?'), 30_000)
    await A.send(DO({ op: 'send', to: 'keel-T', text: 'DURING-DIALOG' }))
    await A.waitFor('the send', () => probe(A.debugLog(), 'SEND').length)
    const [sent] = probe(A.debugLog(), 'SEND')
    assert.equal(sent.value, { isDelivered: true })
    await B.waitFor('B to receive', () => probe(B.debugLog(), 'RECEIVE').length)
    await sleep(2500)
    // Held while the dialog is open: no submit, no request.
    assert.equal(probe(B.debugLog(), 'PSUBMIT').filter((p) => p.origin.kind === 'peer'), [])
    assert.is(mock.of(sidB, 'main').length, 1)
    const answeredAt = Date.now()
    B.write(key)
    await B.waitFor('B\'s turns to end', () => probe(B.debugLog(), 'TDONE').length >= (answer === 'approved' ? 1 : 2), 20_000)
    await sleep(1500)
    const [rec] = probe(B.debugLog(), 'RECEIVE')
    const sub = probe(B.debugLog(), 'PSUBMIT').find((p) => p.origin.kind === 'peer')
    const starts = probe(B.debugLog(), 'TSTART')
    const done = probe(B.debugLog(), 'TDONE')
    const [result] = probe(B.debugLog(), 'APPENDROW').filter((r) => r.door === 'tool-result')
    const reqs = mock.of(sidB, 'main')
    const dump = () => debugLines(B.debugLog(), 'probe').filter((l) => !/^(START|REG)|"door":"attachment"/.test(l)).map((l) => l.slice(0, 300)).join('\n') +
      `\n--- requests: ${reqs.map((r) => `${r.at} ${r.body.messages.at(-1).role}`).join(', ')}; key at ${answeredAt}`
    try {
      assert.ok(sub.at > answeredAt && sub.at >= result.at, 'submitted once the dialog was answered and the tool result stored')
      if (answer === 'approved') {
        assert.is(sub.turnId, starts[0].turnId)
        assert.is(starts.length, 1, 'no extra turn')
        assert.ok(probe(B.debugLog(), 'APPENDROW').some((r) => r.door === 'delivery' && r.origin.kind === 'peer' && r.done < done[0].at))
        assert.equal(reqs[1]!.body.messages.at(-1).role, 'system')
        assert.ok(requestText(reqs[1]!.body).includes('DURING-DIALOG'))
      } else {
        assert.match(result.text, /^The user doesn't want to proceed with this tool use\./)
        assert.is(sub.turnId, undefined)
        assert.equal(starts.length, 2)
        assert.ok(done[0].at < sub.at && sub.at < starts[1].at, 'the refused turn ends, then the mail turn starts')
        assert.ok(probe(B.debugLog(), 'APPENDROW').some((r) => r.door === 'prompt' && r.origin.kind === 'peer' && r.done < starts[1].at))
        assert.ok(requestText(reqs[1]!.body).includes('Another Claude session sent a message:\n<cross-session-message'))
      }
    } catch (err) {
      console.log(dump())
      throw err
    }
    console.log(`  [measured] tui dialog ${answer}: receive +${rec.at - sent.at} ms after the send; submitted ${sub.at - answeredAt} ms after the key`)
  })
}

test.run()
