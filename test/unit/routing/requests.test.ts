// What routing reads of an engine request before it decides (§3.2): the path, the body text, and
// the fields that tell a loop's request from the /model probe, a token count or a structured call.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { bodyText, isMessagesPath, isProbe, isStructured, pathOf, sourceOfKey, summaryOf } from '../../../src/features/routing/requests.ts'
import { fixture } from './fixtures/read.ts'

test('pathOf: the URL\'s path without its query; "" when it does not parse', () => {
  assert.is(pathOf('https://api.anthropic.com/v1/messages?beta=true'), '/v1/messages')
  assert.is(pathOf('http://127.0.0.1:4000/v1/messages/count_tokens?beta=true'), '/v1/messages/count_tokens')
  assert.is(pathOf('https://api.anthropic.com'), '/')
  assert.is(pathOf('not a url'), '')
  assert.is(pathOf(''), '')
})

test('isMessagesPath: the Messages path and its count_tokens, nothing else', () => {
  assert.ok(isMessagesPath('/v1/messages'))
  assert.ok(isMessagesPath('/v1/messages/count_tokens'))
  for (const path of ['/v1/messages/batches', '/v1/messages/', '/v1/complete', '/proxy/v1/messages', '/v1/messages/count_tokens/x', '']) assert.not.ok(isMessagesPath(path), path)
})

test('bodyText: text only; bytes that are not UTF-8 ({base64}) and no body are no Messages request', () => {
  assert.is(bodyText('{"a":1}'), '{"a":1}')
  assert.is(bodyText(''), '')
  assert.is(bodyText({ base64: 'AAEC' }), undefined)
  assert.is(bodyText(undefined), undefined)
})

test('summaryOf: the engine\'s loop request, the probe, a structured call, WebSearch\'s inner request; undefined for what is no Messages request', () => {
  assert.equal(summaryOf(fixture('engine-request.json')), { model: 'gpt-5', stream: true, maxTokens: 128000, tools: 4, structured: false, webSearch: false })
  const probe = summaryOf(JSON.stringify({ model: 'gpt-5', max_tokens: 1, messages: [{ role: 'user', content: 'x' }], system: 's', metadata: {} }))!
  assert.equal(probe, { model: 'gpt-5', stream: false, maxTokens: 1, tools: 0, structured: false, webSearch: false })
  const title = summaryOf(JSON.stringify({ model: 'gpt-5', max_tokens: 512, messages: [], output_config: { format: { type: 'json_schema', schema: {} } } }))!
  assert.equal(title, { model: 'gpt-5', stream: false, maxTokens: 512, tools: 0, structured: true, webSearch: false })
  assert.equal(summaryOf(JSON.stringify({ model: 'gpt-5', messages: [], stream: 'yes', output_config: { effort: 'high' } })), { model: 'gpt-5', stream: false, maxTokens: undefined, tools: 0, structured: false, webSearch: false })
  const search = summaryOf(JSON.stringify({ model: 'gpt-5', stream: true, messages: [], tools: [{ type: 'web_search_20250305', name: 'web_search' }] }))!
  assert.is(search.webSearch, true, 'WebSearch\'s inner request')
  // The fixture's loop request carries the server tool among its own: a step, not the search.
  assert.is(summaryOf(fixture('engine-request.json'))!.webSearch, false)
  for (const text of ['', 'not json', '[]', '{"messages":[]}', '{"model":"gpt-5"}', '{"model":1,"messages":[]}']) assert.is(summaryOf(text), undefined, text)
})

test('isProbe: one token, no tools, not streamed (measured, NOTES §2); isStructured: an output format', () => {
  const s = { model: 'gpt-5', stream: false, maxTokens: 1, tools: 0, structured: false, webSearch: false }
  assert.ok(isProbe(s))
  assert.not.ok(isProbe({ ...s, stream: true }))
  assert.not.ok(isProbe({ ...s, tools: 1 }))
  assert.not.ok(isProbe({ ...s, maxTokens: 2 }))
  assert.not.ok(isProbe({ ...s, maxTokens: undefined }))
  assert.not.ok(isStructured(s))
  assert.ok(isStructured({ ...s, structured: true }))
})

test('sourceOfKey: where the key comes from, in words, never the key', () => {
  assert.is(sourceOfKey('none'), 'key none')
  assert.is(sourceOfKey({ env: 'EXAMPLE_KEY' }), 'key from $EXAMPLE_KEY')
  assert.is(sourceOfKey({ helper: ['/usr/bin/pass', 'show', 'example'] }), 'key from the command /usr/bin/pass')
  assert.is(sourceOfKey({ file: '/home/me/.example-key' }), 'key from the file /home/me/.example-key')
  assert.is(sourceOfKey({ helper: [] }), 'key from the command ', 'an empty argv names nothing')
})

test.run()
