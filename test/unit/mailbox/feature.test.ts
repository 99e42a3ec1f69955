// The mailbox's binding (index.ts) over a fake port: an in-memory config root (the registry record,
// the spool, the store), a manual clock whose timers the test runs, recorded sends, prompts and rows.
// What the hooks do at start, at a tool call, a delivery, a row, a turn end, a /rename, a /clear,
// and what the verbs and the status say.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createMailboxFeature } from '../../../src/features/mailbox/index.ts'
import { DAY_MS, HEADLESS_IDLE_MS, SPOOL_NOTE, TOOL_NAME } from '../../../src/features/mailbox/constants.ts'
import { STALE_TEMP_MS } from '../../../src/lib/safe-write.ts'
import { withHeader } from '../../../src/features/mailbox/header.ts'
import { escapeName, folderOf, keyStoreName } from '../../../src/features/mailbox/key.ts'
import { outboxStoreName } from '../../../src/features/mailbox/outbox.ts'
import { baseOf, mailFileText, mailName, type ListEntry, type Mail } from '../../../src/features/mailbox/spool.ts'
import * as s from '../../../src/features/mailbox/strings.ts'
import type { FeatureContext } from '../../../src/registry.ts'
import { fakeFiles } from '../fake-files.ts'
import { fakeNext, fakePort, hooksOf } from '../fakes.ts'

const CFG = '/cfg'
const ROOT = `${CFG}/keel/mailbox`
const T0 = 1_800_000_000_000
const SID = 'aaaaaaaa-1111-2222-3333-444444444444'
const SID2 = 'bbbbbbbb-1111-2222-3333-444444444444'
const REG = `${CFG}/sessions/42.json`
const TOOL = `mcp__ws__${TOOL_NAME}`
const CWD = '/work/proj'

type Setup = {
  interactive?: boolean
  record?: { name: string; nameSource: string } | undefined
  options?: Record<string, unknown>
  messaging?: boolean
  /** What `$.session.send` resolves. */
  sendResult?: (to: string) => unknown
  store?: Record<string, unknown>
  peers?: string[]
  /** ListAgents' text (its first line names the session). */
  listing?: string
  commands?: boolean
}

function setup(o: Setup = {}) {
  const fs = fakeFiles({}, [CFG, `${CFG}/sessions`])
  fs.commands = o.commands ?? true
  fs.now = T0
  if (o.record !== undefined) fs.files.set(REG, JSON.stringify({ pid: 42, sessionId: SID, ...o.record }))
  let clock = T0
  let sid = SID
  const timers: { due: number; fn: () => void; every?: number; live: boolean }[] = []
  const seen = { sends: [] as { to: string; text: string }[], submits: [] as string[], appends: [] as string[], notices: [] as string[], renames: [] as string[], tools: [] as string[] }
  const store = new Map<string, unknown>(Object.entries(o.store ?? {}))
  const parent = (p: string) => p.slice(0, p.lastIndexOf('/'))
  const list = async (folder: string): Promise<ListEntry[]> => {
    if (!fs.dirs.has(folder)) throw new Error(`ENOENT: ${folder}`)
    const out: ListEntry[] = []
    for (const [p, t] of fs.files) if (parent(p) === folder) out.push({ name: p.slice(folder.length + 1), kind: 'file', size: t.length, mtimeMs: fs.mtimes.get(p) ?? T0, isLink: false })
    for (const d of fs.dirs) if (parent(d) === folder) out.push({ name: d.slice(folder.length + 1), kind: 'dir', size: 0, mtimeMs: 0, isLink: false })
    return out.sort((a, b) => (a.name < b.name ? -1 : 1))
  }
  const schedule = (ms: number, fn: () => void, every?: number) => {
    const t = { due: clock + ms, fn, ...(every === undefined ? {} : { every }), live: true }
    timers.push(t)
    return () => void (t.live = false)
  }
  const fake = fakePort('ws', {
    // The spool's listing as the test stamps it (every file sent at T0).
    files: { ...fs.edges, list },
    homeFacts: async () => ({ configDir: CFG, pid: '42', messaging: o.messaging ?? true }),
    sessionId: async () => sid,
    registerTool: async (spec: { name: string }) => (seen.tools.push(spec.name), `mcp__ws__${spec.name}`),
    send: async (to: string, text: string) => (seen.sends.push({ to, text }), o.sendResult ? o.sendResult(to) : { isDelivered: true }),
    submitPrompt: async (text: string) => (seen.submits.push(text), { text }),
    append: async (text: string) => (seen.appends.push(text), { message: {}, uuid: 'u' }),
    notice: (text: string) => void seen.notices.push(text),
    rename: async (name: string) => {
      seen.renames.push(name)
      fs.files.set(REG, JSON.stringify({ pid: 42, sessionId: sid, name, nameSource: 'user' }))
      return { text: `Session renamed to: ${name}` }
    },
    listAgents: async () => ({ text: o.listing ?? '', result: { listing: o.listing ?? '', sections: [{ kind: 'sessions', total: 1, rows: (o.peers ?? []).map((name) => ({ name, ref: 'abc123', type: 'interactive', status: 'idle' })) }] } }),
    storeGet: async (k: string) => store.get(k),
    storeSet: async (k: string, v: unknown) => void store.set(k, structuredClone(v)),
    storeDelete: async (k: string) => void store.delete(k),
    storeKeys: async () => [...store.keys()],
    after: (ms: number, fn: () => void) => schedule(ms, fn),
    every: (ms: number, fn: () => void) => schedule(ms, fn, ms),
    now: async () => clock,
    randomBytes: (n: number) => new Uint8Array(n).fill(7),
  })
  fake.port.sessionId = async () => sid
  const feature = createMailboxFeature()
  const hooks = hooksOf(feature)
  const options = { mailbox: true, mailboxRetentionDays: 7, mailboxScanSeconds: 60, mailboxNaming: 'auto', ...o.options }
  const ctx: FeatureContext = fake.ctx(feature, options as never)
  const settle = async () => {
    for (let i = 0; i < 60; i++) await Promise.resolve()
  }
  /** Moves the clock on by `ms`, running every timer due on the way (and what it starts). */
  const run = async (ms = 0) => {
    const until = clock + ms
    for (;;) {
      await settle()
      const due = timers.filter((t) => t.live && t.due <= until).sort((a, b) => a.due - b.due)[0]
      if (!due) break
      clock = Math.max(clock, due.due)
      if (due.every === undefined) due.live = false
      else due.due += due.every
      due.fn()
    }
    clock = until
    await settle()
  }
  const next = <T>(answer: (e: never) => T) => Object.assign(fakeNext(answer), { origin: { plugin: 'engine', tier: 'core' } })
  const h = {
    start: async () => {
      const r = await hooks['session.start']!(fake.port, { cwd: CWD, surface: null, isInteractive: o.interactive ?? false }, next((e: { cwd: string }) => ({ cwd: e.cwd })), ctx)
      await run(0)
      return r
    },
    tool: (input: Record<string, unknown>, agentId?: string) =>
      hooks['tool.call']!(fake.port, { tool: TOOL, tool_use_id: 'u1', ...input, ...(agentId ? { agentId } : {}) }, next(() => ({ result: 'native' })), ctx),
    otherTool: (agentId?: string, origin = 'engine') =>
      hooks['tool.call']!(fake.port, { tool: 'Bash', tool_use_id: 'u2', command: 'ls', ...(agentId ? { agentId } : {}) }, Object.assign(fakeNext(() => ({ result: 'listed' })), { origin: { plugin: origin, tier: 'core' } }), ctx),
    /** The hook waits for the work it sets off (the claim and the comparison, after the start's work): the clock runs meanwhile. */
    receive: async (text: string, agentId?: string) => {
      const r = hooks['session.receive']!(fake.port, { origin: { kind: 'peer' }, text, ...(agentId ? { agentId } : {}) }, next((e: { text: string }) => ({ text: e.text })), ctx)
      await run(0)
      return r
    },
    row: (text: string, door = 'prompt') =>
      hooks['session.append']!(fake.port, { door, origin: { kind: 'peer' }, uuid: 'r1', message: { type: 'user', role: 'user', isMeta: true, content: [{ type: 'text', text }] } }, next((e: { message: unknown }) => ({ message: e.message, uuid: 'r1' })), ctx),
    turnStart: (agentId?: string) => {
      fake.facts.turnStarted(agentId)
      return hooks['turn.start']!(fake.port, { text: 'x', turnId: 't1', ...(agentId ? { agentId } : {}) }, next((e: { turnId: string }) => ({ turnId: e.turnId })), ctx)
    },
    turnEnd: async (agentId?: string) => {
      const r = await hooks['turn.complete']!(fake.port, { answer: 'a', durationMs: 1, isAborted: false, turnId: 't1', reason: 'answer', ...(agentId ? { agentId } : {}) }, next((e: { answer: string }) => ({ text: e.answer })), ctx)
      fake.facts.turnEnded(agentId)
      return r
    },
    rename: (name: string) => hooks['command.run']!(fake.port, { command: 'rename', args: name, origin: { kind: 'sdk' }, presentation: { isFullscreen: false, columns: 80 } }, next(() => ({ text: `Session renamed to: ${name}` })), ctx),
    end: (reason: string) => (fake.facts.sessionEnded(reason), hooks['session.end']!(fake.port, { reason, sessionId: sid, resume: { id: sid } }, next((e: { sessionId: string }) => ({ sessionId: e.sessionId })), ctx)),
    verb: (verb: string, args = '') => feature.verbs![verb]!.run(fake.port, args, ctx),
    status: () => feature.status!(fake.port, ctx),
  }
  /** A mail as a sender's atomic publish leaves it. */
  const put = (m: Partial<Mail> & { id: string; to: string }) => {
    const mail: Mail = { v: 1, from: 'keel-A', sentAt: clock, text: `text of ${m.id}`, ...m }
    const path = `${ROOT}/${folderOf(mail.to)}/${mailName(mail)}`
    for (let d = parent(path); d !== '/' && !fs.dirs.has(d); d = parent(d)) fs.dirs.add(d)
    fs.files.set(path, mailFileText(mail))
    return mail
  }
  const names = (key: string) => [...fs.files.keys()].filter((p) => parent(p) === `${ROOT}/${folderOf(key)}`).map((p) => p.slice(p.lastIndexOf('/') + 1)).sort()
  return { fs, seen, store, h, run, put, names, lines: fake.lines, facts: fake.facts, setSid: (v: string) => void (sid = v), now: () => clock, advance: (ms: number) => void (clock += ms) }
}

const ID = ['aaaaaaaaaaaaaaaa', 'bbbbbbbbbbbbbbbb', 'cccccccccccccccc'] as const
const NAMED = { name: 'keel-B', nameSource: 'user' }

test('start: the tool is registered before next; the spool root is made with its note; the key is the registry\'s name, stored for the session', async () => {
  const w = setup({ record: NAMED })
  await w.h.start()
  assert.equal(w.seen.tools, [TOOL_NAME])
  await w.run(HEADLESS_IDLE_MS)
  assert.is(w.fs.files.get(`${ROOT}/${SPOOL_NOTE}`), s.SPOOL_NOTE_TEXT)
  assert.equal(w.store.get(keyStoreName(SID)), { key: 'keel-B', at: T0 + HEADLESS_IDLE_MS })
  assert.ok(w.lines.includes(`ws mailbox: ${s.keyLogLine('keel-B', s.KEY_SOURCE.user)}`), w.lines.join('\n'))
  assert.equal(w.seen.renames, [], 'a name the person gave is never renamed')
})

// Issue 17 #12: the note's temporary file at the spool's root, left by a crash, was never swept (the key folders were).
test('start\'s clean-up: a stale temporary file at the spool\'s root goes, a live one stays', async () => {
  const w = setup({ record: NAMED })
  w.fs.dirs.add(ROOT)
  const stale = `${ROOT}/.${SPOOL_NOTE}.keel-0ld.tmp`
  const live = `${ROOT}/.${SPOOL_NOTE}.keel-l1ve.tmp`
  w.fs.files.set(stale, s.SPOOL_NOTE_TEXT)
  w.fs.files.set(live, s.SPOOL_NOTE_TEXT)
  w.fs.mtimes.set(stale, T0 - STALE_TEMP_MS - 1)
  w.fs.mtimes.set(live, T0)
  await w.h.start()
  await w.run(HEADLESS_IDLE_MS)
  assert.equal([w.fs.files.has(stale), w.fs.files.has(live)], [false, true])
})

test('start, headless: waiting mail is taken once the session has been idle for 1.5 s, as one prompt', async () => {
  const w = setup({ record: NAMED })
  w.put({ id: ID[0], to: 'keel-B' })
  w.put({ id: ID[1], to: 'keel-B', sentAt: T0 + 1 })
  await w.h.start()
  assert.equal(w.seen.submits, [], 'not at once')
  await w.run(HEADLESS_IDLE_MS)
  assert.is(w.seen.submits.length, 1)
  assert.ok(w.seen.submits[0]!.startsWith('[ws mailbox] 2 mails for your mailbox key `keel-B`, oldest first,'))
  assert.equal(w.names('keel-B'), [`${baseOf(T0, ID[0])}.done`, `${baseOf(T0 + 1, ID[1])}.done`])
})

test('start, headless, a turn already running (a -p prompt): the mail waits; its end is followed by another 1.5 s wait, which a -p exit cancels', async () => {
  const w = setup({ record: NAMED })
  w.put({ id: ID[0], to: 'keel-B' })
  await w.h.turnStart()
  await w.h.start()
  await w.run(HEADLESS_IDLE_MS)
  assert.equal(w.seen.submits, [], 'not into the running turn')
  assert.equal(await w.h.status(), [s.NOT_READ_LINE('ws')])
  await w.h.turnEnd()
  await w.h.end('other')
  await w.run(HEADLESS_IDLE_MS)
  assert.equal(w.seen.submits, [])
  assert.equal(w.names('keel-B'), [mailName({ sentAt: T0, id: ID[0] })], 'still waiting for a session that stays')
  assert.equal([w.store.size, w.fs.files.has(`${ROOT}/${SPOOL_NOTE}`)], [0, false], 'a one-shot run did none of the start\'s work')
})

test('interactive: waiting mail is taken at once; a derived name is replaced by a minted key, applied with /rename', async () => {
  const w = setup({ interactive: true, record: { name: 'proj-3f', nameSource: 'derived' } })
  w.put({ id: ID[0], to: 'proj-hhhh' })
  await w.h.start()
  assert.equal(w.seen.renames, ['proj-hhhh'], 'the minted key (random bytes of 7: hhhh) applied as the name')
  assert.equal(w.store.get(keyStoreName(SID)), { key: 'proj-hhhh', at: T0 })
  assert.is(w.seen.submits.length, 1, 'the key\'s mail, at once')
})

test('headless with a derived name: no key, and the status says why', async () => {
  const w = setup({ record: { name: 'proj-3f', nameSource: 'derived' } })
  await w.h.start()
  assert.equal(w.seen.renames, [])
  const lines = (await w.h.verb('mailbox')).split('\n')
  assert.is(lines[0], s.noKeyLine(s.NO_KEY_WHY.headless('proj-3f')))
  assert.equal(await w.h.status(), ['mailbox: no key, live mail only'])
})

test('no registry record: the name is ListAgents\' first line; with neither, no key', async () => {
  const w = setup({ record: undefined, listing: 'This session is keel-L [a1b2c3] — the name other sessions use to message it.' })
  await w.h.start()
  await w.run(HEADLESS_IDLE_MS)
  assert.equal(w.store.get(keyStoreName(SID)), { key: 'keel-L', at: T0 + HEADLESS_IDLE_MS })
  const none = setup({ record: undefined })
  await none.h.start()
  assert.is((await none.h.verb('mailbox')).split('\n')[0], s.noKeyLine(s.NO_KEY_WHY.unknown))
})

test('mailbox_send: main thread only; bad input refused with the reason; kept mail is in the outbox; a live one is not', async () => {
  const w = setup({ record: NAMED, sendResult: (to) => (to === 'keel-C' ? { isDelivered: true } : { isDelivered: false, reason: `No agent named '${to}' is reachable.\nUse ListAgents to see everyone you can message.` }) })
  await w.h.start()
  assert.equal(await w.h.tool({ to: 'keel-C', text: 'hi' }, 'sub-1'), { deny: s.subagentRefused('sub-1') })
  assert.equal(await w.h.tool({ to: '../x', text: 'hi' }), { deny: s.toRefused(s.KEY_WHY.path) })
  assert.equal(await w.h.tool({ to: 'keel-C', text: '   ' }), { deny: s.TEXT_EMPTY })
  assert.equal(await w.h.tool({ to: 'keel-B', text: 'me' }), { deny: s.toSelf('keel-B') })
  assert.equal(w.seen.sends, [], 'nothing sent for a refusal')
  const live = (await w.h.tool({ to: 'keel-C', text: 'hello C' })) as { result: string }
  assert.match(live.result, /^delivered to keel-C \(running\); mail [a-z2-7]{16}/)
  assert.ok(w.seen.sends[0]!.text.startsWith('[ws mail ') && w.seen.sends[0]!.text.endsWith(' from keel-B]\nhello C'))
  const kept = (await w.h.tool({ to: 'keel-D', text: 'hello D' })) as { result: string }
  assert.match(kept.result, new RegExp(`^keel-D is not running under this config folder: kept in ${ROOT}/keel-d, delivered when it next starts under this config folder`))
  const outbox = w.store.get(outboxStoreName(SID)) as { to: string }[]
  assert.equal(outbox.map((r) => r.to), ['keel-D'])
  assert.is(w.names('keel-D').length, 1)
  assert.ok(w.names('keel-C')[0]!.endsWith('.json'), 'the live copy is kept too, until keel-C marks it')
  assert.equal(await w.h.otherTool(), { result: 'listed' }, 'another tool passes')
})

test('the person\'s /ws mail: usage, the person\'s wording of a refusal, the answer', async () => {
  const w = setup({ record: NAMED, messaging: false })
  await w.h.start()
  assert.is(await w.h.verb('mail', ''), s.mailUsage('ws'))
  assert.is(await w.h.verb('mail', 'keel-C'), s.mailUsage('ws'))
  assert.is(await w.h.verb('mail', 'a/b hi'), `/ws mail: \`to\` ${s.KEY_WHY.path}; a key is a session's name as ListAgents lists it.`)
  assert.match(await w.h.verb('mail', '"keel C" hello there'), /^kept; this session cannot message other sessions directly, so keel C gets it/)
  assert.equal(w.seen.sends, [], 'no native messaging here')
})

test('a spool root that is a file: nothing is kept, the send says why, the status names it', async () => {
  const w = setup({ record: NAMED })
  w.fs.files.set(ROOT, 'not a folder')
  await w.h.start()
  const r = (await w.h.tool({ to: 'keel-C', text: 'x' })) as { deny: string }
  assert.is(r.deny, s.notKept(s.rootRefused(ROOT, s.NOT_A_FOLDER)))
  const lines = (await w.h.verb('mailbox')).split('\n')
  assert.is(lines[0], s.rootProblemLine(s.rootRefused(ROOT, s.NOT_A_FOLDER)))
})

test('live mail: a second copy of a delivered mail is consumed; the stored row marks the spool copy done', async () => {
  const w = setup({ record: NAMED })
  await w.h.start()
  const mail = w.put({ id: ID[0], to: 'keel-B' })
  const text = withHeader('ws', mail.id, 'keel-A', mail.text)
  assert.equal(await w.h.receive(text), { text }, 'the first copy passes to the engine')
  await w.run(0)
  assert.ok(w.names('keel-B')[0]!.includes('.claimed-'), 'claimed')
  assert.equal(await w.h.receive(text), { consumed: s.duplicateOf('ws', mail.id) })
  await w.h.row(`Another Claude session sent a message:\n<cross-session-message from="uds:/s" from-name="keel-A">\n${text}\n</cross-session-message>`)
  await w.run(0)
  assert.equal(w.names('keel-B'), [`${baseOf(T0, ID[0])}.done`])
  await w.run(HEADLESS_IDLE_MS)
  assert.equal(w.seen.submits, [], 'never delivered from the spool as well')
  assert.ok((await w.h.verb('mailbox')).includes('duplicates taken: 1'))
  assert.equal(await w.h.receive('a peer message without a header'), { text: 'a peer message without a header' })
})

test('busy, interactive: mail found while a turn runs joins at the next main tool call as one row; never a subagent\'s', async () => {
  const w = setup({ interactive: true, record: NAMED })
  await w.h.start()
  await w.h.turnStart()
  w.put({ id: ID[0], to: 'keel-B' })
  await w.run(60_000) // the idle scan
  assert.equal(w.seen.submits, [])
  await w.h.otherTool('sub-1')
  assert.equal(w.seen.appends, [], 'a subagent\'s call does not flush')
  await w.h.otherTool(undefined, 'ws')
  assert.equal(w.seen.appends, [], 'nor the plugin\'s own $.tool.call')
  await w.h.otherTool()
  assert.is(w.seen.appends.length, 1)
  assert.ok(w.seen.appends[0]!.startsWith('[ws mailbox] 1 mail for your mailbox key `keel-B`'))
  await w.run(0)
  assert.equal(w.names('keel-B'), [`${baseOf(T0, ID[0])}.done`])
})

test('headless: the idle scan never takes mail into a running turn', async () => {
  const w = setup({ record: NAMED, options: { mailboxScanSeconds: 5 } })
  await w.h.start()
  await w.run(HEADLESS_IDLE_MS)
  await w.h.turnStart()
  w.put({ id: ID[0], to: 'keel-B' })
  await w.run(10_000)
  assert.equal([w.seen.submits, w.seen.appends], [[], []])
  await w.h.turnEnd()
  await w.run(HEADLESS_IDLE_MS)
  assert.is(w.seen.submits.length, 1, 'taken once idle')
})

test('/rename K (heard after it applied): K becomes the key and K\'s waiting mail is delivered', async () => {
  const w = setup({ interactive: true, record: NAMED })
  await w.h.start()
  w.put({ id: ID[0], to: 'keel-K' })
  await w.h.rename('keel-K')
  await w.run(0)
  assert.equal(w.store.get(keyStoreName(SID)), { key: 'keel-K', at: T0 })
  assert.is(w.seen.submits.length, 1)
  assert.ok(w.seen.submits[0]!.includes('for your mailbox key `keel-K`'))
  await w.h.rename('a/b')
  await w.run(0)
  assert.is((await w.h.verb('mailbox')).split('\n')[0], s.noKeyLine(s.NO_KEY_WHY.invalid('a/b', s.KEY_WHY.path)))
})

test('/clear: queued mail goes back to the mailbox; the key and the outbox follow the new id; the new conversation gets the mail', async () => {
  const w = setup({ interactive: true, record: NAMED, sendResult: () => ({ isDelivered: false, reason: "No agent named 'keel-Z' is reachable." }) })
  await w.h.start()
  await w.h.tool({ to: 'keel-Z', text: 'kept' })
  await w.h.turnStart()
  w.put({ id: ID[0], to: 'keel-B' })
  await w.run(60_000)
  assert.ok(w.names('keel-B')[0]!.includes('.claimed-'), 'queued for the running turn')
  await w.h.end('clear')
  assert.equal(w.names('keel-B'), [mailName({ sentAt: T0, id: ID[0] })], 'released')
  w.setSid(SID2)
  await w.run(0)
  assert.equal(w.store.get(keyStoreName(SID2)), { key: 'keel-B', at: T0 + 60_000 })
  assert.equal((w.store.get(outboxStoreName(SID2)) as { to: string }[]).map((r) => r.to), ['keel-Z'])
  assert.is(w.seen.submits.length, 1)
  assert.not.ok(w.seen.submits[0]!.includes(s.REDELIVERED), 'a released mail was never shown: no "may repeat"')
  assert.ok(w.lines.some((l) => l.includes(s.newIdLine('clear', true))))
})

test('retention: the sender\'s status drops its untaken mail once the period is over, says so once, and forgets it', async () => {
  const w = setup({ record: NAMED, sendResult: () => ({ isDelivered: false, reason: "No agent named 'keel-Z' is reachable." }) })
  await w.h.start()
  const kept = (await w.h.tool({ to: 'keel-Z', text: 'too late' })) as { result: string }
  const id = /mail ([a-z2-7]{16})/.exec(kept.result)![1]!
  assert.ok((await w.h.verb('mailbox')).includes('sent, still waiting: 1 to keel-Z'))
  w.advance(7 * DAY_MS + 1)
  assert.match((await w.h.status())[0]!, /^mailbox: key keel-B, 0 waiting, 0 sent waiting, 1 problem \(see \/ws mailbox\)$/)
  const lines = (await w.h.verb('mailbox')).split('\n')
  assert.ok(lines.includes(s.sentDroppedLine(id, 'keel-Z', T0)), lines.join('\n'))
  assert.equal(w.names('keel-Z'), [`${baseOf(T0, id)}.dropped`])
  assert.not.ok((await w.h.verb('mailbox')).includes('dropped'), 'said once')
})

test('status: two holders of the key are warned of; the summary line; not started', async () => {
  const before = setup({ record: NAMED })
  assert.equal(await before.h.status(), [s.NOT_STARTED_LINE])
  // Issue 17 item 4: a peer named `KEEL b` holds the name keel-B to the engine.
  const w = setup({ record: NAMED, peers: ['KEEL b', 'keel-C'] })
  await w.h.start()
  w.put({ id: ID[0], to: 'keel-B' })
  const lines = (await w.h.verb('mailbox')).split('\n')
  assert.ok(lines.includes(s.holdersLine('keel-B', 2)), lines.join('\n'))
  assert.ok(lines.includes(s.waitingLine('keel-B', 1, T0)), lines.join('\n'))
  assert.ok(lines.includes(s.scanEveryLine(60)))
  assert.equal(await w.h.status(), ['mailbox: key keel-B, 1 waiting, 0 sent waiting, 1 problem (see /ws mailbox)'])
})

test('older spellings (issue 17 item 4): mail this session sent before keys were folded is found under its spelling; the clean-up sweeps other keys\' older folders, never the key\'s own', async () => {
  const w = setup({ record: NAMED, store: { [outboxStoreName(SID)]: [{ id: ID[1], to: 'keel-C', sentAt: T0 }] } })
  // As an earlier keel wrote them: keel-C's folder under its spelling, and an old one of keel-B's own.
  const old = (folder: string, m: Mail) => {
    w.fs.dirs.add(`${ROOT}/${folder}`)
    w.fs.files.set(`${ROOT}/${folder}/${mailName(m)}`, mailFileText(m))
  }
  old(escapeName('keel-C'), { v: 1, id: ID[1], from: 'keel-B', to: 'keel-C', sentAt: T0, text: 'x' })
  old(escapeName('keel-Gone'), { v: 1, id: ID[2], from: 'keel-B', to: 'keel-Gone', sentAt: T0 - 8 * DAY_MS, text: 'y' })
  await w.h.start()
  await w.run(HEADLESS_IDLE_MS)
  const lines = (await w.h.verb('mailbox')).split('\n')
  assert.ok(lines.includes('sent, still waiting: 1 to keel-C'), lines.join('\n'))
  assert.equal([...w.fs.files.keys()].filter((p) => p.startsWith(`${ROOT}/${escapeName('keel-Gone')}/`)).map((p) => p.slice(p.lastIndexOf('/') + 1)), [`${baseOf(T0 - 8 * DAY_MS, ID[2])}.dropped`])
})

test('clean-up at start: other keys\' folders get the retention period; stale store entries go', async () => {
  const w = setup({ record: NAMED, store: { 'mailbox-key:old-session': { key: 'x', at: T0 - 31 * DAY_MS }, 'mailbox-outbox:old-session': [], 'notes:x': 1 } })
  w.put({ id: ID[0], to: 'keel-Gone', sentAt: T0 - 8 * DAY_MS })
  await w.h.start()
  await w.run(HEADLESS_IDLE_MS)
  assert.equal(w.names('keel-Gone'), [`${baseOf(T0 - 8 * DAY_MS, ID[0])}.dropped`])
  assert.equal([...w.store.keys()].sort(), ['mailbox-key:' + SID, 'notes:x'])
})

test.run()
