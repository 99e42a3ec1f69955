// The captions state machine, driven through fake edges: a hand-cranked clock, a scripted model.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { ModelCompleteRequest, ModelCompleteResult } from 'claude-code'
import { createCaptions, settingsOf, type CaptionEdges } from '../../../src/features/captions/core.ts'
import { DEFAULTS } from '../template-defaults.ts'
import type { Unit } from '../../../src/features/captions/units.ts'

const USAGE = { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }
const SETTINGS = { model: 'haiku', style: String(DEFAULTS.captionsStyle), contextTokens: 200_000, lang: undefined }
const answered = (text: string, usage = USAGE): ModelCompleteResult => ({ isAnswered: true, text, usage })

type Api = { role: string; content: unknown[] | string }[]

/** Edges over a fake clock and a model whose replies the test queues (or computes per request). */
function rig(reply: (req: ModelCompleteRequest, i: number) => ModelCompleteResult | Promise<ModelCompleteResult> = () => answered('[]')) {
  const requests: ModelCompleteRequest[] = []
  const lines: string[] = []
  let ticker: (() => void) | undefined
  let redraws = 0
  let api: Api = []
  let reads = 0
  let onRead: (() => void) | undefined
  const edges: CaptionEdges = {
    messages: async () => { reads++; onRead?.(); return api as never },
    complete: async (req) => { requests.push(req); return reply(req, requests.length - 1) },
    redraw: () => void redraws++,
    every: (ms, fn) => { assert.is(ms, 1500); ticker = fn; return () => (ticker = undefined) },
    // As ctx.log binds it: every line opens with the feature's name.
    log: (line) => void lines.push(`captions: ${line}`),
  }
  const captions = createCaptions()
  captions.start(edges, SETTINGS)
  // Every edge here settles in microtasks: a few turns of the queue let a tick run to its end.
  const settle = async () => { for (let i = 0; i < 20; i++) await Promise.resolve() }
  return {
    captions, requests, lines, edges, settle,
    get redraws() { return redraws },
    get reads() { return reads },
    get ticking() { return ticker !== undefined },
    setApi: (next: Api) => void (api = next),
    onRead: (fn: () => void) => void (onRead = fn),
    /** One period of the clock: the tick runs and what it started settles. */
    tick: async () => { ticker?.(); await settle(); await settle() },
  }
}

const lone = (id: string, input: unknown = { file_path: `/${id}` }): Unit => ({ key: id, calls: [{ id, tool: 'Read', input, isErrored: false }] })
const run = (ids: string[]): Unit => ({ key: ids.join(','), calls: ids.map((id) => ({ id, tool: 'Read', input: { file_path: `/${id}` }, isErrored: false })) })
const lastText = (req: ModelCompleteRequest) => (req.prompt as { text: string }[]).at(-1)!.text
const unitsOf = (req: ModelCompleteRequest) => JSON.parse(/UNITS\n(.*)\n\n/.exec(lastText(req))![1]!) as { id: string; calls: { tool: string; input: string; output: string; failed: boolean }[] }[]

test('settings: defaults, and a context size below 1 reads as 200000', () => {
  // As the runtime hands them: every field, each of its type (a fraction or a text took the default there).
  assert.equal(settingsOf(DEFAULTS, DEFAULTS).settings, SETTINGS)
  assert.equal(settingsOf(DEFAULTS, DEFAULTS).problems, [])
  for (const bad of [0, -3]) {
    const { settings, problems } = settingsOf({ ...DEFAULTS, captionsContextTokens: bad }, DEFAULTS)
    assert.is(settings.contextTokens, 200_000)
    assert.is(problems.length, 1)
    assert.match(problems[0]!, 'captionsContextTokens')
  }
  assert.is(settingsOf({ ...DEFAULTS, captionsContextTokens: 50_000 }, DEFAULTS).settings.contextTokens, 50_000)
  const named = settingsOf({ ...DEFAULTS, captionsModel: ' sonnet ', captionsStyle: 'terse', captionsLanguage: 'Korean' }, DEFAULTS).settings
  assert.equal(named, { model: 'sonnet', style: 'terse', contextTokens: 200_000, lang: 'Korean' })
  assert.equal(settingsOf({ ...DEFAULTS, captionsModel: '', captionsStyle: ' ', captionsLanguage: '' }, DEFAULTS).settings, SETTINGS)
})

test('start: logs the settings and redraws the rows drawn before it', () => {
  const r = rig()
  assert.equal(r.lines, ["captions: on: model haiku, window 200000 tokens, language (the user's)"])
  assert.is(r.redraws, 1)
  assert.is(r.ticking, false, 'no ticker until a unit is asked for')
})

test('a lone unit: one request after a tick, with the spec fields; the caption is stored and drawn again', async () => {
  const r = rig(() => answered('[{"id":"u1","subtitle":"src/a.ts","intention":"find parser","result":"found at a.ts:3"}]'))
  r.captions.captured({ tool: 'Read', tool_use_id: 't1', file_path: '/a', agentId: undefined, requestMeta: { x: 1 }, consent: 'yes' } as never, { result: 'record', text: 'x'.repeat(2048) })
  r.captions.request(lone('t1'))
  assert.is(r.requests.length, 0, 'never waits on the model while drawing')
  await r.tick()
  assert.is(r.requests.length, 1)
  const req = r.requests[0]!
  assert.equal({ model: req.model, effort: req.effort, timeoutMs: req.timeoutMs, maxTokens: req.maxTokens }, { model: 'haiku', effort: 'low', timeoutMs: 30_000, maxTokens: 340 })
  assert.equal(unitsOf(req), [{ id: 'u1', calls: [{ tool: 'Read', input: '{"file_path":"/a"}', output: 'record', failed: false }] }])
  const bytes = JSON.stringify({ file_path: '/a' }).length + 2048
  assert.equal(r.captions.toolCaption('t1'), { subtitle: 'src/a.ts', intention: 'find parser', result: 'found at a.ts:3', bytes })
  assert.is(r.redraws, 2)
})

test('the same unit drawn five times is asked once', async () => {
  const r = rig()
  for (let i = 0; i < 5; i++) r.captions.request(lone('t1'))
  await r.tick()
  await r.tick()
  assert.is(r.requests.length, 1)
  assert.is(unitsOf(r.requests[0]!).length, 1)
})

test('batches: 10+10 calls go together, the third unit next; a first unit of 30 goes alone', async () => {
  const ids = (p: string, n: number) => Array.from({ length: n }, (_, i) => `${p}${i}`)
  const r = rig()
  for (const p of ['a', 'b', 'c']) r.captions.request(run(ids(p, 10)))
  await r.tick()
  assert.equal(unitsOf(r.requests[0]!).map((u) => u.id), ['u1', 'u2'])
  assert.is(r.requests[0]!.maxTokens, 300 * 2 + 40 * 20)
  await r.tick()
  assert.is(unitsOf(r.requests[1]!).length, 1)
  assert.is(unitsOf(r.requests[1]!)[0]!.calls[0]!.input, '{"file_path":"/c0"}')

  const big = rig()
  big.captions.request(run(ids('x', 30)))
  big.captions.request(lone('y'))
  await big.tick()
  assert.is(unitsOf(big.requests[0]!).length, 1)
  assert.is(unitsOf(big.requests[0]!)[0]!.calls.length, 30)
})

test('a flush in flight: further ticks start no second request until it settles', async () => {
  let release: (v: ModelCompleteResult) => void = () => {}
  const r = rig(() => new Promise((res) => (release = res)))
  r.captions.request(lone('a'))
  await r.tick()
  r.captions.request(lone('b'))
  await r.tick()
  await r.tick()
  assert.is(r.requests.length, 1)
  release(answered('[]'))
  await r.settle()
  await r.tick()
  assert.is(r.requests.length, 2)
})

test('not answered: nothing stored, logged, and not asked again when drawn again', async () => {
  const r = rig(() => ({ isAnswered: false, reason: 'aborted', usage: USAGE }) as ModelCompleteResult)
  r.captions.request(lone('t1'))
  await r.tick()
  r.captions.request(lone('t1'))
  await r.tick()
  assert.is(r.requests.length, 1)
  assert.is(r.captions.toolCaption('t1'), undefined)
  assert.ok(r.lines.includes('captions: request not answered: aborted'))
  assert.is(r.captions.stats().unanswered, 1)
})

test('a request that throws is logged and the queue goes on', async () => {
  const r = rig((_req, i) => { if (i === 0) throw new Error('boom'); return answered('[]') })
  r.captions.request(lone('a'))
  await r.tick()
  assert.ok(r.lines.includes('captions: request failed: boom'))
  r.captions.request(lone('b'))
  await r.tick()
  assert.is(r.requests.length, 2)
})

test('replies: a lone item missing result stores nothing; prose around the array is read; unknown ids skipped', async () => {
  const r = rig(() => answered('Here: [{"id":"u1","intention":"i"},{"id":"u2","subtitle":"","intention":"i2","result":"r2"},{"id":"u9","intention":"x","result":"y"}] done'))
  r.captions.request(lone('a'))
  r.captions.request(lone('b', { command: 'npm test' }))
  await r.tick()
  assert.is(r.captions.toolCaption('a'), undefined)
  assert.equal(r.captions.toolCaption('b'), { subtitle: 'npm test', intention: 'i2', result: 'r2', bytes: 0 })
})

test('a run: blank subtitles fall back to the input; bytes sum over the calls; a run without summary is skipped', async () => {
  const r = rig(() => answered('[{"id":"u1","subtitles":["x","","z"],"summary":"S"},{"id":"u2","subtitles":[]}]'))
  for (const id of ['a', 'b', 'c']) r.captions.captured({ tool: 'Read', tool_use_id: id, file_path: `/${id}` } as never, { result: 'ok' })
  r.captions.request(run(['a', 'b', 'c']))
  r.captions.request(run(['d', 'e']))
  await r.tick()
  const bytes = 3 * (JSON.stringify({ file_path: '/a' }).length + '"ok"'.length - 2)
  assert.equal(r.captions.runCaption('a,b,c'), { subtitles: ['x', '/b', 'z'], summary: 'S', bytes })
  assert.is(r.captions.runCaption('d,e'), undefined)
  assert.is(r.captions.toolCaption('a'), undefined, 'a run is never captioned call by call')
  assert.is(unitsOf(r.requests[0]!)[0]!.calls.length, 3)
})

test('capture: the input without envelope fields; an Edit as its digest; subagent and denied calls skipped', async () => {
  const r = rig()
  const edit = { filePath: '/p.ts', structuredPatch: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ['-a', '+b'] }], replaceAll: true }
  r.captions.captured({ tool: 'Edit', tool_use_id: 'e1', file_path: '/p.ts', old_string: 'a', new_string: 'b' } as never, { result: edit, text: 'ok' })
  r.captions.captured({ tool: 'Read', tool_use_id: 's1', agentId: 'sub' } as never, { result: 'x' })
  r.captions.captured({ tool: 'Read', tool_use_id: 'd1' } as never, { deny: 'no' })
  r.captions.captured({ tool: 'Read', tool_use_id: 7 } as never, { result: 'x' })
  r.setApi([])
  for (const id of ['e1', 's1', 'd1']) r.captions.request(lone(id, { drawn: id }))
  await r.tick()
  const calls = unitsOf(r.requests[0]!).map((u) => u.calls[0]!)
  assert.equal(calls[0], { tool: 'Read', input: '{"file_path":"/p.ts","old_string":"a","new_string":"b"}', output: 'edit /p.ts  +1 -1 (all occurrences)\n@@ -1,1 +1,1 @@\n-a\n+b', failed: false })
  assert.equal(calls[1], { tool: 'Read', input: '{"drawn":"s1"}', output: '(not available)', failed: false })
  assert.equal(calls[2], { tool: 'Read', input: '{"drawn":"d1"}', output: '(not available)', failed: false })
})

test('capture: past 400 calls the oldest is evicted and read from the transcript', async () => {
  const r = rig()
  for (let i = 0; i <= 400; i++) r.captions.captured({ tool: 'Read', tool_use_id: `c${i}` } as never, { result: `out${i}` })
  r.setApi([
    { role: 'assistant', content: [{ type: 'tool_use', id: 'c0', name: 'Read', input: { file_path: '/t' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c0', content: 'from transcript' }] },
  ])
  r.captions.request(lone('c0'))
  r.captions.request(lone('c400'))
  await r.tick()
  const calls = unitsOf(r.requests[0]!).map((u) => u.calls[0]!)
  assert.equal(calls[0], { tool: 'Read', input: '{"file_path":"/t"}', output: 'from transcript', failed: false })
  assert.is(calls[1]!.output, 'out400')
  assert.is(r.reads, 2, 'the transcript read for the missing call, then the mirror read')
})

test('a lone call is clipped at 3000 characters, a run call at 1200', async () => {
  const r = rig()
  r.captions.captured({ tool: 'Bash', tool_use_id: 'l' } as never, { result: 'x'.repeat(5000) })
  r.captions.captured({ tool: 'Bash', tool_use_id: 'r1' } as never, { result: 'y'.repeat(5000) })
  r.captions.captured({ tool: 'Bash', tool_use_id: 'r2' } as never, { result: 'z' })
  r.captions.request(lone('l'))
  r.captions.request(run(['r1', 'r2']))
  await r.tick()
  const [l, rn] = unitsOf(r.requests[0]!)
  assert.match(l!.calls[0]!.output, '[2000 chars cut]')
  assert.match(rn!.calls[0]!.output, '[3800 chars cut]')
})

test('the request: rules (cached) first, settled history (last cached), then the latest message and the units', async () => {
  const r = rig()
  r.setApi([
    { role: 'user', content: 'where is the parser?' },
    { role: 'assistant', content: [{ type: 'text', text: 'looking' }, { type: 'tool_use', id: 't1', name: 'Grep', input: { pattern: 'parse' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a.ts:3' }] },
  ])
  r.captions.request(lone('t1', { pattern: 'parse' }))
  await r.tick()
  const blocks = r.requests[0]!.prompt as { text: string; cache?: true }[]
  assert.is(blocks.length, 4)
  assert.ok(blocks[0]!.text.startsWith("You write one-glance captions") && blocks[0]!.cache)
  assert.equal(blocks[1], { text: '[user]\nwhere is the parser?\n\n' })
  assert.equal(blocks[2], { text: '[assistant]\nlooking\n(call t1 Grep) {"pattern":"parse"}\n\n', cache: true })
  assert.ok(blocks[3]!.text.startsWith('LATEST MESSAGE (may be incomplete)\n[user]\n(result t1) a.ts:3\n\nUNITS\n['))
  assert.ok(blocks[3]!.text.endsWith('u1: lone call -> {id, subtitle, intention, result}'))
})

test('the mirror: later requests open with the same text; the pivot jumps past 70% of the window', async () => {
  const r = rig((req) => answered('[]', { ...USAGE, input_tokens: 0 }))
  r.captions.start(r.edges, { ...SETTINGS, contextTokens: 1000 })
  const msg = (i: number) => ({ role: i % 2 ? 'assistant' : 'user', content: `${i} ${'x'.repeat(398)}` })
  const api: Api = [msg(0), msg(1), msg(2)]
  r.setApi(api)
  r.captions.request(lone('a'))
  await r.tick()
  const first = (r.requests[0]!.prompt as { text: string }[]).map((b) => b.text)
  api.push(msg(3))
  r.captions.request(lone('b'))
  await r.tick()
  const second = (r.requests[1]!.prompt as { text: string }[]).map((b) => b.text)
  assert.equal(second.slice(0, 3), first.slice(0, 3), 'the cached prefix holds')
  // 4 settled blocks of ~409 chars at 0.5 = ~818 tokens > 700: jump until <= 350 kept.
  for (let i = 4; i < 8; i++) api.push(msg(i))
  r.captions.request(lone('c'))
  await r.tick()
  const third = (r.requests[2]!.prompt as { text: string }[]).map((b) => b.text)
  assert.is(third[1], '(The conversation before this point is omitted.)\n\n')
  assert.ok(r.captions.mirror().start > 0)
  const kept = r.captions.mirror().blocks.slice(r.captions.mirror().start).reduce((n, b) => n + b.length, 0) * 0.5
  assert.ok(kept <= 350, `kept ${kept}`)
})

test('tokensPerChar follows the reply: 1000 input tokens over 4000 characters is 0.25', async () => {
  const r = rig((req) => {
    const chars = (req.prompt as { text: string }[]).reduce((n, b) => n + b.text.length, 0)
    return answered('[]', { ...USAGE, input_tokens: chars / 4 })
  })
  r.captions.request(lone('a'))
  await r.tick()
  assert.is(r.captions.mirror().tokensPerChar, 0.25)
})

test('a compaction landing during the messages read makes the batch stale: requeued, not asked that tick', async () => {
  const r = rig()
  r.onRead(() => r.captions.compacted('manual', undefined, { messages: [] }))
  r.captions.request(lone('a'))
  await r.tick()
  assert.is(r.requests.length, 0)
  assert.is(r.captions.stats().queued, 1)
  r.onRead(() => {})
  await r.tick()
  assert.is(r.requests.length, 1)
})

test('compacted: only a main-thread compaction that installed messages resets the mirror', () => {
  const r = rig()
  const gen = () => r.captions.mirror().generation
  const g0 = gen()
  r.captions.compacted('precompute', undefined, { messages: [] })
  r.captions.compacted('auto', 'sub', { messages: [] })
  r.captions.compacted('auto', undefined, {})
  assert.is(gen(), g0)
  r.captions.compacted('auto', undefined, { messages: [] })
  assert.is(gen(), g0 + 1)
  r.captions.end()
  assert.is(gen(), g0 + 2)
})

test('a reset keeps the stored captions; a shorter transcript rebuilds the mirror', async () => {
  const r = rig(() => answered('[{"id":"u1","intention":"i","result":"r"}]'))
  r.setApi([{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: 'c' }])
  r.captions.request(lone('t1'))
  await r.tick()
  assert.is(r.captions.mirror().blocks.length, 2)
  r.captions.end()
  assert.ok(r.captions.toolCaption('t1'))
  r.setApi([{ role: 'user', content: 'x' }, { role: 'assistant', content: 'y' }, { role: 'user', content: 'z' }])
  r.captions.request(lone('t2'))
  await r.tick()
  assert.equal(r.captions.mirror().blocks, ['[user]\nx', '[assistant]\ny'])
  // A missed compaction: the transcript is now shorter than what the mirror consumed.
  r.setApi([{ role: 'user', content: 'summary' }])
  r.captions.request(lone('t3'))
  await r.tick()
  assert.equal(r.captions.mirror().blocks, [])
})

test('a new start (a reload) asks a drawn unit once more, and an idle tick asks nothing', async () => {
  const r = rig(() => ({ isAnswered: false, reason: 'api-error', status: 500, usage: USAGE }) as never)
  r.captions.request(lone('t1'))
  await r.tick()
  await r.tick()
  assert.is(r.requests.length, 1)
  r.captions.start(r.edges, SETTINGS)
  assert.is(r.ticking, false, 'the old ticker stopped')
  r.captions.request(lone('t1'))
  await r.tick()
  assert.is(r.requests.length, 2)
})

test('before start nothing is captured or queued', async () => {
  const captions = createCaptions()
  captions.captured({ tool: 'Read', tool_use_id: 'a' } as never, { result: 'x' })
  captions.request(lone('a'))
  await captions.tick()
  assert.equal(captions.stats(), { lone: 0, runs: 0, queued: 0, unanswered: 0, calls: 0 })
})

test.run()
