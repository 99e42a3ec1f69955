// The routing cores against the real transport: /usr/bin/curl -q -sS -N -i -K - fed keel's config
// on stdin, talking to the mock provider, its output read by keel's -i reader, SSE parser and
// decoders, as a routed step would (routing.md §2.3, §3.3, §5.1). No engine runs here.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createAnthropicDecoder, redirectRequest } from '../../src/features/routing/anthropic.ts'
import type { Provider, Route } from '../../src/features/routing/config.ts'
import { CURL_ARGS, CURL_PATH } from '../../src/features/routing/constants.ts'
import { createCurlReader, curlConfig, parseCurlVersion, retryAfterMs, retryPlan, type BodyMode, type CurlHead, type CurlRequest } from '../../src/features/routing/curl.ts'
import { failureText, type RouteFailure } from '../../src/features/routing/failure.ts'
import { createToolIds } from '../../src/features/routing/ids.ts'
import { createOpenAiDecoder, decodeOpenAiCompletion, openAiTarget, toOpenAiRequest } from '../../src/features/routing/openai.ts'
import { NO_REPLAY } from '../../src/features/routing/replay.ts'
import { redactorFor } from '../../src/features/routing/redact.ts'
import { createSseParser } from '../../src/features/routing/sse.ts'
import type { StepChunk, StepContext, StepEnd, StreamDecoder } from '../../src/features/routing/step.ts'
import type { AnthropicRequest } from '../../src/features/routing/wire.ts'
import { cleanupTmp, tmpDir } from './engine.ts'
import { startMockProvider, type MockProvider, type ProviderReply } from './mock-provider.ts'

const KEY = 'sk-test-SECRET-1234'
const PKG = 'keel'

let mock: MockProvider
test.before.each(async () => {
  mock = await startMockProvider()
})
test.after.each(async () => {
  await mock.close()
})
test.after(() => cleanupTmp())

const providerFor = (url: string, api: Provider['api'] = 'openai-chat'): Provider => ({ id: 'mock', api, baseUrl: api === 'openai-chat' ? `${url}/v1` : url, auth: { env: 'MOCK_KEY' }, headers: {} })
const routeFor = (provider: Provider): Route => ({ alias: 'gpt-5', label: 'GPT-5', model: 'gpt-5-mock', context: 400000, vision: false, provider })
const context = (): StepContext => ({ pkg: PKG, label: 'GPT-5', alias: 'gpt-5', mintId: createToolIds((n) => crypto.getRandomValues(new Uint8Array(n))) })
const user = (content: AnthropicRequest['messages'][number]['content']): AnthropicRequest => ({ model: 'gpt-5', max_tokens: 128000, stream: true, system: 'Be brief.', messages: [{ role: 'user', content }] })
const texts = (chunks: readonly StepChunk[]) => chunks.flatMap((c) => (c.kind === 'text' ? [c.text] : []))

type CurlRun = { code: number | null; stderr: string; argv: string[]; cmdline?: string; environ?: string; stalled: boolean }

/** One curl, config on stdin; pieces go to `onPiece` as they arrive; no byte for `idleMs` kills curl (the watchdog). */
function runCurl(config: string, onPiece: (piece: string) => void, opts: { idleMs?: number; peekProc?: boolean } = {}): Promise<CurlRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(CURL_PATH, [...CURL_ARGS], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: '/usr/bin:/bin' } })
    const run: CurlRun = { code: null, stderr: '', argv: child.spawnargs, stalled: false }
    let idle: NodeJS.Timeout | undefined
    const arm = () => {
      clearTimeout(idle)
      if (opts.idleMs) idle = setTimeout(() => {
        run.stalled = true
        child.kill()
      }, opts.idleMs)
    }
    child.stdout.setEncoding('utf8')
    child.stdout.on('data', (piece: string) => {
      // At its first output curl is surely running (and, with more pieces to come, not yet gone).
      if (opts.peekProc && run.cmdline === undefined) {
        run.cmdline = readFileSync(`/proc/${child.pid}/cmdline`, 'utf8')
        run.environ = readFileSync(`/proc/${child.pid}/environ`, 'utf8')
      }
      arm()
      onPiece(piece)
    })
    child.stderr.setEncoding('utf8')
    child.stderr.on('data', (text: string) => (run.stderr += text))
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(idle)
      run.code = code
      resolve(run)
    })
    arm()
    child.stdin.end(config)
  })
}

type Step = StepEnd & { failure?: RouteFailure; runs: CurlRun[]; heads: CurlHead[] }

/**
 * A routed step as the engine edge will run it: curl per attempt; before any output a 429/5xx or
 * curl 7/52 is retried by the retry plan; a non-2xx answer, a stream failure, a curl error, a stall
 * or a stream with no finish ends the step, its `answer` what the person reads: whatever text had
 * come, then the failure line.
 */
async function routedStep(request: CurlRequest, opts: { idleMs?: number; peekProc?: boolean; decoder?: (ctx: StepContext) => StreamDecoder; mode?: BodyMode } = {}): Promise<Step> {
  const route = routeFor(providerFor(mock.url))
  const redact = redactorFor([KEY])
  const runs: CurlRun[] = []
  const heads: CurlHead[] = []
  for (let retries = 0; ; retries++) {
    const decoder = (opts.decoder ?? createOpenAiDecoder)(context())
    const reader = createCurlReader()
    const sse = createSseParser()
    const chunks: StepChunk[] = []
    let head: CurlHead | undefined
    let errorBody = ''
    let failure: RouteFailure | undefined
    const feed = (events: readonly { data: string }[]) => {
      for (const event of events) {
        if (failure) return
        const decoded = decoder.push(event.data)
        chunks.push(...decoded.chunks)
        failure = decoded.failure
      }
    }
    const run = await runCurl(curlConfig(request, opts.mode ?? { kind: 'json' }), (piece) => {
      for (const out of reader.push(piece)) {
        if (out.kind === 'head') heads.push((head = out.head))
        else if (head!.status >= 300) errorBody += out.text
        else feed(sse.push(out.text))
      }
    }, opts)
    runs.push(run)
    if (head && head.status < 300) feed(sse.end())
    const outputSent = chunks.length > 0
    const plan = retryPlan({ retries, outputSent, remainingMs: 9000, retryAfterMs: retryAfterMs(head?.headers['retry-after'], Date.now()), ...(head ? { status: head.status } : { curlExit: run.code ?? -1 }) })
    if (plan !== 'stop' && (!head || head.status >= 300)) {
      await new Promise((resolve) => setTimeout(resolve, plan.delayMs))
      continue
    }
    failure ??= run.stalled ? { kind: 'stall', idleMs: opts.idleMs! }
      : head && head.status >= 300 ? { kind: 'status', status: head.status, body: errorBody }
      : run.code !== 0 ? { kind: 'curl', code: run.code ?? -1, stderr: run.stderr }
      : undefined
    const end = failure ? undefined : decoder.finish()
    if (end) return { chunks: [...chunks, ...end.chunks], result: end.result, runs, heads }
    // Failed: what came stands, and the person reads the line after it (the engine shows it as its error).
    failure ??= { kind: 'unfinished' }
    const line = failureText(PKG, route, failure, redact)
    const text = chunks.flatMap((c) => (c.kind === 'text' ? [c.text] : [])).join('')
    return { chunks, result: { answer: text ? `${text}\n\n${line}` : line, toolUses: [], stopReason: null, usage: null }, failure, runs, heads }
  }
}

/** The OpenAI request for an Anthropic body, as a routed step sends it. */
const openAiRequest = (body: AnthropicRequest): CurlRequest => {
  const route = routeFor(providerFor(mock.url))
  return { ...openAiTarget(route.provider, KEY), body: JSON.stringify(toOpenAiRequest(body, { route, pkg: PKG, behaviours: new Set(), replay: NO_REPLAY }).request) }
}

test('curl here takes json pieces', async () => {
  let out = ''
  await new Promise<void>((resolve) => {
    const child = spawn(CURL_PATH, ['--version'])
    child.stdout.on('data', (b: Buffer) => (out += b.toString()))
    child.on('close', () => resolve())
  })
  assert.equal(parseCurlVersion(out)?.json, true, out.split('\n')[0])
})

test('text streams through real curl in order; the key reaches the provider as Bearer, never in argv or environment', async () => {
  mock.setRules([{ match: /hello/, reply: { text: ['Hel', 'lo ', 'wörld 🚀'], usage: { input: 34, cached: 200, output: 7 }, firstByteMs: 300, pieceMs: 20 } }])
  const step = await routedStep(openAiRequest(user('hello there')), { peekProc: true })
  assert.equal(texts(step.chunks), ['Hel', 'lo ', 'wörld 🚀'])
  assert.equal(step.result, { answer: 'Hello wörld 🚀', toolUses: [], stopReason: 'end_turn', usage: { input_tokens: 34, output_tokens: 7, cache_read_input_tokens: 200, cache_creation_input_tokens: 0, model: 'gpt-5' } })
  const [req] = mock.requests
  assert.is(req!.rule, 0)
  assert.is(req!.headers.authorization, `Bearer ${KEY}`)
  assert.is(req!.headers.accept, 'text/event-stream')
  assert.is(req!.headers.expect, undefined, 'Expect: sent empty, so curl waits for no 100-continue')
  assert.equal([req!.body.model, req!.body.stream, req!.body.stream_options], ['gpt-5-mock', true, { include_usage: true }])
  const [run] = step.runs
  assert.equal(run!.argv, [CURL_PATH, '-q', '-sS', '-N', '-i', '-K', '-'])
  assert.is(run!.cmdline, `${CURL_PATH}\0-q\0-sS\0-N\0-i\0-K\0-\0`, 'curl\'s own command line, without the key')
  assert.ok(run!.environ !== undefined && !run!.environ.includes(KEY), 'nor in its environment')
  assert.ok(req!.firstByteAt! - req!.arrivedAt >= 290, 'the head waited for firstByteMs')
})

test('a tool call in 3 argument pieces, then the tool result is answered: ids carried through the round trip', async () => {
  mock.setRules([
    { match: /route-marker-42/, reply: { text: 'The command printed: done.' } },
    { match: /run echo/, reply: { text: 'Let me run it. ', toolCalls: [{ name: 'Bash', arguments: ['{"comm', 'and": "echo route-', 'marker-42"}'] }] } },
  ])
  const first = await routedStep(openAiRequest(user('run echo please')))
  const tool = first.chunks.find((c) => c.kind === 'tool')
  assert.ok(tool?.kind === 'tool' && tool.index === 1 && tool.name === 'Bash' && /^toolu_keel_1_[0-9a-f]{16}$/.test(tool.id), JSON.stringify(tool))
  assert.equal(first.chunks.filter((c) => c.kind === 'input'), [{ kind: 'input', index: 1, json: '{"command": "echo route-marker-42"}' }])
  assert.equal([first.result.stopReason, first.result.toolUses], ['tool_use', [{ name: 'Bash', input: { command: 'echo route-marker-42' } }]])

  const id = tool.id
  const second = await routedStep(openAiRequest({
    ...user('run echo please'),
    messages: [
      { role: 'user', content: 'run echo please' },
      { role: 'assistant', content: [{ type: 'text', text: 'Let me run it. ' }, { type: 'tool_use', id, name: 'Bash', input: { command: 'echo route-marker-42' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'route-marker-42' }] },
    ],
  }))
  assert.is(second.result.answer, 'The command printed: done.')
  const sent = mock.requests[1]!.body.messages
  assert.is(mock.requests[1]!.rule, 0)
  assert.is(sent.at(-2).tool_calls[0].id, id)
  assert.equal(sent.at(-1), { role: 'tool', tool_call_id: id, content: 'route-marker-42' })
})

/** About 3 MB of text holding every character curl's quoting must carry. */
const hardText = () => {
  const unit = 'quote " backslash \\ tab \t newline \n cr \r é ü 中文 🚀👍🏽 @at @@ \u0001 \\n not-a-newline {"json": "inside"} '
  return unit.repeat(Math.ceil(3_000_000 / unit.length))
}

test('the body arrives byte for byte: 3 MB of quotes, backslashes, controls, é and emoji, as json pieces and from a file', async () => {
  const body = JSON.stringify({ model: 'gpt-5-mock', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: hardText() }] })
  assert.ok(body.length > 3_000_000)
  const target = openAiTarget(providerFor(mock.url), KEY)
  const json = await routedStep({ ...target, body })
  assert.is(json.result.answer, 'mock provider answer')
  assert.ok(mock.requests[0]!.raw.equals(Buffer.from(body, 'utf8')), 'json pieces: the same bytes')
  assert.is(mock.requests[0]!.headers['content-type'], 'application/json')

  const file = join(tmpDir('routing-body'), 'req-main.json')
  writeFileSync(file, body)
  const fromFile = await routedStep({ ...target, body }, { mode: { kind: 'file', path: file } })
  assert.is(fromFile.result.answer, 'mock provider answer')
  assert.ok(mock.requests[1]!.raw.equals(Buffer.from(body, 'utf8')), 'data-binary @file: the same bytes')
})

test('without Expect: curl waits for 100 Continue on a large body; the reader skips that block', async () => {
  const body = JSON.stringify({ model: 'gpt-5-mock', stream: true, messages: [{ role: 'user', content: 'x'.repeat(2_000_000) }] })
  const reader = createCurlReader()
  let raw = ''
  const heads: CurlHead[] = []
  const config = curlConfig({ ...openAiTarget(providerFor(mock.url), KEY), body }, { kind: 'json' }).replace('header = "Expect:"\n', '')
  await runCurl(config, (piece) => {
    raw += piece
    for (const out of reader.push(piece)) if (out.kind === 'head') heads.push(out.head)
  })
  assert.ok(raw.startsWith('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n'), raw.slice(0, 60))
  assert.equal(heads.map((h) => h.status), [200])
  assert.is(mock.requests[0]!.headers.expect, '100-continue')
})

test('500 then 200: retried before any output, after retry-after', async () => {
  mock.setRules([{ match: /retry me/, reply: { failTimes: 1, status: 500, retryAfter: 1, text: 'second time lucky' } }])
  const started = Date.now()
  const step = await routedStep(openAiRequest(user('retry me')))
  assert.is(step.result.answer, 'second time lucky')
  assert.equal(step.heads.map((h) => [h.status, h.headers['retry-after']]), [[500, '1'], [200, undefined]])
  assert.is(mock.requests.length, 2)
  assert.ok(mock.requests[1]!.arrivedAt - mock.requests[0]!.arrivedAt >= 1000, 'the retry waited for retry-after')
  assert.ok(Date.now() - started < 5000)
})

test('a 401 is not retried; the provider\'s message reaches the failure line, redacted', async () => {
  mock.setRules([{ match: /.*/, reply: { status: 401, errorMessage: `Incorrect API key provided: ${KEY}.\nSee the docs.` } }])
  const step = await routedStep(openAiRequest(user('hi')))
  assert.is(mock.requests.length, 1)
  assert.equal(step.failure?.kind, 'status')
  assert.is(step.result.answer, 'keel: GPT-5 failed: mock answered 401 Incorrect API key provided: [redacted].')
  assert.equal(step.chunks, [], 'nothing streamed before it')
})

test('a stall: no byte within the idle time kills curl, the provider sees the hang-up, the partial answer stands', async () => {
  mock.setRules([{ match: /.*/, reply: { text: ['s0 ', 's1 ', 's2'], stallAfter: 2, stallMs: 3000 } }])
  const step = await routedStep(openAiRequest(user('hi')), { idleMs: 400 })
  assert.ok(step.runs[0]!.stalled)
  assert.is(step.result.answer, 's0 \n\nkeel: GPT-5 stopped sending (no data for 0.4 s); the partial answer stands')
  const [req] = mock.requests
  await mock.closed(req!)
  assert.ok(req!.aborted, 'the provider recorded the client hanging up')
  assert.ok(req!.closedAt! - req!.firstByteAt! < 1500, 'it hung up at the watchdog, not at the stall\'s end')
})

test('a drop mid-stream: curl exits 18, the partial text stands and the failure line follows', async () => {
  mock.setRules([{ match: /.*/, reply: { text: ['d0 ', 'd1 ', 'd2 ', 'd3'], dropAfter: 3, pieceMs: 10 } }])
  const step = await routedStep(openAiRequest(user('hi')))
  assert.is(step.runs[0]!.code, 18)
  assert.equal(step.failure, { kind: 'curl', code: 18, stderr: step.runs[0]!.stderr })
  assert.match(step.result.answer, /^d0 d1 \n\nkeel: GPT-5 failed: curl exited 18: the connection closed before the answer was complete \(curl: \(18\) .*\)$/)
  assert.is(mock.requests.length, 1, 'output had begun: no retry')
  assert.not.ok(mock.requests[0]!.aborted, 'the mock dropped it; the client did not hang up')
})

test('a line that is not JSON, and a port nobody listens on (curl 7, retried twice)', async () => {
  mock.setRules([{ match: /.*/, reply: { text: 'before', badJson: true } }])
  const bad = await routedStep(openAiRequest(user('hi')))
  assert.equal(bad.failure, { kind: 'unreadable', sample: '{"choices": [oops' })
  assert.is(bad.result.answer, 'before\n\nkeel: GPT-5 failed: mock sent a stream that is not JSON ({"choices": [oops)')

  const closedPort = await startMockProvider()
  const url = closedPort.url
  await closedPort.close()
  const refused = await routedStep({ ...openAiRequest(user('hi')), url: `${url}/v1/chat/completions` })
  assert.equal(refused.runs.map((r) => r.code), [7, 7, 7])
  assert.match(refused.result.answer, /^keel: GPT-5 failed: curl exited 7: the provider could not be reached \(curl: \(7\) Failed to connect to 127\.0\.0\.1 port \d+/)
})

test('anthropic-messages: the redirect through curl, and its SSE decoded into the same chunks', async () => {
  const provider = providerFor(mock.url, 'anthropic-messages')
  const reply: ProviderReply = { reasoning: ['Think.'], text: ['Run', 'ning.'], toolCalls: [{ name: 'Bash', arguments: ['{"command":', ' "ls"}'] }], usage: { input: 10, cached: 90, output: 4 } }
  mock.setRules([{ match: /list files/, reply }])
  const engineBody = JSON.stringify({ ...user('list files'), metadata: { user_id: 'device-1_session-2' }, system: [{ type: 'text', text: 'x-anthropic-billing-header: cc_version=2' }, { type: 'text', text: 'Be brief.' }] })
  const redirected = redirectRequest({ url: 'https://api.anthropic.com/v1/messages?beta=true', headers: { 'anthropic-version': '2023-06-01', 'content-type': 'application/json', 'anthropic-beta': 'x', 'x-claude-code-session-id': 's' }, body: engineBody }, routeFor(provider), KEY, PKG)!
  const step = await routedStep(redirected, { decoder: createAnthropicDecoder })
  const [req] = mock.requests
  assert.is(req!.path, '/v1/messages')
  assert.equal([req!.headers['x-api-key'], req!.headers.authorization, req!.headers['anthropic-beta'], req!.headers['x-claude-code-session-id']], [KEY, undefined, undefined, undefined])
  assert.equal([req!.body.model, 'metadata' in req!.body, JSON.stringify(req!.body.system).includes('billing')], ['gpt-5-mock', false, false])
  assert.equal(step.chunks.map((c) => c.kind), ['thinking', 'text', 'text', 'tool', 'input', 'stop'])
  assert.equal(step.result.toolUses, [{ name: 'Bash', input: { command: 'ls' } }])
  assert.equal(step.result.usage, { input_tokens: 10, output_tokens: 4, cache_read_input_tokens: 90, cache_creation_input_tokens: 0, model: 'gpt-5' })
})

test('a JSON answer when stream is false, and count_tokens', async () => {
  mock.setRules([{ match: /.*/, reply: { text: 'whole', toolCalls: [{ name: 'Read', arguments: '{"file_path":"/a"}' }] } }])
  const request = openAiRequest(user('hi'))
  let out = ''
  const reader = createCurlReader()
  await runCurl(curlConfig({ ...request, body: request.body.replace('"stream":true', '"stream":false') }, { kind: 'json' }), (piece) => {
    for (const o of reader.push(piece)) if (o.kind === 'body') out += o.text
  })
  const end = decodeOpenAiCompletion(out, context())
  assert.ok(!('failure' in end))
  assert.equal([end.result.answer, end.result.toolUses, end.result.stopReason], ['whole', [{ name: 'Read', input: { file_path: '/a' } }], 'tool_use'])
  const counted = await fetch(`${mock.url}/v1/messages/count_tokens`, { method: 'POST', body: '{"messages":[]}' })
  assert.equal(await counted.json(), { input_tokens: 4 })
  assert.is(mock.requests.at(-1)!.rule, 'none')
})

test.run()
