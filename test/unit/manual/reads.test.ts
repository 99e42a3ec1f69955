// Reads after `next(e)` (design §3.2 "Reads that collapse", wsflow §5.3 isRepeat): the manual's own
// pointer against the prompt's copy, the repeat-read pointer under the manual's folder, and every
// way a Read passes whole.
import type { ApiMessage } from 'claude-code'
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createReads, headings, isRangedRead, isRepeat, pointerAnswer, tokensSaved, wholeText, type ApiRow, type ReadCall, type ReadEdges, type ReadText } from '../../../src/features/manual/reads.ts'
import { createSnapshot, type Edges } from '../../../src/features/manual/snapshot.ts'
import { contentHash } from '../../../src/features/manual/section.ts'
import { manualPointer, repeatPointer } from '../../../src/features/manual/strings.ts'

const FILE = 'ai-docs/WORKFLOW.md'
const REAL = '/p/ai-docs/WORKFLOW.md'
const MANUAL = `# Workflow\n${'Do the work carefully, one step at a time.\n'.repeat(20)}`
const PLAYBOOK = `# Playbook\n## Steps\n${'step\n'.repeat(100)}`
const POINTER = manualPointer(FILE, 'keel')
const nodeTimer = (globalThis as unknown as { setTimeout(fn: () => void, ms: number): unknown }).setTimeout
const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => nodeTimer(resolve, 0))
}

// The rows type reads the engine's ApiMessage as it is.
const _rowsFit: readonly ApiRow[] = [] as ApiMessage[]
void _rowsFit

/** The Read tool's rendering for the model (measured: core's `text`, and the api form's tool_result content). */
const render = (content: string) => content.split('\n').map((line, i) => `${i + 1}\t${line}`).join('\n')

const record = (filePath: string, content: string, over: Partial<ReadText['file']> = {}): ReadText => ({
  type: 'text',
  file: { filePath, content, numLines: content.split('\n').length, startLine: 1, totalLines: content.split('\n').length, ...over },
})
/** What `next(e)` resolves to for a Read the tool answered. */
const answered = (filePath: string, content: string, over: Partial<ReadText['file']> = {}) => ({ ref: 3, text: render(content), result: record(filePath, content, over) })

async function world(opts: { resumed?: { hash: string | null } | 'none'; manual?: string | undefined } = {}) {
  const files = new Map<string, string>([[REAL, 'manual' in opts ? opts.manual ?? '' : MANUAL]])
  const store = new Map<string, unknown>()
  if (opts.resumed && opts.resumed !== 'none') store.set('manual-snapshot:S1', { hash: opts.resumed.hash, at: 1, reason: 'start', bytes: 10 })
  const edges: Edges = {
    fs: {
      stat: async () => ('manual' in opts && opts.manual === undefined ? null : { realPath: REAL, isFile: true, bytes: files.get(REAL)!.length }),
      realRoot: async () => '/p',
      read: async (path) => files.get(path)!,
    },
    sessionId: async () => 'S1',
    now: async () => 1,
    after: () => {},
    storeGet: async (k) => store.get(k), storeSet: async (k, v) => void store.set(k, v), storeKeys: async () => [...store.keys()], storeDelete: async (k) => void store.delete(k),
    log: () => {},
  }
  const snapshot = createSnapshot({ pkg: 'keel', file: FILE })
  snapshot.start(edges, { resumed: opts.resumed !== undefined })
  await flush()
  if (opts.resumed === undefined) await snapshot.compose(['lean'])
  const seen = { realPaths: [] as string[], messageReads: 0, logs: [] as string[] }
  const state = {
    rows: [] as ApiRow[],
    links: new Map<string, string>([['/p/link-to-manual.md', REAL]]),
    realPathThrows: false,
    messagesThrow: false,
    logThrows: false,
    /** Runs inside the next realPath or messages call: a reset landing while the read is examined. */
    during: undefined as undefined | { at: 'realPath' | 'messages'; run: () => void },
  }
  const readEdges: ReadEdges = {
    realPath: async (path) => {
      seen.realPaths.push(path)
      if (state.during?.at === 'realPath') state.during.run()
      if (state.realPathThrows) throw new Error('stat failed')
      if (path.includes('nowhere')) return undefined
      return state.links.get(path) ?? path
    },
    messages: async () => {
      seen.messageReads++
      if (state.during?.at === 'messages') state.during.run()
      if (state.messagesThrow) throw new Error('no transcript')
      return state.rows
    },
    log: (text) => {
      if (state.logThrows) throw new Error('log refused')
      seen.logs.push(text)
    },
  }
  const reads = createReads({ pkg: 'keel', file: FILE }, snapshot)
  let ids = 0
  /** A main-thread full Read; its outcome goes into the transcript as the model reads it (the api form). */
  async function read(path: string, content: string, over: Partial<ReadCall> = {}) {
    const id = `t${++ids}`
    const res = answered(path, content)
    const outcome = await reads.read(readEdges, { toolUseId: id, args: { file_path: path }, res, ...over })
    const read = outcome.kind === 'pass' ? res.text : render(outcome.answer.result.file.content)
    state.rows.push({ content: [{ type: 'tool_use', id, name: 'Read', input: { file_path: path } }] }, { content: [{ type: 'tool_result', tool_use_id: id, content: read }] })
    return outcome
  }
  return { snapshot, reads, read, readEdges, state, seen, edges, files }
}

test('the pure helpers: ranged reads, whole text, headings, the estimate', () => {
  assert.ok(isRangedRead({ file_path: '/x', offset: 1 }))
  assert.ok(isRangedRead({ file_path: '/x', limit: 10 }))
  assert.ok(isRangedRead({ file_path: '/x', pages: '1-2' }))
  assert.ok(isRangedRead({ file_path: '/x', offset: 0 }), 'any offset asked for is a range')
  assert.not.ok(isRangedRead({ file_path: '/x', offset: null, limit: undefined }))
  const r = record('/x', 'a')
  assert.is(wholeText({ result: r }), r)
  for (const bad of [undefined, null, 'text', { deny: 'no' }, { isError: true, result: 'x' }, { result: null }, { result: { type: 'image', file: {} } },
    { result: { type: 'text' } }, { result: { type: 'text', file: { content: 1, startLine: 1 } } }, { result: record('/x', 'a', { startLine: 5 }) },
    { result: record('/x', 'a', { truncatedByTokenCap: true }) }]) {
    assert.is(wholeText(bad), undefined, JSON.stringify(bad))
  }
  assert.is(headings('# A\n## B\nbody\n### C\n#### D\n#no'), '# A; ## B; ### C')
  assert.is(headings('plain'), '(no headings)')
  assert.is(tokensSaved('x'.repeat(400), 'y'.repeat(40)), 90)
  assert.is(tokensSaved('x'.repeat(3), 'y'.repeat(40)), -9)
})

test('the pointer texts', () => {
  assert.is(POINTER, 'ai-docs/WORKFLOW.md is unchanged and is in your system prompt (section keel:workflow-manual); use it from there.')
  assert.is(repeatPointer(headings('# A\n## B\nbody')), 'The result is unchanged. Continue using the full result of your earlier Read of this file in this conversation. Do not read it again (headings: # A; ## B).')
})

test('pointerAnswer: the tool\'s record with the pointer as its one line; everything else kept, the reminders too', () => {
  const r = { ...record(REAL, MANUAL), artifactRead: { slug: 's', ver: '1' } }
  assert.equal(pointerAnswer({ result: r, ref: 1, text: 'x', context: ['reminder'] }, r, 'P'), {
    result: { type: 'text', file: { filePath: REAL, content: 'P', numLines: 1, startLine: 1, totalLines: r.file.totalLines }, artifactRead: { slug: 's', ver: '1' } },
    context: ['reminder'],
  })
  assert.equal(Object.keys(pointerAnswer({ result: r }, r, 'P')), ['result'], 'no ref, no text: the hook\'s own result')
})

test('a full Read of the manual equal to the prompt\'s copy: the pointer, after next; tokens counted', async () => {
  const w = await world()
  const out = await w.read(REAL, MANUAL)
  assert.is(out.kind, 'manual')
  if (out.kind === 'pass') return
  assert.equal(out.answer, { result: { type: 'text', file: { filePath: REAL, content: POINTER, numLines: 1, startLine: 1, totalLines: 22 } } })
  assert.is(out.tokensSaved, Math.ceil(MANUAL.length / 4) - Math.ceil(POINTER.length / 4))
  assert.equal(w.reads.counts(), { manual: 1, repeat: 0, tokensSaved: out.tokensSaved })
  assert.is((await w.read(REAL, MANUAL)).kind, 'manual', 'every full read of the unchanged manual, not only the first')
  assert.equal(w.reads.counts().manual, 2)
  assert.is(w.seen.messageReads, 0, 'the manual\'s pointer needs no transcript read')
})

test('the Read\'s content compared in canonical form: CRLF or a final newline more still equals the copy', async () => {
  const w = await world()
  assert.is((await w.read(REAL, MANUAL.replace(/\n/g, '\r\n'))).kind, 'manual')
  assert.is((await w.read(REAL, `${MANUAL}\n\n`)).kind, 'manual')
})

test('a link to the manual inside the project reads as the manual (by its real path)', async () => {
  const w = await world()
  assert.is((await w.read('/p/link-to-manual.md', MANUAL)).kind, 'manual')
  assert.is((await w.read('/p/ai-docs/./WORKFLOW.md', MANUAL)).kind, 'manual')
})

test('a partial read (offset, limit, pages) returns the file', async () => {
  const w = await world()
  for (const args of [{ offset: 1 }, { limit: 500 }, { pages: '1' }, { offset: 1, limit: 2 }]) {
    const out = await w.reads.read(w.readEdges, { args: { file_path: REAL, ...args }, res: answered(REAL, MANUAL) })
    assert.is(out.kind, 'pass', JSON.stringify(args))
  }
  assert.equal(w.seen.realPaths, [], 'decided with no file system call')
})

test('a read cut at the token cap, from a later line, not text, refused or failed: whole', async () => {
  const w = await world()
  const results: unknown[] = [
    answered(REAL, MANUAL, { truncatedByTokenCap: true }),
    answered(REAL, MANUAL, { startLine: 3 }),
    { result: { type: 'image', file: { base64: '', type: 'image/png', originalSize: 0 } } },
    { deny: 'refused' },
    { isError: true, result: 'EACCES', text: 'EACCES' },
  ]
  for (const res of results) assert.is((await w.reads.read(w.readEdges, { args: { file_path: REAL }, res })).kind, 'pass')
})

test('a read after the manual changed returns the file; a repeat of the changed file then collapses as any repeat', async () => {
  const w = await world()
  const changed = `${MANUAL}one more line\n`
  assert.is((await w.read(REAL, changed)).kind, 'pass')
  const second = await w.read(REAL, changed)
  assert.is(second.kind, 'repeat')
  if (second.kind !== 'pass') assert.is(second.answer.result.file.content, repeatPointer('# Workflow'))
})

test('a subagent\'s Read passes, and teaches the main thread nothing', async () => {
  const w = await world()
  assert.is((await w.read(REAL, MANUAL, { agentId: 'a1' })).kind, 'pass')
  assert.is((await w.read('/p/ai-docs/play.md', PLAYBOOK, { agentId: 'a1' })).kind, 'pass')
  assert.is((await w.read('/p/ai-docs/play.md', PLAYBOOK)).kind, 'pass', 'the subagent\'s read set no hint')
  assert.equal(w.seen.realPaths, [])
})

test('repeat reads under the manual\'s folder: full, pointer, full (and full after that)', async () => {
  const w = await world()
  const path = '/p/ai-docs/playbooks/release.md'
  const outcomes = []
  for (let i = 0; i < 4; i++) outcomes.push(await w.read(path, PLAYBOOK))
  assert.equal(outcomes.map((o) => o.kind), ['pass', 'repeat', 'pass', 'pass'])
  const second = outcomes[1]!
  if (second.kind === 'pass') return
  assert.is(second.answer.result.file.content, repeatPointer('# Playbook; ## Steps'))
  assert.equal(w.reads.counts().repeat, 1)
  assert.is(w.reads.counts().tokensSaved, Math.ceil(PLAYBOOK.length / 4) - Math.ceil(second.answer.result.file.content.length / 4))
})

test('a repeat whose earlier result is no longer in view (compacted, rewound) returns the file', async () => {
  const w = await world()
  const path = '/p/ai-docs/play.md'
  await w.read(path, PLAYBOOK)
  w.state.rows = []
  assert.is((await w.read(path, PLAYBOOK)).kind, 'pass')
})

test('a changed file is no repeat; the read of its new content starts the count again', async () => {
  const w = await world()
  const path = '/p/ai-docs/play.md'
  await w.read(path, PLAYBOOK)
  assert.is((await w.read(path, `${PLAYBOOK}more\n`)).kind, 'pass')
  assert.is((await w.read(path, `${PLAYBOOK}more\n`)).kind, 'repeat')
  assert.is(w.seen.messageReads, 1, 'the transcript is read only when the hint says the content was seen')
})

test('files outside the manual\'s folder pass; a copy of the manual under a name leading nowhere passes', async () => {
  const w = await world()
  for (const path of ['/p/src/index.ts', '/p/ai-docs-old/x.md', '/p/ai-docs']) {
    await w.read(path, PLAYBOOK)
    assert.is((await w.read(path, PLAYBOOK)).kind, 'pass', path)
  }
  assert.is((await w.read('/p/nowhere.md', MANUAL)).kind, 'pass')
  assert.is((await w.read('/p/nowhere.md', MANUAL)).kind, 'pass', 'outside the folder: no repeat either')
})

test('no file system call per Read: the manual by its own path, files under its folder, files elsewhere; one stat for a copy of the manual under another name', async () => {
  const w = await world()
  await w.read(REAL, MANUAL)
  await w.read('/p/ai-docs/play.md', PLAYBOOK)
  await w.read('/p/ai-docs/play.md', PLAYBOOK)
  await w.read('/p/src/index.ts', PLAYBOOK)
  assert.equal(w.seen.realPaths, [])
  assert.is((await w.read('/p/ai-docs/copy.md', MANUAL)).kind, 'pass', 'a copy of the manual that is not a link to it')
  assert.equal(w.seen.realPaths, ['/p/ai-docs/copy.md'])
})

test('the refresh resets the hints: the first read after it is no repeat, even with the earlier result in view', async () => {
  const w = await world()
  const path = '/p/ai-docs/play.md'
  await w.read(path, PLAYBOOK)
  w.snapshot.compacted({ trigger: 'manual', skipped: false })
  await w.snapshot.compose(['lean'])
  await flush()
  assert.is((await w.read(path, PLAYBOOK)).kind, 'pass')
  assert.is((await w.read(path, PLAYBOOK)).kind, 'pass', 'two full copies in view now')
})

test('counts are per conversation: a compaction keeps them, /clear starts them over', async () => {
  const w = await world()
  await w.read(REAL, MANUAL)
  w.snapshot.compacted({ trigger: 'auto', skipped: false })
  await w.snapshot.compose(['lean'])
  await flush()
  assert.is(w.reads.counts().manual, 1)
  await w.read(REAL, MANUAL)
  assert.is(w.reads.counts().manual, 2)
  w.snapshot.ended('clear')
  assert.equal(w.reads.counts(), { manual: 0, repeat: 0, tokensSaved: 0 })
  await w.snapshot.compose(['lean'])
  await flush()
  await w.read(REAL, MANUAL)
  assert.equal(w.reads.counts().manual, 1)
})

test('a reset while the Read is examined: it passes, and leaves no hint for the new context', async () => {
  const w = await world()
  w.state.during = { at: 'realPath', run: () => w.snapshot.compacted({ trigger: 'manual', skipped: false }) }
  assert.is((await w.read('/p/link-to-manual.md', MANUAL)).kind, 'pass')
  const v = await world()
  const path = '/p/ai-docs/play.md'
  await v.read(path, PLAYBOOK)
  v.state.during = { at: 'messages', run: () => v.snapshot.ended('clear') }
  assert.is((await v.read(path, PLAYBOOK)).kind, 'pass')
})

test('not a manual project: every Read passes with no file system or transcript call', async () => {
  const w = await world({ manual: undefined })
  assert.is((await w.read(REAL, MANUAL)).kind, 'pass')
  assert.is((await w.read('/p/ai-docs/play.md', PLAYBOOK)).kind, 'pass')
  assert.is((await w.read('/p/ai-docs/play.md', PLAYBOOK)).kind, 'pass')
  assert.equal([w.seen.realPaths.length, w.seen.messageReads], [0, 0])
})

test('a manual over the cap: its Read passes (the prompt does not carry it); repeats under its folder still collapse', async () => {
  const big = `# Big\n${'x'.repeat(70000)}\n`
  const w = await world({ manual: big })
  assert.is((await w.read(REAL, big)).kind, 'pass')
  assert.is((await w.read(REAL, big)).kind, 'repeat')
})

test('resume with a record: the manual\'s pointer is judged against the recorded copy', async () => {
  const w = await world({ resumed: { hash: await contentHash(MANUAL) } })
  assert.is((await w.read(REAL, MANUAL)).kind, 'manual')
  const v = await world({ resumed: { hash: await contentHash('# the old manual') } })
  assert.is((await v.read(REAL, MANUAL)).kind, 'pass', 'the file changed since the recorded copy')
})

test('resume with no record: nothing collapses until the next refresh, repeats included', async () => {
  const w = await world({ resumed: 'none' })
  assert.is((await w.read(REAL, MANUAL)).kind, 'pass')
  await w.read('/p/ai-docs/play.md', PLAYBOOK)
  assert.is((await w.read('/p/ai-docs/play.md', PLAYBOOK)).kind, 'pass')
  assert.is(w.seen.realPaths.length, 0)
  w.snapshot.compacted({ trigger: 'manual', skipped: false })
  await w.snapshot.compose(['lean'])
  await flush()
  assert.is((await w.read(REAL, MANUAL)).kind, 'manual')
})

test('a pointer no shorter than the content is not worth answering: tiny files pass', async () => {
  const w = await world({ manual: '# W\n' })
  assert.is((await w.read(REAL, '# W\n')).kind, 'pass')
  await w.read('/p/ai-docs/tiny.md', '# T')
  assert.is((await w.read('/p/ai-docs/tiny.md', '# T')).kind, 'pass')
})

test('failures pass the Read whole: a failed stat, a failed transcript read, a failing log', async () => {
  const w = await world()
  w.state.realPathThrows = true
  assert.is((await w.read('/p/link-to-manual.md', MANUAL)).kind, 'pass')
  assert.ok(w.seen.logs.includes('a Read was not examined (stat failed); it passes whole'))
  w.state.logThrows = true
  assert.is((await w.read('/p/link-to-manual.md', MANUAL)).kind, 'pass')
  const v = await world()
  await v.read('/p/ai-docs/play.md', PLAYBOOK)
  v.state.messagesThrow = true
  assert.is((await v.read('/p/ai-docs/play.md', PLAYBOOK)).kind, 'pass')
  assert.ok(v.seen.logs.includes('the conversation was not read (no transcript); the Read passes whole'))
})

test('a call with no file_path string is judged by the result\'s own path', async () => {
  const w = await world()
  assert.is((await w.reads.read(w.readEdges, { args: {}, res: answered(REAL, MANUAL) })).kind, 'manual')
  assert.is((await w.reads.read(w.readEdges, { args: {}, res: answered('/p/link-to-manual.md', MANUAL) })).kind, 'manual')
  assert.equal(w.seen.realPaths, ['/p/link-to-manual.md'])
})

test('a result with no text of core\'s (another hook\'s own answer) is never judged a repeat', async () => {
  const w = await world()
  const path = '/p/ai-docs/play.md'
  await w.read(path, PLAYBOOK)
  const out = await w.reads.read(w.readEdges, { toolUseId: 'x', args: { file_path: path }, res: { result: record(path, PLAYBOOK) } })
  assert.is(out.kind, 'pass')
  assert.is(w.seen.messageReads, 0)
})

test('isRepeat: this file\'s answered Reads only, by the spelling each call gave; errors, other tools and the call itself left out', () => {
  const fresh = render(PLAYBOOK)
  const pointer = repeatPointer(headings(PLAYBOOK))
  const paths = new Set(['/p/ai-docs/play.md', '/p/ai-docs/./play.md'])
  const use = (id: string, over: { name?: string; input?: Record<string, unknown>; content?: unknown; is_error?: boolean } = {}): ApiRow[] => [
    { content: [{ type: 'tool_use', id, name: over.name ?? 'Read', input: over.input ?? { file_path: '/p/ai-docs/play.md' } }] },
    { content: [{ type: 'tool_result', tool_use_id: id, content: 'content' in over ? over.content : fresh, ...(over.is_error ? { is_error: true } : {}) }] },
  ]
  assert.ok(isRepeat(use('a'), paths, fresh, pointer))
  assert.ok(isRepeat(use('a', { input: { file_path: '/p/ai-docs//play.md' } }), paths, fresh, pointer), 'a spelling that normalizes the same')
  assert.not.ok(isRepeat(use('a', { input: { file_path: '/p/other-spelling.md' } }), paths, fresh, pointer))
  assert.not.ok(isRepeat(use('a', { input: {} }), paths, fresh, pointer))
  assert.not.ok(isRepeat([], paths, fresh, pointer))
  assert.not.ok(isRepeat([...use('a'), ...use('b')], paths, fresh, pointer), 'two full copies in view')
  assert.not.ok(isRepeat([...use('a'), ...use('b', { content: `1\t${pointer}` })], paths, fresh, pointer), 'after a pointer')
  assert.ok(isRepeat([...use('a'), ...use('b', { is_error: true })], paths, fresh, pointer))
  assert.ok(isRepeat([...use('a'), ...use('b', { name: 'Grep' })], paths, fresh, pointer))
  assert.ok(isRepeat([...use('a'), ...use('self')], paths, fresh, pointer, 'self'), 'the call itself is not an earlier result')
  assert.ok(isRepeat([...use('a'), ...use('b', { content: undefined })], paths, fresh, pointer), 'a result with no text counts for nothing')
  assert.ok(isRepeat([...use('a'), ...use('b', { content: render('other') })], paths, fresh, pointer))
  assert.ok(isRepeat(use('a', { content: [{ type: 'text', text: fresh }] }), paths, fresh, pointer), 'text blocks read as their text')
  assert.ok(isRepeat([{ content: [] }, { content: [{ type: 'text', text: 'hi' }] }, ...use('a')], paths, fresh, pointer), 'messages with no tool blocks')
  assert.not.ok(isRepeat([{ content: [{ type: 'tool_result', tool_use_id: 'z', content: fresh }] }], paths, fresh, pointer), 'a result whose call is not in view')
})

test.run()
