// An engine request for an alias as the provider's request and its decoder (§3.4): openai-chat
// through the Chat Completions codec, anthropic-messages through the redirect, always streamed
// from the provider, the key in its header, a fresh decoder per call.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { redirectRequest } from '../../../src/features/routing/anthropic.ts'
import type { Provider, Route } from '../../../src/features/routing/config.ts'
import { estimateTokens } from '../../../src/features/routing/estimate.ts'
import { exchangeFor, type ExchangeInput } from '../../../src/features/routing/exchange.ts'
import { toOpenAiRequest as buildRequest } from '../../../src/features/routing/openai.ts'
import { parseAnthropicRequest, type AnthropicRequest } from '../../../src/features/routing/wire.ts'
import { fixture } from './fixtures/read.ts'

/** The request alone, for a route with no dialect and no step to send back. */
const toOpenAiRequest = (b: AnthropicRequest, route: Route, pkg: string) => buildRequest(b, { route, pkg, behaviours: new Set(), replay: () => undefined }).request

const KEY = 'sk-test-SECRET-1234'
const OPENAI: Provider = { id: 'example', api: 'openai-chat', baseUrl: 'https://api.example.com/v1', auth: { env: 'EXAMPLE_KEY' }, headers: { 'X-Title': 'keel' } }
const MOON: Provider = { id: 'moon', api: 'anthropic-messages', baseUrl: 'https://api.moon.example/anthropic', auth: { env: 'MOON_KEY' }, headers: {} }
const GPT5: Route = { alias: 'gpt-5', label: 'GPT-5', model: 'gpt-5-2025', context: 400000, vision: false, provider: OPENAI }
const KIMI: Route = { alias: 'kimi', label: 'Kimi K2', model: 'kimi-k2', context: 128000, vision: true, provider: MOON }
const BODY = fixture('engine-request.json')
const ENGINE_HEADERS = { 'x-api-key': '[redacted]', 'anthropic-version': '2023-06-01', 'anthropic-beta': 'claude-code-20250219', 'content-type': 'application/json', 'x-claude-code-session-id': 's-1' }
const URL_IN = 'https://api.anthropic.com/v1/messages?beta=true'

const input = (over: Partial<ExchangeInput>): ExchangeInput => {
  let n = 0
  return { pkg: 'keel', route: GPT5, url: URL_IN, headers: ENGINE_HEADERS, body: BODY, key: KEY, mintId: () => `toolu_keel_${++n}_test`, ...over }
}
const nonStreaming = (text: string) => JSON.stringify({ ...JSON.parse(text), stream: false })

test('openai-chat: the chat completions URL, the key as Bearer, the provider headers, the codec\'s body', () => {
  const ex = exchangeFor(input({}))!
  assert.is(ex.request.url, 'https://api.example.com/v1/chat/completions')
  assert.equal(ex.request.headers, { 'Content-Type': 'application/json', Accept: 'text/event-stream', Authorization: `Bearer ${KEY}`, 'X-Title': 'keel' })
  const body = parseAnthropicRequest(BODY)!
  assert.is(ex.request.body, JSON.stringify(toOpenAiRequest(body, GPT5, 'keel')))
  assert.is(JSON.parse(ex.request.body).stream, true)
  assert.is(ex.engineStreams, true)
  assert.equal(ex.body, body, 'the engine body as parsed')
  const none = exchangeFor(input({ key: undefined }))!
  assert.not.ok('Authorization' in none.request.headers, 'no key, no auth header')
})

test('openai-chat: a request the engine did not stream still streams from the provider; engineStreams says how to answer the engine', () => {
  const ex = exchangeFor(input({ body: nonStreaming(BODY) }))!
  assert.is(ex.engineStreams, false)
  assert.is(JSON.parse(ex.request.body).stream, true)
})

test('openai-chat: each makeDecoder is fresh, named by the route, with the estimate as the input count, and takes a whole completion', () => {
  const ex = exchangeFor(input({}))!
  const a = ex.makeDecoder()
  const b = ex.makeDecoder()
  assert.ok(a !== b)
  a.push('{"choices":[{"index":0,"delta":{"content":"only in a"}}]}')
  assert.is(b.finish(), undefined, 'b saw no finish of its own')
  b.push('[DONE]')
  const end = b.finish()!
  assert.is(end.result.answer, '', 'b saw nothing of a')
  assert.equal(end.result.usage, { input_tokens: estimateTokens(parseAnthropicRequest(BODY)!), output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, model: 'gpt-5' })
  assert.ok(typeof ex.makeDecoder().pushCompletion === 'function')
  const completion = ex.makeDecoder()
  const decoded = completion.pushCompletion!(fixture('openai-completion.json'))
  assert.equal(decoded.chunks.map((c) => c.kind), ['thinking', 'text'])
  const whole = completion.finish()!
  assert.equal(whole.chunks.filter((c) => c.kind === 'tool').map((c) => (c.kind === 'tool' ? c.id : '')), ['toolu_keel_1_test', 'toolu_keel_2_test'], 'ids from the minter given')
})

test('anthropic-messages: the redirect\'s URL and headers with the key as x-api-key, accept forced to the event stream, the body forced to stream', () => {
  for (const body of [BODY, nonStreaming(BODY)]) {
    const ex = exchangeFor(input({ route: KIMI, body }))!
    const redirected = redirectRequest({ url: URL_IN, headers: ENGINE_HEADERS, body }, KIMI, KEY, 'keel')!
    assert.is(ex.request.url, 'https://api.moon.example/anthropic/v1/messages')
    assert.equal(ex.request.headers, { ...redirected.headers, accept: 'text/event-stream' })
    assert.equal(ex.request.headers, { 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'x-api-key': KEY, accept: 'text/event-stream' })
    assert.equal(JSON.parse(ex.request.body), { ...JSON.parse(redirected.body), stream: true })
    assert.is(ex.engineStreams, JSON.parse(body).stream === true)
    assert.not.ok('pushCompletion' in ex.makeDecoder(), 'the anthropic decoder reads streams only')
  }
  const engineAccept = exchangeFor(input({ route: KIMI, headers: { ...ENGINE_HEADERS, Accept: 'application/json' } }))!
  assert.is(engineAccept.request.headers.accept, 'text/event-stream', 'the engine\'s own accept gives way')
})

test('anthropic-messages: its decoder reads the provider\'s stream as the route\'s chunks', () => {
  const ex = exchangeFor(input({ route: KIMI }))!
  const decoder = ex.makeDecoder()
  assert.equal(decoder.push('{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}').chunks, [])
  assert.equal(decoder.push('{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}').chunks, [{ kind: 'text', index: 0, text: 'hi' }])
  decoder.push('{"type":"message_stop"}')
  const end = decoder.finish()!
  assert.is(end.result.answer, 'hi')
  assert.is(end.result.usage?.model, 'gpt-5', 'the usage names the engine\'s model name: the alias the request carried')
})

test('a body that is no Messages request gives no exchange, for either api', () => {
  for (const route of [GPT5, KIMI]) {
    for (const body of ['', 'not json', '{"model":"gpt-5"}', '[]']) assert.is(exchangeFor(input({ route, body })), undefined, `${route.provider.api} ${body}`)
  }
})

test.run()
