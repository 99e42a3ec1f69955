// The routing feature's http.fetch hook over a fake port: a native request passes untouched; an
// alias request never reaches the network: a token count and the /model probe are answered
// locally, any other (a side call, the summarizer) is translated, sent through a fake curl and
// encoded back, SSE or JSON as the engine asked; every failure refuses or answers an error.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { collectAnswer, encodeAnthropicMessage, encodeAnthropicSse } from '../../../src/features/routing/anthropic.ts'
import { countTokensAnswer } from '../../../src/features/routing/estimate.ts'
import { createOpenAiDecoder } from '../../../src/features/routing/openai.ts'
import { webSearchRefused } from '../../../src/features/routing/strings.ts'
import { fakeChild, head, SSE_HEAD } from './fake-child.ts'
import {
  approve, CONFIG, CONFIG_PATH, engineFetch, fetchHook, KEY, loopBody, routingWorld, start, stepEvent, stepHook, type Routing,
} from './fake-port.ts'
import { run } from './fixtures/harness.ts'
import { fixture } from './fixtures/read.ts'

const TEXT = fixture('openai-text.txt')
const WHOLE = collectAnswer(run(createOpenAiDecoder, [TEXT]).chunks)
const META = { id: 'msg_keel_klyth', model: 'gpt-5' }
const PROBE = { model: 'gpt-5', max_tokens: 1, messages: [{ role: 'user', content: 'hi' }], system: [{ type: 'text', text: 'x' }], metadata: { user_id: 'u' } }
type Answer = { value?: { status: number; ok: boolean; headers: Record<string, string>; text: string }; deny?: string; passed?: unknown }

async function started(trusted = true) {
  const r = routingWorld()
  if (trusted) await approve(r.w, 'example')
  await start(r)
  return r
}
const fetch = async (r: Routing, e: unknown, reached: unknown[] = []) => (await fetchHook(r, e, reached)) as Answer
const status = async (r: Routing) => (await r.feature.status!(r.port, r.ctx)) as string[]
const deny = (r: Routing) => (r.feature.hooks['http.fetch'] as { onFailure: { deny: (e: unknown, ctx: unknown) => string | undefined } }).onFailure.deny

test('native requests pass to the network untouched: another plugin\'s, another path, bytes, no alias named, a native model, a body that is no request, and before session.start', async () => {
  const fresh = routingWorld()
  const early: unknown[] = []
  const e0 = engineFetch(loopBody())
  await fetch(fresh, e0, early)
  assert.equal(early, [e0], 'before session.start: no table, no decision')
  const r = await started()
  const cases: [string, unknown, string | null][] = [
    ['a plugin\'s own fetch naming an alias', engineFetch(loopBody()), 'other-plugin'],
    ['no origin', engineFetch(loopBody()), null],
    ['another path', engineFetch(loopBody(), { url: 'https://api.anthropic.com/api/oauth/usage' }), 'engine'],
    ['a URL that does not parse', engineFetch(loopBody(), { url: 'not a url' }), 'engine'],
    ['bytes that are not UTF-8', engineFetch(loopBody(), { rawBody: { base64: 'AAEC' } }), 'engine'],
    ['no body', engineFetch(loopBody(), { rawBody: undefined }), 'engine'],
    ['Claude\'s own request', engineFetch(loopBody('claude-opus-5-5')), 'engine'],
    ['a native request quoting an alias', engineFetch({ ...loopBody('claude-opus-5-5'), metadata: { tag: 'gpt-5' } }), 'engine'],
    ['an alias in a body that is no request', engineFetch({}, { rawBody: '{"model":"gpt-5"' }), 'engine'],
  ]
  for (const [what, e, origin] of cases) {
    const reached: unknown[] = []
    const out = await fetchHook(r, e, reached, origin)
    assert.equal(reached, [e], what)
    assert.equal(out, { value: { status: 200, ok: true, headers: {}, text: 'from the network' } }, what)
  }
  assert.equal([r.w.spawned, r.w.runs], [[], []])
})

test('count_tokens for an alias is answered locally, untrusted or not: the estimate, never the network', async () => {
  const r = await started(false)
  const body = loopBody()
  const reached: unknown[] = []
  const out = await fetch(r, engineFetch(body, { url: 'https://api.anthropic.com/v1/messages/count_tokens?beta=true' }), reached)
  assert.equal(out, { value: { status: 200, ok: true, headers: { 'content-type': 'application/json' }, text: countTokensAnswer(JSON.stringify(body)) } })
  assert.ok(JSON.parse(out.value!.text).input_tokens > 1)
  assert.equal([reached, r.w.spawned, r.w.runs], [[], [], []])
})

test('the /model probe is answered locally with one JSON message, before any approval or curl', async () => {
  const r = await started(false)
  const reached: unknown[] = []
  const out = await fetch(r, engineFetch(PROBE), reached)
  assert.equal(out, { value: { status: 200, ok: true, headers: { 'content-type': 'application/json' }, text: encodeAnthropicMessage({ text: '.', toolCalls: [], stopReason: 'end_turn', usage: null }, META) } })
  assert.equal(JSON.parse(out.value!.text).content, [{ type: 'text', text: '.' }])
  assert.equal([reached, r.w.spawned, r.w.runs, r.w.asks], [[], [], [], []])
})

test('WebSearch\'s inner request (Anthropic\'s web_search server tool) is refused with its line, approved or not, nothing sent (NOTES §13.2)', async () => {
  const search = { model: 'gpt-5', max_tokens: 32000, stream: true, messages: [{ role: 'user', content: 'Perform a web search for the query: x' }], tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 8 }] }
  for (const trusted of [true, false]) {
    const r = await started(trusted)
    const reached: unknown[] = []
    assert.equal(await fetch(r, engineFetch(search), reached), { deny: webSearchRefused('klyth', 'GPT-5') })
    assert.equal([reached, r.w.spawned, r.w.runs], [[], [], []])
  }
})

test('a side call the engine streams (the summarizer) is translated, sent, and answered as Anthropic SSE', async () => {
  const r = await started()
  r.w.children.push(fakeChild().out(SSE_HEAD, TEXT).exit(0))
  const body = loopBody('gpt-5', { messages: [{ role: 'user', content: 'create a detailed summary of the conversation' }] })
  const reached: unknown[] = []
  const out = await fetch(r, engineFetch(body), reached)
  assert.equal(out, { value: { status: 200, ok: true, headers: { 'content-type': 'text/event-stream' }, text: encodeAnthropicSse(WHOLE, META) } })
  assert.is(WHOLE.text, 'Hello, wörld 🚀 done.')
  assert.equal(reached, [])
  assert.match(r.w.spawned[0]!.input, /^url = "https:\/\/api\.example\.com\/v1\/chat\/completions"$/m)
  assert.match(r.w.spawned[0]!.input, /create a detailed summary of the conversation/)
  assert.ok((await status(r)).includes('this session: 0 routed steps, 1 other routed request, 0 failed'))
})

test('a side call not streamed ($.model.complete, the title) is answered as one JSON message; an anthropic-messages alias rides the redirect', async () => {
  const r = await started()
  await approve(r.w, 'moon')
  r.w.children.push(fakeChild().out(SSE_HEAD, TEXT).exit(0))
  const out = await fetch(r, engineFetch(loopBody('gpt-5', { stream: false, max_tokens: 512 })))
  assert.equal(out.value!.headers, { 'content-type': 'application/json' })
  assert.is(out.value!.text, encodeAnthropicMessage(WHOLE, META))
  assert.is(JSON.parse(r.w.spawned[0]!.input.match(/^json = "(.*)"$/m)![1]!.replace(/\\(.)/g, '$1')).stream, true, 'the provider streams all the same')

  r.w.children.push(fakeChild().out(SSE_HEAD, fixture('anthropic-tools.txt')).exit(0))
  const kimi = await fetch(r, engineFetch(loopBody('kimi', { stream: false })))
  const message = JSON.parse(kimi.value!.text)
  assert.equal([message.model, message.stop_reason, message.content.map((b: { type: string }) => b.type)], ['kimi', 'tool_use', ['text', 'tool_use']])
  assert.match(message.content[1].id, /^toolu_keel_\d+_(ab){8}$/)
  assert.match(r.w.spawned[1]!.input, /^url = "https:\/\/api\.moon\.example\/anthropic\/v1\/messages"$/m)
})

test('a structured call (the title) is never taken as a step\'s capture: it is translated while the step waits for its own request', async () => {
  const r = await started()
  const title = fakeChild().out(SSE_HEAD, 'data: {"choices":[{"index":0,"delta":{"content":"{\\"title\\":\\"Fix\\"}"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n').exit(0)
  r.w.children.push(title, fakeChild().out(SSE_HEAD, TEXT).exit(0))
  const structured = loopBody('gpt-5', { stream: false, max_tokens: 512, tools: [], output_config: { format: { type: 'json_schema', schema: { type: 'object' } } } })
  const answers: Answer[] = []
  const out = await stepHook(r, stepEvent(), async function* () {
    answers.push(await fetch(r, engineFetch(structured)))
    answers.push(await fetch(r, engineFetch(loopBody())))
    return { turnId: 't1', index: 0, answer: '.', toolUses: [], stopReason: 'end_turn', usage: null }
  })
  assert.equal(JSON.parse(answers[0]!.value!.text).content, [{ type: 'text', text: '{"title":"Fix"}' }], 'the title from the provider')
  assert.match(r.w.spawned[0]!.input, /json_schema/)
  assert.equal(JSON.parse(answers[1]!.value!.text.split('\n')[1]!.slice(6)).message.model, 'gpt-5', 'the loop request captured')
  assert.is((out.result as { answer: string }).answer, 'Hello, wörld 🚀 done.')
  assert.ok((await status(r)).includes('this session: 1 routed step, 1 other routed request, 0 failed'))
})

test('a failing side call is answered with an error body naming why (redacted), under the provider\'s status, and counted', async () => {
  const r = await started()
  r.w.children.push(fakeChild().out(head(401, { 'content-type': 'application/json' }), `{"error":{"message":"Incorrect API key provided: ${KEY}"}}`).exit(0))
  const out = await fetch(r, engineFetch(loopBody()))
  const line = 'klyth: GPT-5 failed: example answered 401 Incorrect API key provided: [redacted]'
  assert.equal(out, { value: { status: 401, ok: false, headers: { 'content-type': 'application/json' }, text: JSON.stringify({ type: 'error', error: { type: 'api_error', message: line } }) } })
  const lines = await status(r)
  assert.ok(lines.includes('this session: 0 routed steps, 1 other routed request, 1 failed'), lines.join('\n'))
  assert.ok(lines.includes(`last failure: ${line}`))
})

test('an untrusted provider, a key that cannot be read, an alias the config dropped: the request is refused with the line, nothing sent', async () => {
  const r = await started(false)
  const reached: unknown[] = []
  assert.equal(await fetch(r, engineFetch(loopBody()), reached), { deny: 'klyth: provider example is not approved; run /model gpt-5 or /klyth route trust example' })
  assert.equal([reached, r.w.spawned, r.w.runs], [[], [], []])

  const keyless = routingWorld({ run: async (argv) => ({ exitCode: argv[1] === '--version' ? 0 : 1, stdout: argv[1] === '--version' ? 'curl 8.5.0' : '', stderr: 'unset' }) })
  await approve(keyless.w, 'example')
  await start(keyless)
  assert.equal(await fetch(keyless, engineFetch(loopBody())), { deny: 'klyth: GPT-5 failed: the key for example could not be read: /usr/bin/printenv exited 1 (run it yourself to see why)' })
  assert.ok((await status(keyless)).includes('last failure: klyth: GPT-5 failed: the key for example could not be read: /usr/bin/printenv exited 1 (run it yourself to see why)'))

  r.w.files.set(CONFIG_PATH, JSON.stringify({ ...CONFIG, models: {} }))
  await r.feature.verbs!.route!.run(r.port, 'reload', r.ctx)
  assert.equal(await fetch(r, engineFetch(loopBody()), reached), { deny: `klyth: gpt-5 is not configured (${CONFIG_PATH}); use /model to pick another` })
  assert.equal(await fetch(r, engineFetch(PROBE), reached), { deny: `klyth: gpt-5 is not configured (${CONFIG_PATH}); use /model to pick another` }, 'the probe of a dropped alias too')
  assert.equal(reached, [])
})

test('the guard policy refuses only a request naming one of routing\'s models', async () => {
  const fresh = routingWorld()
  assert.is(deny(fresh)(engineFetch(loopBody()), fresh.ctx), undefined, 'before session.start: nothing is routing\'s')
  const r = await started()
  assert.is(deny(r)(engineFetch(loopBody()), r.ctx), 'klyth: a routed request could not be handled, so it was not sent')
  assert.is(deny(r)(engineFetch(PROBE), r.ctx), 'klyth: a routed request could not be handled, so it was not sent')
  assert.is(deny(r)(engineFetch(loopBody('claude-opus-5-5')), r.ctx), undefined, 'a native request fails open')
  assert.is(deny(r)(engineFetch(loopBody(), { rawBody: { base64: 'AAEC' } }), r.ctx), undefined)
  assert.is(deny(r)({ url: 'https://example.com/' }, r.ctx), undefined, 'no init at all')
})

test.run()
