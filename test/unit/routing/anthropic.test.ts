// The anthropic-messages side (§3.4): the redirect rewrite, the encoder a buffered answer goes out
// through, and the decoder, round-tripped against each other.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { collectAnswer, createAnthropicDecoder, encodeAnthropicMessage, encodeAnthropicSse, redirectRequest, type Answer } from '../../../src/features/routing/anthropic.ts'
import type { Provider, Route } from '../../../src/features/routing/config.ts'
import { createOpenAiDecoder } from '../../../src/features/routing/openai.ts'
import type { StepChunk } from '../../../src/features/routing/step.ts'
import { everySplit, run, type Run } from './fixtures/harness.ts'
import { fixture } from './fixtures/read.ts'

const PROVIDER: Provider = { id: 'moon', api: 'anthropic-messages', baseUrl: 'https://api.moon.example/anthropic', auth: { env: 'MOON_KEY' }, headers: { 'X-Client': 'keel' } }
const ROUTE: Route = { alias: 'kimi', label: 'Kimi K2', model: 'kimi-k2', context: 128000, vision: true, provider: PROVIDER }
const ENGINE_HEADERS = {
  'x-api-key': '[redacted]',
  authorization: '[redacted]',
  'anthropic-beta': 'claude-code-20250219,fallback-credit-2026-06-01',
  'anthropic-version': '2023-06-01',
  'Content-Type': 'application/json',
  accept: 'application/json',
  'x-claude-code-session-id': 'session-123',
  'x-stainless-os': 'Linux',
  'x-stainless-retry-count': '0',
  'user-agent': 'claude-cli/2.1.328 (external, sdk-cli)',
}
const IDENTITY = 'You are Kimi K2 (kimi-k2), answering inside Claude Code through keel.'

test('the redirect: URL, headers, and a body stripped of what the provider must not see', () => {
  const out = redirectRequest({ url: 'https://api.anthropic.com/v1/messages?beta=true', headers: ENGINE_HEADERS, body: fixture('engine-request.json') }, { ...ROUTE, maxOutput: 16384 }, 'sk-moon-12345678', 'keel')!
  assert.is(out.url, 'https://api.moon.example/anthropic/v1/messages')
  assert.equal(out.headers, { 'anthropic-version': '2023-06-01', 'content-type': 'application/json', accept: 'application/json', 'x-api-key': 'sk-moon-12345678', 'X-Client': 'keel' })
  const body = JSON.parse(out.body)
  assert.is(body.model, 'kimi-k2')
  assert.is(body.max_tokens, 16384)
  assert.not.ok('metadata' in body)
  assert.not.ok('context_management' in body)
  assert.equal(body.thinking, { type: 'adaptive' }, 'other fields pass through')
  assert.equal(body.output_config, { effort: 'high' })
  assert.equal(body.system, [
    { type: 'text', text: 'You are an interactive agent that helps users with software engineering tasks.\n\n# Tone\nBe brief.', cache_control: { type: 'ephemeral', ttl: '1h' } },
    { type: 'text', text: '<env>\nWorking directory: /tmp/project\nPlatform: linux\n</env>' },
  ])
  assert.equal(body.messages.map((m: { role: string }) => m.role), ['user', 'assistant', 'user', 'assistant', 'user', 'user'], 'no system role; the thinking-only answer gone')
  assert.equal(body.messages[0].content[1], { type: 'text', text: `<system-reminder>\n${IDENTITY}\n</system-reminder>` })
  assert.equal(body.messages[0].content[2], { type: 'text', text: 'run echo please', cache_control: { type: 'ephemeral' } }, 'cache_control kept: the provider may cache')
  assert.equal(body.messages[1].content.map((b: { type: string }) => b.type), ['text', 'tool_use', 'tool_use'])
  assert.equal(body.messages[3].content.map((b: { type: string }) => b.type), ['tool_use'])
  assert.equal(body.tools.length, 4, 'tools pass as the engine sent them')
  for (const gone of ['x-anthropic-billing-header', 'Claude Agent SDK', 'Opus 5.5', 'user_device', 'c2lnbmF0dXJl', 'ZW5jcnlwdGVk', 'Only a thought']) assert.not.ok(out.body.includes(gone), gone)
})

test('the redirect: no maxOutput keeps max_tokens; no key sends none; a version is always sent; no reminder means the identity leads', () => {
  const body = JSON.stringify({ model: 'kimi', max_tokens: 9000, system: 'Be kind.', messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }] })
  const out = redirectRequest({ url: 'x', headers: {}, body }, { ...ROUTE, provider: { ...PROVIDER, headers: {} } }, undefined, 'keel')!
  assert.equal(out.headers, { 'anthropic-version': '2023-06-01' })
  assert.equal(JSON.parse(out.body), {
    model: 'kimi-k2', max_tokens: 9000,
    system: [{ type: 'text', text: IDENTITY }, { type: 'text', text: 'Be kind.' }],
    messages: [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }],
  })
  const named = redirectRequest({ url: 'x', headers: {}, body: JSON.stringify({ model: 'kimi', messages: [{ role: 'user', content: 'You are powered by the model kimi.' }] }) }, ROUTE, undefined, 'keel')!
  assert.equal(JSON.parse(named.body), { model: 'kimi-k2', system: [], messages: [{ role: 'user', content: IDENTITY }] })
  assert.is(redirectRequest({ url: 'x', headers: {}, body: '{"not":"messages"}' }, ROUTE, undefined, 'keel'), undefined)
})

const usage = { input_tokens: 234, output_tokens: 56, cache_read_input_tokens: 1000, cache_creation_input_tokens: 0, model: 'gpt-5' }
const ANSWER: Answer = {
  text: 'Let me run it. ',
  toolCalls: [{ id: 'toolu_keel_1_x', name: 'Bash', input: { command: 'echo "hi"' } }],
  stopReason: 'tool_use',
  usage,
}

test('collectAnswer folds a step\'s chunks back into one answer, thinking left out', () => {
  assert.equal(collectAnswer([
    { kind: 'thinking', index: 1, text: 'hmm' },
    { kind: 'text', index: 0, text: 'Let me ' },
    { kind: 'text', index: 0, text: 'run it. ' },
    { kind: 'tool', index: 2, id: 'toolu_keel_1_x', name: 'Bash' },
    { kind: 'input', index: 2, json: '{"command":' },
    { kind: 'input', index: 2, json: '"echo \\"hi\\""}' },
    { kind: 'input', index: 9, json: 'orphan' },
    { kind: 'stop', stopReason: 'tool_use', usage },
  ]), ANSWER)
  assert.equal(collectAnswer([]), { text: '', toolCalls: [], stopReason: null, usage: null })
})

test('the non-streaming message JSON', () => {
  assert.equal(JSON.parse(encodeAnthropicMessage(ANSWER, { id: 'msg_keel_1', model: 'gpt-5' })), {
    id: 'msg_keel_1', type: 'message', role: 'assistant', model: 'gpt-5',
    content: [{ type: 'text', text: 'Let me run it. ' }, { type: 'tool_use', id: 'toolu_keel_1_x', name: 'Bash', input: { command: 'echo "hi"' } }],
    stop_reason: 'tool_use', stop_sequence: null,
    usage: { input_tokens: 234, output_tokens: 56, cache_creation_input_tokens: 0, cache_read_input_tokens: 1000 },
  })
  const empty = JSON.parse(encodeAnthropicMessage({ text: '', toolCalls: [], stopReason: null, usage: null }, { id: 'm', model: 'gpt-5' }))
  assert.equal([empty.content, empty.stop_reason, empty.usage.input_tokens], [[], 'end_turn', 0])
})

test('the SSE stream: message_start to message_stop, blocks numbered from 0', () => {
  const sse = encodeAnthropicSse(ANSWER, { id: 'msg_keel_1', model: 'gpt-5' })
  const events = sse.split('\n\n').filter(Boolean).map((block) => {
    const [eventLine, dataLine] = block.split('\n')
    const data = JSON.parse(dataLine!.slice('data: '.length))
    assert.is(eventLine, `event: ${data.type}`)
    return data
  })
  assert.equal(events.map((e) => e.type), ['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'])
  assert.equal(events[0].message, { id: 'msg_keel_1', type: 'message', role: 'assistant', model: 'gpt-5', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 234, output_tokens: 56, cache_creation_input_tokens: 0, cache_read_input_tokens: 1000 } })
  assert.equal(events[1], { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })
  assert.equal(events[4], { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'toolu_keel_1_x', name: 'Bash', input: {} } })
  assert.equal(events[5], { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"command":"echo \\"hi\\""}' } })
  assert.equal(events[7].delta, { stop_reason: 'tool_use', stop_sequence: null })
  assert.ok(sse.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n'))
})

const same = (a: Run, b: Run, what: string) => assert.equal(a, b, what)

test('the decoder on a recorded stream (thinking, text, a tool call in pieces, CR line ends), the same at every cut', () => {
  const r = everySplit(createAnthropicDecoder, fixture('anthropic-tools.txt'), same)
  const want = { input_tokens: 300, output_tokens: 42, cache_read_input_tokens: 1200, cache_creation_input_tokens: 10, model: 'gpt-5' }
  assert.equal(r.chunks, [
    { kind: 'thinking', index: 1, text: 'Run it.' },
    { kind: 'text', index: 0, text: 'Running ✓ ' },
    { kind: 'text', index: 0, text: 'now.' },
    { kind: 'tool', index: 2, id: 'toolu_keel_1_test', name: 'Bash' },
    { kind: 'input', index: 2, json: '{"command": "echo hi"}' },
    { kind: 'stop', stopReason: 'tool_use', usage: want },
  ])
  assert.equal(r.result, { answer: 'Running ✓ now.', toolUses: [{ name: 'Bash', input: { command: 'echo hi' } }], stopReason: 'tool_use', usage: want })
})

test('the decoder: an error event, a line that is not JSON, a whole input in the start block, an unknown stop reason', () => {
  const error = everySplit(createAnthropicDecoder, fixture('anthropic-error.txt'), same)
  assert.equal(error.failure, { kind: 'stream-error', message: 'Overloaded' })
  assert.equal([error.chunks.map((c) => (c.kind === 'text' ? c.text : c.kind)), error.result], [['Half'], undefined])
  const ev = (data: object) => `data: ${JSON.stringify(data)}\n\n`
  assert.equal(run(createAnthropicDecoder, ['data: {oops\n\n']).failure, { kind: 'unreadable', sample: '{oops' })
  assert.equal(run(createAnthropicDecoder, ['data: [1]\n\n']).failure, { kind: 'unreadable', sample: '[1]' })
  assert.equal(run(createAnthropicDecoder, [ev({ type: 'error', error: 'plain' })]).failure, { kind: 'stream-error', message: 'plain' })
  const whole = run(createAnthropicDecoder, [
    ev({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 't', name: 'Read', input: { file_path: '/a' } } }),
    ev({ type: 'content_block_start', content_block: { type: 'text', text: 'preset text' } }),
    ev({ type: 'message_delta', delta: { stop_reason: 'something_new' } }),
    ev({ type: 'content_block_delta', index: 3, delta: { type: 'citations_delta', citation: {} } }),
    ev({ type: 'future_event' }),
  ])
  assert.equal(whole.result!.toolUses, [{ name: 'Read', input: { file_path: '/a' } }])
  assert.is(whole.result!.answer, 'preset text')
  const stop = run(createAnthropicDecoder, [ev({ type: 'message_delta', delta: { stop_reason: 'max_tokens' }, usage: { output_tokens: 7 } })])
  assert.equal([stop.result!.stopReason, stop.result!.usage?.output_tokens, stop.result!.usage?.input_tokens], ['max_tokens', 7, 0])
  assert.match(stop.result!.answer, 'output token maximum', 'a cut answer says so')
  assert.is(run(createAnthropicDecoder, [ev({ type: 'message_delta', delta: { stop_reason: 'something_new' } })]).result!.stopReason, 'end_turn')
})

test('the decoder: max_tokens and refusal say the answer is cut, once; a stream with neither a stop reason nor message_stop is cut, at every cut', () => {
  const ev = (data: object) => `event: ${(data as { type: string }).type}\ndata: ${JSON.stringify(data)}\n\n`
  const opening = [
    ev({ type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', content: [], stop_reason: null, usage: { input_tokens: 3, output_tokens: 1 } } }),
    ev({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Half é' } }),
  ].join('')
  for (const [reason, line] of [
    ['max_tokens', 'keel: GPT-5\'s response hit its output token maximum and is cut off here (the alias\'s "maxOutput" in routing.json sets it)'],
    ['refusal', 'keel: GPT-5\'s content filter stopped the response; it is cut off here'],
  ] as const) {
    const r = everySplit(createAnthropicDecoder, opening + ev({ type: 'content_block_stop', index: 0 }) + ev({ type: 'message_delta', delta: { stop_reason: reason }, usage: { output_tokens: 9 } }) + ev({ type: 'message_stop' }), same)
    assert.equal([r.result!.answer, r.result!.stopReason, r.failure], [`Half é\n\n${line}`, reason, undefined], reason)
  }
  const cut = everySplit(createAnthropicDecoder, opening, same)
  assert.equal([cut.failure, cut.chunks.map((c) => (c.kind === 'text' ? c.text : c.kind)), cut.result], [{ kind: 'unfinished' }, ['Half é'], undefined])
  assert.is(run(createAnthropicDecoder, [opening + ev({ type: 'message_stop' })]).result!.stopReason, 'end_turn', 'message_stop alone finishes it')
})

/** The encoder sends the text in one piece and re-encodes the arguments: compare joined text and arguments as values. */
function normalized(r: Run): Run {
  const chunks: StepChunk[] = []
  for (const c of r.chunks) {
    const last = chunks.at(-1)
    if (c.kind === 'text' && last?.kind === 'text') chunks[chunks.length - 1] = { ...last, text: last.text + c.text }
    else chunks.push(c.kind === 'input' ? { ...c, json: JSON.stringify(JSON.parse(c.json)) } : c)
  }
  return { ...r, chunks }
}

test('round trip: an OpenAI stream decoded, encoded as Anthropic SSE, decoded again gives the same chunks and result', () => {
  for (const name of ['openai-tools.txt', 'openai-text.txt', 'openai-bad-args.txt']) {
    const first = run(createOpenAiDecoder, [fixture(name)])
    const sse = encodeAnthropicSse(collectAnswer(first.chunks), { id: 'msg_keel_rt', model: 'gpt-5' })
    const again = run(createAnthropicDecoder, [sse])
    assert.equal(normalized(again), normalized(first), name)
    assert.equal(again.result, first.result, name)
  }
})

test.run()
