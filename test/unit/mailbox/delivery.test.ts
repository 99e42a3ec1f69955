// The receiving side as a state machine over fake edges: an in-memory spool that behaves as `$.fs`
// and `/bin/mv` do (measured), a manual clock, and recorded submits, appends and transcript notes.
// Fed with idle and busy turns, tool boundaries, live copies, /clear, a crash, a reload, retention.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CLAIM_STALE_MS, DAY_MS, HALF_WRITTEN_GRACE_MS, MAIL_FILE_MAX_BYTES } from '../../../src/features/mailbox/constants.ts'
import { createMailbox, type DeliveryEdges } from '../../../src/features/mailbox/delivery.ts'
import { withHeader } from '../../../src/features/mailbox/header.ts'
import { sentStateOf } from '../../../src/features/mailbox/outbox.ts'
import { sendMail, type SendEdges } from '../../../src/features/mailbox/send.ts'
import { escapeName, folderOf } from '../../../src/features/mailbox/key.ts'
import { statusLines, type StatusFacts } from '../../../src/features/mailbox/status.ts'
import { baseOf, claimName, mailFileText, mailName, ownerOf, readListing, type ListEntry, type Mail } from '../../../src/features/mailbox/spool.ts'
import * as s from '../../../src/features/mailbox/strings.ts'
import { fakeFiles } from '../fake-files.ts'

const ROOT = '/cfg/keel/mailbox'
const KEY = 'keel-B'
const DIR = `${ROOT}/${folderOf(KEY)}`
const T0 = 1_700_000_000_000
const RETENTION = 7 * DAY_MS
const SID = '11111111-2222-3333-4444-555555555555'
const ids = ['aaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb', 'cccccccccccccccc', 'dddddddddddddddd', 'eeeeeeeeeeeeeeee']
const [A, B, C] = ids as [string, string, string]

type Script = {
  submit?: (text: string) => Promise<unknown>
  append?: (text: string) => Promise<unknown>
  commands?: boolean
}

/** One spool shared by every machine a test builds over it (two sessions, a reload). */
function spool(commands = true) {
  const fs = fakeFiles({}, [ROOT])
  fs.commands = commands
  let clock = T0
  const mtimes = new Map<string, number>()
  const write = fs.edges.write
  fs.edges.write = async (p, t) => {
    await write(p, t)
    mtimes.set(p, clock)
  }
  const move = fs.edges.move
  fs.edges.move = async (a, b) => {
    await move(a, b)
    mtimes.set(b, mtimes.get(a) ?? clock) // a rename keeps the time
    mtimes.delete(a)
  }
  const parent = (p: string) => p.slice(0, p.lastIndexOf('/'))
  const list = async (folder: string): Promise<ListEntry[]> => {
    if (!fs.dirs.has(folder)) throw new Error(`ENOENT: ${folder}`)
    const out: ListEntry[] = []
    for (const [p, t] of fs.files) if (parent(p) === folder) out.push({ name: p.slice(folder.length + 1), kind: 'file', size: new TextEncoder().encode(t).length, mtimeMs: mtimes.get(p) ?? 0, isLink: false })
    for (const d of fs.dirs) if (parent(d) === folder) out.push({ name: d.slice(folder.length + 1), kind: 'dir', size: 0, mtimeMs: 0, isLink: false })
    for (const l of fs.links.keys()) if (parent(l) === folder) out.push({ name: l.slice(folder.length + 1), kind: 'other', size: 0, mtimeMs: 0, isLink: true })
    return out.sort((a, b) => (a.name < b.name ? -1 : 1))
  }
  /** A mail as a sender's atomic publish leaves it. */
  const put = (m: Partial<Mail> & { id: string }, text?: string) => {
    const mail: Mail = { v: 1, from: 'keel-A', to: KEY, sentAt: clock, text: `text of ${m.id}`, ...m }
    const path = `${ROOT}/${folderOf(mail.to)}/${mailName(mail)}`
    for (let d = parent(path); d !== '/' && !fs.dirs.has(d); d = parent(d)) fs.dirs.add(d)
    fs.files.set(path, text ?? mailFileText(mail))
    mtimes.set(path, clock)
    return mail
  }
  const names = (folder = DIR) => [...fs.files.keys()].filter((p) => parent(p) === folder).map((p) => p.slice(folder.length + 1)).sort()
  return { fs, list, put, names, mtimes, now: () => clock, advance: (ms: number) => void (clock += ms) }
}

type Spool = ReturnType<typeof spool>

/** Status facts around a scan report (status.ts is pure). */
const STATUS: StatusFacts = {
  pkg: 'ws', key: undefined, scan: undefined, queued: 0, sent: { keep: [], waiting: [], dropped: [], aside: [], missing: [] },
  lastDelivery: undefined, duplicates: 0, messaging: true, holders: 1, commands: true, scanSeconds: 60,
}
let nonces = 0
/** A session over a spool: its machine, its edges and what they recorded. */
function session(sp: Spool, script: Script = {}, at: { sessionId?: string; key?: string } = {}) {
  const seen = { submits: [] as string[], appends: [] as string[], kept: [] as string[], logs: [] as string[] }
  const queued: (() => void)[] = []
  const edges: DeliveryEdges = {
    ...sp.fs.edges,
    list: sp.list,
    submit: (text) => (seen.submits.push(text), script.submit ? script.submit(text) : Promise.resolve({ text })),
    append: (text) => (seen.appends.push(text), script.append ? script.append(text) : Promise.resolve({ message: {}, uuid: 'u' })),
    keep: (text) => void seen.kept.push(text),
    log: (text) => void seen.logs.push(text),
    after: (fn) => void queued.push(fn),
    now: sp.now,
    randomBytes: (n) => new Uint8Array(n).fill(nonces++),
  }
  const box = createMailbox('ws', { retentionMs: RETENTION }, edges)
  box.start({ root: ROOT, sessionId: at.sessionId ?? SID, key: 'key' in at ? at.key : KEY })
  const settle = async () => {
    for (let i = 0; i < 50; i++) await Promise.resolve()
  }
  /** Runs what the machine left for after the hook, until nothing is left. */
  const fire = async () => {
    await settle()
    while (queued.length) {
      for (const fn of queued.splice(0)) fn()
      await settle()
    }
  }
  /** A live copy at session.receive: the hook waits for the work it queues (the claim and the comparison). */
  const receive = async (got: { text: string; agentId?: string }) => {
    const verdict = box.receive(got)
    await fire()
    return verdict
  }
  return { box, edges, seen, queued, fire, settle, receive }
}

const live = (id: string, from = 'keel-A', text = `text of ${id}`) =>
  `<cross-session-message from="uds:/tmp/cc-socks/1.sock" from-name="${from}" from-mode="prompting">\n${withHeader('ws', id, from, text)}\n</cross-session-message>`

test('idle: two mails in one scan go as ONE submit, oldest first, and are marked done once it resolved', async () => {
  const sp = spool()
  sp.put({ id: B, sentAt: T0 + 5 })
  sp.put({ id: A, sentAt: T0 })
  const b = session(sp)
  const report = await b.box.scan()
  assert.equal(report, { key: KEY, at: T0, taken: 2, waiting: 0, notYet: 0, dropped: 0, aside: [] })
  await b.settle()
  assert.is(b.seen.submits.length, 1)
  const text = b.seen.submits[0]!
  assert.ok(text.startsWith('[ws mailbox] 2 mails for your mailbox key `keel-B`, oldest first,'))
  assert.ok(text.indexOf(`mail ${A} from keel-A`) < text.indexOf(`mail ${B} from keel-A`))
  assert.not.ok(text.includes(s.REDELIVERED))
  assert.equal(sp.names(), [`${baseOf(T0, A)}.done`, `${baseOf(T0 + 5, B)}.done`])
  assert.equal(b.box.facts().lastDelivery, { at: T0, count: 2, via: 'prompt' })
  await b.box.scan()
  await b.settle()
  assert.is(b.seen.submits.length, 1, 'done mail is never delivered again')
})

test('a claim is a rename: the mail leaves B.json for this session\'s claim until its submit resolved', async () => {
  const sp = spool()
  sp.put({ id: A })
  let resolve!: (v: unknown) => void
  const b = session(sp, { submit: () => new Promise((r) => (resolve = r)) })
  await b.box.scan()
  await b.settle()
  assert.equal(sp.names(), [claimName(baseOf(T0, A), ownerOf(SID), T0)])
  assert.is(b.box.facts().holding, 1)
  resolve({ text: 'x' })
  await b.settle()
  assert.equal(sp.names(), [`${baseOf(T0, A)}.done`])
})

test('busy: queued, then ONE append at the next main-thread model tool boundary; never a subagent\'s or the plugin\'s own call', async () => {
  const sp = spool()
  const b = session(sp)
  b.box.turnStarted(undefined)
  sp.put({ id: A })
  await b.box.scan()
  sp.advance(10)
  sp.put({ id: B })
  await b.box.scan()
  assert.equal(b.seen.submits, [])
  assert.is(b.box.facts().queued, 2)
  await b.box.toolCompleted({ agentId: 'sub-1', originPlugin: 'engine' })
  await b.box.toolCompleted({ originPlugin: 'ws' })
  assert.equal(b.seen.appends, [], 'a subagent\'s call and the plugin\'s own $.tool.call never flush')
  b.box.turnStarted('sub-1')
  b.box.turnCompleted('sub-1')
  await b.fire()
  assert.equal(b.seen.submits, [], 'a subagent\'s turn end never flushes')
  await b.box.toolCompleted({ originPlugin: 'engine' })
  assert.is(b.seen.appends.length, 1)
  assert.ok(b.seen.appends[0]!.startsWith('[ws mailbox] 2 mails'))
  assert.equal(b.box.facts().lastDelivery?.via, 'row')
  await b.fire()
  assert.equal(sp.names(), [`${baseOf(T0, A)}.done`, `${baseOf(T0 + 10, B)}.done`])
  await b.box.toolCompleted({ originPlugin: 'engine' })
  b.box.turnCompleted(undefined)
  await b.fire()
  assert.is(b.seen.appends.length, 1, 'nothing more queued')
  assert.equal(b.seen.submits, [])
})

test('busy with no tool boundary: what is queued at the main turn end goes as one submit, after the hook', async () => {
  const sp = spool()
  const b = session(sp)
  b.box.turnStarted(undefined)
  sp.put({ id: A })
  await b.box.scan()
  b.box.turnCompleted(undefined)
  assert.equal(b.seen.submits, [], 'not inside the turn.complete hook')
  await b.fire()
  assert.is(b.seen.submits.length, 1)
  assert.equal(sp.names(), [`${baseOf(T0, A)}.done`])
})

test('a failed boundary append: the mail waits for the turn end, with no second append in that turn', async () => {
  const sp = spool()
  const b = session(sp, { append: () => Promise.resolve({ deny: 'no rows now' }) })
  b.box.turnStarted(undefined)
  sp.put({ id: A })
  await b.box.scan()
  await b.box.toolCompleted({ originPlugin: 'engine' })
  await b.box.toolCompleted({ originPlugin: 'engine' })
  assert.is(b.seen.appends.length, 1)
  assert.ok(b.seen.logs.includes(s.appendFailedLine(s.notTaken('deny', 'no rows now'))))
  b.box.turnCompleted(undefined)
  await b.fire()
  assert.is(b.seen.submits.length, 1)
  assert.equal(sp.names(), [`${baseOf(T0, A)}.done`])
})

test('a dropped submit is appended as a row; when both fail the batch is kept in the transcript (and done)', async () => {
  const sp = spool()
  sp.put({ id: A })
  const b = session(sp, { submit: () => Promise.resolve({ drop: 'stopped' }) })
  await b.box.scan()
  await b.settle()
  assert.is(b.seen.appends.length, 1)
  assert.equal(b.seen.kept, [])
  assert.equal(b.box.facts().lastDelivery?.via, 'row')

  const sp2 = spool()
  sp2.put({ id: A })
  const c = session(sp2, { submit: () => Promise.reject(new Error('no prompt')), append: () => Promise.reject(new Error('no row')) })
  await c.box.scan()
  await c.settle()
  assert.is(c.seen.kept.length, 1)
  assert.is(c.seen.kept[0], s.keepText('ws', s.submitFailed('no prompt', 'no row'), c.seen.submits[0]!))
  assert.ok(c.seen.kept[0]!.startsWith('ws mailbox: mail was not delivered to the model (prompt submit failed: no prompt; row append failed: no row); recorded here instead:\n\n[ws mailbox] 1 mail'))
  assert.equal(c.box.facts().lastDelivery?.via, 'transcript')
  assert.equal(sp2.names(), [`${baseOf(T0, A)}.done`])
})

test('a half-written file is "not yet": left, and delivered by a later scan once whole', async () => {
  const sp = spool(false) // a writer without rename writes in place
  const m = sp.put({ id: A }, '{"v":1,"id":"aaaa')
  const b = session(sp, {}, {})
  const first = await b.box.scan()
  assert.is(first?.notYet, 1)
  assert.is(first?.waiting, 1)
  assert.equal(b.seen.submits, [])
  sp.fs.files.set(`${DIR}/${mailName(m)}`, mailFileText(m))
  sp.advance(1000)
  await b.box.scan()
  await b.settle()
  assert.is(b.seen.submits.length, 1)
})

test('corrupt files are set aside and named, never delivered: unparsable and old, not a mail, misfiled, oversize', async () => {
  const sp = spool()
  sp.put({ id: A }, '{"v":1,"id":')
  sp.advance(HALF_WRITTEN_GRACE_MS + 1)
  sp.put({ id: B }, '{"hello":"world"}')
  sp.put({ id: C, to: 'keel-C' })
  // A mail for another key placed in this key's folder:
  const misfiled = { v: 1 as const, id: 'dddddddddddddddd', from: 'keel-A', to: 'other', sentAt: sp.now(), text: 'x' }
  sp.fs.files.set(`${DIR}/${mailName(misfiled)}`, mailFileText(misfiled))
  sp.fs.files.set(`${DIR}/${baseOf(sp.now(), 'eeeeeeeeeeeeeeee')}.json`, 'x'.repeat(MAIL_FILE_MAX_BYTES + 1))
  sp.fs.files.set(`${DIR}/notes.txt`, 'hi')
  const b = session(sp)
  const report = (await b.box.scan())!
  await b.settle()
  assert.equal(b.seen.submits, [])
  const tA = T0, tN = T0 + HALF_WRITTEN_GRACE_MS + 1
  assert.equal(report.aside, [
    { name: 'notes.txt', why: s.CORRUPT.stray },
    { name: `${baseOf(tA, A)}.corrupt`, why: s.CORRUPT.unparsable },
    { name: `${baseOf(tN, B)}.corrupt`, why: s.CORRUPT.notMail('v: missing') },
    { name: `${baseOf(tN, 'dddddddddddddddd')}.corrupt`, why: s.CORRUPT.misfiled('other', KEY) },
    { name: `${baseOf(tN, 'eeeeeeeeeeeeeeee')}.corrupt`, why: s.CORRUPT.tooLarge(MAIL_FILE_MAX_BYTES + 1) },
  ])
  assert.is(report.waiting, 0)
  assert.ok(b.seen.logs.includes(s.setAsideLine(`${baseOf(tA, A)}.json`, s.CORRUPT.unparsable)))
  // C was addressed to keel-C: its own folder, not this one.
  assert.equal(sp.names(`${ROOT}/${folderOf('keel-C')}`), [mailName({ id: C, sentAt: tN })])
  const again = (await b.box.scan())!
  assert.equal(again.aside.map((a) => a.why), [s.CORRUPT.stray, s.CORRUPT.unparsable, s.CORRUPT.notMail('v: missing'), s.CORRUPT.misfiled('other', KEY), s.CORRUPT.tooLarge(MAIL_FILE_MAX_BYTES + 1)])
  const fresh = session(sp, {}, { sessionId: 'S9' })
  assert.equal((await fresh.box.scan())!.aside.map((a) => a.why).slice(1), Array(4).fill(s.CORRUPT.keptAside), 'a new load names them, reason unknown')
})

test('where nothing renames: a corrupt file stays in place, is named, and is not read again by this load', async () => {
  const sp = spool(false)
  sp.put({ id: A }, '{}')
  const b = session(sp)
  const reads: string[] = []
  const read = b.edges.read
  b.edges.read = (p) => (reads.push(p), read(p))
  const r1 = (await b.box.scan())!
  const r2 = (await b.box.scan())!
  assert.equal(r1.aside, [{ name: mailName({ id: A, sentAt: T0 }), why: s.CORRUPT.notMail('v: missing') }])
  assert.equal(r2.aside, r1.aside)
  assert.is(reads.filter((p) => p.endsWith('.json')).length, 1)
  assert.equal(sp.names(), [mailName({ id: A, sentAt: T0 })])
})

test('a corrupt file that cannot be renamed aside stays, named, and is not read again by this load', async () => {
  const sp = spool()
  sp.put({ id: A }, '[]')
  const b = session(sp)
  b.edges.move = () => Promise.reject(new Error('EROFS'))
  let reads = 0
  const read = b.edges.read
  b.edges.read = (p) => (reads++, read(p))
  const r1 = (await b.box.scan())!
  const r2 = (await b.box.scan())!
  assert.equal(r1.aside.map((a) => a.name), [mailName({ id: A, sentAt: T0 })])
  assert.equal(r2.aside, r1.aside)
  assert.is(reads, 1)
  assert.ok(b.seen.logs.includes(s.pruneFailedLine(mailName({ id: A, sentAt: T0 }), 'EROFS')))
})

test('live mail: its spool copy is claimed and matches, so it passes; no scan delivers it, and it is done once its row is stored', async () => {
  const sp = spool()
  sp.put({ id: A })
  const b = session(sp)
  assert.is(await b.receive({ text: live(A) }), undefined, 'the hook calls next(e)')
  assert.equal(sp.names(), [claimName(baseOf(T0, A), ownerOf(SID), T0)])
  await b.box.scan()
  await b.settle()
  assert.equal(b.seen.submits, [])
  assert.equal(await b.receive({ text: live(A) }), { consumed: 'ws mailbox: duplicate of mail aaaaaaaaaaaaaaaa' })
  assert.is(b.box.facts().duplicates, 1)
  // main.ts lets only a peer's row on door prompt or delivery reach the hook.
  b.box.rowStored({ agentId: 'x', text: live(A) })
  b.box.rowStored({ text: 'no header' })
  await b.fire()
  assert.equal(sp.names(), [claimName(baseOf(T0, A), ownerOf(SID), T0)], 'a subagent\'s row, or one without keel\'s header, does not count')
  b.box.rowStored({ text: `<system-reminder>\nAnother Claude session sent a message while you were working:\n${live(A)}` })
  await b.fire()
  assert.equal(sp.names(), [`${baseOf(T0, A)}.done`])
  assert.equal(b.box.facts().lastDelivery, { at: T0, count: 1, via: 'live' })
  assert.ok(b.seen.logs.includes(s.liveDoneLine(A)))
})

test('live mail altered on the way (issue 17 item 5): the live copy is taken, and the mailbox\'s exact copy delivered in its place, once', async () => {
  const sp = spool()
  const exact = `${'€'.repeat(21_000)} x </cross-session-message> y`
  sp.put({ id: A }, undefined)
  sp.fs.files.set(`${DIR}/${mailName({ id: A, sentAt: T0 })}`, mailFileText({ v: 1, id: A, from: 'keel-A', to: KEY, sentAt: T0, text: exact }))
  const b = session(sp)
  // What the engine was measured to do to such a text (NOTES §10), and a broken character.
  for (const arrived of [exact.replace('</cross', '<\\/cross'), exact.replace('€ x', '\ufffd\ufffd x')]) {
    assert.not.ok(live(A, 'keel-A', arrived).includes(exact))
  }
  assert.equal(await b.receive({ text: live(A, 'keel-A', exact.replace('</cross', '<\\/cross')) }), { consumed: s.alteredOf('ws', A) })
  await b.fire()
  assert.is(b.seen.submits.length, 1, 'delivered from the mailbox, with nobody typing')
  assert.ok(b.seen.submits[0]!.endsWith(`\n${exact}`), 'byte for byte')
  assert.equal(sp.names(), [`${baseOf(T0, A)}.done`])
  // Its later copies are duplicates; a scan finds nothing.
  assert.equal(await b.receive({ text: live(A, 'keel-A', exact) }), { consumed: s.duplicateOf('ws', A) })
  await b.box.scan()
  await b.fire()
  assert.is(b.seen.submits.length, 1)

  // Busy: the exact copy joins the running turn at its next tool boundary, as spooled mail does.
  sp.put({ id: B, text: 'the exact words' })
  b.box.turnStarted(undefined)
  assert.equal(await b.receive({ text: live(B, 'keel-A', 'the exact w\ufffdrds') }), { consumed: s.alteredOf('ws', B) })
  assert.equal(b.seen.appends, [])
  await b.box.toolCompleted({ originPlugin: 'engine' })
  await b.fire()
  assert.is(b.seen.appends.length, 1)
  assert.ok(b.seen.appends[0]!.endsWith('\nthe exact words'))
  assert.ok(sp.names().includes(`${baseOf(T0, B)}.done`))
})

test('live mail whose row is stored before its claim ran: claimed, then done, in order', async () => {
  const sp = spool()
  sp.put({ id: A })
  const b = session(sp)
  const verdict = b.box.receive({ text: live(A) })
  b.box.rowStored({ text: live(A) })
  await b.fire()
  assert.is(await verdict, undefined)
  assert.equal(sp.names(), [`${baseOf(T0, A)}.done`])
  // A row whose receive the hook never saw (it failed open) is still marked done.
  sp.put({ id: B })
  b.box.rowStored({ text: live(B) })
  await b.fire()
  assert.equal(sp.names(), [`${baseOf(T0, A)}.done`, `${baseOf(T0, B)}.done`])
})

test('dedupe the other way: the spool copy delivered first, then the live copy is consumed', async () => {
  const sp = spool()
  sp.put({ id: A })
  const b = session(sp)
  await b.box.scan()
  await b.settle()
  assert.equal(await b.receive({ text: live(A) }), { consumed: s.duplicateOf('ws', A) })
  // A fresh load that only saw the done file in its listing consumes it too.
  const c = session(sp, {}, { sessionId: 'S2' })
  await c.box.scan()
  assert.equal(await c.receive({ text: live(A) }), { consumed: s.duplicateOf('ws', A) })
})

test('a live copy that arrives while a scan is taking the same mail is a duplicate', async () => {
  const sp = spool()
  sp.put({ id: A })
  const b = session(sp)
  const move = b.edges.move
  let during: unknown = 'not called'
  b.edges.move = async (from, to) => {
    during = b.box.receive({ text: live(A) })
    return move(from, to)
  }
  await b.box.scan()
  await b.settle()
  assert.equal(await during, { consumed: s.duplicateOf('ws', A) })
  assert.is(b.seen.submits.length, 1)
})

test('what receive leaves alone: a subagent\'s delivery, text without keel\'s header, a machine not started', async () => {
  const sp = spool()
  const b = session(sp)
  assert.is(await b.receive({ text: live(A), agentId: 'sub' }), undefined)
  assert.is(await b.receive({ text: 'hello' }), undefined)
  assert.is(b.queued.length, 0)
  // A machine whose start never ran: no spool root and no key, so live mail has nothing to claim.
  const idle = createMailbox('ws', { retentionMs: RETENTION }, b.edges)
  const verdict = idle.receive({ text: live(A) })
  idle.rowStored({ text: live(A) })
  await b.fire()
  assert.is(await verdict, undefined)
  assert.equal(sp.fs.log, [], 'nothing read or written')
  assert.is(await idle.scan(), undefined)
  await idle.toolCompleted({ originPlugin: 'engine' })
  idle.turnCompleted(undefined)
  await idle.end('other')
  assert.equal(idle.facts().queued, 0)
})

test('live mail with no spool copy (another holder took it, or mail to a name that is not this key): nothing to mark', async () => {
  const sp = spool()
  const b = session(sp)
  sp.fs.dirs.add(DIR)
  assert.is(await b.receive({ text: live(A) }), undefined, 'nothing to compare with: the live copy passes')
  b.box.rowStored({ text: live(A) })
  await b.fire()
  assert.equal(sp.names(), [])
  const noKey = session(sp, {}, { key: undefined })
  await noKey.receive({ text: live(B) })
  assert.equal(noKey.box.facts().holding, 0)
})

test('older spellings (issue 17 item 4): a folder an earlier keel made for another spelling of the key is read in place, never renamed; its mail is framed may-repeat; the status names it', async () => {
  const sp = spool()
  const put = (folder: string, m: Mail) => {
    sp.fs.dirs.add(`${ROOT}/${folder}`)
    sp.fs.files.set(`${ROOT}/${folder}/${mailName(m)}`, mailFileText(m))
  }
  sp.put({ id: A }) // a new sender: the key's folder
  put(escapeName('keel-B'), { v: 1, id: B, from: 'keel-A', to: 'keel-B', sentAt: T0 + 1, text: 'kept for keel-B before the fold' })
  put(escapeName('KEEL b'), { v: 1, id: C, from: 'keel-A', to: 'KEEL b', sentAt: T0 + 2, text: 'kept for KEEL b' })
  put(escapeName('keel-Z'), { v: 1, id: 'dddddddddddddddd', from: 'keel-A', to: 'keel-Z', sentAt: T0, text: 'not ours' })
  const b = session(sp)
  const peek = (await b.box.peek())!
  assert.is(peek.waiting, 3)
  assert.equal(peek.older, [escapeName('KEEL b'), escapeName('keel-B')])
  const report = (await b.box.scan())!
  await b.settle()
  assert.is(report.taken, 3)
  const text = b.seen.submits[0]!
  assert.ok(text.includes(`mail ${A} from keel-A, sent 2023-11-14T22:13:20.000Z #`), 'the key\'s own folder: not framed')
  assert.ok(text.includes(`mail ${B} from keel-A, sent 2023-11-14T22:13:20.001Z ${s.REDELIVERED} #`))
  assert.ok(text.includes(`mail ${C} from keel-A, sent 2023-11-14T22:13:20.002Z ${s.REDELIVERED} #`))
  assert.not.ok(text.includes('not ours'))
  assert.equal(sp.names(`${ROOT}/${escapeName('keel-B')}`), [`${baseOf(T0 + 1, B)}.done`], 'done where it was')
  assert.equal(sp.names(`${ROOT}/${escapeName('KEEL b')}`), [`${baseOf(T0 + 2, C)}.done`])
  assert.ok(statusLines({ ...STATUS, key: { key: KEY, source: 'user' }, scan: peek }).includes(s.olderSpellingLine(escapeName('KEEL b'))))
})

test('a crash after the claim and before done: the next start (same session id) redelivers it, framed "may repeat"', async () => {
  const sp = spool()
  sp.put({ id: A })
  const b = session(sp, { submit: () => new Promise(() => {}) }) // the process dies with the submit pending
  await b.box.scan()
  await b.settle()
  assert.equal(sp.names(), [claimName(baseOf(T0, A), ownerOf(SID), T0)])
  sp.advance(5000)
  const resumed = session(sp) // --resume: same id; a reload is the same: new module state
  await resumed.box.scan()
  await resumed.settle()
  assert.is(resumed.seen.submits.length, 1)
  assert.ok(resumed.seen.submits[0]!.includes(`mail ${A} from keel-A, sent 2023-11-14T22:13:20.000Z ${s.REDELIVERED} #`))
  assert.equal(sp.names(), [`${baseOf(T0, A)}.done`])
})

test('another session\'s claim: left while fresh (a live holder delivers it), taken over once stale, framed "may repeat"', async () => {
  const sp = spool()
  sp.put({ id: A })
  const other = session(sp, { submit: () => new Promise(() => {}) }, { sessionId: 'OTHER' })
  await other.box.scan()
  const b = session(sp)
  const r = (await b.box.scan())!
  assert.is(r.taken, 0)
  assert.is(r.waiting, 1, 'named as waiting: another holder has it')
  sp.advance(CLAIM_STALE_MS + 1)
  await b.box.scan()
  await b.settle()
  assert.is(b.seen.submits.length, 1)
  assert.ok(b.seen.submits[0]!.includes(s.REDELIVERED))
  assert.equal(sp.names(), [`${baseOf(T0, A)}.done`])
})

test('two sessions of one key racing over one folder: each mail is claimed once', async () => {
  const sp = spool()
  for (const [i, id] of ids.entries()) sp.put({ id, sentAt: T0 + i })
  const one = session(sp, {}, { sessionId: 'ONE' })
  const two = session(sp, {}, { sessionId: 'TWO' })
  const [r1, r2] = await Promise.all([one.box.scan(), two.box.scan()])
  await one.settle()
  await two.settle()
  assert.is(r1!.taken + r2!.taken, ids.length)
  const delivered = [...one.seen.submits, ...two.seen.submits].join('\n')
  for (const id of ids) assert.is(delivered.split(`mail ${id} from`).length - 1, 1, id)
  assert.ok([...one.seen.logs, ...two.seen.logs].some((l) => l.includes('another session took it')))
})

test('/clear: queued mail goes back to the mailbox, and the next start delivers it into the new conversation, not framed', async () => {
  const sp = spool()
  const b = session(sp)
  b.box.turnStarted(undefined)
  sp.put({ id: A })
  await b.box.scan()
  assert.is(b.box.facts().queued, 1)
  await b.box.end('clear')
  assert.equal(sp.names(), [mailName({ id: A, sentAt: T0 })])
  assert.ok(b.seen.logs.includes(s.releasedLine(1, 'clear')))
  b.box.start({ root: ROOT, sessionId: 'NEW-ID', key: KEY })
  await b.box.scan()
  await b.settle()
  assert.is(b.seen.submits.length, 1)
  assert.not.ok(b.seen.submits[0]!.includes(s.REDELIVERED))
})

test('/clear where nothing renames: the marker stays, and this load still delivers it unframed', async () => {
  const sp = spool(false)
  const b = session(sp)
  b.box.turnStarted(undefined)
  sp.put({ id: A })
  await b.box.scan()
  const marker = claimName(baseOf(T0, A), ownerOf(SID), T0)
  assert.equal(sp.names(), [marker, mailName({ id: A, sentAt: T0 })].sort())
  await b.box.end('clear')
  b.box.start({ root: ROOT, sessionId: 'NEW-ID', key: KEY })
  await b.box.scan()
  await b.settle()
  assert.is(b.seen.submits.length, 1)
  assert.not.ok(b.seen.submits[0]!.includes(s.REDELIVERED))
  assert.ok(sp.names().includes(`${baseOf(T0, A)}.done`))
  await b.box.scan()
  await b.settle()
  assert.is(b.seen.submits.length, 1, 'the .done marker holds')
})

test('a release that fails is logged; the mail is redelivered after its claim goes stale', async () => {
  const sp = spool()
  const b = session(sp)
  b.box.turnStarted(undefined)
  sp.put({ id: A })
  await b.box.scan()
  sp.fs.failMove = true
  await b.box.end('clear')
  assert.ok(b.seen.logs.some((l) => l.startsWith(`${DIR}/${claimName(baseOf(T0, A), ownerOf(SID), T0)} not released`)))
})

test('where nothing renames: in-place publish, a claim marker, a .done marker; at least once, deduped by this load', async () => {
  const sp = spool(false)
  sp.put({ id: A })
  const b = session(sp)
  await b.box.scan()
  await b.settle()
  assert.is(b.seen.submits.length, 1)
  assert.equal(sp.names(), [claimName(baseOf(T0, A), ownerOf(SID), T0), `${baseOf(T0, A)}.done`, mailName({ id: A, sentAt: T0 })].sort())
  assert.is(sp.fs.files.get(`${DIR}/${baseOf(T0, A)}.done`), '')
  await b.box.scan()
  await b.settle()
  assert.is(b.seen.submits.length, 1)
})

test('a marker that cannot be written (a full disk) is logged, and the mail is still delivered', async () => {
  const sp = spool(false)
  sp.put({ id: A })
  sp.fs.failWrite = () => true
  const b = session(sp)
  await b.box.scan()
  await b.settle()
  assert.is(b.seen.submits.length, 1)
  assert.ok(b.seen.logs.some((l) => l.includes('not marked done') && l.includes('ENOSPC')))
})

test('a done rename that fails is logged (a restart may redeliver)', async () => {
  const sp = spool()
  sp.put({ id: A })
  const b = session(sp, { submit: async () => { sp.fs.failMove = true; return {} } })
  await b.box.scan()
  await b.settle()
  assert.ok(b.seen.logs.some((l) => l.startsWith(`${DIR}/${claimName(baseOf(T0, A), ownerOf(SID), T0)} not marked done`)))
})

test('retention: mail nobody took is dropped (kept as .dropped for the sender), delivered mail is cleaned up, temporary leftovers go', async () => {
  const sp = spool()
  sp.put({ id: A })
  sp.put({ id: B })
  sp.fs.files.set(`${DIR}/${baseOf(T0, B)}.done`, '')
  sp.fs.files.set(`${DIR}/.x.json.keel-zz.tmp`, 'half')
  sp.mtimes.set(`${DIR}/.x.json.keel-zz.tmp`, T0)
  sp.advance(RETENTION + 1)
  sp.put({ id: C })
  const b = session(sp)
  const r = (await b.box.scan())!
  await b.settle()
  assert.is(r.dropped, 1)
  assert.is(r.taken, 1)
  assert.ok(b.seen.logs.includes(s.droppedLine(mailName({ id: A, sentAt: T0 }))))
  assert.not.ok(b.seen.submits[0]!.includes(`mail ${A}`))
  assert.equal(sp.names(), [`${baseOf(T0, A)}.dropped`, `${baseOf(T0 + RETENTION + 1, C)}.done`])
  assert.is(JSON.parse(sp.fs.files.get(`${DIR}/${baseOf(T0, A)}.dropped`)!).text, `text of ${A}`, 'the text stays readable')
  sp.advance(RETENTION)
  await b.box.scan()
  assert.equal(sp.names(), [`${baseOf(T0 + RETENTION + 1, C)}.done`], 'a dropped mail goes after twice the retention period')
})

test('retention: a stale claim of another session is dropped with its markers; where nothing renames, a .dropped marker', async () => {
  const sp = spool()
  sp.put({ id: A })
  const b0 = session(sp, {}, { sessionId: 'OTHER' })
  b0.box.turnStarted(undefined)
  await b0.box.scan()
  sp.fs.files.set(`${DIR}/${claimName(baseOf(T0, A), 'gone', T0 + 1)}`, '')
  sp.advance(RETENTION + 1)
  const b = session(sp)
  await b.box.scan()
  assert.equal(sp.names(), [`${baseOf(T0, A)}.dropped`])

  const bare = spool(false)
  bare.put({ id: A })
  bare.advance(RETENTION + 1)
  const c = session(bare)
  assert.is((await c.box.scan())!.dropped, 1)
  assert.equal(bare.names(), [`${baseOf(T0, A)}.dropped`, mailName({ id: A, sentAt: T0 })])
  await c.box.scan()
  await c.settle()
  assert.equal(c.seen.submits, [], 'a dropped mail is never delivered')
})

test('clean-up failures are logged and the scan goes on', async () => {
  const sp = spool()
  sp.put({ id: A })
  sp.put({ id: B })
  sp.fs.files.set(`${DIR}/${baseOf(T0, B)}.done`, '')
  sp.advance(RETENTION + 1)
  const b = session(sp)
  b.edges.remove = () => Promise.reject(new Error('EACCES'))
  b.edges.move = () => Promise.reject(new Error('EROFS'))
  const r = (await b.box.scan())!
  assert.equal(r.error, undefined)
  assert.ok(b.seen.logs.includes(s.pruneFailedLine(mailName({ id: A, sentAt: T0 }), 'EROFS')))
  assert.ok(b.seen.logs.some((l) => l.includes('not cleaned up (EACCES)')))
})

test('a drop whose leftover markers cannot be removed is logged', async () => {
  const sp = spool()
  sp.put({ id: A })
  sp.fs.files.set(`${DIR}/${claimName(baseOf(T0, A), 'gone', T0)}`, '')
  sp.advance(RETENTION + 1)
  const b = session(sp)
  b.edges.remove = () => Promise.reject(new Error('EBUSY'))
  await b.box.scan()
  assert.ok(b.seen.logs.includes(s.pruneFailedLine(claimName(baseOf(T0, A), 'gone', T0), 'EBUSY')))
})

test('the folder: missing (no mail yet), unreadable, a link or not a folder: reported, nothing delivered', async () => {
  const sp = spool()
  const b = session(sp)
  assert.equal(await b.box.scan(), { key: KEY, at: T0, taken: 0, waiting: 0, notYet: 0, dropped: 0, aside: [] })
  sp.fs.dirs.add(DIR)
  b.edges.list = () => Promise.reject(new Error('EACCES: permission denied'))
  const r = (await b.box.scan())!
  assert.is(r.error, 'EACCES: permission denied')
  assert.ok(b.seen.logs.includes(s.listFailedLine(DIR, 'EACCES: permission denied')))
  const linked = spool()
  linked.fs.links.set(DIR, '/elsewhere')
  const c = session(linked)
  assert.is((await c.box.scan())!.error, s.folderRefused(true))
  const filed = spool()
  filed.fs.files.set(DIR, 'a file')
  assert.is((await session(filed).box.scan())!.error, s.folderRefused(false))
})

test('a mail that vanishes between the listing and the read (another session claimed it) is skipped', async () => {
  const sp = spool()
  sp.put({ id: A })
  const b = session(sp)
  b.edges.read = () => Promise.reject(new Error('ENOENT'))
  const r = (await b.box.scan())!
  assert.is(r.taken, 0)
  assert.ok(b.seen.logs.includes(s.claimLostLine(mailName({ id: A, sentAt: T0 }), 'ENOENT')))
})

test('a batch holds at most 20 mails; the rest waits for the next scan (the next turn end)', async () => {
  const sp = spool()
  const many = Array.from({ length: 23 }, (_, i) => `${'abcdefghijklmnopqrstuvw'[i]}`.repeat(16))
  for (const [i, id] of many.entries()) sp.put({ id, sentAt: T0 + i })
  const b = session(sp)
  const r = (await b.box.scan())!
  await b.settle()
  assert.is(r.taken, 20)
  assert.is(r.waiting, 3)
  assert.is(r.oldestSentAt, T0 + 20)
  assert.ok(b.seen.submits[0]!.startsWith('[ws mailbox] 20 mails'))
  await b.box.scan()
  await b.settle()
  assert.ok(b.seen.submits[1]!.startsWith('[ws mailbox] 3 mails'))
})

test('adoption: a new key scans its own folder', async () => {
  const sp = spool()
  sp.put({ id: A, to: 'K2' })
  const b = session(sp)
  assert.is((await b.box.scan())!.taken, 0)
  b.box.setKey('K2')
  assert.equal(b.box.facts().key, 'K2')
  const r = (await b.box.scan())!
  await b.settle()
  assert.is(r.taken, 1)
  assert.ok(b.seen.submits[0]!.includes('for your mailbox key `K2`'))
  b.box.setKey(undefined)
  assert.is(await b.box.scan(), undefined)
})

test('scans do not overlap: a scan asked for during one runs once more after it', async () => {
  const sp = spool()
  const b = session(sp)
  sp.fs.dirs.add(DIR)
  let lists = 0
  const list = b.edges.list
  b.edges.list = (f) => (lists++, list(f))
  const first = b.box.scan()
  const second = b.box.scan()
  const third = b.box.scan()
  assert.is(first, second)
  assert.is(second, third)
  await first
  assert.is(lists, 4, 'two scans, each listing the spool root (older spellings) and the key\'s folder')
})

test('an edge scheduler that refuses: the work runs at once', async () => {
  const sp = spool()
  sp.put({ id: A })
  const b = session(sp)
  b.edges.after = () => {
    throw new Error('no lane')
  }
  assert.is(await b.box.receive({ text: live(A) }), undefined)
  assert.equal(sp.names(), [claimName(baseOf(T0, A), ownerOf(SID), T0)])
  b.box.turnStarted(undefined)
  sp.put({ id: B })
  await b.box.scan()
  await b.box.toolCompleted({ originPlugin: 'engine' })
  await b.settle()
  assert.ok(sp.names().includes(`${baseOf(T0, B)}.done`))
  sp.put({ id: C })
  await b.box.scan()
  b.box.turnCompleted(undefined)
  await b.settle()
  assert.ok(sp.names().includes(`${baseOf(T0, C)}.done`))
})

test('a failing live claim is logged, and the hook still passed', async () => {
  const sp = spool()
  const b = session(sp)
  sp.fs.dirs.add(DIR)
  b.edges.list = () => Promise.reject(new Error('EIO'))
  assert.is(await b.receive({ text: live(A) }), undefined)
  assert.ok(b.seen.logs.includes(s.listFailedLine(DIR, 'EIO')))
  b.edges.list = () => {
    throw new Error('sync boom')
  }
  b.box.rowStored({ text: live(B) })
  await b.fire()
  assert.ok(b.seen.logs.includes(s.listFailedLine(DIR, 'sync boom')))
})

/** A sender over the same spool: the native send reaches `receiver` when it runs, else the engine's refusal. */
function sender(sp: Spool, receiver: () => ReturnType<typeof session> | undefined) {
  let n = 0
  const edges: SendEdges = {
    ...sp.fs.edges,
    send: async (to, text) => {
      const r = receiver()
      if (!r) return { isDelivered: false, reason: `No agent named '${to}' is reachable.\nUse ListAgents to see everyone you can message.` }
      const wrapped = `<cross-session-message from="uds:/tmp/cc-socks/1.sock" from-name="keel-A" from-mode="prompting">\n${text}\n</cross-session-message>`
      const taken = await r.receive({ text: wrapped })
      if (!taken) r.box.rowStored({ text: `Another Claude session sent a message:\n${wrapped}` })
      return { isDelivered: true }
    },
    now: sp.now,
    randomBytes: (len) => new Uint8Array(len).fill(++n),
  }
  return (text: string) => sendMail(edges, { pkg: 'ws', root: ROOT, from: 'keel-A', ownKey: 'keel-A', input: { to: KEY, text } })
}

test('the whole path, recipient down: kept, and delivered with nobody typing when it next starts', async () => {
  const sp = spool()
  let b: ReturnType<typeof session> | undefined
  const send = sender(sp, () => b)
  const sent = await send('are you there?')
  assert.ok(sent.ok && sent.outcome.kind === 'notRunning')
  assert.ok(sent.ok && sent.answer.startsWith(`keel-B is not running under this config folder: kept in ${DIR},`))
  sp.advance(60_000)
  b = session(sp)
  await b.box.scan()
  await b.settle()
  assert.is(b.seen.submits.length, 1)
  assert.match(b.seen.submits[0]!, /from keel-A, sent 2023-11-14T22:13:20.000Z #[a-z2-7]{8}\nare you there\?$/)
  const record = sent.ok ? sent.record! : undefined
  assert.is(sentStateOf(record!, readListing(await sp.list(DIR)), sp.now(), RETENTION), 'delivered', "the sender's status sees it taken")
})

test('the whole path, recipient running: delivered live once, the spool copy never delivered again, marked done', async () => {
  const sp = spool()
  const b = session(sp)
  const send = sender(sp, () => b)
  const sent = await send('live one')
  assert.ok(sent.ok && sent.outcome.kind === 'delivered')
  await b.fire()
  await b.box.scan()
  await b.settle()
  assert.equal(b.seen.submits, [], 'the engine delivered it; keel only marked it')
  assert.equal(sp.names(), [`${baseOf(T0, sent.ok ? sent.mail.id : '')}.done`])
})

test('a reload mid-turn: mail the old module state held queued is redelivered by the new one, framed "may repeat"', async () => {
  const sp = spool()
  const old = session(sp)
  old.box.turnStarted(undefined)
  sp.put({ id: A })
  await old.box.scan()
  assert.is(old.box.facts().queued, 1)
  const reloaded = session(sp) // the module starts over; no session.end ran
  await reloaded.box.scan()
  await reloaded.settle()
  assert.is(reloaded.seen.submits.length, 1)
  assert.ok(reloaded.seen.submits[0]!.includes(s.REDELIVERED))
})

test('peek: what waits, read without taking it; the own queue is not counted; corrupt and stray names are named', async () => {
  const sp = spool()
  sp.put({ id: A })
  sp.advance(10)
  sp.put({ id: B })
  const b = session(sp)
  sp.fs.files.set(`${DIR}/notes.txt`, 'a stray file')
  const before = await b.box.peek()
  assert.equal([before?.waiting, before?.oldestSentAt, before?.aside], [2, T0, [{ name: 'notes.txt', why: s.CORRUPT.stray }]])
  assert.equal(b.seen.submits, [])
  assert.is(sp.names().filter((n) => n.endsWith('.json')).length, 2, 'nothing claimed')
  b.box.turnStarted(undefined)
  await b.box.scan()
  const queued = await b.box.peek()
  assert.equal([queued?.waiting, b.box.facts().queued], [0, 2], 'queued mail is the queue, not waiting')
  const none = session(sp, {}, { key: 'keel-Nobody' })
  assert.equal((await none.box.peek())?.waiting, 0, 'a folder nobody wrote: nothing waits')
  const keyless = session(sp, {}, { key: undefined })
  assert.is(await keyless.box.peek(), undefined)
})

test('peek: a key folder that is a link is refused, with why', async () => {
  const sp = spool()
  sp.fs.links.set(DIR, '/elsewhere')
  const b = session(sp)
  assert.equal((await b.box.peek())?.error, s.folderRefused(true))
})

test('sweep: another key\'s folder gets the retention period (untaken mail dropped, done mail removed); fresh claims and recent mail stay', async () => {
  const sp = spool()
  const other = `${ROOT}/${folderOf('keel-Z')}`
  sp.put({ id: A, to: 'keel-Z' })
  sp.put({ id: B, to: 'keel-Z' })
  sp.advance(RETENTION + 1)
  sp.put({ id: C, to: 'keel-Z' })
  const claimed = `${other}/${claimName(baseOf(T0, B), 'someone', sp.now())}`
  sp.fs.files.set(claimed, sp.fs.files.get(`${other}/${mailName({ sentAt: T0, id: B })}`)!)
  sp.fs.files.delete(`${other}/${mailName({ sentAt: T0, id: B })}`)
  const b = session(sp)
  assert.is(await b.box.sweep(folderOf('keel-Z')), 1)
  assert.equal(sp.names(other), [`${baseOf(T0, A)}.dropped`, claimName(baseOf(T0, B), 'someone', sp.now()), mailName({ sentAt: T0 + RETENTION + 1, id: C })])
  assert.is(await b.box.sweep(folderOf('keel-Nobody')), 0, 'a folder that is not there')
})

test.run()
