// The mailbox feature in real engine sessions (issue 12, items 1-6): several `ws` sessions in
// stream-json on one HOME against one mock model. Live mail (the engine's delivery, keel's header and
// dedupe), kept mail (the spool, a batch per start), the key across /clear, --resume and /rename, and
// the status lines. Asserted on what the mock received and on the spool's files.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { randomUUID } from 'node:crypto'
import { mkdirSync, realpathSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { keptNotRunning } from '../../src/features/mailbox/strings.ts'
import { cleanupTmp } from './engine.ts'
import type { LiveSession } from './live.ts'
import {
  answer, folderOf, holding, mailboxStatus, mailIdOf, mailLog, messageTexts, PKG, results, sleep, spoolNames, spoolText, toolSend, mailboxWorld, type World,
} from './mailbox-world.ts'

let world: World | undefined
test.after.each(async () => {
  await world?.close()
  world = undefined
})
test.after(() => cleanupTmp())

/** When the debug log says something matching `re` (its ISO timestamp), in ms. */
function loggedAt(s: LiveSession, re: RegExp): number {
  const line = s.debugLog().split('\n').find((l) => re.test(l))
  return line ? Date.parse(line.slice(0, 24)) : NaN
}
/** When keel began writing a mail (its first `$.fs.write` naming the id): the send's start. */
const sendStart = (s: LiveSession, id: string) => loggedAt(s, new RegExp(`\\$\\.fs\\.write \\(${PKG}\\): .*${id}`))
/** The requests of a session's model that hold `needle`. */
const requestsWith = (w: World, sid: string, needle: string) => w.mock.of(sid, 'main').filter((st) => holding(st, needle) > 0)
const nonEmpty = <T>(xs: T[]) => (xs.length ? xs : undefined)
const waitDone = (w: World, s: LiveSession, key: string, id: string) =>
  s.waitFor(`${id} marked done`, () => spoolNames(w, key).some((n) => n.endsWith(`${id}.done`)), 15_000)

test('live, idle: the recipient starts a turn framed as mail from keel-A; the sender reads "delivered"; the spool copy is marked done; the status says so', async () => {
  const w = (world = await mailboxWorld())
  const [sidA, sidB] = [randomUUID(), randomUUID()]
  const A = await w.start({ name: 'keel-A', sid: sidA })
  const B = await w.start({ name: 'keel-B', sid: sidB })

  const sent = await toolSend(w.mock, A, sidA, { to: 'keel-B', text: 'IDLE-MAIL please look at the parser' })
  const id = mailIdOf(sent.text)!
  assert.match(sent.text, new RegExp(`^delivered to keel-B \\(running\\); mail ${id}, also kept in its mailbox until keel-B has it$`))
  const [req] = await B.waitFor('B to read the mail', () => nonEmpty(requestsWith(w, sidB, 'IDLE-MAIL')))
  const mail = messageTexts(req!).find((m) => m.text.includes('IDLE-MAIL'))!
  // Framing (item 5): the engine's peer framing names the sender's key; keel's header names the mail and its sender.
  assert.ok(mail.text.includes(`[${PKG} mail ${id} from keel-A]\nIDLE-MAIL please look at the parser`), mail.text)
  assert.ok(mail.text.includes('Another Claude session sent a message') && mail.text.includes('from-name="keel-A"'), mail.text)
  assert.ok(mail.text.includes('not typed by your user'), mail.text)
  await waitDone(w, B, 'keel-B', id)
  assert.not.ok(spoolNames(w, 'keel-B').some((n) => n.endsWith('.json')), 'no waiting copy left')
  await sleep(1500) // past the turn-end scan: the done copy is not delivered again
  assert.is(w.mock.of(sidB, 'main').length, 1, 'one request: the mail\'s turn')
  assert.is(results(B).length, 1, 'one turn: the mail\'s')

  const status = await mailboxStatus(B)
  assert.ok(status.includes('key: keel-B (the session\'s name, given with --name or /rename)'), status.join('\n'))
  assert.ok(status.includes('waiting for keel-B: none'), status.join('\n'))
  assert.ok(status.some((l) => /^last delivery: 1 mail at \S+ \(live, by the engine\)$/.test(l)), status.join('\n'))
  assert.ok(status.includes('native messaging: available'))
  const sender = await mailboxStatus(A)
  assert.ok(sender.includes('sent, still waiting: none'), 'a live delivery is not kept in the outbox')
  const line = await answer(B, `/${PKG} status`, (r) => r.includes('mailbox:'))
  assert.ok(line.includes('  mailbox: key keel-B, 0 waiting, 0 sent waiting'), line)
  console.log(`  [measured] live idle: send start to the recipient's model request ${req!.at - sendStart(A, id)} ms`)
})

test('live, busy: the mail joins the running turn at its next tool boundary, as a system message; no extra turn', async () => {
  const w = (world = await mailboxWorld())
  const [sidA, sidB] = [randomUUID(), randomUUID()]
  const A = await w.start({ name: 'keel-A', sid: sidA })
  const B = await w.start({ name: 'keel-B', sid: sidB, args: ['--allowedTools', 'Bash'] })
  await B.send('DO-BUSY 3 2')
  await B.waitFor('B in its 2nd sleep', () => w.mock.of(sidB, 'main').length >= 2, 20_000)
  const sent = await toolSend(w.mock, A, sidA, { to: 'keel-B', text: 'BUSY-MAIL' })
  const id = mailIdOf(sent.text)!
  assert.match(sent.text, /^delivered to keel-B \(running\)/)
  await B.waitFor('B\'s busy turn to end', () => results(B).length >= 1, 30_000)
  const reqs = w.mock.of(sidB, 'main')
  const first = reqs.findIndex((st) => holding(st, 'BUSY-MAIL') > 0)
  assert.ok(first >= 2, `joined a later request of the turn (request ${first} of ${reqs.length})`)
  const joined = messageTexts(reqs[first]!).filter((m) => m.text.includes('BUSY-MAIL'))
  assert.equal(joined.map((m) => m.role), ['system'], 'one system message of the running turn')
  assert.ok(joined[0]!.text.includes(`[${PKG} mail ${id} from keel-A]`))
  assert.ok(reqs.slice(first).every((st) => holding(st, 'DO-BUSY 3 2') > 0), 'the same conversation turn')
  await waitDone(w, B, 'keel-B', id)
  await sleep(2000)
  assert.is(results(B).length, 1, 'no extra turn for the mail')
  console.log(`  [measured] live busy: send start to the request that carries it ${reqs[first]!.at - sendStart(A, id)} ms`)
})

test('kept: mail to a key that is not running is kept; at its start the session gets every waiting mail in one prompt, oldest first, with sender and time; the sender\'s status follows it', async () => {
  const w = (world = await mailboxWorld())
  const [sidA, sidC] = [randomUUID(), randomUUID()]
  const A = await w.start({ name: 'keel-A', sid: sidA })
  const first = await answer(A, `/${PKG} mail keel-C FIRST from the person`)
  const second = await toolSend(w.mock, A, sidA, { to: 'keel-C', text: 'SECOND from the model' })
  const third = await answer(A, `/${PKG} mail keel-C THIRD from the person`)
  const ids = [first, second.text, third].map((t) => mailIdOf(t)!)
  for (const [i, t] of [first, second.text, third].entries()) assert.is(t.replace(/^ws: /, ''), keptNotRunning('keel-C', join(realpathSync(w.spool), folderOf('keel-C')), ids[i]!))
  assert.is(spoolNames(w, 'keel-C').filter((n) => n.endsWith('.json')).length, 3)
  const mail = JSON.parse(spoolText(w, 'keel-C', spoolNames(w, 'keel-C')[0]!))
  assert.equal(Object.keys(mail), ['v', 'id', 'from', 'to', 'sentAt', 'text'])
  assert.equal([mail.from, mail.to, mail.text], ['keel-A', 'keel-C', 'FIRST from the person'])
  assert.ok((await mailboxStatus(A)).includes('sent, still waiting: 3 to keel-C'))

  const launched = Date.now()
  const C = await w.start({ name: 'keel-C', sid: sidC })
  const [req] = await C.waitFor('C\'s first request', () => nonEmpty(w.mock.of(sidC, 'main')), 20_000)
  const batch = messageTexts(req!).filter((m) => m.text.includes('FIRST from the person'))
  assert.is(batch.length, 1, 'one prompt holds them all')
  const text = batch[0]!.text
  assert.ok(text.includes(`The ${PKG} plugin sent a message:\n[${PKG} mailbox] 3 mails for your mailbox key \`keel-C\`, oldest first,`), text)
  assert.ok(text.includes('it is not the person\'s own words'), text)
  const at = ['FIRST from the person', 'SECOND from the model', 'THIRD from the person'].map((t) => text.indexOf(t))
  assert.ok(at[0]! < at[1]! && at[1]! < at[2]!, `oldest first: ${at}`)
  for (const id of ids) assert.match(text, new RegExp(`mail ${id} from keel-A, sent \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z #[a-z2-7]{8}\\n`))
  for (const id of ids) await waitDone(w, C, 'keel-C', id)
  assert.ok((await mailboxStatus(A)).includes('sent, still waiting: none'), 'delivered mail leaves the outbox')
  const status = await mailboxStatus(C)
  assert.ok(status.some((l) => /^last delivery: 3 mails at \S+ \(a new turn\)$/.test(l)), status.join('\n'))
  const started = loggedAt(C, new RegExp(`${PKG}@inline session\\.start settled`))
  console.log(`  [measured] kept then started: session.start to the model request ${req!.at - started} ms (${req!.at - launched} ms from the launch; stream-json waits ${1500} ms of idleness first)`)

  // --resume: mail sent while the session was down reaches it when it is resumed under its name.
  await w.stop(C)
  const down = await toolSend(w.mock, A, sidA, { to: 'keel-C', text: 'WHILE-DOWN' })
  assert.match(down.text, /^keel-C is not running under this config folder: kept/)
  const resumed = await w.start({ resume: sidC })
  await resumed.waitFor('the resumed session to read it', () => requestsWith(w, sidC, 'WHILE-DOWN').length, 20_000)
  assert.ok(mailLog(resumed).includes('key keel-C (the session\'s name, restored at resume)'), mailLog(resumed).join('\n'))
  await waitDone(w, resumed, 'keel-C', mailIdOf(down.text)!)
})

test('/clear and /rename: mail waiting for the key is delivered into the conversation a /clear begins; the key follows the new id; /rename K takes K\'s mail', async () => {
  // No idle scan: what waits is taken only at a start, a /clear, a /rename or a turn end.
  const w = (world = await mailboxWorld({ options: { mailboxScanSeconds: 0 } }))
  const [sidA, sidB] = [randomUUID(), randomUUID()]
  const A = await w.start({ name: 'keel-A', sid: sidA })
  const B = await w.start({ name: 'keel-B', sid: sidB })
  await answer(B, 'before the clear')
  // Past the turn-end scan (a headless session scans once idle for 1.5 s): waited for, not slept (a loaded machine).
  const scans = () => mailLog(B).filter((l) => l.startsWith('scan of keel-B:')).length
  const before = scans()
  await B.waitFor('the turn-end scan', () => scans() > before, 20_000)
  // A sender that crashed after keeping the mail and before sending it: the spool holds it, nothing was delivered.
  const id = 'crashedsender2345'.slice(0, 16)
  const sentAt = Date.now()
  const dir = join(w.spool, folderOf('keel-B'))
  mkdirSync(dir, { recursive: true })
  const base = `${String(sentAt).padStart(13, '0')}-${id}`
  writeFileSync(join(dir, `.${base}.json.keel-tmp0001.tmp`), JSON.stringify({ v: 1, id, from: 'keel-A', to: 'keel-B', sentAt, text: 'KEPT-FOR-CLEAR' }) + '\n')
  renameSync(join(dir, `.${base}.json.keel-tmp0001.tmp`), join(dir, `${base}.json`))
  await sleep(2500)
  assert.is(requestsWith(w, sidB, 'KEPT-FOR-CLEAR').length, 0, 'not taken while idle with the idle scan off')

  await B.send('/clear')
  const [req] = await B.waitFor('the mail in the new conversation', () => nonEmpty(requestsWithAnySid(w, 'KEPT-FOR-CLEAR')), 20_000)
  assert.is(holding(req!, 'before the clear'), 0, 'the new conversation, not the old one')
  await waitDone(w, B, 'keel-B', id)
  assert.ok(mailLog(B).some((l) => l.startsWith('after session.end clear: the new session id is read')), mailLog(B).join('\n'))
  const status = await mailboxStatus(B)
  assert.ok(status.includes('key: keel-B (the session\'s name, given with --name or /rename)'), status.join('\n'))

  // Adoption: mail kept for keel-Q reaches B once the person renames B to keel-Q.
  const kept = await toolSend(w.mock, A, sidA, { to: 'keel-Q', text: 'FOR-Q' })
  assert.match(kept.text, /^keel-Q is not running under this config folder: kept/)
  const renamed = await answer(B, '/rename keel-Q', (r) => r.includes('renamed'))
  assert.is(renamed, 'Session renamed to: keel-Q')
  await B.waitFor('B to read keel-Q\'s mail', () => requestsWithAnySid(w, 'FOR-Q').length, 20_000)
  await waitDone(w, B, 'keel-Q', mailIdOf(kept.text)!)
  assert.ok(mailLog(B).includes('the person renamed the session: its key is now keel-Q; scanning its mailbox'))
  assert.ok((await mailboxStatus(B)).includes('key: keel-Q (the session\'s name, given with --name or /rename)'))
})

/** After a /clear the requests carry the new session id: search every session's. */
function requestsWithAnySid(w: World, needle: string) {
  return w.mock.stamps.filter((st) => st.kind === 'main' && holding(st, needle) > 0)
}

test.run()
