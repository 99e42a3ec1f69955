// Routing end to end, headless: the klyth package answers a `--model gpt` session from the mock
// OpenAI-compatible provider (text, a tool round trip, subagents, compaction, an Anthropic-compatible
// provider), and a routed request never reaches the mock Messages API (native Claude) in any test.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel } from './mock-model.ts'
import { startMockProvider, type MockProvider } from './mock-provider.ts'
import { cleanupTmp, findFiles, runClaude, tmpDir } from './engine.ts'
import { startLive, type LiveSession } from './live.ts'
import { results, sendEach } from './probe-kit.ts'
import { ALIAS, everyFile, KEY, LABEL, PROVIDER_MODEL, routed, routedHome, stepRequests, transcripts } from './routing-kit.ts'

let mock: MockModel | undefined
let provider: MockProvider | undefined
let live: LiveSession | undefined
test.after.each(async () => {
  await live?.stop()
  live = undefined
  await mock?.close()
  await provider?.close()
  mock = provider = undefined
})
test.after(() => cleanupTmp())

async function setUp(rules: Parameters<typeof startMockProvider>[0], opts: Parameters<typeof routedHome>[2] = {}) {
  mock = await startMockModel()
  provider = await startMockProvider(rules)
  return routedHome(mock, provider, opts)
}

test('routed main: the provider\'s text streams as the answer, its usage names the alias, nothing reaches Claude', async () => {
  const { home, plugin } = await setUp([{ match: /hello/, reply: { text: ['routed ', 'answer ', 'here'], pieceMs: 50, usage: { input: 1234, cached: 0, output: 7 } } }])
  const r = await routed({ prompt: 'hello there', pluginDirs: [plugin], mock: mock!, home })
  assert.is(r.code, 0, r.stderr)
  assert.is(r.json.result, 'routed answer here')
  assert.is(mock!.requests.length, 0, 'no request reached native Claude')
  const [req] = stepRequests(provider!)
  assert.ok(req, 'the provider got the step')
  assert.is(req!.body.model, PROVIDER_MODEL)
  assert.is(req!.headers.authorization, `Bearer ${KEY}`)
  assert.is(req!.body.stream, true)
  // The engine's own system prompt, minus its billing block and Claude identity, naming the routed model.
  const system = req!.body.messages[0]
  assert.is(system.role, 'system')
  assert.not.match(system.content, 'x-anthropic-billing-header')
  assert.not.match(system.content, "You are a Claude agent, built on Anthropic's Claude Agent SDK.")
  assert.match(JSON.stringify(req!.body.messages), `You are ${LABEL} (${PROVIDER_MODEL}), answering inside Claude Code through klyth.`)
  assert.ok(req!.body.tools.some((t: any) => t.function.name === 'Bash'), 'the engine\'s tools, with their schemas')
  // The engine's usage and the transcript carry the alias.
  assert.is(r.json.usage.input_tokens, 1234)
  assert.ok(Object.keys(r.json.modelUsage ?? {}).includes(ALIAS) || transcripts(home).includes(`"model":"${ALIAS}"`), JSON.stringify(r.json.modelUsage))
  assert.match(transcripts(home), '"model":"gpt"')
  assert.not.match(transcripts(home), 'msg_keel_klyth', 'the capture\'s fake response is never recorded')
  assert.match(r.debugLog, '$.ui.status (klyth): klyth → Mock GPT · mock', 'the status line names the route')
  // The package's status: the config, the approved provider (its key's source, never the key), the alias.
  const status = await runClaude({ prompt: '/klyth status', pluginDirs: [plugin], mock: mock!, home })
  const text = String(status.json.result)
  assert.match(text, /config: .*\/\.claude\/keel\/routing\.json \(1 provider, 1 alias\)/)
  assert.match(text, 'provider mock: openai-chat at http://127.0.0.1:')
  assert.match(text, '; approved; key from the command /bin/echo (not read yet)')
  assert.match(text, `alias gpt: ${LABEL} = mock ${PROVIDER_MODEL}, window 200000`)
  assert.not.match(text, KEY)
})

test('tool round trip: a Bash call in three argument pieces runs in the engine and its result goes back under the same id', async () => {
  const { home, plugin } = await setUp([
    { match: /please run it/, reply: { toolCalls: [{ name: 'Bash', arguments: ['{"command":', '"echo routed-', 'tool-ok"}'] }] } },
    { match: /routed-tool-ok/, reply: { text: ['the tool ', 'said ok'] } },
  ])
  const r = await routed({ prompt: 'please run it', pluginDirs: [plugin], mock: mock!, home, extraArgs: ['--allowedTools', 'Bash'] })
  assert.is(r.code, 0, r.stderr)
  assert.is(r.json.result, 'the tool said ok')
  assert.is(mock!.requests.length, 0)
  const [first, second] = stepRequests(provider!)
  assert.ok(second, 'a second step carried the tool result')
  const call = second!.body.messages.find((m: any) => m.role === 'assistant' && m.tool_calls)
  const result = second!.body.messages.find((m: any) => m.role === 'tool')
  assert.is(result.content, 'routed-tool-ok')
  assert.is(result.tool_call_id, call.tool_calls[0].id)
  assert.match(call.tool_calls[0].id, /^toolu_keel_\d+_[0-9a-f]+$/)
  assert.is(JSON.parse(call.tool_calls[0].function.arguments).command, 'echo routed-tool-ok')
  assert.ok(first!.arrivedAt < second!.arrivedAt)
})

test('two tool calls with no index and an empty id, one per chunk (a gateway in front of Gemini): two calls run, each result under its own id', async () => {
  const { home, plugin } = await setUp([
    { match: (req) => req.body?.messages?.some((m: any) => m.role === 'tool'), reply: { text: 'both ran' } },
    { match: /run both/, reply: { unindexed: true, toolCalls: [{ name: 'Bash', arguments: '{"command":"echo marker-one"}' }, { name: 'Bash', arguments: '{"command":"echo marker-two"}' }] } },
  ])
  const r = await routed({ prompt: 'run both', pluginDirs: [plugin], mock: mock!, home, extraArgs: ['--allowedTools', 'Bash'] })
  assert.is(r.code, 0, r.stderr)
  assert.is(r.json.result, 'both ran', JSON.stringify(r.json.result))
  assert.is(mock!.requests.length, 0)
  const [, second] = stepRequests(provider!)
  assert.ok(second, 'a second step carried the tool results')
  const calls = second!.body.messages.find((m: any) => m.role === 'assistant' && m.tool_calls).tool_calls
  assert.equal(calls.map((c: any) => JSON.parse(c.function.arguments).command), ['echo marker-one', 'echo marker-two'])
  // The engine runs both at once: their results come back in the order they finished.
  const results = second!.body.messages.filter((m: any) => m.role === 'tool').map((m: any) => [m.tool_call_id, m.content]).sort()
  assert.equal(results, [[calls[0].id, 'marker-one'], [calls[1].id, 'marker-two']].sort())
  assert.is.not(calls[0].id, calls[1].id)
})

test('unreadable tool arguments: no tool runs, the turn says which tool, and nothing reaches Claude', async () => {
  const { home, plugin } = await setUp([{ match: /broken/, reply: { text: 'trying ', toolCalls: [{ name: 'Bash', arguments: ['{"command": "echo x'] }] } }])
  const r = await routed({ prompt: 'broken args', pluginDirs: [plugin], mock: mock!, home, extraArgs: ['--allowedTools', 'Bash'] })
  assert.is(r.code, 0, r.stderr)
  assert.match(r.json.result, 'klyth: Mock GPT sent unreadable arguments for Bash')
  assert.is(stepRequests(provider!).length, 1, 'no tool result went back: nothing ran')
  assert.is(mock!.requests.length, 0)
})

test('subagents: a plain Agent call under a routed main, and a definition with model: gpt and tools: Read, each routed with its own prompt and tools', async () => {
  const cwd = tmpDir('proj')
  mkdirSync(join(cwd, '.claude/agents'), { recursive: true })
  writeFileSync(join(cwd, '.claude/agents/reader.md'), '---\nname: reader\ndescription: Reads files for the lead\nmodel: gpt\ntools: Read\n---\nYou are a careful reader.\n')
  const { home, plugin } = await setUp([
    { match: /delegate both/, reply: { toolCalls: [
      { name: 'Agent', arguments: JSON.stringify({ description: 'plain task', prompt: 'CHILD-PLAIN: say hi', subagent_type: 'general-purpose', run_in_background: false }) },
    ] } },
    { match: /CHILD-PLAIN/, reply: { text: 'plain-child-answer' } },
    { match: /plain-child-answer/, reply: { toolCalls: [
      { name: 'Agent', arguments: JSON.stringify({ description: 'def task', prompt: 'CHILD-DEF: read nothing', subagent_type: 'reader', run_in_background: false }) },
    ] } },
    { match: /CHILD-DEF/, reply: { text: 'def-child-answer' } },
    { match: /def-child-answer/, reply: { text: 'both children answered' } },
  ])
  const r = await routed({ prompt: 'delegate both', pluginDirs: [plugin], mock: mock!, home, cwd, extraArgs: ['--allowedTools', 'Agent'] })
  assert.is(r.code, 0, r.stderr)
  assert.is(r.json.result, 'both children answered')
  assert.is(mock!.requests.length, 0)
  const steps = stepRequests(provider!)
  const plain = steps.find((q) => q.lastText.includes('CHILD-PLAIN'))
  const def = steps.find((q) => q.lastText.includes('CHILD-DEF'))
  assert.ok(plain && def, steps.map((q) => q.lastText.slice(0, 40)).join(' | '))
  assert.is(plain!.body.model, PROVIDER_MODEL)
  assert.is(def!.body.model, PROVIDER_MODEL)
  assert.equal(def!.body.tools.map((t: any) => t.function.name), ['Read'], 'the definition\'s own tool pool')
  assert.match(def!.body.messages[0].content, 'You are a careful reader.')
  assert.not.match(plain!.body.messages[0].content, 'You are a careful reader.')
})

test('compaction: the engine compacts a routed conversation at the alias\'s context, and the summary comes from the provider', async () => {
  // Measured (routing NOTES §10): with capture the engine counts the context itself (its estimate of what it
  // sends), not the step's reported usage. context 50000: the engine's window is 50000 (effective 30000);
  // a second answer of ~27000 tokens takes the conversation past it, so the third turn compacts first.
  const { home, plugin } = await setUp([
    { match: /detailed summary/, reply: { text: '<summary>PROVIDER-SUMMARY of the work</summary>' } },
    { match: /first/, reply: { text: 'first answer' } },
    { match: /second/, reply: { text: `second answer ${'lorem ipsum dolor sit amet '.repeat(4000)}` } },
    { match: /third/, reply: { text: 'third answer' } },
  ], { extras: { model: { context: 50000 } } })
  live = await startLive({ mode: 'stream-json', pluginDirs: [plugin], mock: mock!, home, extraArgs: ['--model', ALIAS] })
  await sendEach(live, ['first turn', 'second turn', 'third turn'])
  assert.equal(results(live.output()).map((x) => x.result.slice(0, 13)), ['first answer', 'second answer', 'third answer'])
  assert.match(live.debugLog(), 'effectiveWindow=30000', 'the alias\'s context, not the 1M the engine assumes')
  assert.is(mock!.requests.length, 0, 'neither the steps nor the summary went to Claude')
  const summarizer = provider!.requests.find((q) => q.lastText.includes('detailed summary'))
  assert.ok(summarizer, provider!.requests.map((q) => q.lastText.slice(-60)).join(' | '))
  assert.is(summarizer!.body.model, PROVIDER_MODEL)
  assert.ok(provider!.requests.indexOf(summarizer!) === 2, 'summarized before the third turn\'s step, after the second')
  const t = transcripts(home)
  assert.match(t, 'compact_boundary')
  assert.match(t, 'PROVIDER-SUMMARY of the work')
})

test('an Anthropic-compatible provider: the engine\'s request rewritten (model, key, no metadata, billing block or session header) and its tool call run', async () => {
  const { home, plugin } = await setUp([
    { match: /anthropic run/, reply: { toolCalls: [{ name: 'Bash', arguments: ['{"command":"echo ', 'anth-ok"}'] }] } },
    { match: /anth-ok/, reply: { text: ['anthropic ', 'provider done'] } },
  // The base URL of an Anthropic-compatible provider is its root (requests go to <base>/v1/messages).
  ], { extras: { provider: { api: 'anthropic-messages', baseUrl: '<root>' } } })
  const r = await routed({ prompt: 'anthropic run', pluginDirs: [plugin], mock: mock!, home, extraArgs: ['--allowedTools', 'Bash'] })
  assert.is(r.code, 0, r.stderr)
  assert.is(r.json.result, 'anthropic provider done')
  assert.is(mock!.requests.length, 0)
  const msgs = provider!.requests.filter((q) => q.path === '/v1/messages')
  assert.is(msgs.length, 2)
  for (const q of msgs) {
    assert.is(q.body.model, PROVIDER_MODEL)
    assert.is(q.headers['x-api-key'], KEY)
    assert.is(q.body.metadata, undefined)
    assert.not.match(JSON.stringify(q.body.system), 'x-anthropic-billing-header')
    assert.is(q.headers['x-claude-code-session-id'], undefined)
    assert.is(q.headers['anthropic-beta'], undefined)
  }
  assert.is(msgs[1]!.body.messages.at(-1).content[0].type, 'tool_result')
})

test('keys: the key reaches the provider and no file, log, transcript, output or argv', async () => {
  // The key comes from a command reading the person's own key file (so no argv holds it either).
  const keyDir = tmpDir('keys')
  const keyFile = join(keyDir, 'key')
  writeFileSync(keyFile, `${KEY}\n`)
  const { home, plugin } = await setUp([{ match: /secret/, reply: { text: 'kept secret' } }], { extras: { provider: { auth: { helper: ['/bin/cat', keyFile] } } } })
  const cwd = tmpDir('proj')
  const r = await routed({ prompt: 'a secret test', pluginDirs: [plugin], mock: mock!, home, cwd })
  assert.is(r.json.result, 'kept secret')
  assert.is(stepRequests(provider!)[0]!.headers.authorization, `Bearer ${KEY}`)
  for (const [where, text] of [['debug log', r.debugLog], ['stdout', r.stdout], ['stderr', r.stderr], ['HOME and project files', everyFile(home, cwd)]] as const) {
    assert.not.ok(text.includes(KEY), `${where} holds the key`)
  }
  // curl's argv is fixed; the key rode in its standard input.
  assert.match(r.debugLog, '/usr/bin/curl with 6 args')
})

test('keys and the environment: keel puts a key in none; an {env} key is in curl\'s (and every child\'s) environment because the engine\'s has it', async () => {
  // A wrapper that writes what curl gets (its argv and environment) and runs the real curl.
  const bin = tmpDir('curl')
  const wrapper = join(bin, 'curl')
  writeFileSync(wrapper, `#!/bin/sh\nprintf '%s\\n' "$@" > "${bin}/argv.$$"\n/usr/bin/env > "${bin}/env.$$"\nexec /usr/bin/curl "$@"\n`, { mode: 0o755 })
  const settings = { pluginConfigs: { klyth: { options: { routingCurl: wrapper } } } }
  const seen = (prefix: string) => findFiles(bin, '').filter((f) => f.includes(`/${prefix}.`)).map((f) => readFileSync(f, 'utf8')).join('\n')
  const cases: { auth: object; env: Record<string, string>; inEnv: boolean }[] = [
    { auth: { env: 'MOCK_ROUTING_KEY' }, env: { MOCK_ROUTING_KEY: KEY }, inEnv: true },
    { auth: { helper: ['/bin/echo', KEY] }, env: {}, inEnv: false },
  ]
  for (const c of cases) {
    const { home, plugin } = await setUp([{ match: /env key/, reply: { text: 'answered' } }], { settings, extras: { provider: { auth: c.auth } } })
    const r = await routed({ prompt: 'an env key', pluginDirs: [plugin], mock: mock!, home, settings, env: c.env })
    assert.is(r.json.result, 'answered', JSON.stringify(c.auth))
    assert.is(stepRequests(provider!)[0]!.headers.authorization, `Bearer ${KEY}`)
    assert.ok(seen('env').includes('PATH='), 'the wrapper ran')
    assert.is(seen('env').includes(KEY), c.inEnv, `curl's environment under ${JSON.stringify(c.auth)}`)
    assert.not.ok(seen('argv').includes(KEY), 'never in argv')
    for (const f of findFiles(bin, '')) if (!f.endsWith('/curl')) rmSync(f)
    await mock!.close()
    await provider!.close()
  }
})

test('a curl older than 7.82 (no json pieces): the body rides in a file in the plugin data folder, removed after the request', async () => {
  // A wrapper that reports curl 7.76.1 (RHEL 9's) and runs the real curl.
  const bin = tmpDir('curl')
  const wrapper = join(bin, 'curl')
  writeFileSync(wrapper, '#!/bin/sh\nif [ "$1" = "--version" ]; then echo "curl 7.76.1 (x86_64-redhat-linux-gnu) libcurl/7.76.1"; exit 0; fi\nexec /usr/bin/curl "$@"\n', { mode: 0o755 })
  const { home, plugin } = await setUp([{ match: /old curl/, reply: { text: 'answered through a body file' } }], { settings: { pluginConfigs: { klyth: { options: { routingCurl: wrapper } } } } })
  const r = await routed({ prompt: 'an old curl', pluginDirs: [plugin], mock: mock!, home, settings: { pluginConfigs: { klyth: { options: { routingCurl: wrapper } } } } })
  assert.is(r.code, 0, r.stderr)
  assert.is(r.json.result, 'answered through a body file')
  assert.is(stepRequests(provider!)[0]!.body.model, PROVIDER_MODEL, 'the whole body arrived')
  const data = findFiles(join(home, '.claude/plugins/data'), '')
  assert.equal(data.filter((f) => f.includes('routing-request-')), [], 'the request file is gone')
  assert.match(r.debugLog, 'routing-request-1.json', 'the body went through its file')
})

test('a native model in a session with routing installed is untouched: native Claude answers, the provider gets nothing', async () => {
  const { home, plugin } = await setUp([])
  const r = await runClaude({ prompt: 'hello native', pluginDirs: [plugin], mock: mock!, home })
  assert.is(r.code, 0, r.stderr)
  assert.ok(mock!.requests.length > 0, 'native Claude answered')
  assert.is(provider!.requests.length, 0)
})

test.run()
