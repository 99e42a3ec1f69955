// Mailbox engine facts, part 2 (src/features/mailbox/NOTES.md, questions 2–4): native delivery between
// engine processes of one HOME, and when the receiver stores the delivered row, relative to its turns:
// idle, busy (3 x `Bash sleep 2`), during the turn's last model request (held by the stamping front),
// during a `/compact` (the summarizer held 3 s); and the send failures' exact reasons.
// Headless stream-json sessions; A's probe sends with `$.session.send` when the mock calls its tool.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { randomUUID } from 'node:crypto'
import { connect } from 'node:net'
import { cleanupTmp, tmpDir, writePlugin } from './engine.ts'
import { startLive, type LiveSession } from './live.ts'
import { requestText } from './mock-model.ts'
import { DO, PROBE, probe, probeScript, sleep, startStampedMock, type Stamp, type StampedMock } from './multi.ts'

let mock: StampedMock | undefined
const running: LiveSession[] = []
test.after.each(async () => {
  for (const s of running.splice(0)) await s.stop()
  await mock?.close()
  mock = undefined
})
test.after(() => cleanupTmp())

const ENV = { ENABLE_TOOL_SEARCH: 'false' }

async function start(home: string, plug: string, args: string[], env: Record<string, string> = {}): Promise<LiveSession> {
  const s = await startLive({ mode: 'stream-json', home, pluginDirs: [plug], mock: mock!, env: { ...ENV, ...env }, extraArgs: args })
  running.push(s)
  await s.waitFor('the probe to see its registry record', () => probe(s.debugLog(), 'REG-SEEN').length)
  return s
}
async function stop(s: LiveSession): Promise<void> {
  await s.stop()
  running.splice(running.indexOf(s), 1)
}
/** A's probe sends (the mock calls its tool); resolves with the SEND line once the send settled. */
async function send(A: LiveSession, input: { to?: string; sid?: string; text?: string; gen?: { unit: string; count: number; prefix: string } }): Promise<any> {
  const n = probe(A.debugLog(), 'SEND').length
  await A.send(DO({ op: 'send', ...input }))
  await A.waitFor('the send', () => probe(A.debugLog(), 'SEND').length > n)
  return probe(A.debugLog(), 'SEND')[n]
}
const rows = (s: LiveSession, door: string) => probe(s.debugLog(), 'APPENDROW').filter((r) => r.door === door)
const lastMessage = (st: Stamp) => st.body.messages[st.body.messages.length - 1]
const textOf = (m: any) => (typeof m.content === 'string' ? m.content : m.content.map((b: any) => b.text ?? '').join(''))
/** The text the engine frames a peer message with, as the receiver's hook sees it. */
const envelope = (from: string, fromName: string, text: string) =>
  `<cross-session-message from="uds:${from}" from-name="${fromName}" from-mode="prompting">\n${text}\n</cross-session-message>`

test('idle receiver: delivered in ms, a new turn; the delivered row is stored before that turn starts; { consumed } hides it and A still reads delivered', async () => {
  mock = await startStampedMock(probeScript())
  const home = tmpDir('home')
  const plug = writePlugin(tmpDir('probe'), 'probe', PROBE)
  const sidB = randomUUID()
  const sidC = randomUUID()
  const A = await start(home, plug, [])
  const B = await start(home, plug, ['--session-id', sidB, '--name', 'keel-B'])
  const C = await start(home, plug, ['--session-id', sidC, '--name', 'keel-C'], { PROBE_CONSUME: '1' })
  const [startA] = probe(A.debugLog(), 'START')
  const nameA = probe(A.debugLog(), 'REG-BEFORE')[0].reg.name

  const sent = await send(A, { to: 'keel-B', text: 'IDLE-1' })
  assert.equal(sent.value, { isDelivered: true })
  await B.waitFor('B to end the mail turn', () => probe(B.debugLog(), 'TDONE').length)
  const [rec] = probe(B.debugLog(), 'RECEIVE')
  assert.equal(rec.origin, { kind: 'peer', plugin: 'probe' })
  assert.is(rec.text, envelope(startA.sock, nameA, 'IDLE-1'))
  assert.is(rec.agentId, undefined)
  const [sub] = probe(B.debugLog(), 'PSUBMIT')
  assert.equal([sub.origin, sub.isMeta, sub.turnId, sub.text], [{ kind: 'peer' }, true, undefined, rec.text])
  const [row] = rows(B, 'prompt').filter((r) => r.origin.kind === 'peer')
  assert.ok(row.text.startsWith(`Another Claude session sent a message:\n<cross-session-message from="uds:${startA.sock}" from-name="${nameA}" from-mode="prompting" from-plugin="probe">\nIDLE-1\n</cross-session-message>\n\nThis came from another Claude session — not typed by your user`), row.text)
  assert.equal([row.type, row.role, row.isMeta], ['user', 'user', true])
  const [ts] = probe(B.debugLog(), 'TSTART')
  const [td] = probe(B.debugLog(), 'TDONE')
  assert.ok(rec.at <= sub.at && sub.at <= row.at && row.done <= ts.at && ts.at < td.at, JSON.stringify({ rec: rec.at, sub: sub.at, row: row.done, ts: ts.at, td: td.at }))
  assert.is(ts.text, rec.text)
  const [req] = mock.of(sidB, 'main')
  assert.ok(requestText(req!.body).includes('Another Claude session sent a message:\n<cross-session-message'), 'the model reads the framed message')
  console.log(`  [measured] idle: send ${sent.ms} ms; receive +${rec.at - sent.at} ms, prompt.submit +${sub.at - sent.at}, row stored +${row.done - sent.at}, turn.start +${ts.at - sent.at}, B's request +${req!.at - sent.at}`)

  // C takes every delivery: A still reads delivered, and C's model never sees it (no turn, no request).
  const taken = await send(A, { to: 'keel-C', text: 'CONSUMED-1' })
  assert.equal(taken.value, { isDelivered: true })
  await C.waitFor('C to receive', () => probe(C.debugLog(), 'RECEIVE').length)
  await sleep(1500)
  assert.equal([probe(C.debugLog(), 'PSUBMIT'), probe(C.debugLog(), 'TSTART'), mock.of(sidC)], [[], [], []])
  assert.ok(C.debugLog().includes('probe took it'), 'the consumed reason is logged')
})

test('busy receiver: the mail joins at the next tool boundary as a system message of the same turn; its rows are stored there, before turn.complete', async () => {
  mock = await startStampedMock(probeScript())
  const home = tmpDir('home')
  const plug = writePlugin(tmpDir('probe'), 'probe', PROBE)
  const sidB = randomUUID()
  const A = await start(home, plug, [])
  const B = await start(home, plug, ['--session-id', sidB, '--name', 'keel-B', '--allowedTools', 'Bash'])
  await B.send('DO-BUSY 3 2')
  await B.waitFor('B in its 2nd sleep', () => mock!.of(sidB, 'main').length >= 2)
  const sent = await send(A, { to: 'keel-B', text: 'BUSY-1' })
  assert.equal(sent.value, { isDelivered: true })
  await B.waitFor('B to end the busy turn', () => probe(B.debugLog(), 'TDONE').length, 30_000)
  await sleep(1500)
  const [ts] = probe(B.debugLog(), 'TSTART')
  const [td] = probe(B.debugLog(), 'TDONE')
  const [rec] = probe(B.debugLog(), 'RECEIVE')
  const sub = probe(B.debugLog(), 'PSUBMIT').find((p) => p.origin.kind === 'peer')
  const results = rows(B, 'tool-result')
  const [delivery] = rows(B, 'delivery')
  const [queue] = rows(B, 'queue')
  assert.is(probe(B.debugLog(), 'TSTART').length, 1, 'no extra turn')
  assert.is(sub.turnId, ts.turnId, 'prompt.submit carries the running turn')
  assert.equal([sub.isMeta, sub.origin], [true, { kind: 'peer' }])
  assert.equal([delivery.origin, delivery.type, delivery.name], [{ kind: 'peer' }, 'attachment', 'queued_command'])
  assert.ok(delivery.text.startsWith('<system-reminder>\nAnother Claude session sent a message while you were working:\n<cross-session-message'), delivery.text)
  assert.equal([queue.origin, queue.type], [{ kind: 'engine' }, 'user'])
  assert.is(queue.text, rec.text)
  // receive during sleep 2; submit and rows at its end (the 2nd tool result); all before turn.complete.
  assert.is(results.length, 3)
  assert.ok(rec.at < results[1].at && results[1].at <= sub.at && sub.at <= delivery.at && delivery.done <= queue.at && queue.done < results[2].at && results[2].at < td.at,
    JSON.stringify({ rec: rec.at, r2: results[1].at, sub: sub.at, delivery: delivery.done, queue: queue.done, r3: results[2].at, td: td.at }))
  // The model reads it as the last, system-role message of the next request of the same turn, and keeps it.
  const reqs = mock.of(sidB, 'main')
  assert.is(reqs.length, 4)
  assert.equal(lastMessage(reqs[2]!).role, 'system')
  assert.ok(textOf(lastMessage(reqs[2]!)).startsWith('Another Claude session sent a message while you were working:\n<cross-session-message'))
  assert.ok(textOf(lastMessage(reqs[2]!)).includes('After completing your current task, decide whether/how to respond'))
  assert.ok(requestText(reqs[3]!.body).includes('BUSY-1'), 'still in the later request')
  assert.not.ok(requestText(reqs[1]!.body).includes('BUSY-1'))
  console.log(`  [measured] busy: send ${sent.ms} ms; receive +${rec.at - sent.at} ms; joined at the tool end +${sub.at - sent.at} (tool ended +${results[1].at - sent.at}); rows stored +${queue.done - sent.at}; turn.complete +${td.at - sent.at}`)
})

test('mail during the turn\'s last model request: that turn.complete comes first, the row is stored after it, at the start of the new turn', async () => {
  const sidB = randomUUID()
  let hold = false
  mock = await startStampedMock(probeScript(), (s) => (hold && s.sid === sidB && JSON.stringify(lastMessage(s)).includes('toolu_bash') ? 3000 : 0))
  const home = tmpDir('home')
  const plug = writePlugin(tmpDir('probe'), 'probe', PROBE)
  const A = await start(home, plug, [])
  const B = await start(home, plug, ['--session-id', sidB, '--name', 'keel-B', '--allowedTools', 'Bash'])
  hold = true
  await B.send('DO-BASH echo hi')
  await B.waitFor('B\'s final request held', () => mock!.of(sidB).some((s) => s.sentAt === 0))
  const sent = await send(A, { to: 'keel-B', text: 'DURING-FINAL' })
  assert.equal(sent.value, { isDelivered: true })
  await B.waitFor('B to end the mail turn', () => probe(B.debugLog(), 'TDONE').length >= 2, 20_000)
  const held = mock.of(sidB).find((s) => JSON.stringify(lastMessage(s)).includes('toolu_bash'))!
  const [rec] = probe(B.debugLog(), 'RECEIVE')
  const [t1, t2] = probe(B.debugLog(), 'TDONE')
  const [, s2] = probe(B.debugLog(), 'TSTART')
  const sub = probe(B.debugLog(), 'PSUBMIT').find((p) => p.origin.kind === 'peer')
  const row = rows(B, 'prompt').find((r) => r.origin.kind === 'peer')
  assert.ok(held.at < rec.at && rec.at < held.sentAt, 'received while the final request was held')
  assert.not.ok(requestText(held.body).includes('DURING-FINAL'))
  assert.is(sub.turnId, undefined, 'not delivered into the running turn')
  assert.ok(rec.at < t1.at && t1.at < sub.at && sub.at <= row.at && row.done <= s2.at && s2.at < t2.at,
    JSON.stringify({ rec: rec.at, t1: t1.at, sub: sub.at, row: row.done, s2: s2.at, t2: t2.at }))
  console.log(`  [measured] last-request: receive +${rec.at - sent.at} ms; the running turn completed +${t1.at - sent.at}; row stored ${row.done - t1.at} ms after that turn.complete; new turn +${s2.at - sent.at}`)
})

test('mail during /compact: received at once, held until the compaction landed, then a new turn on the compacted conversation', async () => {
  const sidB = randomUUID()
  mock = await startStampedMock(probeScript(), (s) => (s.sid === sidB && s.kind === 'summarize' ? 3000 : 0))
  const home = tmpDir('home')
  const plug = writePlugin(tmpDir('probe'), 'probe', PROBE)
  const A = await start(home, plug, [])
  const B = await start(home, plug, ['--session-id', sidB, '--name', 'keel-B'])
  await B.send('hello')
  await B.waitFor('B\'s first turn', () => probe(B.debugLog(), 'TDONE').length)
  await B.send('/compact')
  await B.waitFor('the summarizer held', () => mock!.of(sidB, 'summarize').length)
  await sleep(300)
  const sent = await send(A, { to: 'keel-B', text: 'DURING-COMPACT' })
  assert.equal(sent.value, { isDelivered: true })
  await B.waitFor('B\'s mail turn', () => probe(B.debugLog(), 'TDONE').length >= 2, 20_000)
  const [summ] = mock.of(sidB, 'summarize')
  const [rec] = probe(B.debugLog(), 'RECEIVE')
  const boundary = rows(B, 'compaction')[0]
  const sub = probe(B.debugLog(), 'PSUBMIT').find((p) => p.origin.kind === 'peer')
  const [, s2] = probe(B.debugLog(), 'TSTART')
  assert.ok(summ!.at < rec.at && rec.at < summ!.sentAt, 'received while the summarizer was held')
  assert.not.ok(requestText(summ!.body).includes('DURING-COMPACT'), 'not summarized')
  assert.equal(probe(B.debugLog(), 'COMMAND').map((c) => c.command), ['compact'])
  assert.is(sub.turnId, undefined)
  assert.ok(summ!.sentAt < boundary.at && boundary.done < sub.at && sub.at < s2.at, JSON.stringify({ sent: summ!.sentAt, boundary: boundary.done, sub: sub.at, s2: s2.at }))
  const after = mock.of(sidB, 'main').at(-1)!
  assert.ok(requestText(after.body).includes('This session is being continued from a previous conversation'), 'the new turn runs on the compacted conversation')
  assert.ok(requestText(after.body).includes('DURING-COMPACT'))
  console.log(`  [measured] compact: receive +${rec.at - sent.at} ms; compaction landed +${boundary.done - sent.at}; submitted ${sub.at - boundary.done} ms after the boundary row; new turn +${s2.at - sent.at}`)
})

test('send failures: nobody by that name, two holders, a name held no longer, an exited session; and a sender keeps the holder it resolved', async () => {
  mock = await startStampedMock(probeScript())
  const home = tmpDir('home')
  const plug = writePlugin(tmpDir('probe'), 'probe', PROBE)
  const sidB = randomUUID()
  const A = await start(home, plug, [])
  const nobody = await send(A, { to: 'keel-nobody', text: 'X' })
  assert.equal(nobody.value, { isDelivered: false, reason: "No agent named 'keel-nobody' is reachable.\nUse ListAgents to see everyone you can message." })

  const B = await start(home, plug, ['--session-id', sidB, '--name', 'keel-two'])
  let C = await start(home, plug, ['--name', 'keel-two'])
  const two = await send(A, { to: 'keel-two', text: 'TWO-1' })
  assert.is(two.value.isDelivered, false)
  assert.match(two.value.reason, /^2 agents are named 'keel-two'\. Re-send with the ref of the one you mean:\n  keel-two \[[0-9a-f]{6}\] — Claude session, on this machine, active \d+s ago\n  keel-two \[[0-9a-f]{6}\] — Claude session, on this machine, active \d+s ago$/)

  // Once A has delivered to B under the name, a second holder does not stop A: A keeps B.
  await stop(C)
  const one = await send(A, { to: 'keel-two', text: 'TWO-2' })
  assert.equal(one.value, { isDelivered: true })
  C = await start(home, plug, ['--name', 'keel-two'])
  const sticky = await send(A, { to: 'keel-two', text: 'TWO-3' })
  assert.equal(sticky.value, { isDelivered: true })
  await B.waitFor('B to receive both', () => probe(B.debugLog(), 'RECEIVE').length >= 2)
  await sleep(500)
  assert.equal(probe(C.debugLog(), 'RECEIVE'), [], 'the second holder got nothing')

  // B renames away: the name is C's alone, and A's next send reaches C.
  await B.send(DO({ op: 'rename', name: 'keel-two-old' }))
  await B.waitFor('B renamed', () => probe(B.debugLog(), 'RENAME').length)
  assert.equal(probe(B.debugLog(), 'RENAME')[0].res.value, { text: 'Session renamed to: keel-two-old' })
  const moved = await send(A, { to: 'keel-two', text: 'TWO-4' })
  assert.equal(moved.value, { isDelivered: true })
  await C.waitFor('C to receive', () => probe(C.debugLog(), 'RECEIVE').length)
  assert.ok(probe(C.debugLog(), 'RECEIVE')[0].text.includes('\nTWO-4\n'))
  // C exits: the name is held by nobody, but is the start of B's new name.
  await stop(C)
  const inexact = await send(A, { to: 'keel-two', text: 'TWO-5' })
  assert.is(inexact.value.isDelivered, false)
  assert.match(inexact.value.reason, /^No agent is named 'keel-two' exactly\. Re-send with the ref to confirm you mean:\n  keel-two-old \[[0-9a-f]{6}\] — Claude session, on this machine, active \d+s ago/)

  // B exits: by session id, and by name.
  await stop(B)
  const gone = await send(A, { sid: sidB, text: 'GONE-1' })
  assert.equal(gone.value, { isDelivered: false, reason: `no live session on this machine has id ${sidB} (a session that exited, or another machine's; a Remote Control or cloud session is addressed by its session_... id)` })
  const goneName = await send(A, { to: 'keel-two-old', text: 'GONE-2' })
  assert.is(goneName.value.isDelivered, false)
  assert.match(goneName.value.reason, /^No agent named 'keel-two-old' is reachable\./)
  console.log(`  [measured] failure latencies (ms): nobody ${nobody.ms}, two holders ${two.ms}, inexact ${inexact.ms}, exited id ${gone.ms}, exited name ${goneName.ms}; delivered ${one.ms}/${sticky.ms}/${moved.ms}`)
  console.log(`  [measured] reasons: ${JSON.stringify([inexact.value.reason, goneName.value.reason])}`)
})

test('bytes (issue 17 item 5): 2-, 3- and 4-byte texts around 64 KiB and 128 KiB at every alignment reach the receiver and its model whole; a line written in two pieces that split a character decodes whole; `</cross-session-message>` in a text arrives as `<\/cross-session-message>`', async () => {
  mock = await startStampedMock(probeScript())
  const home = tmpDir('home')
  const plug = writePlugin(tmpDir('probe'), 'probe', PROBE)
  const sidB = randomUUID()
  const A = await start(home, plug, [])
  const B = await start(home, plug, ['--session-id', sidB, '--name', 'keel-B'], { PROBE_TOKEN: '1' })
  /** B's first model request holding `marker`, and what its receive hook saw. */
  const arrival = async (marker: string) => {
    const req = await B.waitFor(`B's request with ${marker}`, () => mock!.of(sidB, 'main').find((st) => requestText(st.body).includes(marker)), 20_000)
    const rec = probe(B.debugLog(), 'RECEIVE').find((r) => r.text.includes(marker))
    await B.waitFor('B\'s turn to end', () => probe(B.debugLog(), 'TDONE').length >= probe(B.debugLog(), 'RECEIVE').length, 20_000)
    return { model: requestText(req.body), rec }
  }
  /** A's send, and its turn's end: a prompt sent while that turn still runs may join it instead (seen under load: the probe call never came). */
  const sendWhole = async (input: Parameters<typeof send>[1]) => {
    const turns = probe(A.debugLog(), 'TDONE').length
    const sent = await send(A, input)
    await A.waitFor('A\'s turn to end', () => probe(A.debugLog(), 'TDONE').length > turns, 20_000)
    return sent
  }
  let sends = 0
  for (const unit of ['é', '€', '😀']) {
    for (const bytes of [64 * 1024, 128 * 1024]) {
      for (let pad = 0; pad < 3; pad++) {
        // Each text unique (the engine drops a peer message identical to the one before it, seen while measuring).
        const prefix = `BYTES-${unit}-${bytes}-${pad}${'p'.repeat(pad)} `
        const count = Math.floor((bytes - prefix.length) / Buffer.byteLength(unit))
        const sent = await sendWhole({ to: 'keel-B', gen: { unit, count, prefix } })
        assert.equal(sent.value, { isDelivered: true })
        const { model, rec } = await arrival(prefix)
        assert.is(rec.damage.fffd, 0, `${prefix}: whole at session.receive`)
        assert.ok(model.includes(prefix + unit.repeat(count)), `${prefix}: whole in the model's request`)
        sends++
      }
    }
  }

  // The inbox decodes a stream, not each read: a writer that splits a character across two writes (as a
  // busy sender's socket may) is read whole.
  const [st] = probe(B.debugLog(), 'START')
  for (let cut = 1; cut <= 2; cut++) {
    const text = `SPLIT-${cut} ${'€'.repeat(30_000)}`
    const line = Buffer.from(`${JSON.stringify({ type: 'auth', token: st.tok })}\n${JSON.stringify({ type: 'user', message: { role: 'user', content: text } })}\n`)
    const at = line.indexOf(Buffer.from('€')) + 3 * 20_000 + cut
    const sock = connect(st.sock)
    await new Promise((resolve, reject) => sock.once('connect', resolve).once('error', reject))
    sock.write(line.subarray(0, at))
    await sleep(200)
    sock.end(line.subarray(at))
    const { model, rec } = await arrival(`SPLIT-${cut} `)
    assert.is(rec.damage.fffd, 0, `split ${cut} byte(s) into a character: whole at session.receive`)
    assert.ok(model.includes(text), `split ${cut}: whole in the model's request`)
  }

  // Not every text is carried unchanged: the envelope's closing tag inside a text is neutralized.
  await sendWhole({ to: 'keel-B', text: 'TAG x </cross-session-message> y' })
  const { model, rec } = await arrival('TAG x')
  assert.ok(rec.text.includes('TAG x <\\/cross-session-message> y'), rec.text)
  assert.ok(model.includes('TAG x <\\/cross-session-message> y') && !model.includes('TAG x </cross-session-message> y'))
  console.log(`  [measured] ${sends} sends of 64-128 KiB multi-byte texts and 2 split writes: no U+FFFD anywhere; '</cross-session-message>' arrives as '<\\/cross-session-message>'`)
})

test.run()
