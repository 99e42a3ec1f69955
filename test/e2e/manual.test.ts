// The workflow manual in real engine sessions (package ws, where it is on), against the mock model:
// what the model received. The section ends the main system prompt and stays byte-identical from
// request to request until a refresh (/compact, an auto-compaction, /clear), which carries the file
// as it is then; a subagent's prompt is left as the engine builds it; a full Read of the unchanged
// manual is answered with the pointer after the tool ran, a partial read or a read after a change with
// the file; repeat reads under the manual's folder go full, pointer, full; --resume keeps the pointers
// true (the replayed prompt is the recorded one); the status; every bad input leaves the turn whole.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createHash } from 'node:crypto'
import { execFileSync, spawnSync } from 'node:child_process'
import { appendFileSync, chmodSync, mkdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { cleanupTmp, debugLines, findFiles, packageCopy, runClaude, textIfThere, tmpDir, writePlugin } from './engine.ts'
import { startLive, type LiveSession } from './live.ts'
import { lastUserText, startMockModel, type MockModel, type RecordedRequest, type Reply } from './mock-model.ts'

const PKG = 'ws'
const MANUAL = 'ai-docs/WORKFLOW.md'
const HEADER = `This project's workflow manual, ${MANUAL}, is below as it read when this system prompt was built; do not Read it to learn it, Read it when you are about to edit it.`
const POINTER = `${MANUAL} is unchanged and is in your system prompt (section ${PKG}:workflow-manual); use it from there.`
const repeatPointer = (headings: string) => `The result is unchanged. Continue using the full result of your earlier Read of this file in this conversation. Do not read it again (headings: ${headings}).`
const MANUAL_TEXT = `# Workflow\n\n## Steps\n${'Take one step at a time, and check each before the next.\n'.repeat(40)}`
const PLAYBOOK = `# Release\n## Checklist\n${'- tag, build, publish, announce\n'.repeat(60)}`

// ---- The mock: prompts name what the model does ----
//  READ <path> [<offset> <limit>]  a Read (ranged with numbers)
//  EDIT <path>                     an Edit appending a line after the first heading
//  AGENT <path>                    a foreground subagent that Reads <path>
//  BIG                             an answer reporting 990k input tokens (the next turn auto-compacts)
const CHILD = 'CHILD: read '
const isChild = (req: RecordedRequest) => JSON.stringify(req.body?.messages?.[0] ?? '').includes(CHILD)
const answersTool = (req: RecordedRequest) => {
  const msgs: any[] = req.body?.messages ?? []
  const last = msgs[msgs.length - 1]
  return Array.isArray(last?.content) && last.content.some((b: any) => b.type === 'tool_result')
}

function script(req: RecordedRequest): Reply | undefined {
  if (req.kind !== 'main') return undefined
  if (isChild(req)) {
    if (answersTool(req)) return { text: 'child-done' }
    const path = new RegExp(`${CHILD}([^\\s"\\\\]+)`).exec(JSON.stringify(req.body.messages[0]))![1]!
    return { toolUse: { name: 'Read', input: { file_path: path } } }
  }
  if (answersTool(req)) return { text: 'done' }
  const text = lastUserText(req.body)
  const read = /READ (\S+)(?: (\d+) (\d+))?/.exec(text)
  if (read) return { toolUse: { name: 'Read', input: { file_path: read[1], ...(read[2] ? { offset: Number(read[2]), limit: Number(read[3]) } : {}) } } }
  const edit = /EDIT (\S+)/.exec(text)
  if (edit) return { toolUse: { name: 'Edit', input: { file_path: edit[1], old_string: '## Steps\n', new_string: '## Steps\nOne more rule.\n' } } }
  const agent = /AGENT (\S+)/.exec(text)
  if (agent) return { toolUse: { name: 'Agent', input: { description: 'read the manual', prompt: `${CHILD}${agent[1]}`, subagent_type: 'general-purpose', run_in_background: false } } }
  if (/\bBIG\b/.test(text)) return { text: 'big', inputTokens: 990_000 }
  return { text: 'ok' }
}

// ---- What the model received ----
const systemOf = (req: RecordedRequest): string => JSON.stringify(req.body?.system ?? '')
const hashOf = (req: RecordedRequest) => createHash('sha256').update(systemOf(req)).digest('hex').slice(0, 16)
/** The last system block's text: where a session section ends up. */
const lastSystemText = (req: RecordedRequest): string => {
  const blocks: any[] = Array.isArray(req.body?.system) ? req.body.system : []
  return String(blocks[blocks.length - 1]?.text ?? '')
}
/** How many times the section's first line is in the system prompt. */
const headerCount = (req: RecordedRequest) => systemOf(req).split(JSON.stringify(HEADER).slice(1, -1)).length - 1
/** The texts of the tool results a request answers with (what the model read for its calls). */
const toolResults = (req: RecordedRequest): string[] => {
  const msgs: any[] = req.body?.messages ?? []
  const last = msgs[msgs.length - 1]
  if (!Array.isArray(last?.content)) return []
  return last.content.filter((b: any) => b.type === 'tool_result').map((b: any) => (typeof b.content === 'string' ? b.content : b.content.map((c: any) => c.text ?? '').join('\n')))
}
/** The Read tool's rendering of a whole file for the model: numbered lines. */
const rendered = (text: string) => text.split('\n').map((line, i) => `${i + 1}\t${line}`).join('\n')
const canonical = (text: string) => text.replace(/\n+$/, '')

/** The main conversation's requests (the subagent's left out), in order. */
const mains = (mock: MockModel) => mock.messages('main').filter((r) => !isChild(r))

function project(files: Record<string, string | Buffer> = { [MANUAL]: MANUAL_TEXT }): string {
  const cwd = tmpDir('proj')
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(cwd, name)), { recursive: true })
    writeFileSync(join(cwd, name), text)
  }
  return cwd
}

type Session = LiveSession & {
  /** Sends a prompt and waits for its result line; answers the result text. */
  turn(text: string): Promise<string>
}

async function session(mock: MockModel, cwd: string, opts: { home?: string; options?: object; extraArgs?: string[]; pluginDirs?: string[] } = {}): Promise<Session> {
  const settings = opts.options ? { pluginConfigs: { [`${PKG}@inline`]: { options: opts.options } } } : undefined
  const live = await startLive({
    mode: 'stream-json', pluginDirs: opts.pluginDirs ?? [packageCopy(PKG)], mock, cwd, ...(opts.home ? { home: opts.home } : {}), ...(settings ? { settings } : {}),
    extraArgs: ['--allowedTools', 'Read,Edit', ...(opts.extraArgs ?? [])],
  })
  const results = () => live.output().split('\n').filter((l) => l.startsWith('{') && l.includes('"type":"result"')).map((l) => JSON.parse(l))
  let turns = 0
  return Object.assign(live, {
    async turn(text: string) {
      turns++
      await live.send(text)
      const all = await live.waitFor(`turn ${turns} (${text.slice(0, 40)})`, () => results().length >= turns && results(), 60_000)
      const last = all[turns - 1]
      assert.is(last.is_error, false, `turn ${turns} (${text}) ended in an error: ${JSON.stringify(last).slice(0, 300)}`)
      return String(last.result ?? '')
    },
  })
}

/** The manual's lines of `/ws status` (indented under the feature's row). */
const manualStatus = (text: string) => text.split('\n').map((l) => l.trim()).filter((l) => /^(manual: ai-docs|system prompt:|file now:|pointers:|manual: manualFile)/.test(l))

let mock: MockModel
let live: Session | undefined
test.before.each(async () => {
  mock = await startMockModel(script)
})
test.after.each(async () => {
  await live?.stop()
  live = undefined
  await mock.close()
})
test.after(() => cleanupTmp())

test('the section: last in the main prompt, byte-identical request to request, refreshed by /compact, /clear and an auto-compaction with the file as it is then; reads: pointer, partial, after a change; repeats: full, pointer, full; a subagent untouched; status', async () => {
  const cwd = project({ [MANUAL]: MANUAL_TEXT, 'ai-docs/playbooks/release.md': PLAYBOOK })
  const manual = join(cwd, MANUAL)
  const playbook = join(cwd, 'ai-docs/playbooks/release.md')
  live = await session(mock, cwd)
  const at = () => mains(mock).length
  const epoch: number[] = [0]

  await live.turn('hello')
  await live.turn(`READ ${manual}`)
  const afterManualRead = mains(mock)[at() - 1]!
  assert.equal(toolResults(afterManualRead), [`1\t${POINTER}`], 'the full Read of the unchanged manual reads as the pointer')
  await live.turn(`READ ${manual} 3 2`)
  assert.equal(toolResults(mains(mock)[at() - 1]!), [rendered(MANUAL_TEXT).split('\n').slice(2, 4).join('\n')], 'a partial read returns the file')
  for (let i = 0; i < 3; i++) await live.turn(`READ ${playbook}`)
  const reads = mains(mock).filter((r) => toolResults(r).length).slice(-3).map((r) => toolResults(r)[0])
  assert.equal(reads, [rendered(PLAYBOOK), `1\t${repeatPointer('# Release; ## Checklist')}`, rendered(PLAYBOOK)], 'full, pointer, full')
  // The Read ran under the pointer, so the engine's file state is current: the Edit goes through.
  await live.turn(`EDIT ${manual}`)
  const edited = toolResults(mains(mock)[at() - 1]!)[0]!
  assert.ok(/has been updated/.test(edited), edited)
  const changed = readFileSync(manual, 'utf8')
  assert.ok(changed.includes('One more rule.'))
  await live.turn(`READ ${manual}`)
  assert.equal(toolResults(mains(mock)[at() - 1]!), [rendered(changed)], 'a read after the file changed returns the file')
  const status = manualStatus(await live.turn(`/${PKG} status`))
  assert.is(status[0], `manual: ${MANUAL}: ${Buffer.byteLength(changed)} bytes`)
  assert.match(status[1]!, new RegExp(`^system prompt: carries the manual as it read at \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z \\(start\\), ${Buffer.byteLength(MANUAL_TEXT)} bytes, sha256 [0-9a-f]{12}$`))
  assert.is(status[2], "file now: changed since the prompt's copy (the prompt refreshes at the next compaction or /clear; until then a Read returns the file)")
  const saved = Math.ceil(MANUAL_TEXT.length / 4) - Math.ceil(POINTER.length / 4) + Math.ceil(PLAYBOOK.length / 4) - Math.ceil(repeatPointer('# Release; ## Checklist').length / 4)
  assert.is(status[3], `pointers: 2 reads answered with a pointer (1 of the manual, 1 repeats), about ${saved} tokens saved`)

  // A subagent: its prompt is the engine's own, and its Read of the manual is whole.
  await live.turn(`AGENT ${manual}`)
  const child = mock.messages('main').filter(isChild)
  assert.ok(child.length >= 2, 'the subagent ran')
  for (const r of child) assert.is(headerCount(r), 0, 'no section in a subagent\'s prompt')
  assert.equal(toolResults(child[child.length - 1]!), [rendered(changed)])

  epoch.push(at())
  await live.turn('/compact')
  await live.turn(`READ ${manual}`)
  assert.equal(toolResults(mains(mock)[at() - 1]!), [`1\t${POINTER}`], 'after the refresh the prompt carries the changed file: its Read is the pointer again')

  const cleared = `${changed}\n## After clear\nA rule added before /clear.\n`
  writeFileSync(manual, cleared)
  epoch.push(at())
  await live.turn('/clear')
  await live.turn('after clear')

  const automatic = `${cleared}\n## After auto\nA rule added before the auto-compaction.\n`
  writeFileSync(manual, automatic)
  await live.turn('BIG')
  epoch.push(at())
  await live.turn('after the auto-compaction')
  assert.ok(mock.messages('summarize').length >= 2, 'the /compact and the auto-compaction summarized')

  // What every main request carried, epoch by epoch: one section, last, the file as it was at the refresh.
  const all = mains(mock)
  epoch.push(all.length)
  const expected = [MANUAL_TEXT, changed, cleared, automatic]
  for (let k = 0; k < 4; k++) {
    const requests = all.slice(epoch[k], epoch[k + 1])
    assert.ok(requests.length >= 1, `epoch ${k} has requests`)
    assert.equal([...new Set(requests.map(hashOf))].length, 1, `epoch ${k}: the system prompt is byte-identical from request to request`)
    const text = lastSystemText(requests[0]!)
    assert.is(headerCount(requests[0]!), 1, `epoch ${k}: one section`)
    assert.ok(text.endsWith(`${HEADER}\n\n${canonical(expected[k]!)}`), `epoch ${k}: the section ends the prompt and carries the file as it was at the refresh`)
  }
  assert.is.not(hashOf(all[epoch[1]! - 1]!), hashOf(all[epoch[1]!]!), 'the refresh changed the prompt')
})

test('--resume: the replayed prompt is the recorded copy (not recomposed), the pointer stays true, the status says resume (recorded)', async () => {
  const cwd = project()
  const manual = join(cwd, MANUAL)
  const first = await runClaude({ prompt: 'hello', cwd, pluginDirs: [packageCopy(PKG)], mock })
  assert.is(first.code, 0, first.stderr)
  const before = mock.messages('main').length
  const firstSystem = hashOf(mock.messages('main')[0]!)
  const second = await runClaude({ prompt: `READ ${manual}`, cwd, home: first.home, resume: first.sessionId, pluginDirs: [packageCopy(PKG)], mock, extraArgs: ['--allowedTools', 'Read'] })
  assert.is(second.code, 0, second.stderr)
  const resumed = mock.messages('main').slice(before)
  assert.ok(resumed.length >= 2)
  for (const r of resumed) assert.is(hashOf(r), firstSystem, 'the resumed requests carry the first process\'s prompt')
  assert.equal(toolResults(resumed[resumed.length - 1]!), [`1\t${POINTER}`])
  assert.ok(debugLines(second.debugLog, PKG).some((l) => l.startsWith('manual: resumed: the replayed prompt carries the copy taken at start')), second.debugLog.slice(-3000))
  const status = await runClaude({ prompt: `/${PKG} status`, cwd, home: first.home, resume: first.sessionId, pluginDirs: [packageCopy(PKG)], mock })
  const lines = manualStatus(String(status.json?.result ?? ''))
  assert.match(lines[1]!, /^system prompt: carries the manual as it read at \S+ \(resume \(recorded\): taken at start\), \d+ bytes, sha256 [0-9a-f]{12}$/)
  assert.is(lines[2], "file now: the same as the prompt's copy")
})

test('--resume of a conversation with no record (the feature was off): nothing collapses; the status says unknown', async () => {
  const cwd = project()
  const manual = join(cwd, MANUAL)
  const off = { pluginConfigs: { [`${PKG}@inline`]: { options: { manual: 'off' } } } }
  const first = await runClaude({ prompt: 'hello', cwd, pluginDirs: [packageCopy(PKG)], mock, settings: off })
  assert.is(first.code, 0, first.stderr)
  assert.is(headerCount(mock.messages('main')[0]!), 0)
  writeFileSync(join(first.home, '.claude/settings.json'), '{}')
  live = await session(mock, cwd, { home: first.home, extraArgs: ['--resume', first.sessionId!] })
  const before = mains(mock).length
  await live.turn(`READ ${manual}`)
  await live.turn(`READ ${manual}`)
  const requests = mains(mock).slice(before)
  for (const r of requests) assert.is(headerCount(r), 0, 'the replayed prompt has no section')
  const read = requests.filter((r) => toolResults(r).length).map((r) => toolResults(r)[0])
  assert.equal(read, [rendered(MANUAL_TEXT), rendered(MANUAL_TEXT)], 'no pointer, repeats included')
  const lines = manualStatus(await live.turn(`/${PKG} status`))
  assert.is(lines[1], 'system prompt: unknown (resumed with no record of what it carries); no read is collapsed until the next compaction or /clear')
})

test('not a manual project: no section, every Read whole, nothing stored; the status says so', async () => {
  const cwd = project({ 'ai-docs/playbooks/release.md': PLAYBOOK })
  const playbook = join(cwd, 'ai-docs/playbooks/release.md')
  live = await session(mock, cwd)
  await live.turn(`READ ${playbook}`)
  await live.turn(`READ ${playbook}`)
  for (const r of mains(mock)) assert.is(headerCount(r), 0)
  assert.equal(mains(mock).filter((r) => toolResults(r).length).map((r) => toolResults(r)[0]), [rendered(PLAYBOOK), rendered(PLAYBOOK)])
  assert.equal(manualStatus(await live.turn(`/${PKG} status`)), [`manual: ${MANUAL}: no such file (not a manual project: nothing is added and no read is touched)`])
  const stores = findFiles(live.home, '.json').filter((f) => textIfThere(f).includes('manual-snapshot:'))
  assert.equal(stores, [], 'no snapshot record is written outside a manual project')
})

test('two packages carrying the manual (keel with it on, and ws): one section, one package runs it', async () => {
  const cwd = project()
  const r = await runClaude({
    prompt: 'hello', cwd, mock, pluginDirs: [packageCopy('keel'), packageCopy(PKG)],
    settings: { pluginConfigs: { 'keel@inline': { options: { manual: 'on' } } } },
  })
  assert.is(r.code, 0, r.stderr)
  assert.is(headerCount(mock.messages('main')[0]!), 1)
  const yielded = [...debugLines(r.debugLog, 'keel'), ...debugLines(r.debugLog, PKG)].filter((l) => l.startsWith('manual: yields to'))
  assert.is(yielded.length, 1, r.debugLog.slice(-2000))
})

// Issue 17 item 9: the status after the manual is deleted says what the prompt still carries.
test('a manual deleted mid-session: the prompt keeps its copy byte for byte and the status says so, and that the file is gone; after /clear none is carried', async () => {
  const cwd = project()
  live = await session(mock, cwd)
  await live.turn('hello')
  unlinkSync(join(cwd, MANUAL))
  await live.turn('after the delete')
  const before = mains(mock)
  assert.equal([...new Set(before.map(hashOf))].length, 1, 'the system prompt is unchanged by the delete')
  assert.ok(lastSystemText(before[before.length - 1]!).endsWith(`${HEADER}\n\n${canonical(MANUAL_TEXT)}`), 'the request after the delete still carries the manual')
  const status = manualStatus(await live.turn(`/${PKG} status`))
  assert.is(status[0], `manual: ${MANUAL}: no such file`)
  assert.match(status[1]!, new RegExp(`^system prompt: carries the manual as it read at \\S+ \\(start\\), ${Buffer.byteLength(MANUAL_TEXT)} bytes, sha256 [0-9a-f]{12}$`))
  assert.is(status[2], 'file now: deleted; the prompt keeps its copy until the next compaction or /clear')
  const cleared = mains(mock).length
  await live.turn('/clear')
  await live.turn('after the clear')
  for (const r of mains(mock).slice(cleared)) assert.is(headerCount(r), 0, 'the prompt after /clear carries no manual')
  assert.equal(manualStatus(await live.turn(`/${PKG} status`)), [`manual: ${MANUAL}: no such file (not a manual project: nothing is added and no read is touched)`])
})

// Issue 17 item 8. A probe beside ws records what the engine says of the place at the start.
const WHERE = `export function register(on) {
  on('session.start', async ($, e, next) => {
    const where = { root: await $.session.root(), repo: (await $.session.repo())?.root, cwd: await $.session.cwd() }
    $.ui.log('WHERE ' + JSON.stringify(where), { to: 'debug' })
    return next(e)
  })
}
`
test('a linked worktree: its own manual is in the prompt and the status, not the main checkout\'s (measured: repo().root names the main checkout)', async () => {
  const main = project({ [MANUAL]: '# Main checkout\nThe main checkout\'s rules.\n' })
  const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'user.name=keel', '-c', 'user.email=keel@e2e', ...args], { cwd, encoding: 'utf8' })
  git(main, 'init', '-q', '-b', 'main')
  git(main, 'add', '-A')
  git(main, 'commit', '-qm', 'manual')
  const worktree = join(tmpDir('worktrees'), 'feature')
  git(main, 'worktree', 'add', '-q', worktree, '-b', 'feature')
  writeFileSync(join(worktree, MANUAL), MANUAL_TEXT)
  const probe = writePlugin(join(tmpDir('probe'), 'where'), 'where', WHERE)
  live = await session(mock, worktree, { pluginDirs: [packageCopy(PKG), probe] })
  await live.turn('hello')
  const where = JSON.parse(debugLines(live.debugLog(), 'where')[0]!.slice('WHERE '.length))
  assert.equal(where, { root: worktree, repo: main, cwd: worktree }, 'what the engine says inside a linked worktree')
  assert.ok(lastSystemText(mains(mock)[0]!).endsWith(`${HEADER}\n\n${canonical(MANUAL_TEXT)}`), 'the worktree\'s manual')
  await live.turn(`READ ${join(worktree, MANUAL)}`)
  assert.equal(toolResults(mains(mock)[mains(mock).length - 1]!), [`1\t${POINTER}`], 'its Read is the pointer')
  const status = manualStatus(await live.turn(`/${PKG} status`))
  assert.is(status[0], `manual: ${MANUAL}: ${Buffer.byteLength(MANUAL_TEXT)} bytes`)
  assert.is(status[2], "file now: the same as the prompt's copy")
})

// ---- Bad input: none of them breaks a turn ----

/** One session in `cwd`: a turn, a full Read of the manual, the status; answers what the model got. */
async function badInput(cwd: string, options?: object) {
  live = await session(mock, cwd, options ? { options } : {})
  await live.turn('hello')
  await live.turn(`READ ${join(cwd, MANUAL)}`)
  const status = manualStatus(await live.turn(`/${PKG} status`))
  const requests = mains(mock)
  return { first: requests[0]!, read: toolResults(requests[requests.length - 1]!), status, requests }
}

test('bad input: an empty manual: a one-line section says so; its Read passes', async () => {
  const r = await badInput(project({ [MANUAL]: '\n \n' }))
  assert.ok(lastSystemText(r.first).endsWith(`This project's workflow manual, ${MANUAL}, is empty.`))
  assert.is(r.read.length, 1)
  assert.is.not(r.read[0], `1\t${POINTER}`)
  assert.is(r.status[0], `manual: ${MANUAL}: empty (3 bytes)`)
})

test('bad input: a manual over the 64 KiB cap is not carried: the section names it and says it is too large; its Read is whole', async () => {
  const big = `# Big\n${'x'.repeat(70_000)}\n`
  const r = await badInput(project({ [MANUAL]: big }))
  const text = lastSystemText(r.first)
  assert.ok(text.endsWith(`This project's workflow manual, ${MANUAL}, is not in this system prompt: it is ${big.length} bytes, over the 65536 bytes the prompt carries. Read it when you need it, in parts (offset and limit) if it is long.`), text.slice(-400))
  assert.not.ok(text.includes('x'.repeat(100)))
  assert.ok(r.read[0]!.startsWith('1\t# Big'), 'the Read is the file')
  assert.is(r.status[0], `manual: ${MANUAL}: ${big.length} bytes, over the 65536-byte cap: too large to carry (the section names it instead)`)
})

test('bad input: a binary manual (a NUL byte): a one-line section says so', async () => {
  const r = await badInput(project({ [MANUAL]: Buffer.from('# W\n\u0000\u0001 bytes\n', 'utf8') }))
  assert.ok(lastSystemText(r.first).endsWith(`This project's workflow manual, ${MANUAL}, is not in this system prompt: it is not UTF-8 text (it holds a NUL byte or bytes that are not UTF-8).`))
  assert.match(r.status[0]!, /bytes, not UTF-8 text/)
})

test('bad input: an unreadable manual (no read permission, an unprivileged user): no section, the Read fails as the tool does, the status says why', async () => {
  if (process.getuid?.() !== 0 || spawnSync('setpriv', ['--version']).status !== 0) {
    console.log('  [skipped] an unreadable file needs root (to switch to an unprivileged user) and setpriv')
    return
  }
  const cwd = project()
  chmodSync(join(cwd, MANUAL), 0o000)
  const nobody = { uid: 65534, gid: 65534 }
  const r = await runClaude({ prompt: `READ ${join(cwd, MANUAL)}`, cwd, pluginDirs: [packageCopy(PKG)], mock, asUser: nobody, extraArgs: ['--allowedTools', 'Read'] })
  assert.is(r.code, 0, r.stderr)
  for (const q of mains(mock)) assert.is(headerCount(q), 0)
  assert.match(toolResults(mains(mock)[mains(mock).length - 1]!)[0]!, /EACCES|permission/i, 'the Read fails as the tool does, untouched')
  const status = await runClaude({ prompt: `/${PKG} status`, cwd, home: r.home, resume: r.sessionId, pluginDirs: [packageCopy(PKG)], mock, asUser: nobody })
  assert.match(manualStatus(String(status.json?.result ?? ''))[0]!, new RegExp(`^manual: ${MANUAL}: unreadable \\(.*EACCES.*\\)$`))
})

test('bad input: a manual link that leads nowhere (a link to itself) reads as no manual', async () => {
  const cwd = project({})
  mkdirSync(join(cwd, 'ai-docs'))
  symlinkSync('WORKFLOW.md', join(cwd, MANUAL))
  const r = await badInput(cwd)
  for (const q of r.requests) assert.is(headerCount(q), 0)
  assert.equal(r.status, [`manual: ${MANUAL}: no such file (not a manual project: nothing is added and no read is touched)`])
})

test('bad input: a manual linked to a file outside the project is refused: no section, its Read whole', async () => {
  const outside = project({ 'elsewhere.md': MANUAL_TEXT })
  const cwd = project({})
  mkdirSync(join(cwd, 'ai-docs'))
  symlinkSync(join(outside, 'elsewhere.md'), join(cwd, MANUAL))
  const r = await badInput(cwd)
  for (const q of r.requests) assert.is(headerCount(q), 0)
  assert.equal(r.read, [rendered(MANUAL_TEXT)])
  assert.is(r.status[0], `manual: ${MANUAL}: refused: it lands at ${join(outside, 'elsewhere.md')}, outside the project root ${cwd}`)
})

test('bad input: a folder named like the manual is refused; a manualFile that climbs out of the root adds nothing', async () => {
  const cwd = project({ 'ai-docs/WORKFLOW.md/inner.md': 'x' })
  const r = await badInput(cwd)
  for (const q of r.requests) assert.is(headerCount(q), 0)
  assert.is(r.status[0], `manual: ${MANUAL}: refused: ${join(cwd, MANUAL)} is not a regular file`)
  await live!.stop()
  live = undefined
  const s = await badInput(project(), { manualFile: '../WORKFLOW.md' })
  for (const q of s.requests) assert.is(headerCount(q), 0)
  assert.equal(s.status, ['manual: manualFile "../WORKFLOW.md" climbs out of the project root; nothing is added'])
})

test('a manual that changes between turns: the prompt keeps its copy byte for byte, a Read returns the new file, the status says changed', async () => {
  const cwd = project()
  live = await session(mock, cwd)
  await live.turn('hello')
  appendFileSync(join(cwd, MANUAL), 'A rule added between turns.\n')
  await live.turn(`READ ${join(cwd, MANUAL)}`)
  const requests = mains(mock)
  assert.equal([...new Set(requests.map(hashOf))].length, 1)
  assert.ok(lastSystemText(requests[0]!).endsWith(canonical(MANUAL_TEXT)))
  assert.equal(toolResults(requests[requests.length - 1]!), [rendered(readFileSync(join(cwd, MANUAL), 'utf8'))])
  assert.is(manualStatus(await live.turn(`/${PKG} status`))[2], "file now: changed since the prompt's copy (the prompt refreshes at the next compaction or /clear; until then a Read returns the file)")
})

test.run()
