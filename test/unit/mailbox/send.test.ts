// The sending side: the input rules, the person's command, the spool file written before the
// native send, the answers by native outcome; the sender's outbox; the status lines.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { REFUSED } from '../../../src/lib/safe-write.ts'
import { DAY_MS, KEY_STORE_TTL_MS, MAIL_TEXT_MAX_BYTES, OUTBOX_MAX_RECORDS } from '../../../src/features/mailbox/constants.ts'
import { findHeader } from '../../../src/features/mailbox/header.ts'
import { folderOf } from '../../../src/features/mailbox/key.ts'
import { addToOutbox, isStaleOutbox, outboxStoreName, parseOutbox, sentStateOf, settleOutbox, type OutboxRecord } from '../../../src/features/mailbox/outbox.ts'
import { answerFor, checkSend, classifySend, parseMailArgs, sendMail, type SendEdges, type SendRequest } from '../../../src/features/mailbox/send.ts'
import { baseOf, claimName, mailName, readListing, type ListEntry } from '../../../src/features/mailbox/spool.ts'
import { statusLines, summaryLine, type StatusFacts } from '../../../src/features/mailbox/status.ts'
import * as s from '../../../src/features/mailbox/strings.ts'
import { fakeFiles } from '../fake-files.ts'

const ROOT = '/cfg/keel/mailbox'
const T = 1_700_000_000_000
const ID = 'aaaaaaaaaaaaaaaa'

test('checkSend: a key and a non-blank text of at most 64 KiB of UTF-8', () => {
  assert.equal(checkSend({ to: ' keel-B ', text: ' hi ' }, 'keel-A'), { ok: true, to: 'keel-B', text: ' hi ' })
  assert.equal(checkSend({ to: 'keel-B', text: 'é'.repeat(MAIL_TEXT_MAX_BYTES / 2) }, undefined).ok, true)
})

/** A text of exactly `bytes` bytes of UTF-8: characters of `unit` with ASCII filling the rest. */
const textOf = (unit: string, bytes: number) => {
  const w = new TextEncoder().encode(unit).length
  return unit.repeat(Math.floor(bytes / w)) + 'x'.repeat(bytes % w)
}

test('checkSend (issue 17 item 5): 2-, 3- and 4-byte texts just under, at and just over the 64 KiB cap; the cap counts bytes, not characters', () => {
  for (const unit of ['é', '€', '😀']) {
    for (const bytes of [MAIL_TEXT_MAX_BYTES - 1, MAIL_TEXT_MAX_BYTES]) {
      const text = textOf(unit, bytes)
      assert.equal(checkSend({ to: 'keel-B', text }, undefined), { ok: true, to: 'keel-B', text }, `${unit} ${bytes}`)
    }
    // One character more: over the cap by the character's width, whatever the width.
    const over = textOf(unit, MAIL_TEXT_MAX_BYTES - (MAIL_TEXT_MAX_BYTES % new TextEncoder().encode(unit).length)) + unit
    assert.equal(checkSend({ to: 'keel-B', text: over }, undefined), { ok: false, deny: s.textTooLong(new TextEncoder().encode(over).length) }, `${unit} over`)
  }
  // A lone surrogate has no UTF-8 form (the model reads U+FFFD, measured): refused; a pair is a character.
  assert.equal(checkSend({ to: 'keel-B', text: 'a\ud800b' }, undefined), { ok: false, deny: s.TEXT_NOT_UTF8 })
  assert.equal(checkSend({ to: 'keel-B', text: 'a\udc00' }, undefined), { ok: false, deny: s.TEXT_NOT_UTF8 })
  assert.ok(checkSend({ to: 'keel-B', text: 'a\ud83d\ude00' }, undefined).ok)
})

test('checkSend: every bad input', () => {
  const deny = (input: { to?: unknown; text?: unknown }, own?: string) => {
    const r = checkSend(input, own)
    return r.ok ? undefined : r.deny
  }
  assert.is(deny({ text: 'x' }), s.toRefused(s.KEY_WHY.notText))
  assert.is(deny({ to: '', text: 'x' }), s.toRefused(s.KEY_WHY.empty))
  assert.is(deny({ to: '   ', text: 'x' }), s.toRefused(s.KEY_WHY.empty))
  assert.is(deny({ to: '../x', text: 'x' }), s.toRefused(s.KEY_WHY.path))
  assert.is(deny({ to: 'a/b', text: 'x' }), s.toRefused(s.KEY_WHY.path))
  assert.is(deny({ to: 'a\u0000b', text: 'x' }), s.toRefused(s.KEY_WHY.control))
  assert.is(deny({ to: 'x'.repeat(65), text: 'x' }), s.toRefused(s.KEY_WHY.long))
  assert.is(deny({ to: 'keel-A', text: 'x' }, 'keel-A'), s.toSelf('keel-A'))
  // Issue 17 item 4: another spelling of one's own key is one's own key.
  assert.is(deny({ to: 'KEEL a', text: 'x' }, 'keel-A'), s.toSelf('KEEL a'))
  assert.is(deny({ to: '\u200b', text: 'x' }), s.toRefused(s.KEY_WHY.empty))
  assert.is(deny({ to: 'keel-B' }), s.TEXT_NOT_TEXT)
  assert.is(deny({ to: 'keel-B', text: 42 }), s.TEXT_NOT_TEXT)
  assert.is(deny({ to: 'keel-B', text: '' }), s.TEXT_EMPTY)
  assert.is(deny({ to: 'keel-B', text: ' \n\t ' }), s.TEXT_EMPTY)
  assert.is(deny({ to: 'keel-B', text: 'é'.repeat(MAIL_TEXT_MAX_BYTES / 2) + 'x' }), s.textTooLong(MAIL_TEXT_MAX_BYTES + 1))
  assert.is(s.toRefused(s.KEY_WHY.path), 'mailbox_send: `to` holds a path character (/ or \\); a key is a session\'s name as ListAgents lists it.')
})

test('the person\'s command: /<pkg> mail <key> <text>, a quoted key for one with spaces', () => {
  assert.equal(parseMailArgs('keel-B hello there'), { to: 'keel-B', text: 'hello there' })
  assert.equal(parseMailArgs('  "my key"   line one\nline two  '), { to: 'my key', text: 'line one\nline two' })
  assert.is(parseMailArgs('keel-B'), undefined)
  assert.is(parseMailArgs('keel-B    '), undefined)
  assert.is(parseMailArgs(''), undefined)
  assert.is(s.mailUsage('ws'), 'usage: /ws mail <key> <text>  (quote a key that holds spaces: /ws mail "my key" hello)')
})

test('classifySend: the engine\'s texts (NOTES §3)', () => {
  assert.equal(classifySend({ isDelivered: true }), { kind: 'delivered' })
  assert.equal(classifySend({ isDelivered: false, reason: "No agent named 'K' is reachable.\nUse ListAgents to see everyone you can message." }), { kind: 'notRunning' })
  assert.equal(classifySend({ isDelivered: false, reason: "No agent named 'keel-C' is reachable. Did you mean: keel-B?\nUse ListAgents to see everyone you can message." }), { kind: 'notRunning' })
  assert.equal(classifySend({ isDelivered: false, reason: "No agent is named 'keel-two' exactly. Re-send with the ref to confirm you mean:\n  keel-two-old [abc123] — Claude session, on this machine, active 0s ago\ne.g. {\"to\": \"keel-two-old [abc123]\", ...}" }), { kind: 'notRunning' })
  assert.equal(classifySend({ isDelivered: false, reason: "2 agents are named 'K'. Re-send with the ref of the one you mean:\n  K [a1b2c3] — Claude session, on this machine, active 0s ago\n  K [d4e5f6] — Claude session, on this machine, active 3s ago" }), { kind: 'twoHolders', refs: ['a1b2c3', 'd4e5f6'] })
  const gone = 'no live session on this machine has id 1234 (a session that exited, or another machine\'s; a Remote Control or cloud session is addressed by its session_... id)'
  assert.equal(classifySend({ isDelivered: false, reason: gone }), { kind: 'refused', reason: gone })
  assert.equal(classifySend({ isDelivered: false, reason: ' Not sent: a plugin hook refused it (quiet hours). ' }), { kind: 'refused', reason: 'Not sent: a plugin hook refused it (quiet hours).' })
  assert.equal(classifySend({ isDelivered: false }), { kind: 'refused', reason: 'no reason given' })
  assert.equal(classifySend(undefined), { kind: 'refused', reason: 'no reason given' })
})

test('answerFor: each outcome names the key and the mail; "not running" says where it is kept and that only this config folder reads it (issue 17 item 7)', () => {
  const at = '/cfg/keel/mailbox/k'
  assert.is(answerFor({ kind: 'delivered' }, 'K', ID, at), `delivered to K (running); mail ${ID}, also kept in its mailbox until K has it`)
  assert.is(answerFor({ kind: 'notRunning' }, 'K', ID, at),
    `K is not running under this config folder: kept in ${at}, delivered when it next starts under this config folder; a session under another CLAUDE_CONFIG_DIR never sees it (mail ${ID})`)
  assert.is(answerFor({ kind: 'twoHolders', refs: ['a1', 'b2'] }, 'K', ID, at), `kept; K names two running sessions (refs a1, b2); the mail waits in K's mailbox and goes to whichever of them takes it first (mail ${ID})`)
  assert.ok(answerFor({ kind: 'twoHolders', refs: [] }, 'K', ID, at).includes('(refs not given)'))
  assert.is(answerFor({ kind: 'refused', reason: 'quiet' }, 'K', ID, at), `kept; native delivery refused: quiet (mail ${ID})`)
  assert.is(answerFor({ kind: 'noMessaging' }, 'K', ID, at), s.keptNoMessaging('K', ID))
})

function sender(over: { send?: SendEdges['send'] | null; commands?: boolean } = {}) {
  const fs = fakeFiles({}, [ROOT])
  fs.commands = over.commands ?? true
  const order: string[] = []
  const sent: { to: string; text: string }[] = []
  const write = fs.edges.write
  fs.edges.write = async (p, t) => (order.push(`write ${p}`), write(p, t))
  const edges: SendEdges = {
    ...fs.edges,
    send: over.send === null ? undefined : async (to, text) => {
      order.push(`send ${to}`)
      sent.push({ to, text })
      return over.send ? over.send(to, text) : { isDelivered: true }
    },
    now: () => T,
    randomBytes: (n) => new Uint8Array(n),
  }
  const req = (input: SendRequest['input'], more: Partial<SendRequest> = {}): SendRequest => ({ pkg: 'ws', root: ROOT, from: 'keel-A', ownKey: 'keel-A', input, ...more })
  return { fs, edges, order, sent, req }
}

test('sendMail: the spool file first, atomically, then the native send with keel\'s header; the answer and the outbox record', async () => {
  const w = sender()
  const r = await sendMail(w.edges, w.req({ to: 'keel-B', text: 'hello' }))
  assert.ok(r.ok)
  if (!r.ok) return
  const path = `${ROOT}/${folderOf('keel-B')}/${mailName({ id: ID, sentAt: T })}`
  assert.is(r.path, path)
  assert.equal(r.mail, { v: 1, id: ID, from: 'keel-A', to: 'keel-B', sentAt: T, text: 'hello' })
  assert.equal(JSON.parse(w.fs.files.get(path)!), r.mail)
  assert.equal(w.order, [`write ${ROOT}/keel-b/.${T}-${ID}.json.keel-tok.tmp`, 'send keel-B'], 'written (temp + rename) before the send')
  assert.ok(w.fs.log.includes(`move ${ROOT}/keel-b/.${T}-${ID}.json.keel-tok.tmp -> ${path}`))
  assert.equal(w.sent, [{ to: 'keel-B', text: `[ws mail ${ID} from keel-A]\nhello` }])
  assert.equal(findHeader(w.sent[0]!.text), { pkg: 'ws', id: ID, from: 'keel-A' })
  assert.is(r.answer, s.delivered('keel-B', ID))
  assert.is(r.record, undefined, 'delivered live: nothing for the outbox')
})

test('sendMail: a recipient not running, two holders, a refusal, a send that rejects, no native messaging: kept, and said so', async () => {
  const cases: [SendEdges['send'] | null, string][] = [
    [async () => ({ isDelivered: false, reason: "No agent named 'keel-B' is reachable.\nUse ListAgents to see everyone you can message." }), s.keptNotRunning('keel-B', `${ROOT}/keel-b`, ID)],
    [async () => ({ isDelivered: false, reason: "2 agents are named 'keel-B'. Re-send with the ref of the one you mean:\n  keel-B [aa11] — x\n  keel-B [bb22] — y" }), s.keptTwoHolders('keel-B', ['aa11', 'bb22'], ID)],
    [async () => ({ isDelivered: false, reason: 'Not sent: a plugin hook refused it (no).' }), s.keptRefused('Not sent: a plugin hook refused it (no).', ID)],
    [() => Promise.reject(new Error('EPIPE')), s.keptRefused('EPIPE', ID)],
    [() => Promise.reject('a string'), s.keptRefused('a string', ID)],
    [null, s.keptNoMessaging('keel-B', ID)],
  ]
  for (const [send, answer] of cases) {
    const w = sender({ send })
    const r = await sendMail(w.edges, w.req({ to: 'keel-B', text: 'hello' }))
    assert.equal(r.ok && r.answer, answer)
    assert.equal(r.ok && r.record, { id: ID, to: 'keel-B', sentAt: T }, 'kept: the outbox follows it')
    assert.is(w.fs.files.size, 1, 'kept in the spool')
  }
})

test('sendMail: bad input, an unknown or unusable own name: refused, nothing written, nothing sent', async () => {
  const w = sender()
  assert.equal(await sendMail(w.edges, w.req({ to: '../x', text: 'hi' })), { ok: false, deny: s.toRefused(s.KEY_WHY.path) })
  assert.equal(await sendMail(w.edges, w.req({ to: 'keel-B', text: 'hi' }, { from: undefined })), { ok: false, deny: s.FROM_UNKNOWN })
  assert.equal(await sendMail(w.edges, w.req({ to: 'keel-B', text: 'hi' }, { from: 'a/b' })), { ok: false, deny: s.fromRefused('a/b', s.KEY_WHY.path) })
  assert.equal(w.order, [])
})

test('sendMail: a spool that cannot be written (a full disk, an unreadable folder, a link) fails the send; nothing is sent', async () => {
  const full = sender()
  full.fs.failWrite = () => true
  const r = await sendMail(full.edges, full.req({ to: 'keel-B', text: 'hi' }))
  assert.not.ok(r.ok)
  assert.ok(!r.ok && r.deny.startsWith('mailbox_send: the mail was not kept (') && r.deny.includes('ENOSPC') && r.deny.endsWith('); nothing was sent.'))
  assert.equal(full.sent, [])
  const unreadable = sender()
  unreadable.edges.stat = () => Promise.reject(new Error('EACCES'))
  const u = await sendMail(unreadable.edges, unreadable.req({ to: 'keel-B', text: 'hi' }))
  assert.equal(u, { ok: false, deny: s.notKept(REFUSED.ownerMissing(ROOT)) })
  const linked = sender()
  linked.fs.links.set(`${ROOT}/keel-b`, '/elsewhere')
  const l = await sendMail(linked.edges, linked.req({ to: 'keel-B', text: 'hi' }))
  assert.equal(l, { ok: false, deny: s.notKept(REFUSED.link(`${ROOT}/keel-b`)) })
  for (const w of [full, unreadable, linked]) assert.equal(w.sent, [])
})

test('sendMail where nothing renames: written in place, never over an existing file', async () => {
  const w = sender({ commands: false })
  const r = await sendMail(w.edges, w.req({ to: 'keel-B', text: 'hi' }))
  assert.ok(r.ok)
  assert.equal(w.order, [`write ${ROOT}/keel-b/${T}-${ID}.json`, 'send keel-B'])
  const again = await sendMail(w.edges, w.req({ to: 'keel-B', text: 'other' }))
  assert.equal(again, { ok: false, deny: s.notKept(REFUSED.changed(`${ROOT}/keel-b/${T}-${ID}.json`)) }, 'the same id twice: the first stands')
})

const rec = (id: string, to = 'K', sentAt = T): OutboxRecord => ({ id, to, sentAt })
const entry = (name: string): ListEntry => ({ name, kind: 'file', size: 10, mtimeMs: T, isLink: false })

test('the outbox: records parsed leniently, capped, and each mail\'s state read from its recipient\'s folder', () => {
  assert.is(outboxStoreName('S1'), 'mailbox-outbox:S1')
  assert.equal(parseOutbox([rec(ID), { id: 'bad' }, 5]), [rec(ID)])
  assert.equal(parseOutbox('nope'), [])
  let records: OutboxRecord[] = []
  for (let i = 0; i < OUTBOX_MAX_RECORDS + 3; i++) records = addToOutbox(records, rec(ID, `K${i}`))
  assert.is(records.length, OUTBOX_MAX_RECORDS)
  assert.is(records[0]!.to, 'K3')
  const b = (id: string) => baseOf(T, id)
  const ids = ['aaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb', 'cccccccccccccccc', 'dddddddddddddddd', 'eeeeeeeeeeeeeeee']
  const listing = readListing([
    entry(`${b(ids[0]!)}.json`),
    entry(claimName(b(ids[1]!), 'o', T)),
    entry(`${b(ids[2]!)}.done`),
    entry(`${b(ids[3]!)}.dropped`),
    entry(`${b(ids[4]!)}.corrupt`),
  ])
  const R = 7 * DAY_MS
  assert.equal(ids.map((id) => sentStateOf(rec(id), listing, T + 10, R)), ['waiting', 'waiting', 'delivered', 'dropped', 'aside'])
  assert.is(sentStateOf(rec('ffffffffffffffff'), listing, T + 10, R), 'missing')
  assert.is(sentStateOf(rec('ffffffffffffffff'), undefined, T + R + 1, R), 'gone')
})

test('settleOutbox: what waits stays (counted per key); drops, asides and missing mail are reported once', () => {
  const states: Record<string, ReturnType<typeof sentStateOf>> = { a: 'waiting', b: 'waiting', c: 'delivered', d: 'dropped', e: 'aside', f: 'missing', g: 'gone', h: 'waiting' }
  const records = Object.keys(states).map((id) => rec(id, id === 'h' ? 'L' : 'K'))
  const settled = settleOutbox(records, (r) => states[r.id]!)
  assert.equal(settled.keep.map((r) => r.id), ['a', 'b', 'h'])
  assert.equal(settled.waiting, [['K', 2], ['L', 1]])
  assert.equal(settled.dropped.map((r) => r.id), ['d'])
  assert.equal(settled.aside.map((r) => r.id), ['e'])
  assert.equal(settled.missing.map((r) => r.id), ['f'])
})

test('isStaleOutbox: damaged, empty, or nothing sent for 30 days', () => {
  const now = T + 100 * DAY_MS
  const R = 7 * DAY_MS
  const entries: [string, unknown][] = [
    ['fresh', [rec(ID, 'K', now - 1000)]],
    ['old', [rec(ID, 'K', now - KEY_STORE_TTL_MS - 1)]],
    ['empty', []],
    ['damaged', 'x'],
  ]
  assert.equal(entries.filter(([, value]) => isStaleOutbox(value, now, R)).map(([name]) => name), ['old', 'empty', 'damaged'])
  assert.not.ok(isStaleOutbox([rec(ID, 'K', now - 40 * DAY_MS)], now, 30 * DAY_MS), 'kept while a dropped mail is kept')
})

const facts = (over: Partial<StatusFacts> = {}): StatusFacts => ({
  pkg: 'ws',
  key: { key: 'keel-B', source: 'user' },
  scan: { key: 'keel-B', at: T, taken: 0, waiting: 0, notYet: 0, dropped: 0, aside: [] },
  queued: 0,
  sent: { keep: [], waiting: [], dropped: [], aside: [], missing: [] },
  lastDelivery: undefined,
  duplicates: 0,
  messaging: true,
  holders: 1,
  commands: true,
  scanSeconds: 60,
  ...over,
})

test('status: a quiet session', () => {
  assert.equal(statusLines(facts()), [
    "key: keel-B (the session's name, given with --name or /rename)",
    'waiting for keel-B: none',
    'sent, still waiting: none',
    'last delivery: none yet',
    'native messaging: available',
    'duplicates taken: 0',
    'idle scan: every 60 s',
  ])
  assert.is(summaryLine(facts()), 'mailbox: key keel-B, 0 waiting, 0 sent waiting')
})

test('status: everything there is to say', () => {
  const f = facts({
    key: { key: 'keel-aaaa', source: 'minted', renameProblem: 'the command answered: no' },
    scan: { key: 'keel-aaaa', at: T, taken: 0, waiting: 2, oldestSentAt: T, notYet: 1, dropped: 0, aside: [{ name: 'x.corrupt', why: s.CORRUPT.unparsable }] },
    queued: 1,
    sent: { keep: [rec('a'), rec('b'), rec('c', 'L')], waiting: [['K', 2], ['L', 1]], dropped: [rec(ID)], aside: [rec('bbbbbbbbbbbbbbbb')], missing: [rec('cccccccccccccccc', 'M')] },
    lastDelivery: { at: T, count: 2, via: 'row' },
    duplicates: 3,
    messaging: false,
    holders: 2,
    commands: false,
    scanSeconds: 0,
  })
  assert.equal(statusLines(f), [
    "key: keel-aaaa (minted for this session, applied with /rename); the rename did not apply (the command answered: no), so only the mailbox reaches this session, not SendMessage",
    'waiting for keel-aaaa: 2 mails, the oldest sent 2023-11-14T22:13:20.000Z',
    "queued: 1 mail for the running turn's next tool boundary",
    'two holders: 2 running sessions are named keel-aaaa; both read its mailbox, so a mail goes to whichever takes it first (rename one with /rename)',
    'sent, still waiting: 2 to K, 1 to L',
    `sent, dropped after the retention period: mail ${ID} to K, sent 2023-11-14T22:13:20.000Z (never taken)`,
    'sent, set aside: mail bbbbbbbbbbbbbbbb to K was found corrupt by its recipient and never delivered',
    'sent, missing: mail cccccccccccccccc to M is no longer in its mailbox (removed by hand?)',
    'last delivery: 2 mails at 2023-11-14T22:13:20.000Z (joined the running turn)',
    `kept aside: x.corrupt (${s.CORRUPT.unparsable})`,
    'native messaging: not available in this session; mail goes through the mailbox only',
    'duplicates taken: 3',
    'idle scan: off (mail waits for the next start or turn end)',
    s.NO_COMMANDS_LINE,
  ])
  assert.is(summaryLine(f), 'mailbox: key keel-aaaa, 3 waiting, 3 sent waiting, 5 problems (see /ws mailbox)')
})

test('status: no key, the mailbox unreadable, not started', () => {
  const none = facts({ key: { why: s.NO_KEY_WHY.namingOff('keel-7a') }, scan: undefined, sent: { keep: [rec('a')], waiting: [['K', 1]], dropped: [], aside: [], missing: [] } })
  assert.equal(statusLines(none).slice(0, 2), [
    'key: none (mailboxNaming is off, and the engine\'s name keel-7a changes at every resume); mail reaches this session only while it runs, through SendMessage',
    'sent, still waiting: 1 to K',
  ])
  assert.is(summaryLine(none), 'mailbox: no key, live mail only; 1 sent waiting')
  assert.is(summaryLine(facts({ key: { why: 'x' } })), 'mailbox: no key, live mail only')
  const broken = facts({ scan: { key: 'keel-B', at: T, taken: 0, waiting: 0, notYet: 0, dropped: 0, aside: [], error: 'EACCES' } })
  assert.is(statusLines(broken)[1], 'waiting for keel-B: unknown (EACCES)')
  assert.is(summaryLine(broken), 'mailbox: key keel-B, waiting unknown, 0 sent waiting, 1 problem (see /ws mailbox)')
  assert.equal(statusLines(facts({ scan: undefined })).slice(1, 2), ['sent, still waiting: none'], 'not scanned yet: no waiting line')
  assert.equal(statusLines(facts({ key: undefined })), [s.NOT_STARTED_LINE])
  assert.is(summaryLine(facts({ key: undefined })), s.NOT_STARTED_LINE)
  assert.is(statusLines(facts({ key: { key: 'K', source: 'auto' } }))[0], "key: K (the session's name, restored at resume)")
  assert.is(statusLines(facts({ key: { key: 'K', source: 'stored' } }))[0], 'key: K (stored for this session, applied with /rename)')
  assert.is(statusLines(facts({ scan: { key: 'keel-B', at: T, taken: 0, waiting: 1, notYet: 0, dropped: 0, aside: [] } }))[1], 'waiting for keel-B: 1 mail')
})

test('the tool\'s description and schema', () => {
  assert.ok(s.TOOL_DESCRIPTION.includes('SendMessage reaches only a running session'))
  assert.equal(s.TOOL_SCHEMA.required, ['to', 'text'])
  assert.ok(s.TEXT_PARAM.includes('64 KiB'))
  assert.ok(s.NOT_STARTED.startsWith('mailbox_send: '))
  assert.ok(s.HOOK_FAILED.startsWith('mailbox_send: '))
})

test.run()
