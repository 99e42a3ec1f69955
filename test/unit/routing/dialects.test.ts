// Provider dialects (issue 18), each behaviour alone, against the recorded or documented streams and the
// rules in test/fixtures/providers (RULES.md, RESPONSES.md): presets and recognition, what a step keeps
// and sends back to its own provider only, tool names, ids, schemas, the Responses codec, the
// Anthropic-compatible provider's own thinking, and the decoder cases the survey found.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createAnthropicDecoder, redirectRequest } from '../../../src/features/routing/anthropic.ts'
import { readConfig, type Provider, type Route } from '../../../src/features/routing/config.ts'
import { dialectOf, familyOf, PRESETS, reportedContext, sentSchema, sentToolName, shortToolId, type Behaviour } from '../../../src/features/routing/dialect.ts'
import { createOpenAiDecoder, toOpenAiRequest, type Outbound } from '../../../src/features/routing/openai.ts'
import { createReplays, NO_REPLAY, REPLAY_STEPS, type Replay, type ReplayLookup } from '../../../src/features/routing/replay.ts'
import { createResponsesDecoder, toResponsesRequest } from '../../../src/features/routing/responses.ts'
import type { AnthropicRequest } from '../../../src/features/routing/wire.ts'
import * as deepseek from '../../fixtures/providers/deepseek.ts'
import * as gemini from '../../fixtures/providers/gemini.ts'
import * as lmstudio from '../../fixtures/providers/lmstudio.ts'
import * as mistral from '../../fixtures/providers/mistral.ts'
import * as ollama from '../../fixtures/providers/ollama.ts'
import * as openrouter from '../../fixtures/providers/openrouter.ts'
import * as responses from '../../fixtures/providers/openai-responses.ts'
import * as text from '../../fixtures/providers/text-tool-calls.ts'
import * as vllm from '../../fixtures/providers/vllm.ts'
import * as xai from '../../fixtures/providers/xai.ts'
import { run, strideSplit, type Run } from './fixtures/harness.ts'

const provider = (over: Partial<Provider>): Provider => ({ id: 'p', api: 'openai-chat', baseUrl: 'https://api.example.com/v1', auth: 'none', headers: {}, ...over })
const route = (over: Partial<Route> = {}, p: Partial<Provider> = {}): Route => ({ alias: 'm', label: 'M', model: 'model-1', context: 100000, vision: false, provider: provider(p), ...over })
const out = (behaviours: Behaviour[], replay: ReplayLookup = NO_REPLAY, r = route()): Outbound => ({ route: r, pkg: 'keel', behaviours: new Set(behaviours), replay })
const same = (a: Run, b: Run, what: string) => assert.equal(a, b, what)
const chat = (behaviours: Behaviour[] = []) => (ctx: Parameters<typeof createOpenAiDecoder>[0]) => createOpenAiDecoder(ctx, new Set(behaviours))

/** A tool loop as the engine sends it: a prompt, a routed step's two calls, their results with a reminder beside them. */
const LOOP: AnthropicRequest = {
  model: 'm',
  system: [{ type: 'text', text: 'Be brief.' }],
  tools: [
    { name: 'Read', description: 'Read a file.', input_schema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { file_path: { type: 'string' } }, additionalProperties: false } },
    { name: 'mcp__my.server__a-very-long-tool-name-that-runs-past-the-sixty-four-characters-providers-take', input_schema: { type: 'object' } },
  ],
  messages: [
    { role: 'user', content: 'read both' },
    { role: 'assistant', content: [{ type: 'text', text: 'Reading.' }, { type: 'tool_use', id: 'toolu_keel_1_a', name: 'Read', input: { file_path: '/a' } }, { type: 'tool_use', id: 'toolu_keel_2_b', name: 'Read', input: { file_path: '/b' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_keel_1_a', content: 'A' }, { type: 'tool_result', tool_use_id: 'toolu_keel_2_b', content: 'B' }, { type: 'text', text: '<system-reminder>keep going</system-reminder>' }] },
  ],
}
const messagesOf = (o: Outbound) => toOpenAiRequest(LOOP, o).request.messages as any[]

test('presets: every one names an API and a base URL; a preset fills them, a field the entry spells wins; an unknown preset is named', () => {
  for (const [name, p] of Object.entries(PRESETS)) assert.ok(p.api && URL.canParse(p.baseUrl), name)
  const read = readConfig(JSON.stringify({
    providers: { ds: { preset: 'deepseek', auth: 'none' }, mine: { preset: 'deepseek', baseUrl: 'https://proxy.example/v1', auth: 'none' }, bad: { preset: 'nope', auth: 'none' } },
    models: {},
  }))
  assert.ok(read.state === 'loaded')
  if (read.state !== 'loaded') return
  assert.equal(read.config.providers.ds, { id: 'ds', api: 'openai-chat', baseUrl: 'https://api.deepseek.com', auth: 'none', headers: {}, preset: 'deepseek' })
  assert.is(read.config.providers.mine?.baseUrl, 'https://proxy.example/v1')
  assert.match(read.errors.join('\n'), /providers\.bad\.preset: must be one of openai, openai-responses, openrouter, deepseek/)
  assert.match(read.errors.join('\n'), /providers\.bad\.api: missing/, 'without a known preset, api and baseUrl are required')
})

test('recognition: a provider written with no preset is known by its host or local port; a gateway model by its id', () => {
  assert.is(familyOf({ baseUrl: 'https://api.deepseek.com/v1' }), 'deepseek')
  assert.is(familyOf({ baseUrl: 'https://generativelanguage.googleapis.com/v1beta/openai' }), 'gemini')
  assert.is(familyOf({ baseUrl: 'https://api.mistral.ai/v1' }), 'mistral')
  assert.is(familyOf({ baseUrl: 'http://127.0.0.1:11434/v1' }), 'ollama')
  assert.is(familyOf({ baseUrl: 'https://api.openai.com/v1' }), 'openai', 'the chat preset, not the Responses one')
  assert.is(familyOf({ baseUrl: 'https://llm.example.com/v1' }), undefined)
  assert.is(familyOf({ preset: 'groq', baseUrl: 'https://proxy.example' }), 'groq', 'a named preset wins')
  assert.equal([...dialectOf({ baseUrl: 'https://openrouter.ai/api/v1' }, 'google/gemini-3-flash-preview').behaviours], ['schemaSubset'], 'Gemini through OpenRouter: its schema rules, not its placeholder signature')
  assert.equal([...dialectOf({ baseUrl: 'https://openrouter.ai/api/v1' }, 'mistralai/devstral-medium').behaviours], ['shortToolIds', 'toolTextFolded'])
  assert.equal(dialectOf({ baseUrl: 'https://api.deepseek.com' }, 'deepseek-reasoner').effort, PRESETS.deepseek!.effort)
  assert.equal([...dialectOf({ baseUrl: 'https://api.groq.com/openai/v1' }, 'llama-3.3-70b').behaviours], [], 'Groq: nothing added, nothing sent it refuses')
})

test('tool names: a name every provider takes stays; any other is made safe, cut with a hash past 64, and mapped back', () => {
  assert.is(sentToolName('Read'), 'Read')
  assert.is(sentToolName('mcp__srv__do-it'), 'mcp__srv__do-it')
  assert.is(sentToolName('mcp__my.server__x'), 'mcp__my_server__x')
  assert.is(sentToolName('9lives'), '_9lives')
  const long = LOOP.tools![1]!.name
  const sent = sentToolName(long)
  assert.ok(sent.length <= 64 && /^[A-Za-z_][A-Za-z0-9_-]*$/.test(sent), sent)
  assert.is(sentToolName(long), sent, 'the same every time')
  assert.is.not(sentToolName(`${long}2`), sent, 'two long names stay apart')
  const { request, toolName } = toOpenAiRequest(LOOP, out([]))
  assert.equal(request.tools!.map((t) => t.function.name), ['Read', sent])
  assert.is(toolName(sent), long)
  assert.is(toolName('Read'), 'Read')
  const r = run((ctx) => createOpenAiDecoder({ ...ctx, toolName }), [`data: ${JSON.stringify({ choices: [{ index: 0, delta: { tool_calls: [{ index: 0, id: 'c', function: { name: sent, arguments: '{}' } }] }, finish_reason: 'tool_calls' }] })}\n\n`])
  assert.equal(r.result?.toolUses, [{ name: long, input: {} }], 'the engine gets its own name back')
})

test('schemas: $schema is never sent; Gemini\'s subset drops what it refuses, keeps parameters named like keywords, fixes const, unions and arrays', () => {
  const schema = {
    $schema: 'x', type: 'object', additionalProperties: false, title: 'T',
    properties: { title: { type: 'string', const: 'a' }, n: { type: ['integer', 'null'], exclusiveMinimum: 0 }, list: { type: 'array' }, nested: { type: 'object', properties: { default: { type: 'string', default: 'd' } } } },
  }
  assert.equal(sentSchema(schema, false), { type: 'object', additionalProperties: false, title: 'T', properties: schema.properties })
  assert.equal(sentSchema(schema, true), {
    type: 'object',
    properties: { title: { type: 'string', enum: ['a'] }, n: { type: 'integer', nullable: true }, list: { type: 'array', items: {} }, nested: { type: 'object', properties: { default: { type: 'string' } } } },
  })
  const [read] = toOpenAiRequest(LOOP, out([])).request.tools!
  assert.equal(read!.function.parameters, { type: 'object', properties: { file_path: { type: 'string' } }, additionalProperties: false }, 'every provider: no $schema')
})

test('emptyReasoning (DeepSeek V4): every assistant message carries reasoning_content, "" where none was kept', () => {
  assert.equal(messagesOf(out([])).filter((m) => m.role === 'assistant').map((m) => m.reasoning_content), [undefined])
  assert.equal(messagesOf(out(['emptyReasoning'])).filter((m) => m.role === 'assistant').map((m) => m.reasoning_content), [''])
})

test('skipSignature (Gemini): the first call of a step carries a signature, its own where kept, else the documented placeholder', () => {
  const calls = (o: Outbound) => messagesOf(o).find((m) => m.role === 'assistant').tool_calls.map((c: any) => c.extra_content?.google?.thought_signature)
  assert.equal(calls(out([])), [undefined, undefined])
  assert.equal(calls(out(['skipSignature'])), ['skip_thought_signature_validator', undefined])
  const kept: Replay = { origin: 'p model-1', calls: { toolu_keel_1_a: { extra_content: { google: { thought_signature: 'SIG' } } } } }
  assert.equal(calls(out(['skipSignature'], (ids) => (ids.includes('toolu_keel_1_a') ? kept : undefined))), ['SIG', undefined])
})

test('shortToolIds (Mistral): 9 letters and digits, the same for a call and its result', () => {
  const id = shortToolId('toolu_keel_1_a')
  assert.match(id, /^[A-Za-z0-9]{9}$/)
  assert.is(shortToolId('toolu_keel_1_a'), id)
  assert.is.not(shortToolId('toolu_keel_2_b'), id)
  const messages = messagesOf(out(['shortToolIds']))
  const calls = messages.find((m) => m.role === 'assistant').tool_calls.map((c: any) => c.id)
  assert.equal(calls, [id, shortToolId('toolu_keel_2_b')])
  assert.equal(messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id), calls)
})

test('toolTextFolded (Mistral): no user message after tool ones; its text joins the last tool result', () => {
  const roles = (o: Outbound) => messagesOf(o).map((m) => m.role)
  assert.equal(roles(out([])), ['system', 'user', 'assistant', 'tool', 'tool', 'user'])
  const folded = messagesOf(out(['toolTextFolded']))
  assert.equal(folded.map((m) => m.role), ['system', 'user', 'assistant', 'tool', 'tool'])
  assert.is(folded.at(-1).content, 'B\n\n<system-reminder>keep going</system-reminder>')
})

test('noStreamOptions (Mistral) and maxCompletionTokens (OpenAI): the fields each refuses are not sent', () => {
  const capped = { ...LOOP, max_tokens: 64000 }
  const r = route({ maxOutput: 8000 })
  assert.equal(toOpenAiRequest(capped, out([], NO_REPLAY, r)).request.stream_options, { include_usage: true })
  assert.is(toOpenAiRequest(capped, out(['noStreamOptions'], NO_REPLAY, r)).request.stream_options, undefined)
  const openai = toOpenAiRequest(capped, out(['maxCompletionTokens'], NO_REPLAY, r)).request
  assert.equal([openai.max_tokens, openai.max_completion_tokens], [undefined, 8000])
})

test('effort: the alias\'s names, else its family\'s (DeepSeek takes high and max)', () => {
  const asking = { ...LOOP, output_config: { effort: 'medium' } }
  assert.is(toOpenAiRequest(asking, out([])).request.reasoning_effort, undefined)
  assert.is(toOpenAiRequest(asking, { ...out([]), effort: PRESETS.deepseek!.effort }).request.reasoning_effort, 'high')
  assert.is(toOpenAiRequest({ ...LOOP, output_config: { effort: 'max' } }, { ...out([]), effort: PRESETS.deepseek!.effort }).request.reasoning_effort, 'max')
  assert.is(toOpenAiRequest(asking, { ...out([], NO_REPLAY, route({ effort: { medium: 'low' } })), effort: PRESETS.deepseek!.effort }).request.reasoning_effort, 'low', 'the alias wins')
})

test('reasoningInOutput (xAI): completion_tokens leaves reasoning out; the output counts it', () => {
  const without = strideSplit(chat(), xai.XAI_TOOL_CALL_STREAM, same)
  const withIt = strideSplit(chat(['reasoningInOutput']), xai.XAI_TOOL_CALL_STREAM, same)
  assert.equal([without.result?.usage?.output_tokens, withIt.result?.usage?.output_tokens], [26, 222])
})

test('kept, by the step\'s tool-use ids: DeepSeek\'s reasoning_content, Gemini\'s signature (first call only), OpenRouter\'s details in order', () => {
  const ds = strideSplit(chat(), deepseek.DEEPSEEK_V4_PARALLEL_TOOL_CALLS_STREAM, same)
  assert.equal(ds.kept, { ids: ['toolu_keel_1_test', 'toolu_keel_2_test'], fields: { reasoning_content: 'Read both files first.' } })
  const gm = strideSplit(chat(), gemini.GEMINI_PARALLEL_TOOL_CALLS_STREAM, same)
  assert.equal(gm.kept, { ids: ['toolu_keel_1_test', 'toolu_keel_2_test'], calls: { toolu_keel_1_test: { extra_content: { google: { thought_signature: 'EpUDCpIDAcu98PDx3Zk1oVw7hXbT' } } } } })
  const or = strideSplit(chat(), openrouter.OPENROUTER_GEMINI_TOOL_CALL_STREAM, same)
  assert.equal((or.kept?.fields?.reasoning_details as any[]).map((d) => d.type), ['reasoning.text', 'reasoning.encrypted'])
  assert.is((or.kept?.fields?.reasoning_details as any[])[1].data, 'EjQKMgEMOdbHJChLX75QUCJjyYlmq1w2Bc9vGzK0')
  assert.is(strideSplit(chat(), gemini.GEMINI_TEXT_STREAM, same).kept, undefined, 'a step with no calls keeps nothing')
  // Sent back: the kept fields on the step's own assistant message, over the "" of emptyReasoning.
  const replay: Replay = { origin: 'p model-1', fields: ds.kept!.fields }
  const byIds: ReplayLookup = (ids) => (ids.includes('toolu_keel_1_a') ? replay : undefined)
  assert.is(messagesOf(out(['emptyReasoning'], byIds)).find((m) => m.role === 'assistant').reasoning_content, 'Read both files first.')
})

test('replays: kept per session, looked up by any call of a step and only for its origin; bounded; stored and read back after a restart', async () => {
  const store = new Map<string, unknown>()
  const edges = { load: async (s: string) => store.get(s), save: async (s: string, e: unknown) => void store.set(s, structuredClone(e)) }
  const replays = createReplays(edges)
  await replays.keep('s1', ['t1', 't2'], { origin: 'ds deepseek-reasoner', fields: { reasoning_content: 'R' } })
  assert.is((await replays.lookup('s1', 'ds deepseek-reasoner'))(['t2'])?.fields?.reasoning_content, 'R')
  assert.is((await replays.lookup('s1', 'gm gemini-3'))(['t2']), undefined, 'never to another provider or model')
  assert.is((await replays.lookup('s2', 'ds deepseek-reasoner'))(['t2']), undefined, 'another session')
  const again = createReplays(edges)
  assert.is((await again.lookup('s1', 'ds deepseek-reasoner'))(['t1'])?.fields?.reasoning_content, 'R', 'a --resume reads the store')
  for (let i = 0; i < REPLAY_STEPS + 5; i++) await again.keep('s1', [`x${i}`], { origin: 'o' })
  assert.is((store.get('s1') as unknown[]).length, REPLAY_STEPS)
  assert.is((await again.lookup('s1', 'o'))(['x0']), undefined, 'the oldest went')
  const broken = createReplays({ load: async () => 'not entries', save: async () => undefined })
  assert.is((await broken.lookup('s', 'o'))(['t']), undefined, 'a damaged stored value reads as none')
})

test('the Anthropic-compatible provider\'s own signed thinking is kept and goes back ahead of its step\'s content', () => {
  const sse = [
    { type: 'message_start', message: { usage: { input_tokens: 5 } } },
    { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Plan.' } },
    { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'SIGN' } },
    { type: 'content_block_start', index: 1, content_block: { type: 'tool_use', id: 'x', name: 'Read', input: {} } },
    { type: 'content_block_delta', index: 1, delta: { type: 'input_json_delta', partial_json: '{"file_path":"/a"}' } },
    { type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 3 } },
    { type: 'message_stop' },
  ].map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('')
  const r = run(createAnthropicDecoder, [sse])
  assert.equal(r.kept, { ids: ['toolu_keel_1_test'], items: [{ type: 'thinking', thinking: 'Plan.', signature: 'SIGN' }] })
  const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'go' }, { role: 'assistant', content: [{ type: 'thinking', thinking: 'foreign', signature: 'F' }, { type: 'tool_use', id: 'toolu_keel_1_test', name: 'Read', input: {} }] }] })
  const sent = (lookup: ReplayLookup) => JSON.parse(redirectRequest({ url: 'x', headers: {}, body }, route({}, { api: 'anthropic-messages' }), undefined, 'keel', lookup)!.body).messages[1].content.map((b: any) => b.type + (b.signature ? `:${b.signature}` : ''))
  assert.equal(sent(NO_REPLAY), ['tool_use'], 'foreign thinking never goes')
  assert.equal(sent(() => ({ origin: 'p model-1', items: r.kept!.items })), ['thinking:SIGN', 'tool_use'])
})

test('decoder cases of the survey: Magistral\'s content parts, an older vLLM\'s flat error, null and absent arguments, indexless parallel calls', () => {
  const magistral = strideSplit(chat(), mistral.MISTRAL_MAGISTRAL_THINKING_STREAM, same)
  assert.equal(magistral.chunks.map((c) => c.kind), ['thinking', 'thinking', 'text', 'stop'])
  assert.is(magistral.result?.answer, '2 + 2 = 4')
  assert.equal(run(chat(), [vllm.VLLM_MID_STREAM_ERROR_LEGACY]).failure, { kind: 'stream-error', message: 'Engine loop is not running. Inspect the stacktrace to find the original error' })
  assert.equal(strideSplit(chat(), vllm.VLLM_HERMES_ARGUMENTS_NULL_STREAM, same).result?.toolUses.length, 1)
  assert.equal(strideSplit(chat(), vllm.VLLM_PARAMETERLESS_CALL_STREAM, same).result?.toolUses, [{ name: 'TaskList', input: {} }])
  assert.equal(strideSplit(chat(), gemini.GEMINI_PARALLEL_TOOL_CALLS_STREAM, same).result?.toolUses, [{ name: 'Read', input: { file_path: '/tmp/a.txt' } }, { name: 'Read', input: { file_path: '/tmp/b.txt' } }])
  assert.equal(strideSplit(chat(), lmstudio.LMSTUDIO_ARGUMENTS_AT_END_STREAM, same).result?.toolUses.length, 1)
})

test('a tool call printed as text (bare JSON, <tool_call> tags) is said, never run; plain JSON prose is not a call', () => {
  for (const stream of [text.TEXT_TOOL_CALL_BARE_JSON_STREAM, text.TEXT_TOOL_CALL_TAGGED_STREAM]) {
    const r = strideSplit(chat(), stream, same)
    assert.equal(r.result?.toolUses, [])
    assert.match(r.result!.answer, /keel: GPT-5 wrote a call of (shell|Read) as text instead of calling it, so it did not run/)
  }
  const prose = run(chat(), [`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: '{"name": "x", "value": 3}' }, finish_reason: 'stop' }] })}\n\n`])
  assert.not.match(prose.result!.answer, /as text/)
})

test('responses: the request (instructions, items with no ids, outputs after their calls, strict: false, kept reasoning and call ids)', () => {
  const items = [{ type: 'reasoning', summary: [], encrypted_content: 'ENC' }]
  const kept: Replay = { origin: 'p model-1', calls: { toolu_keel_1_a: { call_id: 'call_A' } }, items }
  const lookup: ReplayLookup = (ids) => (ids.includes('toolu_keel_1_a') ? kept : undefined)
  const { request } = toResponsesRequest({ ...LOOP, output_config: { effort: 'high' } }, out([], lookup, route({ effort: { high: 'high' }, maxOutput: 4 })))
  assert.match(String(request.instructions), /^You are M \(model-1\), answering inside Claude Code through keel\.\n\nBe brief\.$/)
  assert.equal(request.input, [
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'read both' }] },
    ...items,
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Reading.' }] },
    { type: 'function_call', call_id: 'call_A', name: 'Read', arguments: '{"file_path":"/a"}' },
    { type: 'function_call', call_id: 'toolu_keel_2_b', name: 'Read', arguments: '{"file_path":"/b"}' },
    { type: 'function_call_output', call_id: 'call_A', output: 'A' },
    { type: 'function_call_output', call_id: 'toolu_keel_2_b', output: 'B' },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<system-reminder>keep going</system-reminder>' }] },
  ])
  assert.ok(JSON.stringify(request.input).indexOf('"id"') < 0, 'no item id: under store: false the API looks it up and refuses')
  assert.equal((request.tools as any[]).map((t) => [t.name, t.strict]), [['Read', false], [sentToolName(LOOP.tools![1]!.name), false]])
  assert.equal([request.store, request.stream, request.reasoning, request.include, request.max_output_tokens], [false, true, { effort: 'high' }, ['reasoning.encrypted_content'], 16])
  assert.is(toResponsesRequest(LOOP, out([])).request.reasoning, undefined, 'no effort named: no reasoning asked, none included')
})

test('responses: the streams at their cuts; encrypted reasoning kept from .done; arguments given only at the end; cuts, refusals, failures', () => {
  const decode = (t: string) => strideSplit(createResponsesDecoder, t, same)
  assert.is(decode(responses.RESPONSES_TEXT).result?.answer, 'The final result is **570**.')
  const two = decode(responses.RESPONSES_REASONING_TWO_TOOL_CALLS)
  assert.equal(two.result?.toolUses.length, 2)
  assert.equal(Object.values(two.kept!.calls!).map((c) => c.call_id), ['call_Xk2pQ7rT9vW1yZ3bN5dF8hJ0', 'call_Lm4nP6qR8sT0uV2wX4yZ6aB8'])
  assert.equal((two.kept!.items as any[]).map((i) => Object.keys(i)), [['type', 'summary', 'encrypted_content']])
  const withReasoning = decode(responses.RESPONSES_REASONING_TOOL_CALL)
  const done = /"type":"response\.output_item\.done".*?"encrypted_content":"([^"]+)"/s.exec(responses.RESPONSES_REASONING_TOOL_CALL)![1]
  assert.is((withReasoning.kept!.items as any[])[0].encrypted_content, done, 'the blob of .done, not of .added')
  assert.ok(withReasoning.chunks.some((c) => c.kind === 'thinking'))
  const completed = 'event: response.completed\ndata: {"type":"response.completed","response":{"status":"completed","usage":{"input_tokens":9,"output_tokens":4}}}\n\n'
  assert.equal(decode(lmstudio.LMSTUDIO_RESPONSES_ARGUMENTS_DONE_ONLY + completed).result?.toolUses, [{ name: 'Bash', input: { command: 'ls -la' } }])
  assert.is(decode(responses.RESPONSES_INCOMPLETE_MAX_OUTPUT_TOKENS).result?.stopReason, 'max_tokens')
  assert.is(decode(responses.RESPONSES_INCOMPLETE_CONTENT_FILTER).result?.stopReason, 'refusal')
  assert.is(decode(responses.RESPONSES_REFUSAL).result?.stopReason, 'refusal')
  assert.equal(run(createResponsesDecoder, [responses.RESPONSES_CUT_BEFORE_COMPLETED]).failure, { kind: 'unfinished' })
  for (const failing of [responses.RESPONSES_ERROR_FLAT, responses.RESPONSES_ERROR_INSUFFICIENT_QUOTA, responses.RESPONSES_FAILED_RATE_LIMIT]) assert.is(run(createResponsesDecoder, [failing]).failure?.kind, 'stream-error')
  assert.match(String((run(createResponsesDecoder, [responses.RESPONSES_ERROR_CONTEXT_LENGTH]).failure as any).message), /exceeds the context window/)
  const usage = decode(responses.RESPONSES_REASONING_TWO_TOOL_CALLS).result!.usage!
  assert.equal([usage.input_tokens, usage.cache_read_input_tokens], [1304, 4096], 'cached tokens apart from the input')
})

test('a local server\'s reported context: Ollama\'s loaded models, LM Studio\'s and vLLM\'s listings; a model not listed, or a listing not JSON, says nothing', () => {
  assert.is(reportedContext('ollama', ollama.OLLAMA_API_PS, 'qwen2.5-coder:14b'), JSON.parse(ollama.OLLAMA_API_PS).models[0].context_length)
  assert.is(reportedContext('lmstudio', lmstudio.LMSTUDIO_API_V0_MODELS, 'qwen2-vl-7b-instruct'), 32768)
  assert.is(reportedContext('vllm', vllm.VLLM_MODELS, 'Qwen/Qwen3-32B'), 40960)
  assert.is(reportedContext('vllm', vllm.VLLM_MODELS, 'other'), undefined)
  assert.is(reportedContext('ollama', '<html>', 'x'), undefined)
  assert.is(reportedContext('gemini', '{}', 'x'), undefined)
})

test.run()
