// The local count_tokens answer: characters of system, messages and tools / 4, rounded up, at least 1.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { countTokensAnswer, estimateTokens } from '../../../src/features/routing/estimate.ts'
import { parseAnthropicRequest } from '../../../src/features/routing/wire.ts'
import { fixture } from './fixtures/read.ts'

test('each kind of content counts its characters; an image counts a fixed amount, not its base64', () => {
  const image = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(1_000_000) } }
  const body = {
    model: 'gpt-5',
    system: [{ type: 'text', text: 'x'.repeat(10) }],
    messages: [
      { role: 'user', content: 'y'.repeat(7) },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'abc' }, { type: 'thinking' }, { type: 'tool_use', id: 't', name: 'Bash', input: { c: 1 } }, { type: 'tool_use', id: 'u', name: 'X' }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'ok' }, { type: 'tool_result', tool_use_id: 'u', content: [{ type: 'text', text: 'four' }, image] }, { type: 'tool_result', tool_use_id: 'v' }] },
      { role: 'user', content: [{ type: 'document', a: 1 }] },
    ],
    tools: [{ name: 'Bash', description: 'run', input_schema: { type: 'object' } }, { name: 'Y' }],
  }
  // system; the string; both thinkings; both tool_uses (name + input JSON); the tool results ('ok', 'four' + the image, none);
  // the unknown block as JSON; the tools (name + description + schema JSON)
  const chars = 10 + 7 + 3 + 0 + 11 + 3 + 2 + 4 + 6400 + 0 + JSON.stringify({ type: 'document', a: 1 }).length + 24 + 3
  assert.is(estimateTokens(body), Math.ceil(chars / 4))
  assert.is(estimateTokens({ model: 'm', messages: [] }), 1, 'at least 1')
  assert.is(estimateTokens({ model: 'm', system: 'abcde', messages: [] }), 2, 'rounded up')
})

test('countTokensAnswer: the JSON text the engine reads; a body that is no Messages request still gets 1', () => {
  const text = fixture('engine-request.json')
  assert.is(countTokensAnswer(text), JSON.stringify({ input_tokens: estimateTokens(parseAnthropicRequest(text)!) }))
  assert.ok(JSON.parse(countTokensAnswer(text)).input_tokens > 100)
  assert.is(countTokensAnswer('not json'), '{"input_tokens":1}')
})

test.run()
