// Routing with the providers people use (issue 18), each proven in real headless engine sessions against
// the replay provider (replay-provider.ts), which refuses what the real provider refuses with its own
// error body. Per provider: a tool loop of two Bash calls across three requests; then a switch back to
// Claude (`--model opus`) whose native request carries nothing the native API would refuse; then a
// `--resume` of the routed session and one more routed tool call, its history checked again (what the
// earlier steps must send back comes from keel's store, across processes).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { cleanupTmp, packageCopy, runClaude, tmpDir, type RunResult } from './engine.ts'
import { startLive } from './live.ts'
import { startMockModel, type MockModel } from './mock-model.ts'
import { sendEach, results } from './probe-kit.ts'
import { startReplayProvider, type Dialect, type ReplayProvider } from './replay-provider.ts'
import { writeConfig } from './routing-kit.ts'

/** Each provider as a person writes it: a preset, its key, and (here) the replay's address in place of the provider's own. */
const PROVIDERS: Record<Dialect, { preset: string; model: string; effort?: Record<string, string> }> = {
  deepseek: { preset: 'deepseek', model: 'deepseek-v4-flash' },
  gemini: { preset: 'gemini', model: 'gemini-3-flash-preview' },
  openrouter: { preset: 'openrouter', model: 'google/gemini-3-flash-preview' },
  mistral: { preset: 'mistral', model: 'devstral-small-2507' },
  groq: { preset: 'groq', model: 'openai/gpt-oss-120b' },
  cerebras: { preset: 'cerebras', model: 'gpt-oss-120b' },
  responses: { preset: 'openai-responses', model: 'gpt-5.3-codex', effort: { low: 'low', medium: 'medium', high: 'high', xhigh: 'xhigh', max: 'xhigh' } },
  'deepseek-anthropic': { preset: 'deepseek-anthropic', model: 'deepseek-v4-flash' },
}
/** Fields the native Messages API refuses or never takes in a request: a routed provider's own reasoning and signatures. */
const FOREIGN = ['reasoning_content', 'reasoning_details', 'thought_signature', 'extra_content', 'encrypted_content', 'ANTHROPIC-SIG-']

let mock: MockModel
let replay: ReplayProvider
let home: string
let plugin: string
const cwd = tmpDir('project')

test.before(async () => {
  mock = await startMockModel()
  replay = await startReplayProvider()
  home = tmpDir('home')
  writeConfig(home, {
    providers: Object.fromEntries(Object.entries(PROVIDERS).map(([id, p]) => [id, { preset: p.preset, baseUrl: `${replay.url}/${id}`, auth: { helper: ['/bin/echo', `sk-${id}-test`] } }])),
    models: Object.fromEntries(Object.entries(PROVIDERS).map(([id, p]) => [`r-${id}`, { provider: id, model: p.model, context: 200000, ...(p.effort ? { effort: p.effort } : {}) }])),
  })
  plugin = packageCopy('klyth')
  // Approved the way a person approves headless, all in one session.
  const live = await startLive({ mode: 'stream-json', pluginDirs: [plugin], mock, home, cwd })
  try {
    await sendEach(live, Object.keys(PROVIDERS).map((id) => `/klyth route trust ${id}`), 60_000)
    assert.equal(results(live.output()).map((r) => /approved provider/.test(String(r.result))), Object.keys(PROVIDERS).map(() => true), live.output().slice(-800))
  } finally {
    await live.stop()
  }
})
test.after(async () => {
  await mock.close()
  await replay.close()
  cleanupTmp()
})

const ok = (r: RunResult) => assert.equal([r.code, r.json?.is_error], [0, false], `${r.stdout.slice(-800)}\n${r.stderr.slice(-800)}`)

for (const dialect of Object.keys(PROVIDERS) as Dialect[]) {
  test(`${dialect}: a two-call tool loop, a switch back to Claude, then --resume and one more routed call, nothing refused`, async () => {
    const mine = () => replay.requests.filter((q) => q.dialect === dialect)
    const loop = await runClaude({ prompt: 'go', pluginDirs: [plugin], mock, home, cwd, extraArgs: ['--model', `r-${dialect}`, '--allowedTools', 'Bash'] })
    ok(loop)
    assert.is(loop.json.result, `${dialect} loop done`)
    assert.equal(mine().map((q) => q.step ?? `refused ${q.refused?.body.slice(0, 200)}`), ['one', 'two', 'done'])
    if (dialect === 'responses') assert.ok(mine()[2]!.body.input.filter((i: any) => i.type === 'reasoning').length === 2, 'both steps\' encrypted reasoning went back')
    const nativeBefore = mock.requests.length
    const native = await runClaude({ prompt: 'and you, Claude?', pluginDirs: [plugin], mock, home, cwd, resume: loop.json.session_id, extraArgs: ['--model', 'opus'] })
    ok(native)
    const sent = mock.requests.slice(nativeBefore).filter((q) => q.kind === 'main').map((q) => JSON.stringify(q.body))
    assert.ok(sent.length > 0, 'the switch went to Claude')
    for (const field of FOREIGN) assert.not.ok(sent.some((b) => b.includes(field)), `the native request carries no ${field}`)
    assert.match(sent.at(-1)!, `echo ${dialect}-two`, 'the routed tool loop is in the conversation Claude reads')
    const again = await runClaude({ prompt: 'again', pluginDirs: [plugin], mock, home, cwd, resume: loop.json.session_id, extraArgs: ['--model', `r-${dialect}`, '--allowedTools', 'Bash'] })
    ok(again)
    assert.is(again.json.result, `${dialect} again done`)
    assert.equal(mine().slice(3).map((q) => q.step ?? `refused ${q.refused?.body.slice(0, 200)}`), ['three', 'again-done'])
  })
}

test('each dialect rule bites: a request keel did not shape for the provider is refused with the provider\'s own error', async () => {
  // The replay's rules, straight at it with what a plain OpenAI client sends (no preset, no dialect).
  const plain = { model: 'x', stream: true, stream_options: { include_usage: true }, tools: [{ type: 'function', function: { name: 'mcp__srv.x__tool', parameters: { $schema: 'x', type: 'object', additionalProperties: false } } }] }
  const turn = [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_keel_1_abcdef', type: 'function', function: { name: 'Bash', arguments: '{"command":"echo x"}' } }], reasoning_content: 'r' },
    { role: 'tool', tool_call_id: 'toolu_keel_1_abcdef', content: 'x' },
    { role: 'user', content: 'reminder' },
  ]
  const post = async (dialect: string, body: object) => (await fetch(`${replay.url}/${dialect}/chat/completions`, { method: 'POST', body: JSON.stringify(body) })).status
  assert.is(await post('deepseek', { ...plain, tools: [], messages: [turn[0], { ...turn[1], reasoning_content: undefined }, turn[2]] }), 400, 'DeepSeek: reasoning_content missing')
  assert.is(await post('gemini', { ...plain, messages: [turn[0]] }), 400, 'Gemini: $schema, additionalProperties, a dot in a name')
  assert.is(await post('gemini', { ...plain, tools: [], stream_options: undefined, messages: turn.slice(0, 3) }), 400, 'Gemini: a call without its signature')
  assert.is(await post('mistral', { ...plain, tools: [], stream_options: undefined, messages: turn }), 400, 'Mistral: a toolu_ id, a user after a tool')
  assert.is(await post('mistral', { ...plain, tools: [], messages: [turn[0]] }), 422, 'Mistral: stream_options')
  assert.is(await post('groq', { ...plain, tools: [], messages: turn.slice(0, 3) }), 400, 'Groq: reasoning_content on an assistant message')
  assert.is(await post('cerebras', { ...plain, tools: [], messages: turn.slice(0, 3) }), 400, 'Cerebras: the same')
  assert.is(await post('deepseek', { ...plain, tools: [], messages: [turn[0]] }), 200, 'a request within the rules is answered')
})

test.run()
