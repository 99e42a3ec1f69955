// The mailbox in watched sessions (the terminal UI in a pseudo-terminal), where keel renames and takes
// spooled mail into a running turn: a session with only an engine-made name gets a stable key that
// /clear keeps and --resume restores (issue 12 item 1); mail kept for a watched session while its main
// turn runs a subagent joins the main turn at its next tool boundary, never the subagent's (item 3).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { randomUUID } from 'node:crypto'
import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cleanupTmp } from './engine.ts'
import { hasPty } from './live.ts'
import { lastUserMessage, lastUserText, type RecordedRequest, type Reply } from './mock-model.ts'
import { folderOf, holding, mailIdOf, mailLog, messageTexts, screen, sleep, spoolNames, toolSend, mailboxWorld, type World } from './mailbox-world.ts'
import { registry, type Stamp } from './multi.ts'

let world: World | undefined
test.after.each(async () => {
  await world?.close()
  world = undefined
})
test.after(() => cleanupTmp())

const requestsWith = (w: World, sid: string, needle: string) => w.mock.stamps.filter((st) => st.kind === 'main' && st.sid === sid && holding(st, needle) > 0)

test('an engine-made name: keel mints a key and applies it with /rename; /clear keeps it; --resume restores it and the mail kept meanwhile arrives', async () => {
  if (!hasPty()) throw new Error('this test needs util-linux `script` for a pseudo-terminal')
  const w = (world = await mailboxWorld())
  const [sidA, sidD] = [randomUUID(), randomUUID()]
  const A = await w.start({ name: 'keel-A', sid: sidA })
  const D = await w.start({ mode: 'tui', sid: sidD })
  const minted = mailLog(D).map((l) => /^key (\S+) \(minted for this session, applied with \/rename\)$/.exec(l)?.[1]).find(Boolean)
  assert.ok(minted, mailLog(D).join('\n'))
  assert.match(minted!, /^keel-e2e-proj-[a-z0-9-]*-[a-z2-7]{4}$/)
  await D.waitFor('the registry to hold the key as the name', () => registry(join(w.home, '.claude')).some((r) => r.sessionId === sidD && r.name === minted && r.nameSource === 'user'))
  await D.send('/ws mailbox')
  await D.waitFor('the mailbox status on the screen', () => screen(D).includes(`key:${minted}(mintedforthissession,appliedwith/rename)`), 15_000)

  await D.send('/clear')
  await D.waitFor('the key to follow the /clear', () => mailLog(D).some((l) => l.startsWith('after session.end clear: the new session id is read')), 15_000)
  await D.waitFor('the key settled again', () => mailLog(D).filter((l) => l === `key ${minted} (the session's name, given with --name or /rename)`).length, 15_000)

  await w.stop(D)
  const kept = await toolSend(w.mock, A, sidA, { to: minted, text: 'WHILE-D-WAS-DOWN' })
  assert.match(kept.text, new RegExp(`^${minted} is not running under this config folder: kept`))
  // The conversation before the /clear, resumed by its id: the name the rename gave is restored.
  const resumed = await w.start({ mode: 'tui', resume: sidD })
  assert.ok(mailLog(resumed).some((l) => l.startsWith(`key ${minted} (the session's name`)), mailLog(resumed).join('\n'))
  assert.ok(!mailLog(resumed).some((l) => l.startsWith('rename to')), 'nothing to rename: the engine restored the name')
  await resumed.waitFor('the kept mail to arrive', () => w.mock.stamps.some((st) => st.kind === 'main' && holding(st, 'WHILE-D-WAS-DOWN') > 0 && st.sid !== sidA), 20_000)
  await resumed.waitFor('marked done', () => spoolNames(w, minted!).some((n) => n.endsWith(`${mailIdOf(kept.text)}.done`)), 15_000)
})

/** The child's requests: its conversation opens with its prompt, not with the main's DO-TOOL line. */
const isChild = (st: Stamp | RecordedRequest) => {
  const first = (st.body.messages ?? [])[0]
  const text = first ? messageTexts({ body: { messages: [first] } } as Stamp)[0]!.text : ''
  return text.includes('CHILD-WORK') && !text.includes('DO-TOOL')
}
/** The tool call the last user message answers ('' for none; a system row may follow it). */
const lastToolId = (req: { body: any }) => /"tool_use_id":"([^"]+)"/.exec(JSON.stringify(lastUserMessage(req.body) ?? {}))?.[1] ?? ''

/**
 * A background subagent running three `Bash sleep 1`, while the main turn, once it launched it, runs
 * one `Bash sleep 6`: the child's tool boundaries come while the main turn is still running.
 */
const script = (req: RecordedRequest): Reply | undefined => {
  if (req.kind !== 'main') return undefined
  const last = lastToolId(req)
  if (isChild(req)) {
    const n = Number(/^toolu_child_(\d)/.exec(last)?.[1] ?? 0)
    if (n >= 3 || (n === 0 && !lastUserText(req.body).includes('CHILD-WORK'))) return { text: 'child done' }
    return { toolUse: { name: 'Bash', input: { command: 'sleep 1', description: `child sleep ${n + 1}` }, id: `toolu_child_${n + 1}_${randomUUID().slice(0, 6)}` } }
  }
  if (last.startsWith('toolu_tool_')) return { toolUse: { name: 'Bash', input: { command: 'sleep 6', description: 'main sleep' }, id: `toolu_mainsleep_${randomUUID().slice(0, 6)}` } }
  return undefined
}

test('watched and busy: mail kept for the session while its main turn runs joins it at the main turn\'s next tool boundary as one row, never at a subagent\'s', async () => {
  if (!hasPty()) throw new Error('this test needs util-linux `script` for a pseudo-terminal')
  const w = (world = await mailboxWorld({ options: { mailboxScanSeconds: 1 }, script }))
  const sidB = randomUUID()
  const B = await w.start({ mode: 'tui', name: 'keel-B', sid: sidB, args: ['--allowedTools', 'Bash,Agent', '--permission-mode', 'acceptEdits'] })
  const agent = { description: 'child work', prompt: 'CHILD-WORK', subagent_type: 'general-purpose', run_in_background: true }
  await B.send(`DO-TOOL Agent ${JSON.stringify(agent)}`)
  await B.waitFor('the child at work', () => w.mock.of(sidB, 'main').some(isChild), 20_000)
  // A sender that crashed after keeping the mail: it is in the spool, nothing was delivered natively.
  const id = 'kepttobusyaaaaaa'
  const sentAt = Date.now()
  const dir = join(w.spool, folderOf('keel-B'))
  mkdirSync(dir, { recursive: true })
  const base = `${String(sentAt).padStart(13, '0')}-${id}`
  writeFileSync(join(dir, `.${base}.json.keel-t0.tmp`), JSON.stringify({ v: 1, id, from: 'keel-A', to: 'keel-B', sentAt, text: 'MAIL-FOR-THE-MAIN-TURN' }) + '\n')
  renameSync(join(dir, `.${base}.json.keel-t0.tmp`), join(dir, `${base}.json`))
  await B.waitFor('queued for the running turn', () => mailLog(B).some((l) => l.startsWith('1 mail queued for the running turn')), 10_000)
  const queuedAt = Date.now()
  await B.waitFor('the main turn to read it', () => requestsWith(w, sidB, 'MAIL-FOR-THE-MAIN-TURN').filter((st) => !isChild(st)).length, 30_000)
  await B.waitFor('marked done', () => spoolNames(w, 'keel-B').some((n) => n.endsWith(`${id}.done`)), 15_000)
  await sleep(1500)
  const reqs = w.mock.of(sidB, 'main')
  const child = reqs.filter(isChild)
  const childAfter = child.filter((st) => st.at > queuedAt && holding(st, 'child done') === 0 && lastToolId(st).startsWith('toolu_child_'))
  assert.ok(childAfter.length >= 1, `the child reached a tool boundary while the mail was queued: queued at ${queuedAt}; ${reqs.map((st) => `${isChild(st) ? 'child' : 'main'} ${st.at} ${lastToolId(st)}`).join('; ')}`)
  assert.is(child.filter((st) => holding(st, 'MAIL-FOR-THE-MAIN-TURN') > 0).length, 0, 'never at a subagent\'s boundary')
  const main = reqs.filter((st) => !isChild(st))
  const first = main.findIndex((st) => holding(st, 'MAIL-FOR-THE-MAIN-TURN') > 0)
  assert.ok(first >= 1, 'a later request of the main turn')
  assert.ok(lastToolId(main[first]!).startsWith('toolu_mainsleep_'), 'right after the main turn\'s own tool call')
  const joined = messageTexts(main[first]!).filter((m) => m.text.includes('MAIL-FOR-THE-MAIN-TURN'))
  assert.equal(joined.map((m) => m.role), ['system'])
  assert.ok(joined[0]!.text.includes('Note from the ws plugin, not from the user:\n[ws mailbox] 1 mail for your mailbox key `keel-B`'), joined[0]!.text)
})

test.run()
