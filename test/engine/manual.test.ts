// packages: ws
// The manual feature through real dispatch (design §5.4): prompt.compose appends the section last,
// once, and answers it unchanged after; tool.call on Read rewrites only after next (the tool ran),
// and only when the content's hash is the prompt's copy; a subagent's Read, a teammate's render and
// a project with no manual are left alone; a compaction refreshes the copy; the status lines. The
// test's `on` hooks stand for the engine: its files, its conversation, its store and its tools.
import { expect, mock, test, type TestBody } from 'claude-code/testing'
import { PKG } from './package.ts'

type On = Parameters<TestBody>[1]
type Engine = Parameters<TestBody>[0]

const ONLY = { options: { manual: 'on', timing: 'off', window: 'off', reconnect: 'off', captions: 'off' } }
const PATH = '/p/ai-docs/WORKFLOW.md'
const MANUAL = `# Workflow\n${'Work one step at a time, and check it.\n'.repeat(20)}`
const HEADER = "This project's workflow manual, ai-docs/WORKFLOW.md, is below as it read when this system prompt was built; do not Read it to learn it, Read it when you are about to edit it."
const POINTER = `ai-docs/WORKFLOW.md is unchanged and is in your system prompt (section ${PKG}:workflow-manual); use it from there.`
const RUN = { origin: { kind: 'composer' }, presentation: { isFullscreen: false, columns: 100 } } as const
const FACTS = { model: 'm', promptModel: 'm', surfaces: [], tools: ['Read'], outputStyle: null }

function world(on: On, files: Record<string, string> = { [PATH]: MANUAL }) {
  const seen = { files: new Map(Object.entries(files)), reads: [] as string[], logs: [] as string[] }
  mock.clock(on, { now: 1_000 })
  mock.store(on)
  on('ui.log', (_, e) => (seen.logs.push(e.text), { value: undefined }))
  on('command.register', (_, e) => ({ value: { command: e.name } }))
  on('session.start', (_, e) => ({ cwd: e.cwd }))
  on('session.end', (_, e) => ({ sessionId: e.sessionId }))
  on('session.id', () => ({ value: 'session-1' }))
  on('session.root', () => ({ value: '/p' }))
  on('session.repo', () => ({ value: <never>{ root: '/p', remote: null, internal: false } }))
  on('session.messages', () => ({ value: [] }))
  on('env.get', () => ({ value: undefined }))
  on('env.set', () => ({ value: {} }))
  // The files (no links here: the e2e tests have real ones); a missing path is refused as the engine does.
  on('fs.stat', (_, e) => {
    if (seen.files.has(e.path)) return { value: { kind: 'file', size: seen.files.get(e.path)!.length, mtimeMs: 0, isLink: false, realPath: e.path } }
    if (['/p', '/p/ai-docs'].includes(e.path)) return { value: { kind: 'dir', size: 0, mtimeMs: 0, isLink: false, realPath: e.path } }
    return { deny: `ENOENT ${e.path}` }
  })
  on('fs.read', (_, e) => (seen.files.has(e.path) ? { value: seen.files.get(e.path)! } : { deny: `ENOENT ${e.path}` }))
  // The engine's prompt, and its Read tool: what the file holds now (the tool ran: `reads` counts it).
  on('prompt.compose', () => ({ sections: [{ id: 'intro', text: 'You are the engine.', scope: 'shared' }] }))
  on('tool.call', (_, e) => {
    const path = String((e as { file_path?: unknown }).file_path)
    seen.reads.push(path)
    const content = seen.files.get(path) ?? ''
    return { result: { type: 'text', file: { filePath: path, content, numLines: content.split('\n').length, startLine: 1, totalLines: content.split('\n').length } }, text: content }
  })
  return seen
}

const start = ($: Engine) => $.session.start({ cwd: '/p', surface: 'terminal', isInteractive: true })
const compose = ($: Engine, traits: string[] = ['lean']) => $.prompt.compose({ ...FACTS, traits: traits as never })
const read = ($: Engine, over: Record<string, unknown> = {}) => $.tool.call({ tool: 'Read', tool_use_id: 'u1', file_path: PATH, ...over } as never) as Promise<{ result: { file: { content: string; numLines: number } } }>

test('the section is appended last, session scope, once; the next compose answers the same text', ONLY, async ($, on) => {
  const seen = world(on)
  await start($)
  const first = await compose($)
  expect(first.sections.map((s) => s.id)).toEqual(['intro', `${PKG}:workflow-manual`])
  expect(first.sections[1]).toEqual({ id: `${PKG}:workflow-manual`, text: `${HEADER}\n\n${MANUAL.trimEnd()}`, scope: 'session' })
  seen.files.set(PATH, `${MANUAL}changed\n`)
  const second = await compose($)
  expect(second.sections[1]!.text).toBe(first.sections[1]!.text)
})

test('a Read of the manual: the tool runs, then its content is answered with the pointer; a changed file, a range, a subagent\'s Read pass whole', ONLY, async ($, on) => {
  const seen = world(on)
  await start($)
  await compose($)
  const r = await read($)
  expect(seen.reads).toEqual([PATH])
  expect(r.result.file).toMatchObject({ content: POINTER, numLines: 1, filePath: PATH, startLine: 1 })
  expect((await read($, { offset: 2, limit: 3 })).result.file.content).toBe(MANUAL)
  expect((await read($, { agentId: 'agent-1' })).result.file.content).toBe(MANUAL)
  seen.files.set(PATH, `${MANUAL}a change\n`)
  expect((await read($)).result.file.content).toBe(`${MANUAL}a change\n`)
  expect(seen.reads).toHaveLength(4)
})

test('a teammate\'s render and a measuring render: nothing added by the one, the copy answered by the other', ONLY, async ($, on) => {
  world(on)
  await start($)
  const teammate = await compose($, ['lean', 'teammate'])
  expect(teammate.sections.map((s) => s.id)).toEqual(['intro'])
  const analysis = await compose($, ['lean', 'analysis'])
  expect(analysis.sections.map((s) => s.id)).toEqual(['intro'])
  await compose($)
  expect((await compose($, ['lean', 'analysis'])).sections.map((s) => s.id)).toEqual(['intro', `${PKG}:workflow-manual`])
})

test('a landed compaction refreshes the copy: the next prompt carries the file as it is then', ONLY, async ($, on) => {
  const seen = world(on)
  on('session.compact', (_, e) => ({ messages: e.messages }))
  await start($)
  await compose($)
  seen.files.set(PATH, `${MANUAL}after the compaction\n`)
  await $.session.compact({ trigger: 'manual', messages: [{ role: 'user', text: 'hello', toolUses: [] }] })
  const after = await compose($)
  expect(after.sections[1]!.text.endsWith('after the compaction')).toBe(true)
  expect((await read($)).result.file.content).toBe(POINTER)
})

test('every landed main compaction refreshes (manual, auto, plugin); a precompute, a skipped one and a subagent\'s do not', ONLY, async ($, on) => {
  const seen = world(on)
  let skip = false
  on('session.compact', (_, e) => (skip ? { skip: 'vetoed' } : { messages: e.messages }))
  await start($)
  await compose($)
  const messages = [{ role: 'user' as const, text: 'hello', toolUses: [] }]
  let version = 0
  const carries = async () => (await compose($)).sections[1]!.text.split('\n').at(-1)
  for (const trigger of ['manual', 'auto', 'plugin'] as const) {
    seen.files.set(PATH, `${MANUAL}version ${++version}\n`)
    await $.session.compact({ trigger, messages })
    expect(await carries()).toBe(`version ${version}`)
  }
  seen.files.set(PATH, `${MANUAL}not carried\n`)
  await $.session.compact({ trigger: 'precompute', messages })
  await $.session.compact({ trigger: 'manual', messages, agentId: 'agent-1' } as never)
  skip = true
  await $.session.compact({ trigger: 'manual', messages })
  expect(await carries()).toBe(`version ${version}`)
})

test('no manual in the project: no section, every Read whole, the status says so', ONLY, async ($, on) => {
  world(on, { '/p/ai-docs/play.md': MANUAL })
  await start($)
  expect((await compose($)).sections.map((s) => s.id)).toEqual(['intro'])
  expect((await read($, { file_path: '/p/ai-docs/play.md' })).result.file.content).toBe(MANUAL)
  expect((await read($, { file_path: '/p/ai-docs/play.md' })).result.file.content).toBe(MANUAL)
  const status = await $.command.run({ command: PKG, args: 'status', ...RUN })
  expect(status.text).toContain('manual: runs')
  expect(status.text).toContain('  manual: ai-docs/WORKFLOW.md: no such file (not a manual project: nothing is added and no read is touched)')
})

test('status: the file, the prompt\'s copy, the file now, the pointers', ONLY, async ($, on) => {
  world(on)
  await start($)
  await compose($)
  await read($)
  const status = await $.command.run({ command: PKG, args: 'status', ...RUN })
  expect(status.text).toContain(`  manual: ai-docs/WORKFLOW.md: ${MANUAL.length} bytes`)
  expect(status.text).toMatch(/ {2}system prompt: carries the manual as it read at 1970-01-01T00:00:01\.000Z \(start\), \d+ bytes, sha256 [0-9a-f]{12}/)
  expect(status.text).toContain("  file now: the same as the prompt's copy")
  expect(status.text).toContain('  pointers: 1 reads answered with a pointer (1 of the manual, 0 repeats)')
})
