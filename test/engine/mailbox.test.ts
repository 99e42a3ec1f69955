// packages: ws
// The mailbox through real dispatch: `mailbox_send` registered at session start and served at
// tool.call (the spool file first: a failed write refuses the send, and nothing is sent), the key
// settled from the session's registry record, a live delivery's second copy consumed at
// session.receive, the person's `/rename` heard at command.run (adoption), kept mail submitted once
// the headless session is idle, and `/ws mailbox`. The test's `on` hooks stand for the engine: its
// files (files-world.ts), clock, store, environment and the native send.
import { expect, mock, test, type TestBody } from 'claude-code/testing'
import { filesWorld } from './files-world.ts'
import { PKG } from './package.ts'

type On = Parameters<TestBody>[1]
type Engine = Parameters<TestBody>[0]

const CFG = '/cfg'
const SPOOL = `${CFG}/keel/mailbox`
const TOOL: `mcp__${string}__${string}` = `mcp__${PKG}__mailbox_send`
const RUN = { origin: { kind: 'composer' }, presentation: { isFullscreen: false, columns: 100 } } as const
const ID = 'aaaaaaaaaaaaaaaa'

function world(on: On, o: { files?: Record<string, string>; failWrites?: boolean; name?: string } = {}) {
  const clock = mock.clock(on, { now: 1_800_000_000_000 })
  mock.store(on)
  mock.env(on, { CLAUDE_CONFIG_DIR: CFG, CLAUDE_CODE_MESSAGING_SOCKET: '/tmp/cc-socks/42.sock' })
  const files = new Map(Object.entries({ [`${CFG}/sessions/42.json`]: JSON.stringify({ pid: 42, name: o.name ?? 'keel-B', nameSource: 'user' }), ...o.files }))
  const seen = { files, registered: [] as string[], sends: [] as { to: unknown; text: string }[], submits: [] as string[], logs: [] as string[] }
  // A full disk: every write refused (registered first, so it answers before the file world beneath).
  if (o.failWrites) on('fs.write', { path: /\/keel-c\// }, () => ({ deny: 'ENOSPC: no space left on device' }))
  filesWorld(on, files, { dirs: [CFG, `${CFG}/sessions`] })
  on('ui.log', (_, e) => (seen.logs.push(e.text), { value: undefined }))
  on('command.register', (_, e) => ({ value: { command: e.name } }))
  on('tool.register', (_, e) => (seen.registered.push(e.name), { value: { tool: `mcp__${PKG}__${e.name}` } }))
  on('session.start', (_, e) => ({ cwd: e.cwd }))
  on('session.id', () => ({ value: 'session-1' }))
  on('process.hookEnv', () => ({ value: { CLAUDE_PID: '42', CLAUDE_PLUGIN_DATA: `${CFG}/plugins/data/${PKG}-inline` } }))
  on('session.send', (_, e) => (seen.sends.push({ to: e.to, text: e.text }), { isDelivered: false, reason: `No agent named '${String(e.to)}' is reachable.\nUse ListAgents to see everyone you can message.` }))
  on('prompt.submit', (_, e) => (seen.submits.push(e.text), { text: e.text }))
  on('tool.call', () => ({ result: { listing: '', sections: [] } }))
  on('session.receive', (_, e) => ({ text: e.text }))
  on('command.run', (_, e) => ({ text: e.command === 'rename' ? `Session renamed to: ${e.args}` : '' }))
  on('turn.start', (_, e) => ({ turnId: e.turnId }))
  on('turn.complete', (_, e) => ({ text: e.answer }))
  on('session.end', (_, e) => ({ sessionId: e.sessionId }))
  return { clock, seen }
}

async function start($: Engine, clock: { advance(ms: number): Promise<unknown> }) {
  await $.session.start({ cwd: '/w/proj', surface: null, isInteractive: false })
  await clock.advance(0)
}
const status = async ($: Engine) => (await $.command.run({ command: PKG, args: 'mailbox', ...RUN })).text ?? ''
const header = (id: string, from: string, text: string) => `[${PKG} mail ${id} from ${from}]\n${text}`

test('start: mailbox_send is registered, eager; the key is the registry record\'s name; /ws mailbox says so', async ($, on) => {
  const w = world(on)
  await start($, w.clock)
  expect(w.seen.registered).toContain('mailbox_send')
  const text = await status($)
  expect(text).toContain("key: keel-B (the session's name, given with --name or /rename)")
  expect(text).toContain('waiting for keel-B: none')
  expect(text).toContain('native messaging: available')
  expect(w.seen.files.has(`${SPOOL}/README`)).toBe(true)
  const line = (await $.command.run({ command: PKG, args: 'status', ...RUN })).text ?? ''
  expect(line).toContain('  mailbox: key keel-B, 0 waiting, 0 sent waiting')
})

test('mailbox_send: the spool file is written before the send; not running means kept; the outbox counts it', async ($, on) => {
  const w = world(on)
  await start($, w.clock)
  const r = await $.tool.call({ tool: TOOL, tool_use_id: 'u1', to: 'keel-C', text: 'hello C' })
  expect(r).toMatchObject({ result: expect.stringMatching(/^keel-C is not running under this config folder: kept in \/cfg\/keel\/mailbox\/keel-c, delivered when it next starts under this config folder; a session under another CLAUDE_CONFIG_DIR never sees it \(mail [a-z2-7]{16}\)$/) })
  const kept = [...w.seen.files.keys()].filter((p) => p.startsWith(`${SPOOL}/keel-c/`))
  expect(kept).toHaveLength(1)
  expect(JSON.parse(w.seen.files.get(kept[0]!)!)).toMatchObject({ v: 1, from: 'keel-B', to: 'keel-C', text: 'hello C' })
  expect(w.seen.sends).toHaveLength(1)
  expect(w.seen.sends[0]!.text).toMatch(/^\[ws mail [a-z2-7]{16} from keel-B\]\nhello C$/)
  expect(await status($)).toContain('sent, still waiting: 1 to keel-C')
})

test('mailbox_send fails when the spool write fails, and nothing is sent', async ($, on) => {
  const w = world(on, { files: { [`${SPOOL}/README`]: 'x' }, failWrites: true })
  await start($, w.clock)
  const r = await $.tool.call({ tool: TOOL, tool_use_id: 'u1', to: 'keel-C', text: 'hello C' })
  expect(r).toEqual({ deny: expect.stringMatching(/^mailbox_send: the mail was not kept \(.*ENOSPC.*\); nothing was sent\.$/) })
  expect(w.seen.sends).toEqual([])
})

test('mailbox_send refuses a subagent, a bad key and an empty text', async ($, on) => {
  const w = world(on)
  await start($, w.clock)
  expect(await $.tool.call({ tool: TOOL, tool_use_id: 'u1', to: 'keel-C', text: 'x', agentId: 'A1' })).toEqual({ deny: 'mailbox_send sends from the main session only; called from subagent A1.' })
  expect(await $.tool.call({ tool: TOOL, tool_use_id: 'u2', to: '../x', text: 'x' })).toEqual({ deny: 'mailbox_send: `to` holds a path character (/ or \\); a key is a session\'s name as ListAgents lists it.' })
  expect(await $.tool.call({ tool: TOOL, tool_use_id: 'u3', to: 'keel-C', text: '' })).toEqual({ deny: 'mailbox_send: `text` is empty.' })
  expect(w.seen.sends).toEqual([])
})

test('session.receive: the first live copy passes; a second copy of the same mail is consumed, with the reason', async ($, on) => {
  const w = world(on)
  await start($, w.clock)
  const text = `<cross-session-message from="uds:/tmp/cc-socks/7.sock" from-name="keel-A" from-mode="prompting">\n${header(ID, 'keel-A', 'hi')}\n</cross-session-message>`
  // The hook waits for its claim and comparison, which run from a timer after the start's work.
  const receive = async (t: string) => {
    const answer = $.session.receive({ origin: { kind: 'peer', plugin: PKG }, text: t })
    for (let i = 0; i < 5; i++) await w.clock.advance(0)
    return answer
  }
  expect(await receive(text)).toEqual({ text })
  expect(await receive(text)).toEqual({ consumed: `${PKG} mailbox: duplicate of mail ${ID}` })
  expect(await receive('no header here')).toEqual({ text: 'no header here' })
  await w.clock.advance(0)
  expect(await status($)).toContain('duplicates taken: 1')
})

test('kept mail waiting at start is submitted once the headless session has been idle 1.5 s, as one prompt', async ($, on) => {
  const sentAt = 1_800_000_000_000 - 60_000
  const mail = (id: string, text: string, at: number) => [`${SPOOL}/keel-b/${String(at).padStart(13, '0')}-${id}.json`, JSON.stringify({ v: 1, id, from: 'keel-A', to: 'keel-B', sentAt: at, text }) + '\n'] as const
  const w = world(on, { files: Object.fromEntries([mail(ID, 'first', sentAt), mail('bbbbbbbbbbbbbbbb', 'second', sentAt + 1)]) })
  await start($, w.clock)
  expect(w.seen.submits).toEqual([])
  await w.clock.advance(1500)
  await w.clock.settle()
  expect(w.seen.submits).toHaveLength(1)
  expect(w.seen.submits[0]).toStartWith(`[${PKG} mailbox] 2 mails for your mailbox key \`keel-B\`, oldest first,`)
  expect(w.seen.submits[0]!.indexOf('first')).toBeLessThan(w.seen.submits[0]!.indexOf('second'))
  expect([...w.seen.files.keys()].filter((p) => p.endsWith('.done'))).toHaveLength(2)
})

test('the person\'s /rename is heard after it applied: the new name is the key', async ($, on) => {
  const w = world(on)
  await start($, w.clock)
  await $.command.run({ command: 'rename', args: 'keel-K', ...RUN })
  await w.clock.advance(0)
  await w.clock.settle()
  expect(await status($)).toContain("key: keel-K (the session's name, given with --name or /rename)")
})

test('/ws mail: the person sends; a command without a text answers the usage', async ($, on) => {
  const w = world(on)
  await start($, w.clock)
  const r = await $.command.run({ command: PKG, args: 'mail keel-C hello from the person', ...RUN })
  expect(r.text).toMatch(/^keel-C is not running under this config folder: kept/)
  const usage = await $.command.run({ command: PKG, args: 'mail keel-C', ...RUN })
  expect(usage.text).toBe(`usage: /${PKG} mail <key> <text>  (quote a key that holds spaces: /${PKG} mail "my key" hello)`)
  expect(w.seen.sends.map((x) => x.text.split('\n')[1])).toEqual(['hello from the person'])
})
