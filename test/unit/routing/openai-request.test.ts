// The openai-chat request (§3.4) from a body shaped like the engine's captured one: the system
// prompt cleaned and joined, the identity renamed, the tool round trip in order, thinking and
// placeholders dropped, images per `vision`, the options from the alias.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Provider, Route } from '../../../src/features/routing/config.ts'
import { openAiTarget, toOpenAiRequest as buildRequest, type OpenAiMessage } from '../../../src/features/routing/openai.ts'
import { parseAnthropicRequest, type AnthropicRequest } from '../../../src/features/routing/wire.ts'
import { fixture } from './fixtures/read.ts'

/** The request alone, for a route with no dialect and no step to send back. */
const toOpenAiRequest = (b: AnthropicRequest, route: Route, pkg: string) => buildRequest(b, { route, pkg, behaviours: new Set(), replay: () => undefined }).request

const PROVIDER: Provider = { id: 'example', api: 'openai-chat', baseUrl: 'https://api.example.com/v1', auth: 'none', headers: { 'X-Title': 'keel' } }
const ROUTE: Route = { alias: 'gpt-5', label: 'GPT-5', model: 'gpt-5-2025', context: 400000, vision: false, provider: PROVIDER }
const IDENTITY = 'You are GPT-5 (gpt-5-2025), answering inside Claude Code through keel.'
const BODY = parseAnthropicRequest(fixture('engine-request.json'))!
const body = (over: Partial<AnthropicRequest>): AnthropicRequest => ({ ...BODY, ...over })

/** Each tool message follows, past other tool messages only, the assistant message that made its call. */
function assertToolOrder(messages: readonly OpenAiMessage[]) {
  messages.forEach((m, i) => {
    if (m.role !== 'tool') return
    let j = i - 1
    while (messages[j]?.role === 'tool') j--
    const caller = messages[j]
    assert.ok(caller?.role === 'assistant' && caller.tool_calls?.some((c) => c.id === m.tool_call_id), `tool message ${i} (${m.tool_call_id}) is not after its call`)
  })
}

test('the engine body, text-only model: every rule of the mapping', () => {
  const out = toOpenAiRequest(BODY, ROUTE, 'keel')
  const bash = { type: 'function', function: { name: 'Bash', description: 'Run a shell command.', parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'] } } }
  const read = { type: 'function', function: { name: 'Read', description: 'Read a file.', parameters: { type: 'object', properties: { file_path: { type: 'string' } } } } }
  // As sent: a field left undefined is no field of the JSON.
  assert.equal(JSON.parse(JSON.stringify(out)), {
    model: 'gpt-5-2025',
    messages: [
      {
        role: 'system',
        content: 'You are an interactive agent that helps users with software engineering tasks.\n\n# Tone\nBe brief.\n\n<env>\nWorking directory: /tmp/project\nPlatform: linux\n</env>',
      },
      {
        role: 'user',
        content: [
          "<system-reminder>\nAs you answer the user's questions, you can use the following context:\n# currentDate\nToday's date is 2026-01-01.\n</system-reminder>",
          `<system-reminder>\n${IDENTITY}\n</system-reminder>`,
          'run echo please',
        ].join('\n\n'),
      },
      {
        role: 'assistant',
        content: 'Let me run it. ',
        tool_calls: [
          { id: 'toolu_keel_1_ab', type: 'function', function: { name: 'Bash', arguments: '{"command":"echo route-marker-42"}' } },
          { id: 'toolu_keel_2_cd', type: 'function', function: { name: 'Read', arguments: '{"file_path":"/tmp/shot.png"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'toolu_keel_1_ab', content: 'route-marker-42' },
      { role: 'tool', tool_call_id: 'toolu_keel_2_cd', content: 'Image read:\n\n[an image from the tool was here; tool results carry text only]' },
      { role: 'user', content: '<system-reminder>The date changed.</system-reminder>' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_keel_3_ef', type: 'function', function: { name: 'Bash', arguments: '{"command":"false"}' } }] },
      { role: 'tool', tool_call_id: 'toolu_keel_3_ef', content: 'Error: exit 1' },
      { role: 'user', content: 'What is in this picture?\n\n[an image was here; GPT-5 is not set up to read images ("vision": true)]' },
      { role: 'user', content: 'thanks' },
    ],
    tools: [bash, read],
    stream: true,
    stream_options: { include_usage: true },
  })
  assertToolOrder(out.messages)
  const text = JSON.stringify(out)
  for (const gone of ['x-anthropic-billing-header', "Claude Agent SDK", 'Opus 5.5', 'claude-opus-5-5', 'cache_control', 'I should run it', 'ZW5jcnlwdGVk', 'Only a thought', 'DeferredToolPlaceholder', 'web_search', 'user_device', 'adaptive', 'clear_thinking']) {
    assert.not.ok(text.includes(gone), `${gone} must not reach the provider`)
  }
})

test('vision, maxOutput and effort from the alias', () => {
  const out = toOpenAiRequest(BODY, { ...ROUTE, vision: true, maxOutput: 32000, effort: { high: 'medium', low: 'minimal' } }, 'keel')
  assert.equal(out.messages.at(-2), {
    role: 'user',
    content: [{ type: 'text', text: 'What is in this picture?' }, { type: 'image_url', image_url: { url: 'data:image/jpeg;base64,/9j/4AAQ' } }],
  })
  assert.is(out.max_tokens, 32000)
  assert.is(out.reasoning_effort, 'medium')
  assert.is(toOpenAiRequest(body({ max_tokens: 1024 }), { ...ROUTE, maxOutput: 32000 }, 'keel').max_tokens, 1024, 'the engine asking less is kept')
  assert.is(toOpenAiRequest(body({ max_tokens: undefined }), { ...ROUTE, maxOutput: 32000 }, 'keel').max_tokens, 32000)
  assert.is(toOpenAiRequest(body({ output_config: { effort: 'max' } }), { ...ROUTE, effort: { high: 'high' } }, 'keel').reasoning_effort, undefined, 'a level the map lacks sends none')
  assert.is(toOpenAiRequest(body({ output_config: undefined }), { ...ROUTE, effort: { high: 'high' } }, 'keel').reasoning_effort, undefined)
  assert.is(toOpenAiRequest(body({ output_config: { effort: 3 } }), { ...ROUTE, effort: { high: 'high' } }, 'keel').reasoning_effort, undefined)
})

test('the identity: the short reminder form, several lines, and none at all (then it leads the system prompt)', () => {
  const withText = (text: string, system?: AnthropicRequest['system']) =>
    toOpenAiRequest(body({ system, messages: [{ role: 'user', content: text }], tools: [] }), ROUTE, 'keel').messages
  assert.equal(withText('You are powered by the model gpt-5.\nhi', 'Be kind.'), [
    { role: 'system', content: 'Be kind.' },
    { role: 'user', content: `${IDENTITY}\nhi` },
  ])
  assert.equal(withText('x You are powered by the model named GPT 5.1 Pro. The exact model ID is gpt-5.1-pro. Other sentence.')[1], {
    role: 'user', content: `x ${IDENTITY} Other sentence.`,
  })
  assert.equal(withText('hello', 'Be kind.')[0], { role: 'system', content: `${IDENTITY}\n\nBe kind.` })
  assert.equal(withText('hello')[0], { role: 'system', content: IDENTITY })
  assert.equal(withText('hello', [{ type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude.\nRules." }])[0], { role: 'system', content: `${IDENTITY}\n\nRules.` })
  assert.equal(
    toOpenAiRequest(body({ system: 'You are powered by the model named Opus 5.5.', messages: [{ role: 'user', content: 'hi' }] }), ROUTE, 'keel').messages[0],
    { role: 'system', content: IDENTITY },
    'the reminder in the system prompt itself',
  )
})

test('blocks the provider cannot take become placeholders; a message of tool results alone adds no user message', () => {
  const out = toOpenAiRequest(body({
    messages: [
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Read', input: { file_path: 'a.pdf' } }, { type: 'server_tool_use', id: 's', name: 'web_search' }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'document', source: {} }] }, { type: 'tool_result', tool_use_id: 't1' }] },
      { role: 'user', content: [{ type: 'document', source: { type: 'base64' } }, { type: 'text', text: '' }, { type: 'thinking', thinking: 'x' }] },
      { role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://img.example/a.png' } }, { type: 'image', source: { type: 'file', file_id: 'f' } }] },
      { role: 'assistant', content: 'a plain string answer' },
    ],
  }), { ...ROUTE, vision: true }, 'keel')
  assert.equal(out.messages.slice(1), [
    { role: 'assistant', content: null, tool_calls: [{ id: 't1', type: 'function', function: { name: 'Read', arguments: '{"file_path":"a.pdf"}' } }] },
    { role: 'tool', tool_call_id: 't1', content: '[a block of type document was here; it cannot be sent to this provider]' },
    { role: 'tool', tool_call_id: 't1', content: '' },
    { role: 'user', content: '[a block of type document was here; it cannot be sent to this provider]' },
    { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://img.example/a.png' } }, { type: 'text', text: '[a block of type image was here; it cannot be sent to this provider]' }] },
    { role: 'assistant', content: 'a plain string answer' },
  ])
  const noTools = toOpenAiRequest(body({ tools: undefined }), ROUTE, 'keel')
  assert.not.ok('tools' in noTools, 'no tools, no empty list: some servers refuse one')
  const toolWithoutDescription = toOpenAiRequest(body({ tools: [{ name: 'X', input_schema: { type: 'object' } }] }), ROUTE, 'keel')
  assert.equal(toolWithoutDescription.tools, [{ type: 'function', function: { name: 'X', parameters: { type: 'object' } } }])
})

test('the target: the chat path under the base URL; the key as Bearer; the provider headers', () => {
  assert.equal(openAiTarget(PROVIDER, 'sk-1'), {
    url: 'https://api.example.com/v1/chat/completions',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream', Authorization: 'Bearer sk-1', 'X-Title': 'keel' },
  })
  assert.equal(openAiTarget({ ...PROVIDER, headers: {} }, undefined).headers, { 'Content-Type': 'application/json', Accept: 'text/event-stream' })
})

test('parseAnthropicRequest: a Messages body, or undefined', () => {
  assert.is(parseAnthropicRequest('not json'), undefined)
  assert.is(parseAnthropicRequest('{"model":"x"}'), undefined)
  assert.is(parseAnthropicRequest('{"model":"x","messages":[{"role":"user","content":5}]}'), undefined)
  assert.equal(parseAnthropicRequest('{"model":"x","messages":[],"extra":1}'), { model: 'x', messages: [], extra: 1 })
})

test.run()
