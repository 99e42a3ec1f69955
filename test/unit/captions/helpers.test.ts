// The pure helpers: units, the file-change digest, the subtitle cut, reply parsing, the pivot, and
// the rest of what a caption request is built from.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { clip, displayToolName, fileChange, inputSubtitle, nonBlank, parseReply, resultText, serializeMessage, stringify, transcriptCalls } from '../../../src/features/captions/digest.ts'
import { absorb, emptyMirror, measuredTokensPerChar, movePivot, promptBlocks, resetMirror } from '../../../src/features/captions/mirror.ts'
import { answerPrompt, rulesPrompt } from '../../../src/features/captions/strings.ts'
import { groupUnit, isResolved, toolUseUnit } from '../../../src/features/captions/units.ts'

// ---- units ----

const call = (id: string, extra: Record<string, unknown> = {}) => ({ tool_use_id: id, tool: 'Read', input: { file_path: `/${id}` }, isRunning: false, isErrored: false, isInterrupted: false, output: 'x', ...extra })
const group = (calls: ReturnType<typeof call>[], extra: Record<string, unknown> = {}) => ({ calls, isActive: false, isExpanded: false, isCallsOnly: true, ...extra }) as never

test('units: a finished folded run is one unit keyed by its ids', () => {
  const unit = groupUnit(group([call('a'), call('b'), call('c')]))
  assert.is(unit?.key, 'a,b,c')
  assert.equal(unit?.calls.map((c) => c.id), ['a', 'b', 'c'])
  assert.equal(unit?.calls[0], { id: 'a', tool: 'Read', input: { file_path: '/a' }, isErrored: false })
})

test('units: the live, expanded or empty group draws raw', () => {
  assert.is(groupUnit(group([call('a')], { isActive: true })), undefined)
  assert.is(groupUnit(group([call('a')], { isExpanded: true })), undefined)
  assert.is(groupUnit(group([])), undefined)
})

test('units: a group holding other rows draws raw unless a call failed or was interrupted', () => {
  assert.is(groupUnit(group([call('a'), call('b')], { isCallsOnly: false })), undefined)
  const unit = groupUnit(group([call('a'), call('b', { isInterrupted: true })], { isCallsOnly: false }))
  assert.is(unit?.key, 'a,b')
  assert.is(unit?.calls[1]?.isErrored, true)
})

test('units: a call with no id, still running or not yet resolved draws raw', () => {
  const { tool_use_id: _, ...noId } = call('a')
  assert.is(groupUnit(group([noId as never])), undefined)
  assert.is(groupUnit(group([call('a', { isRunning: true })])), undefined)
  assert.is(groupUnit(group([call('a', { output: undefined })])), undefined)
  assert.is(isResolved({ isRunning: false, output: '' }), true)
})

test('units: a resolved ToolUse is a lone unit; running, unresolved or expanded is not', () => {
  assert.equal(toolUseUnit(call('t1') as never), { key: 't1', calls: [{ id: 't1', tool: 'Read', input: { file_path: '/t1' }, isErrored: false }] })
  assert.is(toolUseUnit(call('t1', { isRunning: true }) as never), undefined)
  assert.is(toolUseUnit(call('t1', { output: undefined }) as never), undefined)
  assert.is(toolUseUnit(call('t1', { isExpanded: true }) as never), undefined)
})

// ---- the file-change digest ----

test('fileChange: an edit gives its head, counts, notes and hunks', () => {
  const edit = { filePath: '/p.ts', structuredPatch: [{ oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ['-a', '+b'] }], replaceAll: true }
  assert.is(fileChange(edit), 'edit /p.ts  +1 -1 (all occurrences)\n@@ -1,1 +1,1 @@\n-a\n+b')
})

test('fileChange: a create with no hunks counts its content lines; notes join', () => {
  assert.is(fileChange({ type: 'create', filePath: '/n.ts', structuredPatch: [], content: 'a\nb\nc\n' }), 'create /n.ts  +3 -0')
  assert.is(fileChange({ type: 'update', filePath: '/u.ts', structuredPatch: [], userModified: true, staged: true }), 'update /u.ts  +0 -0 (user modified, held for review, file unchanged)')
})

test('fileChange: anything that is not a file record gives undefined', () => {
  for (const v of [undefined, 'text', { filePath: 1, structuredPatch: [] }, { filePath: '/a' }, [1]]) assert.is(fileChange(v), undefined)
})

// ---- the subtitle cut ----

test('inputSubtitle: the first target field, its first line; a long one cut to 30 + … + 29', () => {
  const long = '/very/long/path/that/goes/on/and/on/through/many/folders/to/reach/the/file.ts'
  const cut = inputSubtitle({ file_path: long })
  assert.is(cut.length, 60)
  assert.is(cut, long.slice(0, 30) + '…' + long.slice(-29))
  assert.is(inputSubtitle({ description: 'd', command: '  npm test\nsecond line' }), 'npm test')
  assert.is(inputSubtitle({ path: '   ', pattern: 'foo' }), 'foo')
  assert.is(inputSubtitle({ other: 1 }), '')
  assert.is(inputSubtitle('not an object'), '')
})

// ---- reply parsing ----

test('parseReply: the array between the first [ and the last ], objects only; [] on failure', () => {
  assert.equal(parseReply('Here: [{"id":"u1"}, 3, "x", null] done'), [{ id: 'u1' }])
  assert.equal(parseReply('no array'), [])
  assert.equal(parseReply('[{"id": broken'), [])
  assert.equal(parseReply('] ['), [])
  assert.equal(parseReply('[1]'), [])
})

// ---- names, text, messages ----

test('displayToolName: MCP tools read as server/tool, a plugin server as plugin:X:rest', () => {
  assert.is(displayToolName('mcp__plugin_ws_ws__tickets_release'), 'plugin:ws:ws/tickets.release')
  assert.is(displayToolName('mcp__github__create_issue'), 'github/create.issue')
  assert.is(displayToolName('Bash'), 'Bash')
})

test('clip keeps both ends and says how much was cut', () => {
  assert.is(clip('abc', 3), 'abc')
  assert.is(clip('abcdefghij', 4), 'ab\n…[6 chars cut]…\nij')
  assert.is(clip('x'.repeat(3001)).length, 3000 + '\n…[1 chars cut]…\n'.length)
})

test('stringify, nonBlank and resultText', () => {
  assert.is(stringify('s'), 's')
  assert.is(stringify({ a: 1 }), '{"a":1}')
  assert.is(stringify(undefined), '')
  const loop: Record<string, unknown> = {}
  loop.self = loop
  assert.is(stringify(loop), '[object Object]')
  assert.is(nonBlank('  '), undefined)
  assert.is(nonBlank(3), undefined)
  assert.is(resultText([{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text: 'b' }]), 'a\nb')
  assert.is(resultText([{ type: 'image' }]), '(no text output)')
  assert.is(resultText([]), '')
  assert.is(resultText('plain'), 'plain')
})

test('serializeMessage: each kind of block as a part, clipped; empty when nothing is left', () => {
  const m = {
    role: 'assistant',
    content: [
      { type: 'text', text: 'why' },
      { type: 'thinking', thinking: 'hmm' },
      { type: 'thinking', thinking: '' },
      { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'x'.repeat(700) } },
      { type: 'image' },
    ],
  }
  const text = serializeMessage(m)
  assert.ok(text.startsWith('[assistant]\nwhy\n(thinking) hmm\n(call t1 Bash) {"command":"'))
  assert.match(text, /chars cut\]/)
  assert.is(serializeMessage({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] }), '[user]\n(result t1) ok')
  assert.is(serializeMessage({ role: 'user', content: 'plain prompt' }), '[user]\nplain prompt')
  assert.is(serializeMessage({ role: 'user', content: [{ type: 'image' }] }), '')
})

test('transcriptCalls: inputs and outputs paired by id, with their size', () => {
  const calls = transcriptCalls([
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: '/a' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'abc' }] }, { type: 'tool_result', tool_use_id: 'gone', content: 'x' }] },
  ])
  assert.equal(calls.get('t1'), { input: '{"file_path":"/a"}', output: 'abc', bytes: 18 + 3 })
  assert.equal(calls.get('gone'), { input: '', output: 'x', bytes: 1 })
})

// ---- the pivot and the mirror ----

test('movePivot: no move at or under 70% of the window', () => {
  assert.is(movePivot([100, 100], 0, 0.5, 143), 0) // 100 tokens kept <= 100.1
})

test('movePivot: past 70%, jumps until 35% is kept, never past the newest block', () => {
  // 10 blocks of 1000 chars at 0.5 tokens/char = 5000 tokens; window 6000: 0.7 = 4200 < 5000, keep <= 2100.
  assert.is(movePivot(Array(10).fill(1000), 0, 0.5, 6000), 6)
  assert.is(movePivot([100_000], 0, 0.5, 10), 0)
  assert.is(movePivot([100_000, 100_000], 0, 0.5, 10), 1)
})

test('absorb: settled messages once, the last as the latest; a shorter transcript resets', () => {
  const api = [
    { role: 'user', content: 'one' },
    { role: 'assistant', content: [{ type: 'image' }] },
    { role: 'user', content: 'three' },
  ]
  const first = absorb(emptyMirror(), api)
  assert.equal(first.mirror.blocks, ['[user]\none'])
  assert.is(first.mirror.consumed, 2)
  assert.is(first.latest, '[user]\nthree')
  const again = absorb(first.mirror, [...api, { role: 'assistant', content: 'four' }])
  assert.equal(again.mirror.blocks, ['[user]\none', '[user]\nthree'])
  const shorter = absorb(again.mirror, [{ role: 'user', content: 'summary' }])
  assert.equal(shorter.mirror.blocks, [])
  assert.is(shorter.mirror.generation, again.mirror.generation + 1)
  assert.is(absorb(emptyMirror(), []).latest, '')
})

test('promptBlocks: rules (cached), omitted line past the pivot, history (last cached), latest and task', () => {
  const m = { ...emptyMirror(), blocks: ['[user]\na', '[assistant]\nb', '[user]\nc'], start: 1 }
  assert.equal(promptBlocks(m, 'RULES', '[user]\nd', 'UNITS\n[]'), [
    { text: 'RULES\n\n', cache: true },
    { text: '(The conversation before this point is omitted.)\n\n' },
    { text: '[assistant]\nb\n\n' },
    { text: '[user]\nc\n\n', cache: true },
    { text: 'LATEST MESSAGE (may be incomplete)\n[user]\nd\n\nUNITS\n[]' },
  ])
  assert.equal(promptBlocks(emptyMirror(), 'R', '', 'T'), [{ text: 'R\n\n', cache: true }, { text: 'T' }])
})

test('measuredTokensPerChar: all input tokens over the prompt characters', () => {
  const usage = (input: number, read = 0, created = 0) => ({ input_tokens: input, output_tokens: 9, cache_read_input_tokens: read, cache_creation_input_tokens: created })
  assert.is(measuredTokensPerChar(usage(500, 300, 200), [{ text: 'x'.repeat(4000) }]), 0.25)
  assert.is(measuredTokensPerChar(usage(0), [{ text: 'x' }]), undefined)
  assert.is(measuredTokensPerChar(usage(10), []), undefined)
  assert.is(resetMirror({ ...emptyMirror(), tokensPerChar: 0.3 }).tokensPerChar, 0.3)
})

// ---- the request's fixed texts ----

test('rulesPrompt: the language line and the style layer last', () => {
  assert.ok(rulesPrompt('S', 'Korean').includes('Write intention, result and summary in Korean only.'))
  const rules = rulesPrompt('custom style', undefined)
  assert.ok(rules.includes('Write intention, result and summary in the language the user writes in.'))
  assert.is(rules.split('\n').at(-1), 'custom style')
  assert.ok(rules.startsWith("You write one-glance captions for a coding agent's tool calls."))
})

test('answerPrompt: one line per unit, naming its shape', () => {
  assert.is(answerPrompt([{ id: 'u1', calls: 1 }, { id: 'u2', calls: 3 }]), [
    'Answer now: only a JSON array holding exactly these objects, ids verbatim, no prose or code fence.',
    'u1: lone call -> {id, subtitle, intention, result}',
    'u2: run of 3 calls -> {id, subtitles (3), summary}',
  ].join('\n'))
})


test.run()
