// The routing feature through its session.start and turn.step hooks over a fake port: the config
// from keel's home, the window for a session that starts on an alias, a native step untouched, a
// routed step captured through the feature's own http.fetch hook and streamed from a fake curl, and
// each way a routed step fails closed, the stream policy's answer included.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { CAPTURE_TIMEOUT_MS, CURL_ARGS } from '../../../src/features/routing/constants.ts'
import { createOpenAiDecoder } from '../../../src/features/routing/openai.ts'
import type { StepChunk } from '../../../src/features/routing/step.ts'
import { CAPTURE_TIMED_OUT } from '../../../src/features/routing/strings.ts'
import type { Failure } from '../../../src/registry.ts'
import { fakeFiles } from '../fake-files.ts'
import { settle } from '../fakes.ts'
import { STALE_TEMP_MS } from '../../../src/lib/safe-write.ts'
import { fakeChild, head, SSE_HEAD } from './fake-child.ts'
import {
  approve, capturing, CONFIG, CONFIG_PATH, ENGINE_ERROR, ENGINE_ERROR_RESULT, ENGINE_RESULT, KEY, loopBody, PLUGIN_DATA, refusal, routingWorld, start, stepEvent, stepHook, until, type Routing,
} from './fake-port.ts'
import { run } from './fixtures/harness.ts'
import { fixture } from './fixtures/read.ts'

const TEXT = fixture('openai-text.txt')
const EXPECTED = run(createOpenAiDecoder, [TEXT])
const answerOf = (chunks: readonly unknown[]) => (chunks as StepChunk[]).map((c) => (c.kind === 'text' ? c.text : c.kind))
const status = async (r: Routing) => (await r.feature.status!(r.port, r.ctx)) as string[]

/** A started world with gpt-5's provider approved and one curl answer scripted. */
async function routed(over: Parameters<typeof routingWorld>[0] = {}, options: Parameters<typeof routingWorld>[1] = {}) {
  const r = routingWorld(over, options)
  await approve(r.w, 'example')
  await approve(r.w, 'moon')
  await start(r)
  return r
}

// ---- session.start ----

test('session.start reads the config from keel\'s home under CLAUDE_CONFIG_DIR, and lets the start go on', async () => {
  const r = routingWorld({ env: { configDir: '/cfg/', home: '/home/me', pluginData: '/elsewhere/plugins/data/klyth-inline' } })
  assert.equal(await start(r), { started: true })
  assert.equal(r.w.reads, [CONFIG_PATH])
  assert.is((await status(r))[0], `config: ${CONFIG_PATH} (2 providers, 2 aliases)`)
  assert.equal([r.w.windows, r.w.statuses], [[], []], 'main is native: no window, no status line')
})

test('session.start: HOME/.claude without CLAUDE_CONFIG_DIR, the plugin data folder\'s root, the routingFile option, or nothing known', async () => {
  const home = routingWorld({ env: { home: '/home/me/' } })
  await start(home)
  assert.equal(home.w.reads, ['/home/me/.claude/keel/routing.json'])
  assert.is((await status(home))[0], 'config: /home/me/.claude/keel/routing.json (not there: routing is off until it exists)')
  const data = routingWorld({ env: { pluginData: '/srv/claude/plugins/data/klyth-inline' } })
  await start(data)
  assert.equal(data.w.reads, ['/srv/claude/keel/routing.json'], 'CLAUDE_PLUGIN_DATA cut at /plugins/data/')
  const given = routingWorld({ files: new Map([['/etc/klyth/routing.json', JSON.stringify(CONFIG)]]) }, { routingFile: '  /etc/klyth/routing.json ' })
  await start(given)
  assert.equal(given.w.reads, ['/etc/klyth/routing.json'])
  assert.is((await status(given))[0], 'config: /etc/klyth/routing.json (2 providers, 2 aliases)')
  const none = routingWorld({ env: {} })
  await start(none)
  assert.equal(none.w.reads, [], 'no home known: nothing read')
  assert.is((await status(none))[0], 'config: routing.json (not there: routing is off until it exists)')
})

test('session.start on an alias: the window is set and the status line names the model; a refused window is logged', async () => {
  const r = routingWorld({ main: 'gpt-5' })
  await start(r)
  assert.equal(r.w.windows, [400000])
  assert.equal(r.w.statuses, ['klyth → GPT-5 · example'])
  const denied = routingWorld({ main: 'kimi', windowDeny: 'managed settings pin it' })
  await start(denied)
  assert.equal([denied.w.windows, denied.w.statuses], [[], ['klyth → Kimi K2 · moon']])
  assert.ok(denied.lines.includes('routing: window not set to 128000: managed settings pin it'), denied.lines.join('\n'))
  const unknown = routingWorld({ main: new Error('no session yet') })
  assert.equal(await start(unknown), { started: true })
  assert.equal([unknown.w.windows, unknown.w.statuses], [[], []])
})

test('session.start with an unreadable or broken config, or one with errors: logged, and the start goes on', async () => {
  const r = routingWorld({ unreadable: new Set([CONFIG_PATH]) })
  assert.equal(await start(r), { started: true })
  assert.is((await status(r))[0], `config: ${CONFIG_PATH} (unreadable: EACCES: permission denied, open '${CONFIG_PATH}')`)
  assert.ok(r.lines.includes(`routing: config ${CONFIG_PATH} unreadable: EACCES: permission denied, open '${CONFIG_PATH}'`), r.lines.join('\n'))
  const broken = routingWorld({ files: new Map([[CONFIG_PATH, '{"providers": ']]) })
  await start(broken)
  assert.ok(broken.lines.some((l) => l.startsWith(`routing: config ${CONFIG_PATH}: the file is not valid JSON`)), broken.lines.join('\n'))
  const errors = routingWorld({ main: 'gpt-5', files: new Map([[CONFIG_PATH, JSON.stringify({ ...CONFIG, models: { ...CONFIG.models, bad: { provider: 'none' } }, providers: { ...CONFIG.providers, lan: { api: 'openai-chat', baseUrl: 'http://lan.example/v1', auth: 'none' } } })]]) })
  await start(errors)
  assert.ok(errors.lines.includes(`routing: config ${CONFIG_PATH}: models.bad.model: missing`), errors.lines.join('\n'))
  assert.ok(errors.lines.includes(`routing: config ${CONFIG_PATH}: providers.lan.baseUrl: plain http to another machine sends the conversation and the key unencrypted`))
  assert.equal(errors.w.windows, [400000], 'the valid rest routes')
  const empty = routingWorld({ main: 'gpt-5', files: new Map([[CONFIG_PATH, '{}']]) })
  await start(empty)
  assert.equal([empty.w.windows, empty.w.statuses], [[], []], 'no alias: main is not even asked')
})

// ---- turn.step: native ----

test('a native step passes through untouched: next once, its chunks and result as they were', async () => {
  for (const started of [true, false]) {
    const r = routingWorld()
    if (started) await start(r)
    const chunks = [{ kind: 'text', index: 0, text: 'Claude here' }, { kind: 'engine', index: 0 }, { kind: 'stop', stopReason: 'end_turn', usage: null }]
    const calls: unknown[] = []
    const e = stepEvent('claude-opus-5-5')
    const out = await stepHook(r, e, async function* () {
      yield* chunks
      return { ...ENGINE_RESULT, answer: 'Claude here' }
    }, calls)
    assert.equal(calls, [e], 'next(e) once, with e itself')
    assert.equal(out.chunks, chunks)
    assert.equal(out.result, { ...ENGINE_RESULT, answer: 'Claude here' })
    // No capture timer; the only timer there may be is the start's (curl's version, off its path).
    assert.equal([r.w.spawned, r.w.runs, r.w.afters.filter((t) => t.ms !== 0)], [[], [], []])
  }
})

// ---- turn.step: routed ----

test('a routed step: the engine\'s request captured through http.fetch, answered locally, and the provider\'s stream yielded', async () => {
  const r = await routed()
  r.w.children.push(fakeChild().out(SSE_HEAD, TEXT).exit(0))
  const engine = capturing(r)
  const calls: unknown[] = []
  const e = stepEvent()
  const out = await stepHook(r, e, engine.beneath, calls)
  assert.equal(calls, [e], 'the engine ran once, to build its request')
  assert.equal(out.chunks, EXPECTED.chunks, 'the provider\'s chunks, none of the engine\'s fake response')
  assert.equal(out.result, { turnId: 't1', index: 0, ...EXPECTED.result })
  // The engine's request never reached the network; it got the fake one-block answer.
  assert.equal(engine.reached, [])
  const answer = engine.answers[0] as { value: { status: number; ok: boolean; headers: Record<string, string>; text: string } }
  assert.equal([answer.value.status, answer.value.ok, answer.value.headers], [200, true, { 'content-type': 'text/event-stream' }])
  assert.match(answer.value.text, /^event: message_start\ndata: .*"id":"msg_keel_klyth".*"model":"gpt-5"/)
  assert.match(answer.value.text, /"text_delta","text":"\."/)
  // curl: by its absolute path, the request and key on stdin, never in argv.
  assert.equal(r.w.spawned.map((s) => s.argv), [['/usr/bin/curl', ...CURL_ARGS]])
  const input = r.w.spawned[0]!.input
  assert.match(input, /^url = "https:\/\/api\.example\.com\/v1\/chat\/completions"$/m)
  assert.match(input, new RegExp(`^header = "Authorization: Bearer ${KEY}"$`, 'm'))
  assert.match(input, /"model\\":\\"gpt-5-2025\\"/)
  assert.not.ok(r.w.spawned[0]!.argv.join(' ').includes(KEY))
  assert.equal(r.w.runs, [['/usr/bin/curl', '--version'], ['/usr/bin/printenv', 'EXAMPLE_KEY']])
  assert.equal(r.w.afters.map((t) => [t.ms, t.stopped]), [[0, false], [CAPTURE_TIMEOUT_MS, true]], 'the start\'s curl check; the capture timer, stopped once the request came')
  assert.equal(r.w.everys.map((t) => [t.ms, t.stopped]), [[30_000, true]], 'the watchdog at a quarter of 120 s')
  assert.equal(r.w.statuses[0], 'klyth → GPT-5 · example')
  const lines = await status(r)
  assert.ok(lines.includes('this session: 1 routed step, 0 other routed requests, 0 failed'), lines.join('\n'))
  assert.ok(lines.includes('provider example: openai-chat at https://api.example.com/v1; approved; key from $EXAMPLE_KEY (ok)'), lines.join('\n'))
  assert.ok(lines.includes('curl: /usr/bin/curl 7.88.1 (body sent as json pieces)'))
  assert.not.ok(lines.join('\n').includes(KEY), 'status never holds the key')

  // A second step: curl and the key are not asked again; the status line is not set again.
  r.w.children.push(fakeChild().out(SSE_HEAD + TEXT).exit(0))
  const again = await stepHook(r, stepEvent('gpt-5', { index: 1 }), capturing(r).beneath)
  assert.equal(again.chunks, EXPECTED.chunks)
  assert.equal(r.w.runs.length, 2)
  await settle()
  assert.equal(r.w.statuses, ['klyth → GPT-5 · example', 'klyth → GPT-5 · example · 2.3k tokens', 'klyth → GPT-5 · example · 4.6k tokens'], 'the status line follows what the session spent (tokens: no price set)')
})

test('a routed step\'s tool calls get minted ids; an anthropic-messages alias streams through the redirect with its own key', async () => {
  const r = await routed()
  r.w.children.push(fakeChild().out(SSE_HEAD, fixture('openai-tools.txt')).exit(0))
  const tools = await stepHook(r, stepEvent(), capturing(r).beneath)
  const ids = (tools.chunks as StepChunk[]).flatMap((c) => (c.kind === 'tool' ? [c.id] : []))
  assert.equal(ids, ['toolu_keel_1_abababababababab', 'toolu_keel_2_abababababababab'], 'toolu_keel_<n>_<random hex>, counting on across steps')
  assert.is((tools.result as { stopReason: string }).stopReason, 'tool_use')

  r.w.children.push(fakeChild().out(SSE_HEAD, fixture('anthropic-tools.txt')).exit(0))
  const kimi = await stepHook(r, stepEvent('kimi'), capturing(r, loopBody('kimi')).beneath)
  const input = r.w.spawned[1]!.input
  assert.match(input, /^url = "https:\/\/api\.moon\.example\/anthropic\/v1\/messages"$/m)
  assert.match(input, /^header = "x-api-key: sk-moon-SECRET-5678"$/m)
  assert.match(input, /"model\\":\\"kimi-k2\\"/)
  assert.ok(r.w.runs.some((a) => a.join(' ') === '/usr/bin/pass show moon'))
  assert.is((kimi.result as { usage: { model: string } }).usage.model, 'kimi')
  assert.ok((kimi.chunks as StepChunk[]).some((c) => c.kind === 'tool' && c.id === 'toolu_keel_3_abababababababab'))
  assert.equal([...new Set(r.w.statuses.map((t) => t?.split(' · ').slice(0, 2).join(' · ')))], ['klyth → GPT-5 · example', 'klyth → Kimi K2 · moon'], 'the route the status line names, whatever the spend beside it')
})

test('a subagent\'s step is paired by its agent header and leaves the status line alone; a non-streamed loop request gets a JSON answer', async () => {
  const r = await routed()
  r.w.children.push(fakeChild().out(SSE_HEAD, TEXT).exit(0))
  const engine = capturing(r, loopBody('gpt-5', { stream: false }), { 'x-claude-code-agent-id': 'agent-7' })
  const out = await stepHook(r, stepEvent('gpt-5', { agentId: 'agent-7' }), engine.beneath)
  assert.equal(out.chunks, EXPECTED.chunks)
  assert.equal(r.w.statuses, [], 'a subagent\'s model is not main\'s')
  const answer = engine.answers[0] as { value: { headers: Record<string, string>; text: string } }
  assert.equal(answer.value.headers, { 'content-type': 'application/json' })
  assert.equal(JSON.parse(answer.value.text).content, [{ type: 'text', text: '.' }])
})

test('untrusted: the engine\'s request refused with the untrusted line, which the step passes on as the engine\'s own error; nothing run, nothing spawned', async () => {
  const r = routingWorld()
  await start(r)
  const calls: unknown[] = []
  const engine = capturing(r)
  const out = await stepHook(r, stepEvent(), engine.beneath, calls)
  const line = 'klyth: provider example is not approved; run /model gpt-5 or /klyth route trust example'
  assert.equal([refusal(engine.answers[0]), out.chunks, out.result], [line, [ENGINE_ERROR], ENGINE_ERROR_RESULT])
  assert.equal([calls.length, r.w.spawned, r.w.runs, engine.reached], [1, [], [], []])
  const lines = await status(r)
  assert.ok(lines.includes('this session: 0 routed steps, 0 other routed requests, 1 failed'), lines.join('\n'))
  assert.ok(lines.includes(`last failure: ${line}`))
})

test('managed settings: a routed step fails at once with why, and the engine is never asked (its request would pass keel by, to Anthropic)', async () => {
  const r = routingWorld({ managed: true })
  await approve(r.w, 'example')
  await start(r)
  const calls: unknown[] = []
  const engine = capturing(r)
  const out = await stepHook(r, stepEvent(), engine.beneath, calls)
  assert.equal([calls.length, engine.answers, r.w.spawned], [0, [], []], 'next never called: no request made')
  assert.match(JSON.stringify(out.chunks), 'this machine has managed settings')
})

test('a key that cannot be read fails the step with why, never the key command\'s stderr (it may hold the key)', async () => {
  const r = await routed({ run: async (argv) => (argv[1] === '--version' ? { exitCode: 0, stdout: 'curl 8.5.0', stderr: '' } : { exitCode: 1, stdout: '', stderr: 'EXAMPLE_KEY: unset\n' }) })
  const calls: unknown[] = []
  const engine = capturing(r)
  const out = await stepHook(r, stepEvent(), engine.beneath, calls)
  assert.is(refusal(engine.answers[0]), 'klyth: GPT-5 failed: the key for example could not be read: /usr/bin/printenv exited 1 (run it yourself to see why)')
  assert.equal(out.chunks, [ENGINE_ERROR])
  // The engine built its request (answered locally); nothing was sent anywhere.
  assert.equal([calls.length, r.w.spawned, engine.reached], [1, [], []])
  assert.ok((await status(r)).includes('provider example: openai-chat at https://api.example.com/v1; approved; key from $EXAMPLE_KEY (failed: /usr/bin/printenv exited 1 (run it yourself to see why))'))
})

test('curl missing or not curl fails the step; the check is made again at the next step, and the routingCurl option names the binary', async () => {
  let curlRuns = 0
  const r = await routed({
    run: async (argv) => {
      if (argv[1] !== '--version') return { exitCode: 0, stdout: `${KEY}\n`, stderr: '' }
      curlRuns++
      if (curlRuns === 1) throw new Error('ENOENT')
      if (curlRuns === 2) return { exitCode: 0, stdout: 'wget 1.21', stderr: '' }
      return { exitCode: 0, stdout: 'curl 8.10.1 (x86_64-pc-linux-gnu)', stderr: '' }
    },
  }, { routingCurl: '/opt/curl/bin/curl' })
  const first = capturing(r)
  assert.equal((await stepHook(r, stepEvent(), first.beneath)).chunks, [ENGINE_ERROR])
  assert.is(refusal(first.answers[0]), 'klyth: GPT-5 failed: curl was not found at /opt/curl/bin/curl (set the routingCurl option to its path)')
  const second = capturing(r)
  await stepHook(r, stepEvent(), second.beneath)
  assert.is(refusal(second.answers[0]), 'klyth: GPT-5 failed: /opt/curl/bin/curl --version did not print a curl version')
  assert.ok((await status(r)).includes('curl: /opt/curl/bin/curl --version did not print a curl version'), 'status shows the last check\'s problem')
  r.w.children.push(fakeChild().out(SSE_HEAD, TEXT).exit(0))
  const third = await stepHook(r, stepEvent(), capturing(r).beneath)
  assert.equal(third.chunks, EXPECTED.chunks)
  assert.equal(r.w.spawned[0]!.argv, ['/opt/curl/bin/curl', ...CURL_ARGS])
  assert.equal(curlRuns, 3)
  assert.ok((await status(r)).includes('curl: /opt/curl/bin/curl 8.10.1 (body sent as json pieces)'))
})

test('capture timeout: an engine that sends nothing within 5 s fails the step when the timer fires, and its stream is let go', async () => {
  const r = await routed()
  let released = false
  const calls: unknown[] = []
  const pending = stepHook(r, stepEvent(), () => {
    const hung = (async function* (): AsyncGenerator<unknown, unknown> {
      return await new Promise(() => undefined)
    })()
    const own = hung.return.bind(hung)
    return Object.assign(hung, { return: (v: unknown) => ((released = true), own(v)) })
  }, calls)
  const timer = () => r.w.afters.find((t) => t.ms === CAPTURE_TIMEOUT_MS)
  await until(() => timer() !== undefined, 'the capture timer')
  timer()!.fn()
  const out = await pending
  assert.equal(answerOf(out.chunks), [`klyth: GPT-5 failed: ${CAPTURE_TIMED_OUT}`, 'stop'])
  assert.equal([calls.length, r.w.spawned.length, timer()!.stopped], [1, 0, true])
  assert.ok(released, 'the engine\'s stream is let go (its return() asked, never awaited: it waits behind the hung pull)')
})

test('an engine stream that ends, or breaks, without sending its request fails the step at once', async () => {
  const r = await routed()
  const ended = await stepHook(r, stepEvent(), async function* () {
    yield { kind: 'text', index: 0, text: 'native text that must not show' }
    return ENGINE_RESULT
  })
  assert.equal(answerOf(ended.chunks), [`klyth: GPT-5 failed: ${CAPTURE_TIMED_OUT}`, 'stop'])
  const broke = await stepHook(r, stepEvent(), async function* () {
    throw new Error('the engine refused the request')
  })
  assert.equal(answerOf(broke.chunks), ['klyth: GPT-5 failed: the engine refused the request', 'stop'])
  assert.is((await status(r)).find((l) => l.startsWith('this session')), 'this session: 0 routed steps, 0 other routed requests, 2 failed')
})

test('an alias the config no longer has: the engine\'s request refused with its line, never reaching the network', async () => {
  const r = await routed()
  r.w.files.set(CONFIG_PATH, JSON.stringify({ ...CONFIG, models: { kimi: CONFIG.models.kimi } }))
  await r.feature.verbs!.route!.run(r.port, 'reload', r.ctx)
  const engine = capturing(r)
  const out = await stepHook(r, stepEvent(), engine.beneath)
  assert.equal([refusal(engine.answers[0]), out.chunks, engine.reached, r.w.spawned], [`klyth: gpt-5 is not configured (${CONFIG_PATH}); use /model to pick another`, [ENGINE_ERROR], [], []])
})

test('a provider failure: the engine\'s request answered with the provider\'s status and the line, the text so far standing, counted as the last failure', async () => {
  const r = await routed()
  r.w.children.push(fakeChild().out(head(401, { 'content-type': 'application/json' }), `{"error":{"message":"bad key ${KEY}"}}`).exit(0))
  const engine = capturing(r)
  const out = await stepHook(r, stepEvent(), engine.beneath)
  const line = 'klyth: GPT-5 failed: example answered 401 bad key [redacted]'
  assert.equal([refusal(engine.answers[0]), (engine.answers[0] as { value: { status: number } }).value.status, out.chunks, out.result], [line, 401, [ENGINE_ERROR], ENGINE_ERROR_RESULT])
  const events = TEXT.split('\n\n').map((e) => `${e}\n\n`)
  r.w.children.push(fakeChild().out(SSE_HEAD, ...events.slice(0, 3)).err('curl: (18) transfer closed\n').exit(18))
  const cut = capturing(r)
  const partial = await stepHook(r, stepEvent(), cut.beneath)
  assert.equal(answerOf(partial.chunks), ['Hello', ', wörld ', 'engine'], 'the text so far, then the engine\'s error')
  assert.equal([refusal(cut.answers[0]), (cut.answers[0] as { value: { status: number } }).value.status], ['klyth: GPT-5 failed: curl exited 18: the connection closed before the answer was complete (curl: (18) transfer closed)', 502])
  assert.equal(partial.result, ENGINE_ERROR_RESULT)
  const lines = await status(r)
  assert.ok(lines.includes('this session: 2 routed steps, 0 other routed requests, 2 failed'), lines.join('\n'))
  assert.ok(lines.includes('last failure: klyth: GPT-5 failed: curl exited 18: the connection closed before the answer was complete (curl: (18) transfer closed)'), lines.join('\n'))
  assert.not.ok(lines.join('\n').includes(KEY), 'redacted: the key never shows')
  // The routingIdleSeconds option sets the watchdog.
  const idle = await routed({}, { routingIdleSeconds: 8 })
  idle.w.children.push(fakeChild().out(SSE_HEAD, TEXT).exit(0))
  await stepHook(idle, stepEvent(), capturing(idle).beneath)
  assert.equal(idle.w.everys.map((t) => t.ms), [2000])
})

test('a 429 before output is retried through the port\'s sleep (on the dispatch\'s signal), retry-after read against the engine\'s clock', async () => {
  const r = await routed({ clock: Date.parse('Wed, 01 Jan 2026 00:00:00 GMT') })
  r.w.children.push(fakeChild().out(head(429, { 'retry-after': 'Wed, 01 Jan 2026 00:00:02 GMT' }), '{}').exit(0), fakeChild().out(SSE_HEAD, TEXT).exit(0))
  const out = await stepHook(r, stepEvent(), capturing(r).beneath)
  assert.equal(out.chunks, EXPECTED.chunks)
  assert.equal([r.w.sleeps, r.w.spawned.length], [[2000], 2])
  assert.ok(r.w.events.includes('sleep 2000 on the signal'), r.w.events.join('\n'))
})

test('a key from a file is read through the port; a file that is not there fails the step with why', async () => {
  const config = {
    providers: { disk: { api: 'openai-chat', baseUrl: 'https://disk.example/v1', auth: { file: '/home/me/.disk-key' } } },
    models: { 'disk-1': { provider: 'disk', model: 'd1', context: 64000 } },
  }
  const r = routingWorld({ files: new Map([[CONFIG_PATH, JSON.stringify(config)], ['/home/me/.disk-key', 'sk-disk-KEY-4321\n']]) })
  await approve(r.w, 'disk')
  await start(r)
  r.w.children.push(fakeChild().out(SSE_HEAD, TEXT).exit(0))
  await stepHook(r, stepEvent('disk-1'), capturing(r, loopBody('disk-1')).beneath)
  assert.match(r.w.spawned[0]!.input, /^header = "Authorization: Bearer sk-disk-KEY-4321"$/m)
  assert.ok(r.w.reads.includes('/home/me/.disk-key'))
  r.w.files.delete('/home/me/.disk-key')
  await r.feature.verbs!.route!.run(r.port, 'reload', r.ctx)
  const engine = capturing(r, loopBody('disk-1'))
  await stepHook(r, stepEvent('disk-1'), engine.beneath)
  assert.is(refusal(engine.answers[0]), 'klyth: disk-1 failed: the key for disk could not be read: /home/me/.disk-key could not be read (no such file)')
})

test('an old curl (before 7.82): the body rides in a file in the plugin data folder, removed after the request', async () => {
  const r = await routed({ run: async (argv) => ({ exitCode: 0, stdout: argv[1] === '--version' ? 'curl 7.81.0 (x86_64-pc-linux-gnu)' : `${KEY}\n`, stderr: '' }) })
  const path = `${PLUGIN_DATA}/routing-request-1.json`
  let bodyAtSpawn: string | undefined
  const child = fakeChild().out(SSE_HEAD, TEXT).exit(0)
  r.w.children.push(child)
  const spawn = r.port.spawn
  r.port.spawn = (argv: readonly string[], input: string) => {
    bodyAtSpawn = r.w.disk.files.get(path)
    return spawn(argv, input)
  }
  const out = await stepHook(r, stepEvent(), capturing(r).beneath)
  assert.equal(out.chunks, EXPECTED.chunks)
  assert.match(r.w.spawned[0]!.input, new RegExp(`^data-binary = "@${path}"$`, 'm'))
  assert.not.match(r.w.spawned[0]!.input, /^json = /m)
  assert.ok(bodyAtSpawn !== undefined && JSON.parse(bodyAtSpawn).model === 'gpt-5-2025', 'the provider body was in the file when curl started')
  assert.is(r.w.disk.files.has(path), false, 'removed after')
  assert.ok(r.w.disk.log.includes(`remove ${path}`), r.w.disk.log.join('\n'))
  assert.ok((await status(r)).includes('curl: /usr/bin/curl 7.81.0 (body sent as a file in the plugin data folder)'))
  // Each request its own file.
  r.w.children.push(fakeChild().out(SSE_HEAD, TEXT).exit(0))
  await stepHook(r, stepEvent(), capturing(r).beneath)
  assert.match(r.w.spawned[1]!.input, /routing-request-2\.json/)
  // Issue 17 #12: a crashed exchange's temporary file (a whole request body) goes before the next; a live one stays.
  const stale = `${PLUGIN_DATA}/.routing-request-1.json.keel-0ld.tmp`
  const live = `${PLUGIN_DATA}/.routing-request-1.json.keel-l1ve.tmp`
  r.w.disk.files.set(stale, '{"messages":[]}')
  r.w.disk.files.set(live, '{"messages":[]}')
  r.w.clock = STALE_TEMP_MS + 10_000
  r.w.disk.mtimes.set(stale, 0)
  r.w.disk.mtimes.set(live, r.w.clock - 1000)
  r.w.children.push(fakeChild().out(SSE_HEAD, TEXT).exit(0))
  await stepHook(r, stepEvent(), capturing(r).beneath)
  assert.equal([r.w.disk.files.has(stale), r.w.disk.files.has(live)], [false, true])
})

test('an old curl with no plugin data folder to write in: the step throws, and the stream policy answers it', async () => {
  const r = await routed({ pluginData: undefined, run: async (argv) => ({ exitCode: 0, stdout: argv[1] === '--version' ? 'curl 7.81.0' : `${KEY}\n`, stderr: '' }) })
  let thrown: Error | undefined
  await stepHook(r, stepEvent(), capturing(r).beneath).catch((err: Error) => (thrown = err))
  assert.is(thrown?.message, 'no plugin data folder')
  const refused = await routed({ disk: fakeFiles({}, ['/elsewhere']), run: async (argv) => ({ exitCode: 0, stdout: argv[1] === '--version' ? 'curl 7.81.0' : `${KEY}\n`, stderr: '' }) })
  let why: Error | undefined
  await stepHook(refused, stepEvent(), capturing(refused).beneath).catch((err: Error) => (why = err))
  assert.is(why?.message, `its folder ${PLUGIN_DATA} cannot be resolved`)
  assert.equal(refused.w.spawned, [], 'no request without its body')
})

// ---- The stream policy ----

test('the stream policy: a routed step\'s failure is answered with its line, never passed beneath; owns names routing\'s models', async () => {
  const r = await routed()
  const policy = (r.feature.hooks['turn.step'] as { onFailure: { answer: (f: Failure, e: unknown, ctx: unknown) => AsyncGenerator<unknown, unknown>; owns: (e: unknown) => boolean } }).onFailure
  const e = stepEvent('gpt-5', { index: 4 })
  const out = await (async () => {
    const chunks: unknown[] = []
    const gen = policy.answer({ message: 'a chunk the engine refused', calledNext: true }, e, r.ctx)
    for (;;) {
      const n = await gen.next()
      if (n.done) return { chunks, result: n.value }
      chunks.push(n.value)
    }
  })()
  assert.equal(answerOf(out.chunks), ['klyth: GPT-5 failed: a chunk the engine refused', 'stop'])
  assert.equal((out.result as { turnId: string; index: number; answer: string }).index, 4)
  assert.is(policy.owns(stepEvent('gpt-5')), true)
  assert.is(policy.owns(stepEvent('kimi')), true)
  assert.is(policy.owns(stepEvent('claude-opus-5-5')), false)
  r.w.files.set(CONFIG_PATH, '{}')
  await r.feature.verbs!.route!.run(r.port, 'reload', r.ctx)
  assert.is(policy.owns(stepEvent('gpt-5')), true, 'a claimed alias stays owned after the file drops it')
  const fresh = routingWorld()
  const before = (fresh.feature.hooks['turn.step'] as typeof r.feature.hooks['turn.step'] & { onFailure: typeof policy }).onFailure
  assert.is(before.owns(stepEvent('gpt-5')), false, 'before session.start nothing is owned')
  const line = await before.answer({ message: 'x', calledNext: false }, stepEvent('gpt-5'), fresh.ctx).next()
  assert.equal(line.value, { kind: 'text', index: 0, text: 'klyth: gpt-5 failed: x' }, 'named by the model when no route is known')
})

test.run()
