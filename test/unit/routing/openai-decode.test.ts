// The openai-chat answer (§3.4): recorded streams in the documented format to the engine's chunks
// and result, the same at every cut; finish reasons, usage, tool-call slots, the argument check,
// failures, and the non-streaming completion.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createOpenAiDecoder, decodeOpenAiCompletion } from '../../../src/features/routing/openai.ts'
import { createStep, type StepChunk } from '../../../src/features/routing/step.ts'
import { context, everySplit, run, type Run } from './fixtures/harness.ts'
import { fixture } from './fixtures/read.ts'

const usage = (input: number, cacheRead: number, output: number) => ({ input_tokens: input, output_tokens: output, cache_read_input_tokens: cacheRead, cache_creation_input_tokens: 0, model: 'gpt-5' })
const same = (a: Run, b: Run, what: string) => assert.equal(a, b, what)
const decode = (text: string) => everySplit(createOpenAiDecoder, text, same)

/** Chunk objects as a provider writes them, with no end marker: `stream` adds the `[DONE]` a finished stream ends with. */
const events = (...chunks: readonly unknown[]) => chunks.map((c) => `data: ${typeof c === 'string' ? c : JSON.stringify(c)}\n\n`).join('')
const stream = (...chunks: readonly unknown[]) => events(...chunks, '[DONE]')
const delta = (d: object, finish: string | null = null) => ({ choices: [{ index: 0, delta: d, finish_reason: finish }] })
const runOf = (text: string) => run(createOpenAiDecoder, [text])

test('plain text, a usage-only last chunk and [DONE]: text in block 0, cached tokens apart', () => {
  const r = decode(fixture('openai-text.txt'))
  assert.equal(r.chunks, [
    { kind: 'text', index: 0, text: 'Hello' },
    { kind: 'text', index: 0, text: ', wörld ' },
    { kind: 'text', index: 0, text: '🚀 done.' },
    { kind: 'stop', stopReason: 'end_turn', usage: usage(234, 2000, 56) },
  ])
  assert.equal(r.result, { answer: 'Hello, wörld 🚀 done.', toolUses: [], stopReason: 'end_turn', usage: usage(234, 2000, 56) })
})

test('two tool calls interleaved by index, arguments in pieces, CRLF and comments: held to the end, then block 1+i each', () => {
  const r = decode(fixture('openai-tools.txt'))
  assert.equal(r.chunks, [
    { kind: 'text', index: 0, text: 'Let me run them. ' },
    { kind: 'tool', index: 1, id: 'toolu_keel_1_test', name: 'Bash' },
    { kind: 'input', index: 1, json: '{"command": "echo route-marker-42"}' },
    { kind: 'tool', index: 2, id: 'toolu_keel_2_test', name: 'Read' },
    { kind: 'input', index: 2, json: '{"file_path": "/tmp/é 🚀.txt"}' },
    { kind: 'stop', stopReason: 'tool_use', usage: usage(234, 0, 56) },
  ])
  assert.equal(r.result!.toolUses, [{ name: 'Bash', input: { command: 'echo route-marker-42' } }, { name: 'Read', input: { file_path: '/tmp/é 🚀.txt' } }])
  assert.is(r.result!.stopReason, 'tool_use')
})

test('reasoning_content and reasoning become thinking in block 1; usage on the finishing chunk; no [DONE] needed', () => {
  const r = decode(fixture('openai-reasoning.txt'))
  assert.equal(r.chunks, [
    { kind: 'thinking', index: 1, text: 'The user wants ' },
    { kind: 'thinking', index: 1, text: 'a greeting.' },
    { kind: 'thinking', index: 1, text: ' Keep it short.' },
    { kind: 'text', index: 0, text: 'Hi!' },
    { kind: 'stop', stopReason: 'end_turn', usage: usage(36, 64, 20) },
  ])
  assert.is(r.result!.answer, 'Hi!', 'thinking is no part of the answer')
})

test('unreadable arguments yield no tool chunk but a visible line; empty arguments are {}', () => {
  const r = decode(fixture('openai-bad-args.txt'))
  assert.equal(r.chunks, [
    { kind: 'text', index: 0, text: 'Trying.' },
    { kind: 'text', index: 0, text: '\n\nkeel: GPT-5 sent unreadable arguments for Bash' },
    { kind: 'tool', index: 1, id: 'toolu_keel_1_test', name: 'TodoList' },
    { kind: 'input', index: 1, json: '{}' },
    { kind: 'tool', index: 2, id: 'toolu_keel_2_test', name: 'Read' },
    { kind: 'input', index: 2, json: '{"file_path":"/etc/hosts"}' },
    { kind: 'stop', stopReason: 'tool_use', usage: usage(0, 0, 0) },
  ])
  assert.equal(r.result!.toolUses, [{ name: 'TodoList', input: {} }, { name: 'Read', input: { file_path: '/etc/hosts' } }])
  assert.is(r.result!.answer, 'Trying.\n\nkeel: GPT-5 sent unreadable arguments for Bash')
})

test('an error object in the stream and a data line that is not JSON are typed failures; the partial text stands, no stop', () => {
  const error = decode(fixture('openai-error.txt'))
  assert.equal(error.failure, { kind: 'stream-error', message: 'Upstream overloaded\nplease retry' })
  assert.equal(error.chunks.map((c) => (c.kind === 'text' ? c.text : c.kind)), ['Partial ', 'answer'])
  assert.is(error.result, undefined)
  const bad = decode(fixture('openai-not-json.txt'))
  assert.equal(bad.failure, { kind: 'unreadable', sample: '{"choices": [oops' })
  assert.equal(bad.chunks.map((c) => (c.kind === 'text' ? c.text : c.kind)), ['Before'])
  assert.equal(runOf(stream('5')).failure, { kind: 'unreadable', sample: '5' }, 'JSON that is no object')
  assert.equal(runOf(stream({ error: 'quota exhausted' })).failure, { kind: 'stream-error', message: 'quota exhausted' })
  assert.equal(runOf(stream({ error: { code: 500 } })).failure, { kind: 'stream-error', message: '{"code":500}' })
  assert.is(runOf(stream({ error: null, ...delta({ content: 'fine' }) })).failure, undefined, 'a null error field is no error')
})

test('finish reasons: the engine\'s names; tool_use exactly when a tool chunk went out', () => {
  const stopOf = (finish: string | null, calls: object[] = []) => runOf(stream(delta({ content: 'x', ...(calls.length ? { tool_calls: calls } : {}) }, finish))).result!.stopReason
  const call = { index: 0, id: 'c', function: { name: 'Bash', arguments: '{}' } }
  const broken = { index: 0, id: 'c', function: { name: 'Bash', arguments: '{' } }
  assert.equal(
    [stopOf('stop'), stopOf('length'), stopOf('content_filter'), stopOf('tool_calls'), stopOf('function_call'), stopOf('eos'), stopOf(null)],
    ['end_turn', 'max_tokens', 'refusal', 'end_turn', 'end_turn', 'end_turn', 'end_turn'],
  )
  assert.equal([stopOf('tool_calls', [call]), stopOf('stop', [call]), stopOf(null, [call]), stopOf('length', [call])], ['tool_use', 'tool_use', 'tool_use', 'tool_use'])
  assert.equal([stopOf('tool_calls', [broken]), stopOf('length', [broken])], ['end_turn', 'max_tokens'], 'only unreadable calls: no tool_use')
})

test('tool slots: Ollama\'s reused index 0 told apart by id, a missing index by position, name and id from the first piece only', () => {
  const ollama = runOf(stream(
    delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'Read', arguments: '{"file_path":"1"}' } }] }),
    delta({ tool_calls: [{ index: 0, id: 'b', function: { name: 'Read', arguments: '{"file_path":"2"}' } }] }),
  ))
  assert.equal(ollama.result!.toolUses, [{ name: 'Read', input: { file_path: '1' } }, { name: 'Read', input: { file_path: '2' } }])
  const noIndex = runOf(stream(delta({ tool_calls: [{ id: 'a', function: { name: 'A', arguments: '{}' } }, { id: 'b', function: { name: 'B', arguments: '{"x":1}' } }] })))
  assert.equal(noIndex.result!.toolUses, [{ name: 'A', input: {} }, { name: 'B', input: { x: 1 } }])
  const repeated = runOf(stream(
    delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'Bash', arguments: '{"command":' } }] }),
    delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'Bash', arguments: '"ls"}' } }] }),
    delta({ tool_calls: [{ index: 0, function: { name: '', arguments: '' } }] }),
  ))
  assert.equal(repeated.result!.toolUses, [{ name: 'Bash', input: { command: 'ls' } }], 'a name repeated on every piece is not joined')
  const late = runOf(stream(delta({ tool_calls: [{ index: 0, function: { arguments: '{}' } }] }), delta({ tool_calls: [{ index: 0, id: 'late', function: { name: 'Late' } }] })))
  assert.equal(late.result!.toolUses, [{ name: 'Late', input: {} }], 'an id first seen on a later piece is the same call')
})

test('calls with no index and an empty id, one per chunk (gateways in front of Gemini): a new name starts a new call, at every cut', () => {
  const call = (name: string, args: string) => delta({ tool_calls: [{ id: '', type: 'function', function: { name, arguments: args } }] })
  const args = (piece: string) => delta({ tool_calls: [{ function: { arguments: piece } }] })
  const r = decode(stream(
    call('Read', '{"file_path":"/tmp/a"}'),
    call('Bash', '{"command":'),
    args('"echo é"}'),
    call('Read', '{"file_path":"/tmp/b"}'),
    delta({}, 'tool_calls'),
    '[DONE]',
  ))
  assert.equal(r.result!.toolUses, [{ name: 'Read', input: { file_path: '/tmp/a' } }, { name: 'Bash', input: { command: 'echo é' } }, { name: 'Read', input: { file_path: '/tmp/b' } }])
  assert.equal(r.chunks.filter((c) => c.kind === 'tool').map((c) => c.index), [1, 2, 3])
  assert.is(r.result!.answer, '', 'no unreadable-arguments line')
  const sameId = runOf(stream(
    delta({ tool_calls: [{ id: 'x', function: { name: 'Bash', arguments: '{"command":' } }] }),
    delta({ tool_calls: [{ id: 'x', function: { name: 'Bash', arguments: '"ls"}' } }] }),
    delta({}, 'tool_calls'),
  ))
  assert.equal(sameId.result!.toolUses, [{ name: 'Bash', input: { command: 'ls' } }], 'a name repeated under the same id is one call')
})

test('argument oddities: an object instead of text, an array, a call with no name, whitespace only', () => {
  const r = runOf(stream(delta({
    tool_calls: [
      { index: 0, id: 'a', function: { name: 'Obj', arguments: { command: 'ls' } } },
      { index: 1, id: 'b', function: { name: 'Arr', arguments: '[1,2]' } },
      { index: 2, id: 'c', function: { arguments: '{}' } },
      { index: 3, id: 'd', function: { name: 'Blank', arguments: '  \n' } },
      { index: 4, id: 'e', type: 'function' },
      'not a call',
    ],
  }, 'tool_calls')))
  assert.equal(r.result!.toolUses, [{ name: 'Obj', input: { command: 'ls' } }, { name: 'Blank', input: {} }])
  assert.equal(r.chunks.filter((c) => c.kind === 'input').map((c) => (c as { json: string }).json), ['{"command":"ls"}', '{}'])
  assert.is(r.result!.answer, [
    'keel: GPT-5 sent unreadable arguments for Arr',
    'keel: GPT-5 sent unreadable arguments for a tool it did not name',
    'keel: GPT-5 sent unreadable arguments for a tool it did not name',
    'keel: GPT-5 sent unreadable arguments for a tool it did not name',
  ].join('\n\n'))
})

test('other fields: refusal is text, other choices and empty deltas are ignored, data after [DONE] is ignored, the last usage counts', () => {
  const r = runOf(stream(
    { id: 'x', choices: [] },
    { choices: [{ index: 1, delta: { content: 'choice two' } }] },
    { choices: [{ index: 0 }] },
    delta({ content: null, refusal: 'I cannot help with that.' }, 'content_filter'),
    { choices: [], usage: { prompt_tokens: 10, completion_tokens: 1 } },
    { choices: [], usage: { prompt_tokens: 12, completion_tokens: 3 } },
    '[DONE]',
    delta({ content: 'after done' }),
  ))
  assert.equal(r.result, { answer: "I cannot help with that.\n\nkeel: GPT-5's content filter stopped the response; it is cut off here", toolUses: [], stopReason: 'refusal', usage: usage(12, 0, 3) })
})

test('a cut answer says so once, under the text, and keeps the engine\'s stop reason: length, content_filter', () => {
  for (const [finish, stopReason, line] of [
    ['length', 'max_tokens', 'keel: GPT-5\'s response hit its output token maximum and is cut off here (the alias\'s "maxOutput" in routing.json sets it)'],
    ['content_filter', 'refusal', 'keel: GPT-5\'s content filter stopped the response; it is cut off here'],
  ] as const) {
    const r = decode(stream(delta({ content: 'The first half' }), delta({}, finish), { choices: [], usage: { prompt_tokens: 5, completion_tokens: 9 } }))
    assert.equal(r.chunks.map((c) => (c.kind === 'text' ? c.text : c.kind)), ['The first half', `\n\n${line}`, 'stop'], finish)
    assert.equal(r.result, { answer: `The first half\n\n${line}`, toolUses: [], stopReason, usage: usage(5, 0, 9) })
  }
  const called = runOf(stream(delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'Bash', arguments: '{}' } }] }, 'length')))
  assert.is(called.result!.stopReason, 'tool_use', 'a whole call still runs')
  assert.is(called.result!.answer, '', 'and the call is no cut answer')
})

test('a stream that ends with neither a finish reason nor [DONE] is cut, not finished: a failure at every cut; either one alone finishes it', () => {
  const cut = everySplit(createOpenAiDecoder, events(delta({ content: 'Half an ' }), delta({ content: 'answer' })), same)
  assert.equal([cut.failure, cut.chunks.map((c) => c.kind), cut.result], [{ kind: 'unfinished' }, ['text', 'text'], undefined])
  const held = runOf(events(delta({ tool_calls: [{ index: 0, id: 'a', function: { name: 'Bash', arguments: '{}' } }] })))
  assert.equal([held.failure, held.chunks], [{ kind: 'unfinished' }, []], 'a call from a cut stream never goes out')
  assert.is(runOf(events(delta({ content: 'x' }, 'stop'))).failure, undefined, 'a finish reason without [DONE]')
  assert.is(runOf(events(delta({ content: 'x' }), '[DONE]')).failure, undefined, '[DONE] without a finish reason')
  assert.equal(decodeOpenAiCompletion(JSON.stringify({ choices: [{ index: 0, message: { content: 'whole' } }] }), context()), {
    chunks: [{ kind: 'text', index: 0, text: 'whole' }, { kind: 'stop', stopReason: 'end_turn', usage: usage(0, 0, 0) }],
    result: { answer: 'whole', toolUses: [], stopReason: 'end_turn', usage: usage(0, 0, 0) },
  }, 'a whole completion is finished whatever it says')
})

test('a step\'s own line (step.fail): the notice spacing after text that ends a line, and with no text at all; no held-back call runs', () => {
  const cases: [string, string][] = [['', 'X'], ['a', 'a\n\nX'], ['a\n', 'a\n\nX'], ['a\n\n', 'a\n\nX']]
  for (const [before, want] of cases) {
    const step = createStep(context())
    step.text(before)
    const end = step.fail('X')
    assert.is(end.result.answer, want, JSON.stringify(before))
    assert.equal(end.chunks.at(-1), { kind: 'stop', stopReason: 'end_turn', usage: usage(0, 0, 0) })
  }
  const held = createStep(context())
  held.toolStart('0', 'Bash')
  held.toolArgs('0', '{}')
  assert.equal(held.fail('X').result.toolUses, [], 'a held-back call never runs after a failure')
})

test('a non-streaming completion: the same chunks a stream would give', () => {
  const end = decodeOpenAiCompletion(fixture('openai-completion.json'), context())
  if ('failure' in end) throw new Error('unexpected failure')
  const chunks: StepChunk[] = [
    { kind: 'thinking', index: 1, text: 'Need the file.' },
    { kind: 'text', index: 0, text: 'Reading it.' },
    { kind: 'tool', index: 2, id: 'toolu_keel_1_test', name: 'Read' },
    { kind: 'input', index: 2, json: '{"file_path":"/etc/hosts"}' },
    { kind: 'tool', index: 3, id: 'toolu_keel_2_test', name: 'Bash' },
    { kind: 'input', index: 3, json: '{"command":"ls"}' },
    { kind: 'stop', stopReason: 'tool_use', usage: usage(40, 10, 9) },
  ]
  assert.equal(end.chunks, chunks)
  assert.equal(end.result.toolUses, [{ name: 'Read', input: { file_path: '/etc/hosts' } }, { name: 'Bash', input: { command: 'ls' } }])
  assert.equal(decodeOpenAiCompletion('{"error":{"message":"model not found","type":"invalid_request_error"}}', context()), { failure: { kind: 'stream-error', message: 'model not found' } })
  assert.equal(decodeOpenAiCompletion('<html>502</html>', context()), { failure: { kind: 'unreadable', sample: '<html>502</html>' } })
})

test.run()
