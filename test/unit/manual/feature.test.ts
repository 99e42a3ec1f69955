// The manual feature's hooks over a fake port (index.ts): the project root it finds the manual
// under, the missing/unreadable split of `$.fs.stat`, resumed from the rows at start, the section
// appended once and last, the Read answered after `next` for the engine's main-thread calls only,
// the resets, an unusable manualFile, and no `$` call per turn outside a manual project.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { ManualPort, PathStat } from '../../../src/features/manual/bind.ts'
import { createManualFeature } from '../../../src/features/manual/index.ts'
import { contentHash } from '../../../src/features/manual/section.ts'
import { fakePort, hooksOf } from '../fakes.ts'

const MANUAL = `# Workflow\n${'Work one step at a time.\n'.repeat(20)}`
const HEADER = "This project's workflow manual, ai-docs/WORKFLOW.md, is below as it read when this system prompt was built; do not Read it to learn it, Read it when you are about to edit it."
const POINTER = 'ai-docs/WORKFLOW.md is unchanged and is in your system prompt (section ws:workflow-manual); use it from there.'
const nodeTimer = (globalThis as unknown as { setTimeout(fn: () => void, ms: number): unknown }).setTimeout
const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => nodeTimer(resolve, 0))
}

type World = {
  files: Map<string, string>
  dirs: Set<string>
  links: Map<string, string>
  repo?: string
  ancestors?: string[] | 'fails'
  root: string
  history: boolean | 'fails'
  statFails?: string
  calls: string[]
  rows: unknown[]
  store: Map<string, unknown>
}

function world(over: Partial<World> = {}): World {
  return {
    files: new Map([['/p/ai-docs/WORKFLOW.md', MANUAL]]), dirs: new Set(['/p', '/p/ai-docs']), links: new Map(),
    root: '/p', history: false, calls: [], rows: [], store: new Map(), ...over,
  }
}

function portOf(w: World): ManualPort {
  const enoent = (path: string) => new Error(`HooksError: ws: $.fs.stat(${path}) failed: ENOENT`)
  return {
    stat: async (path): Promise<PathStat> => {
      w.calls.push(`stat ${path}`)
      if (w.statFails && path.endsWith(w.statFails)) throw new Error(`HooksError: ws: $.fs.stat(${path}) failed: EACCES`)
      const real = w.links.get(path) ?? path
      if (w.files.has(real)) return { kind: 'file', size: w.files.get(real)!.length, realPath: real }
      if (w.dirs.has(real)) return { kind: 'dir', size: 0, realPath: real }
      throw enoent(path)
    },
    read: async (path) => {
      w.calls.push(`read ${path}`)
      return w.files.get(path)!
    },
    repoRoot: async () => (w.calls.push('repo'), w.repo),
    ancestors: async (name) => {
      w.calls.push(`ancestors ${name}`)
      if (w.ancestors === 'fails') throw new Error('ancestors refused')
      return w.ancestors ?? []
    },
    sessionRoot: async () => (w.calls.push('root'), w.root),
    hasHistory: async () => {
      w.calls.push('history')
      if (w.history === 'fails') throw new Error('no transcript')
      return w.history
    },
    apiMessages: async () => (w.calls.push('messages'), w.rows as never),
    now: async () => 1_000,
    after: () => {},
    storeGet: async (k) => w.store.get(k),
    storeSet: async (k, v) => void w.store.set(k, v),
    storeKeys: async () => [...w.store.keys()],
    storeDelete: async (k) => void w.store.delete(k),
  }
}

/** The feature over a fake port and the runtime's context; `engine` answers what core would. */
function setup(w: World, options: Record<string, unknown> = { manual: true, manualFile: 'ai-docs/WORKFLOW.md' }) {
  const feature = createManualFeature()
  const hooks = hooksOf(feature)
  const fake = fakePort('ws')
  const ctx = fake.ctx(feature, options as never)
  const port = portOf(w)
  const next = <T>(answer: (e: any) => T, origin = 'engine') => Object.assign(async (e: any) => answer(e), { origin: { plugin: origin, tier: 'core' } }) as never
  const engine = {
    start: () => hooks['session.start']!(port, { cwd: '/p', surface: null, isInteractive: false }, next((e) => ({ cwd: e.cwd })), ctx),
    compose: async (traits: string[] = ['lean', 'print'], sections = [{ id: 'lean_body', text: 'body', scope: 'shared' }]) =>
      hooks['prompt.compose']!(port, { model: 'm', promptModel: 'm', surfaces: [], tools: [], outputStyle: null, traits }, next(() => ({ sections })), ctx),
    read: (path: string, content: string, over: Record<string, unknown> = {}, origin = 'engine') =>
      hooks['tool.call']!(port, { tool: 'Read', tool_use_id: 'u1', file_path: path, ...over }, next(() => ({ ref: 1, text: `1\t${content}`, result: { type: 'text', file: { filePath: path, content, numLines: 1, startLine: 1, totalLines: 1 } } }), origin), ctx),
    compact: (trigger: string, result: object = { messages: [] }) => hooks['session.compact']!(port, { trigger, messages: [] }, next(() => result), ctx),
    end: (reason: string) => hooks['session.end']!(port, { reason, sessionId: 's', resume: { id: 's' } }, next((e) => ({ sessionId: e.sessionId })), ctx),
    status: () => feature.status!(port, ctx),
  }
  return { feature, fake, engine, port }
}

const sectionOf = (r: { sections: { id: string; text: string; scope: string }[] }) => r.sections.find((x) => x.id === 'ws:workflow-manual')

test('the section: appended last, session scope, the header over the manual; byte-identical later, with no $ call', async () => {
  const w = world()
  const { engine } = setup(w)
  await engine.start()
  const first = await engine.compose()
  assert.equal(first.sections.map((x: { id: string }) => x.id), ['lean_body', 'ws:workflow-manual'])
  assert.is(sectionOf(first)!.scope, 'session')
  assert.is(sectionOf(first)!.text, `${HEADER}\n\n${MANUAL.trimEnd()}`)
  w.calls.length = 0
  w.files.set('/p/ai-docs/WORKFLOW.md', `${MANUAL}changed\n`)
  const later = await engine.compose()
  assert.is(sectionOf(later)!.text, sectionOf(first)!.text)
  assert.equal(w.calls, [], 'a later compose reads nothing')
})

test('a section of that id already there is not appended twice', async () => {
  const { engine } = setup(world())
  await engine.start()
  const sections = [{ id: 'lean_body', text: 'b', scope: 'shared' }, { id: 'ws:workflow-manual', text: 'another copy', scope: 'session' }]
  const r = await engine.compose(['lean'], sections)
  assert.equal(r.sections, sections)
})

test('the root: the repository\'s, else the nearest folder holding the manual, else the session\'s', async () => {
  const a = world({ repo: '/p', ancestors: ['/elsewhere'] })
  const sa = setup(a)
  await sa.engine.start()
  assert.ok(sectionOf(await sa.engine.compose()))
  assert.not.ok(a.calls.some((c) => c.startsWith('ancestors')), 'a repository root needs no walk')

  const b = world({ files: new Map([['/up/ai-docs/WORKFLOW.md', MANUAL]]), dirs: new Set(['/up', '/up/ai-docs', '/up/sub']), ancestors: ['/top', '/up'], root: '/up/sub' })
  b.files.set('/top/ai-docs/WORKFLOW.md', 'the far one')
  const sb = setup(b)
  await sb.engine.start()
  assert.is(sectionOf(await sb.engine.compose())!.text, `${HEADER}\n\n${MANUAL.trimEnd()}`, 'the nearest one, not the root-most')

  const c = world({ ancestors: 'fails' })
  const sc = setup(c)
  await sc.engine.start()
  assert.ok(sectionOf(await sc.engine.compose()), 'a walk that fails falls back to the session root')
  assert.ok(c.calls.includes('root'))
})

// Issue 17 item 8: `$.session.repo().root` is the main checkout's in a linked worktree (measured).
test('the root of a linked worktree is the worktree: the nearest folder up from the session\'s root holding .git', async () => {
  const files = new Map([['/main/ai-docs/WORKFLOW.md', 'the main checkout\'s'], ['/wt/feature/ai-docs/WORKFLOW.md', MANUAL], ['/wt/feature/.git', 'gitdir: /main/.git/worktrees/feature']])
  for (const root of ['/wt/feature', '/wt/feature/sub']) {
    const w = world({ files, dirs: new Set(['/main', '/wt/feature', '/wt/feature/sub', '/wt/feature/ai-docs']), repo: '/main', root })
    const { engine } = setup(w)
    await engine.start()
    assert.is(sectionOf(await engine.compose())!.text, `${HEADER}\n\n${MANUAL.trimEnd()}`, `from ${root}: the worktree's manual`)
    assert.equal(w.calls.filter((c) => c.endsWith('/.git')), root === '/wt/feature' ? ['stat /wt/feature/.git'] : ['stat /wt/feature/sub/.git', 'stat /wt/feature/.git'])
  }
  // One nested in the main checkout (the engine's own worktrees live under .claude/worktrees/).
  const nested = world({ files: new Map([['/main/ai-docs/WORKFLOW.md', 'the main checkout\'s'], ['/main/.claude/worktrees/x/ai-docs/WORKFLOW.md', MANUAL], ['/main/.claude/worktrees/x/.git', 'gitdir']]), repo: '/main', root: '/main/.claude/worktrees/x' })
  const sn = setup(nested)
  await sn.engine.start()
  assert.is(sectionOf(await sn.engine.compose())!.text, `${HEADER}\n\n${MANUAL.trimEnd()}`)
  // A subfolder of the main checkout: no .git below the repository's root, so its root.
  const sub = world({ files: new Map([['/main/ai-docs/WORKFLOW.md', MANUAL]]), repo: '/main', root: '/main/src' })
  const ss = setup(sub)
  await ss.engine.start()
  assert.ok(sectionOf(await ss.engine.compose()))
  assert.equal(sub.calls.filter((c) => c.endsWith('/.git')), ['stat /main/src/.git'], 'no stat at or above the repository root')
})

test('resumed: rows at the start load the record; a failed rows read counts as resumed (collapses nothing without a record)', async () => {
  const w = world({ history: true })
  w.store.set('manual-snapshot:session-1', { hash: await contentHash(MANUAL), at: 5, reason: 'start', bytes: MANUAL.length })
  const { engine } = setup(w)
  await engine.start()
  await flush()
  assert.is(sectionOf(await engine.compose()), undefined, 'composes after a resume answer nothing (the replayed prompt is sent)')
  const r = await engine.read('/p/ai-docs/WORKFLOW.md', MANUAL)
  assert.is(r.result.file.content, POINTER, 'the pointer is judged against the recorded copy')

  const v = world({ history: 'fails' })
  const sv = setup(v)
  await sv.engine.start()
  await flush()
  assert.is(sectionOf(await sv.engine.compose()), undefined)
  assert.is((await sv.engine.read('/p/ai-docs/WORKFLOW.md', MANUAL)).result.file.content, MANUAL)
  assert.ok((await sv.engine.status()).includes('system prompt: unknown (resumed with no record of what it carries); no read is collapsed until the next compaction or /clear'))
})

test('a Read: the pointer after next for the engine\'s main-thread full Read; a subagent\'s, a plugin\'s own, another tool\'s pass', async () => {
  const w = world()
  const { engine } = setup(w)
  await engine.start()
  await engine.compose()
  const mine = await engine.read('/p/ai-docs/WORKFLOW.md', MANUAL)
  assert.equal(mine, { result: { type: 'text', file: { filePath: '/p/ai-docs/WORKFLOW.md', content: POINTER, numLines: 1, startLine: 1, totalLines: 1 } } })
  assert.is((await engine.read('/p/ai-docs/WORKFLOW.md', MANUAL, { agentId: 'a1' })).result.file.content, MANUAL)
  assert.is((await engine.read('/p/ai-docs/WORKFLOW.md', MANUAL, {}, 'probe')).result.file.content, MANUAL, 'a plugin\'s own $.tool.call')
  assert.is((await engine.read('/p/ai-docs/WORKFLOW.md', MANUAL, { offset: 1 })).result.file.content, MANUAL)
  const feature = createManualFeature()
  const other = await hooksOf(feature)['tool.call']!(portOf(w), { tool: 'Bash', command: 'ls' }, Object.assign(async () => ({ result: 'listing' }), { origin: { plugin: 'engine' } }), fakePort('ws').ctx(feature))
  assert.equal(other, { result: 'listing' })
})

test('a compaction resets after its next (not a skipped one); /clear resets; any other end forgets the copy', async () => {
  const w = world()
  const { engine } = setup(w)
  await engine.start()
  await engine.compose()
  w.files.set('/p/ai-docs/WORKFLOW.md', `${MANUAL}one more\n`)
  await engine.compact('manual', { skip: 'vetoed' })
  assert.ok(sectionOf(await engine.compose())!.text.endsWith('Work one step at a time.'), 'a skipped compaction keeps the copy')
  await engine.compact('precompute')
  assert.ok(sectionOf(await engine.compose())!.text.endsWith('Work one step at a time.'), 'a precompute keeps the copy')
  await engine.compact('auto')
  assert.ok(sectionOf(await engine.compose())!.text.endsWith('one more'), 'a landed auto-compaction takes the file as it is then')
  w.files.set('/p/ai-docs/WORKFLOW.md', `${MANUAL}after clear\n`)
  await engine.end('clear')
  assert.ok(sectionOf(await engine.compose())!.text.endsWith('after clear'))
  await engine.end('other')
  assert.is(sectionOf(await engine.compose()), undefined)
  assert.is((await engine.read('/p/ai-docs/WORKFLOW.md', `${MANUAL}after clear\n`)).result.file.content, `${MANUAL}after clear\n`)
})

test('not a manual project: one look per reset; then no $ call per turn, and every Read passes before it is examined', async () => {
  const w = world({ files: new Map([['/p/ai-docs/play.md', MANUAL]]) })
  const { engine } = setup(w)
  await engine.start()
  const r = await engine.compose()
  assert.equal(r.sections.map((x: { id: string }) => x.id), ['lean_body'])
  const look = [...w.calls]
  assert.ok(look.includes('stat /p/ai-docs/WORKFLOW.md'))
  w.calls.length = 0
  for (let turn = 0; turn < 3; turn++) {
    await engine.compose()
    await engine.read('/p/ai-docs/play.md', MANUAL)
  }
  assert.equal(w.calls, [], 'nothing per turn')
  assert.equal(await engine.status(), ['manual: ai-docs/WORKFLOW.md: no such file (not a manual project: nothing is added and no read is touched)'])
  assert.equal([...w.store.keys()], [], 'nothing stored')
})

test('a stat that fails other than ENOENT reads as unreadable, not as missing', async () => {
  const w = world({ statFails: 'WORKFLOW.md' })
  const { engine } = setup(w)
  await engine.start()
  assert.is(sectionOf(await engine.compose()), undefined)
  const status = await engine.status()
  assert.match(status[0]!, /^manual: ai-docs\/WORKFLOW.md: unreadable \(HooksError: ws: \$\.fs\.stat\(\/p\/ai-docs\/WORKFLOW.md\) failed: EACCES\)$/)
})

test('a manualFile that is absolute or climbs out: the feature adds nothing, says why once, and the status says it', async () => {
  for (const [option, why] of [['/etc/WORKFLOW.md', 'manualFile "/etc/WORKFLOW.md" is absolute; it is read relative to the project root'], ['../x.md', 'manualFile "../x.md" climbs out of the project root'], ['', 'manualFile is empty']] as const) {
    const w = world()
    const { engine, fake } = setup(w, { manual: true, manualFile: option })
    await engine.start()
    const r = await engine.compose()
    assert.equal(r.sections.map((x: { id: string }) => x.id), ['lean_body'])
    assert.is((await engine.read('/p/ai-docs/WORKFLOW.md', MANUAL)).result.file.content, MANUAL)
    assert.equal(w.calls, [], option)
    assert.equal(fake.lines, [`manual: manual: ${why}; nothing is added`])
    assert.equal(await engine.status(), [`manual: ${why}; nothing is added`])
  }
})

test('status: the file, the copy, whether it changed, the pointers and the tokens saved', async () => {
  const w = world()
  const { engine } = setup(w)
  await engine.start()
  await engine.compose()
  await flush()
  await engine.read('/p/ai-docs/WORKFLOW.md', MANUAL)
  const saved = Math.ceil(MANUAL.length / 4) - Math.ceil(POINTER.length / 4)
  assert.equal(await engine.status(), [
    `manual: ai-docs/WORKFLOW.md: ${MANUAL.length} bytes`,
    `system prompt: carries the manual as it read at 1970-01-01T00:00:01.000Z (start), ${MANUAL.length} bytes, sha256 ${(await contentHash(MANUAL)).slice(0, 12)}`,
    "file now: the same as the prompt's copy",
    `pointers: 1 reads answered with a pointer (1 of the manual, 0 repeats), about ${saved} tokens saved`,
  ])
  assert.ok(w.store.has('manual-snapshot:session-1'), 'the record a resume reads')
})

test.run()
