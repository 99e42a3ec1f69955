// The mailbox feature's guarantees and bad input in real engine sessions (issue 12, item 4 and
// "Store and bad input"): two holders of one key and a second native copy (each mail shown to one
// model once), a receiver killed mid-delivery (redelivered once, framed), the retention period (the
// sender's status says so), refused input, corrupt and foreign files in a key's folder, a full store
// (a 64 KiB tmpfs) and an unreadable one (an unprivileged engine). Asserted on what the mock received
// and on the spool's files.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { randomUUID } from 'node:crypto'
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readdirSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { baseOf } from '../../src/features/mailbox/spool.ts'
import { cleanupTmp, packageCopy, runClaude, tmpDir, writePlugin } from './engine.ts'
import {
  answer, folderOf, holding, mailboxStatus, mailIdOf, messageTexts, PKG, sleep, spoolNames, spoolText, toolResults, toolSend, mailboxWorld, TOOL, type World,
} from './mailbox-world.ts'
import { DO, PROBE } from './multi.ts'

let world: World | undefined
test.after.each(async () => {
  await world?.close()
  world = undefined
})
test.after(() => cleanupTmp())

const isRoot = process.getuid?.() === 0
const skip = (why: string) => (console.log(`  [skipped] ${why}`), true)
const requestsWith = (w: World, needle: string) => w.mock.stamps.filter((st) => st.kind === 'main' && holding(st, needle) > 0)
const sessionsHolding = (w: World, needle: string) => new Set(requestsWith(w, needle).map((st) => st.sid))
/** A file in a key's folder as a sender (or a stranger) left it. */
function place(w: World, key: string, name: string, text: string, ageMs = 0): string {
  const dir = join(w.spool, folderOf(key))
  mkdirSync(dir, { recursive: true })
  const path = join(dir, name)
  writeFileSync(path, text)
  if (ageMs) utimesSync(path, new Date(Date.now() - ageMs), new Date(Date.now() - ageMs))
  return path
}
const mailJson = (id: string, sentAt: number, to: string, text: string, from = 'keel-A') => JSON.stringify({ v: 1, id, from, to, sentAt, text }) + '\n'

test('two running holders of one key: the kept mail is taken by one of them and shown to one model once; the status warns of the two', async () => {
  const w = (world = await mailboxWorld({ options: { mailboxScanSeconds: 1 } }))
  const sidA = randomUUID()
  const A = await w.start({ name: 'keel-A', sid: sidA })
  const T1 = await w.start({ name: 'keel-T', sid: randomUUID() })
  await w.start({ name: 'keel-T', sid: randomUUID() })
  const sent = await toolSend(w.mock, A, sidA, { to: 'keel-T', text: 'FOR-EITHER-T' })
  assert.match(sent.text, /^kept; keel-T names two running sessions \(refs [0-9a-f]+, [0-9a-f]+\); the mail waits in keel-T's mailbox/)
  const id = mailIdOf(sent.text)!
  await A.waitFor('one holder to take it', () => spoolNames(w, 'keel-T').some((n) => n.endsWith(`${id}.done`)), 20_000)
  await sleep(3000) // three more idle scans of each holder
  const receivers = [...sessionsHolding(w, 'FOR-EITHER-T')].filter((sid) => sid !== sidA)
  assert.is(receivers.length, 1, 'one model saw it')
  const [last] = requestsWith(w, 'FOR-EITHER-T').filter((st) => st.sid === receivers[0]).slice(-1)
  assert.is(holding(last!, 'FOR-EITHER-T'), 1, 'once')
  const status = await mailboxStatus(T1)
  assert.ok(status.includes('two holders: 2 running sessions are named keel-T; both read its mailbox, so a mail goes to whichever takes it first (rename one with /rename)'), status.join('\n'))
})

test('a second native copy of a delivered mail is consumed: the model reads the mail once', async () => {
  const w = (world = await mailboxWorld())
  const [sidA, sidB] = [randomUUID(), randomUUID()]
  const probe = writePlugin(tmpDir('probe'), 'probe', PROBE)
  const A = await w.start({ name: 'keel-A', sid: sidA, plugins: [probe] })
  const B = await w.start({ name: 'keel-B', sid: sidB })
  const sent = await toolSend(w.mock, A, sidA, { to: 'keel-B', text: 'ORIGINAL-COPY' })
  const id = mailIdOf(sent.text)!
  await B.waitFor('B marks it done', () => spoolNames(w, 'keel-B').some((n) => n.endsWith(`${id}.done`)), 20_000)
  // A sender's retry: the same mail (keel's header, the same id) sent natively again.
  await answer(A, DO({ op: 'send', to: 'keel-B', text: `[${PKG} mail ${id} from keel-A]\nSECOND-COPY` }))
  await sleep(2500)
  assert.is(requestsWith(w, 'SECOND-COPY').filter((st) => st.sid === sidB).length, 0, 'never shown to B\'s model')
  assert.ok(B.debugLog().includes(`${PKG} mailbox: duplicate of mail ${id}`), 'the engine logs the consumed reason')
  assert.ok((await mailboxStatus(B)).includes('duplicates taken: 1'))
})

test('a receiver killed mid-delivery (SIGKILL, the live mail claimed, its row never stored) gets it at its next start once, framed "(redelivered: may repeat)"', async () => {
  const w = (world = await mailboxWorld())
  const [sidA, sidB] = [randomUUID(), randomUUID()]
  const A = await w.start({ name: 'keel-A', sid: sidA })
  const B = await w.start({ name: 'keel-B', sid: sidB, args: ['--allowedTools', 'Bash'] })
  await B.send('DO-BUSY 1 10')
  await B.waitFor('B in its sleep', () => w.mock.of(sidB, 'main').length >= 1, 20_000)
  await sleep(500)
  const sent = await toolSend(w.mock, A, sidA, { to: 'keel-B', text: 'SURVIVES-A-CRASH' })
  assert.match(sent.text, /^delivered to keel-B \(running\)/)
  const id = mailIdOf(sent.text)!
  await B.waitFor('B to claim it', () => spoolNames(w, 'keel-B').some((n) => n.includes(`${id}.claimed-`)), 10_000)
  process.kill(B.pid()!, 'SIGKILL')
  await w.stop(B)
  const atB = () => requestsWith(w, 'SURVIVES-A-CRASH').filter((st) => st.sid === sidB)
  assert.is(atB().length, 0, 'the killed session\'s model never read it')
  assert.ok(spoolNames(w, 'keel-B').some((n) => n.includes(`${id}.claimed-`)), 'the claim outlives the crash')

  const again = await w.start({ resume: sidB })
  await again.waitFor('the resumed session to read it', () => atB().length, 20_000)
  await again.waitFor('marked done', () => spoolNames(w, 'keel-B').some((n) => n.endsWith(`${id}.done`)), 15_000)
  await sleep(2000)
  const reqs = atB()
  const last = reqs[reqs.length - 1]!
  const copies = messageTexts(last).filter((m) => m.text.includes('SURVIVES-A-CRASH'))
  assert.is(copies.length, 1, 'one copy in the conversation')
  assert.ok(copies[0]!.text.includes(`mail ${id} from keel-A, sent `) && copies[0]!.text.includes('(redelivered: may repeat)'), copies[0]!.text)
})

test('retention: a mail nobody took within 7 days is dropped (its text kept as .dropped), and the sender\'s next status says so, once', async () => {
  const w = (world = await mailboxWorld())
  const sidA = randomUUID()
  const A = await w.start({ name: 'keel-A', sid: sidA })
  const sent = await toolSend(w.mock, A, sidA, { to: 'keel-Z', text: 'NOBODY-READS-THIS' })
  const id = mailIdOf(sent.text)!
  assert.ok((await mailboxStatus(A)).includes('sent, still waiting: 1 to keel-Z'))
  // Eight days pass for the mail: its name and its time are moved back.
  const [name] = spoolNames(w, 'keel-Z')
  const mail = JSON.parse(spoolText(w, 'keel-Z', name!))
  const old = mail.sentAt - 8 * 86_400_000
  const dir = join(w.spool, folderOf('keel-Z'))
  writeFileSync(join(dir, `${baseOf(old, id)}.json`), JSON.stringify({ ...mail, sentAt: old }) + '\n')
  spawnSync('rm', ['-f', join(dir, name!)])
  const summary = await answer(A, `/${PKG} status`, (r) => r.includes('mailbox:'))
  assert.ok(summary.includes('  mailbox: key keel-A, 0 waiting, 0 sent waiting, 1 problem (see /ws mailbox)'), summary)
  const status = await mailboxStatus(A)
  assert.ok(status.some((l) => l.startsWith(`sent, dropped after the retention period: mail ${id} to keel-Z, sent `) && l.endsWith('(never taken)')), status.join('\n'))
  assert.equal(spoolNames(w, 'keel-Z'), [`${baseOf(old, id)}.dropped`])
  assert.ok(spoolText(w, 'keel-Z', `${baseOf(old, id)}.dropped`).includes('NOBODY-READS-THIS'), 'the text is kept for the person')
  assert.not.ok((await mailboxStatus(A)).some((l) => l.includes('dropped')), 'said once')
})

test('bad input: an empty, blank or path-like key, NUL, a text that is empty or over 64 KiB, mail to oneself: a clear refusal, nothing kept or sent', async () => {
  const w = (world = await mailboxWorld())
  const sidA = randomUUID()
  const A = await w.start({ name: 'keel-A', sid: sidA })
  const KEY = "; a key is a session's name as ListAgents lists it."
  const cases: [Record<string, unknown>, string][] = [
    [{ to: '', text: 'x' }, `mailbox_send: \`to\` is empty${KEY}`],
    [{ to: '   ', text: 'x' }, `mailbox_send: \`to\` is empty${KEY}`],
    [{ to: '../x', text: 'x' }, `mailbox_send: \`to\` holds a path character (/ or \\)${KEY}`],
    [{ to: '/', text: 'x' }, `mailbox_send: \`to\` holds a path character (/ or \\)${KEY}`],
    [{ to: '..', text: 'x' }, `mailbox_send: \`to\` holds ".."${KEY}`],
    [{ to: 'a\u0000b', text: 'x' }, `mailbox_send: \`to\` holds a control character (a line break, a tab, NUL, …)${KEY}`],
    [{ to: 42, text: 'x' }, `mailbox_send: \`to\` is not a string${KEY}`],
    [{ to: 'keel-B', text: '' }, 'mailbox_send: `text` is empty.'],
    [{ to: 'keel-B', text: ' \n ' }, 'mailbox_send: `text` is empty.'],
    [{ to: 'keel-B', text: 'x'.repeat(65_537) }, 'mailbox_send: `text` is 65537 bytes of UTF-8; a mail holds at most 65536. Put a longer text in a file and send its path.'],
    [{ to: 'keel-A', text: 'to me' }, 'mailbox_send: `to` is this session\'s own key (keel-A); mail to yourself is not sent.'],
  ]
  for (const [input, deny] of cases) {
    const r = await toolSend(w.mock, A, sidA, input)
    assert.ok(r.isError && r.text.includes(deny), `${JSON.stringify(input).slice(0, 60)}: ${r.text}`)
  }
  assert.is(await answer(A, `/${PKG} mail`), `ws: usage: /${PKG} mail <key> <text>  (quote a key that holds spaces: /${PKG} mail "my key" hello)`)
  assert.is(await answer(A, `/${PKG} mail keel-B`), `ws: usage: /${PKG} mail <key> <text>  (quote a key that holds spaces: /${PKG} mail "my key" hello)`)
  assert.is(await answer(A, `/${PKG} mail ../x hello`), `ws: /${PKG} mail: \`to\` holds a path character (/ or \\)${KEY}`)
  assert.equal(readdirSync(w.spool), ['README'], 'nothing kept')
  assert.is(toolResults(w.mock, sidA).length, cases.length)
})

test('a key\'s folder with a corrupt mail, a misfiled one, a link and a half-written one: the good mail is delivered, the bad kept aside and named, nothing read through the link', async () => {
  const w = (world = await mailboxWorld())
  const now = Date.now()
  const ids = ['corruptaaaaaaaaa', 'misfiledaaaaaaaa', 'halfwrittenaaaaa', 'goodaaaaaaaaaaaa']
  place(w, 'keel-B', `${baseOf(now - 5000, ids[0]!)}.json`, '{"v":1,"id":"corr', 120_000)
  place(w, 'keel-B', `${baseOf(now - 4000, ids[1]!)}.json`, mailJson(ids[1]!, now - 4000, 'keel-Other', 'MISFILED-TEXT'))
  place(w, 'keel-B', `${baseOf(now - 3000, ids[2]!)}.json`, '{"v":1,"id":"halfwr')
  place(w, 'keel-B', `${baseOf(now - 2000, ids[3]!)}.json`, mailJson(ids[3]!, now - 2000, 'keel-B', 'GOOD-MAIL'))
  const secret = join(tmpDir('elsewhere'), 'secret.txt')
  writeFileSync(secret, 'SECRET-TEXT')
  symlinkSync(secret, join(w.spool, folderOf('keel-B'), `${baseOf(now - 1000, 'linkaaaaaaaaaaaa')}.json`))
  const B = await w.start({ name: 'keel-B', sid: randomUUID() })
  await B.waitFor('the good mail', () => requestsWith(w, 'GOOD-MAIL').length, 20_000)
  await sleep(1500)
  for (const bad of ['MISFILED-TEXT', 'SECRET-TEXT', '"id":"corr', 'halfwr']) assert.is(requestsWith(w, bad).length, 0, `${bad} never shown`)
  const names = spoolNames(w, 'keel-B')
  assert.ok(names.includes(`${baseOf(now - 5000, ids[0]!)}.corrupt`) && names.includes(`${baseOf(now - 4000, ids[1]!)}.corrupt`), names.join('\n'))
  assert.ok(names.includes(`${baseOf(now - 3000, ids[2]!)}.json`), 'a half-written mail is "not yet", not corrupt')
  assert.ok(names.includes(`${baseOf(now - 2000, ids[3]!)}.done`))
  const status = await mailboxStatus(B)
  assert.ok(status.includes(`kept aside: ${baseOf(now - 5000, ids[0]!)}.corrupt (it does not parse as JSON and its writer is long gone)`), status.join('\n'))
  assert.ok(status.includes(`kept aside: ${baseOf(now - 4000, ids[1]!)}.corrupt (it is addressed to "keel-Other", not "keel-B")`), status.join('\n'))
  assert.ok(status.includes(`kept aside: ${baseOf(now - 1000, 'linkaaaaaaaaaaaa')}.json (it is a symbolic link (never read))`), status.join('\n'))
  assert.ok(status.some((l) => l.startsWith('waiting for keel-B: 1 mail, the oldest sent ')), status.join('\n'))
})

test('a full store (a 64 KiB tmpfs): the send is refused with the reason, nothing is sent, the recipient gets nothing', async () => {
  if (!isRoot && skip('mounting a tmpfs needs root')) return
  const w = (world = await mailboxWorld())
  mkdirSync(w.spool, { recursive: true })
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', w.spool])
  if (mount.status !== 0 && skip(`mount refused here: ${String(mount.stderr).trim()}`)) return
  try {
    spawnSync('dd', ['if=/dev/zero', `of=${join(w.spool, 'fill')}`, 'bs=4k'])
    const [sidA, sidB] = [randomUUID(), randomUUID()]
    const A = await w.start({ name: 'keel-A', sid: sidA })
    await w.start({ name: 'keel-B', sid: sidB })
    const r = await toolSend(w.mock, A, sidA, { to: 'keel-B', text: 'NO-ROOM' })
    assert.ok(r.isError && r.text.includes('mailbox_send: the mail was not kept (') && /ENOSPC|no space/i.test(r.text) && r.text.includes('nothing was sent.'), r.text)
    await sleep(1500)
    assert.is(requestsWith(w, 'NO-ROOM').filter((st) => st.sid === sidB).length, 0)
    const dir = join(w.spool, folderOf('keel-B'))
    assert.ok(!existsSync(dir) || readdirSync(dir).length === 0, 'no torn mail and no temporary file left')
  } finally {
    await world?.close()
    world = undefined
    spawnSync('umount', ['-l', w.spool])
  }
})

test('an unreadable store (an unprivileged engine, a key folder of mode 000): the status says the mailbox is unreadable; a send to it is refused', async () => {
  if (!isRoot && skip('switching to an unprivileged user needs root')) return
  if (spawnSync('setpriv', ['--version']).status !== 0 && skip('setpriv is not installed')) return
  const w = (world = await mailboxWorld())
  const home = tmpDir('home')
  const spool = join(home, '.claude/keel/mailbox')
  mkdirSync(join(spool, folderOf('keel-B')), { recursive: true })
  writeFileSync(join(spool, 'README'), 'the spool')
  chmodSync(join(spool, folderOf('keel-B')), 0o000)
  const ws = packageCopy(PKG)
  const asUser = { uid: 65534, gid: 65534 }
  const env = { ENABLE_TOOL_SEARCH: 'false' }
  const status = await runClaude({ prompt: `/${PKG} mailbox`, pluginDirs: [ws], mock: w.mock, home, asUser, env, extraArgs: ['--name', 'keel-B'] })
  assert.match(String(status.json?.result), /waiting for keel-B: unknown \(.*(EACCES|permission denied).*\)/i, String(status.json?.result) + status.stderr.slice(0, 300))
  const sidA = randomUUID()
  await runClaude({ prompt: `DO-TOOL ${TOOL} ${JSON.stringify({ to: 'keel-B', text: 'CANNOT-KEEP' })}`, pluginDirs: [ws], mock: w.mock, home, asUser, env, extraArgs: ['--name', 'keel-A', '--session-id', sidA] })
  const [r] = toolResults(w.mock, sidA)
  assert.ok(r && r.isError && r.text.includes('mailbox_send: the mail was not kept (') && /EACCES|permission denied/i.test(r.text), r?.text)
  chmodSync(join(spool, folderOf('keel-B')), 0o700)
})

test.run()
