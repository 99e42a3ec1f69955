// One routed request over curl (§3.3) with fake edges: curl's `-i` output split anywhere, the
// stream yielded as it comes, error statuses and curl's exits as one line each, retries only
// before output and only within the budget, the watchdog on the engine's clock, a JSON answer.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createAnthropicDecoder } from '../../../src/features/routing/anthropic.ts'
import { CURL_ARGS, CURL_PATH } from '../../../src/features/routing/constants.ts'
import { curlConfig, type CurlRequest } from '../../../src/features/routing/curl.ts'
import { failureText } from '../../../src/features/routing/failure.ts'
import { createOpenAiDecoder, decodeOpenAiCompletion } from '../../../src/features/routing/openai.ts'
import { redactorFor } from '../../../src/features/routing/redact.ts'
import type { StepChunk } from '../../../src/features/routing/step.ts'
import { sendRequest, type Decoder, type Outcome, type TransportEdges, type TransportOptions } from '../../../src/features/routing/transport.ts'
import { context, run } from './fixtures/harness.ts'
import { fixture } from './fixtures/read.ts'
import { cutAt, fakeChild, head, seededCuts, SSE_HEAD, type FakeChild } from './fake-child.ts'
import { settle } from '../fakes.ts'

const KEY = 'sk-test-SECRET-1234'
const ROUTE = { label: 'GPT-5', provider: { id: 'example' } }
const REQUEST: CurlRequest = { url: 'https://api.example.com/v1/chat/completions', headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' }, body: '{"model":"gpt-5-2025","stream":true}' }
const TEXT = fixture('openai-text.txt')
const EXPECTED = run(createOpenAiDecoder, [TEXT])

type World = {
  children: FakeChild[]
  spawned: { argv: readonly string[]; input: string }[]
  sleeps: number[]
  timers: { ms: number; fn: () => void; stopped: boolean }[]
  clock: number
  remaining: number
  aborted: boolean
  decoders: number
}

function world(children: FakeChild[], over: Partial<World> = {}) {
  const w: World = { children, spawned: [], sleeps: [], timers: [], clock: 0, remaining: 10_000, aborted: false, decoders: 0, ...over }
  const edges: TransportEdges = {
    spawn: (argv, input) => {
      w.spawned.push({ argv, input })
      const child = w.children.shift()
      if (!child) throw new Error('no child scripted')
      return child.gen
    },
    sleep: async (ms) => void w.sleeps.push(ms),
    every: (ms, fn) => {
      const timer = { ms, fn, stopped: false }
      w.timers.push(timer)
      return () => void (timer.stopped = true)
    },
    now: async () => w.clock,
    remainingMs: () => w.remaining,
    aborted: () => w.aborted,
  }
  const tick = () => {
    for (const t of w.timers) if (!t.stopped) t.fn()
  }
  return { w, edges, tick }
}

const options = (w: World, over: Partial<TransportOptions> = {}): TransportOptions => ({
  curl: [CURL_PATH, ...CURL_ARGS],
  bodyMode: { kind: 'json' },
  idleMs: 120_000,
  makeDecoder: (): Decoder => {
    w.decoders++
    return createOpenAiDecoder(context())
  },
  ...over,
})

async function drain(gen: AsyncGenerator<StepChunk, Outcome>): Promise<{ chunks: StepChunk[]; outcome: Outcome }> {
  const chunks: StepChunk[] = []
  for (;;) {
    const r = await gen.next()
    if (r.done) return { chunks, outcome: r.value }
    chunks.push(r.value)
  }
}

/** One request against scripted children. */
async function send(children: FakeChild[], over: Partial<World> = {}, opts: Partial<TransportOptions> = {}) {
  const { w, edges } = world(children, over)
  const out = await drain(sendRequest(edges, REQUEST, options(w, opts)))
  return { ...out, w }
}

const texts = (chunks: readonly StepChunk[]) => chunks.map((c) => (c.kind === 'text' ? c.text : c.kind))
/** The line a failure is told with (index.ts tells it as the engine's error), redacted as there. */
const lineOf = (outcome: Outcome) => outcome.failure && failureText('keel', ROUTE, outcome.failure, redactorFor([KEY]))

test('a 2xx event stream, curl\'s output split at every point, one character at a time and at seeded points: the decoder\'s chunks, in order', async () => {
  const output = SSE_HEAD + TEXT
  const splits: string[][] = [[output], output.split('')]
  for (let k = 1; k < output.length; k++) splits.push([output.slice(0, k), output.slice(k)])
  for (let seed = 1; seed <= 20; seed++) splits.push(cutAt(output, seededCuts(output.length, 12, seed)))
  for (const pieces of splits) {
    const { chunks, outcome, w } = await send([fakeChild().out(...pieces).exit(0)])
    assert.equal(chunks, EXPECTED.chunks, `${pieces.length} pieces: ${pieces.map((p) => p.length).join(',')}`)
    assert.equal(outcome, { end: { chunks: EXPECTED.chunks.slice(-1), result: EXPECTED.result }, retries: 0 })
    assert.equal([w.spawned.length, w.sleeps, w.decoders], [1, [], 1])
  }
})

test('the stream is yielded as it arrives, before curl ends; interim heads and stderr change nothing; the watchdog stops', async () => {
  const child = fakeChild()
  const { w, edges } = world([child])
  const gen = sendRequest(edges, REQUEST, options(w))
  const events = TEXT.split('\n\n').map((e) => `${e}\n\n`)
  child.err('curl: (0) a warning\n').out('HTTP/1.1 100 Continue\r\n\r\n', SSE_HEAD, events[0]!, events[1]!)
  assert.equal(await gen.next(), { done: false, value: { kind: 'text', index: 0, text: 'Hello' } })
  child.out(events[2]!)
  assert.equal(await gen.next(), { done: false, value: { kind: 'text', index: 0, text: ', wörld ' } })
  assert.is(w.timers[0]!.stopped, false, 'the watchdog runs while the stream does')
  child.out(...events.slice(3)).exit(0)
  const rest = await drain(gen)
  assert.equal(texts(rest.chunks), ['🚀 done.', 'stop'])
  assert.is(rest.outcome.failure, undefined)
  assert.equal(w.spawned, [{ argv: [CURL_PATH, ...CURL_ARGS], input: curlConfig(REQUEST, { kind: 'json' }) }], 'curl by its argv, the config (key and body) on stdin')
  assert.equal(w.timers.map((t) => [t.ms, t.stopped]), [[30_000, true]], 'ticks at a quarter of the idle time; stopped at the end')
})

test('a last event without its blank line still counts when curl ends cleanly (sse.ts end()); cut off, it is curl\'s line that shows', async () => {
  const event = (delta: object, finish: string | null = null) => `data: ${JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })}`
  const stream = `${event({ content: 'Hello' })}\n\n${event({ content: ' tail' }, 'stop')}`
  for (const ending of ['', '\n', '\r\n']) {
    const { chunks, outcome } = await send([fakeChild().out(SSE_HEAD, stream + ending).exit(0)])
    assert.equal(texts(chunks), ['Hello', ' tail', 'stop'], JSON.stringify(ending))
    assert.equal([outcome.failure, outcome.end?.result.answer], [undefined, 'Hello tail'])
  }
  const partial = await send([fakeChild().out(SSE_HEAD, `${event({ content: 'Hello' })}\n\ndata: {"choi`).exit(18)])
  assert.equal([texts(partial.chunks), lineOf(partial.outcome)], [['Hello'], 'keel: GPT-5 failed: curl exited 18: the connection closed before the answer was complete'])
  const broken = await send([fakeChild().out(SSE_HEAD, `${event({ content: 'Hello' })}\n\ndata: {"choi`).exit(0)])
  assert.equal([texts(broken.chunks), lineOf(broken.outcome)], [['Hello'], 'keel: GPT-5 failed: example sent a stream that is not JSON ({"choi)'])
})

test('the body from a file for an old curl: the config names it', async () => {
  const { w } = await send([fakeChild().out(SSE_HEAD, TEXT).exit(0)], {}, { bodyMode: { kind: 'file', path: '/data/routing-request-1.json' } })
  assert.is(w.spawned[0]!.input, curlConfig(REQUEST, { kind: 'file', path: '/data/routing-request-1.json' }))
  assert.match(w.spawned[0]!.input, /^data-binary = "@\/data\/routing-request-1\.json"$/m)
})

test('non-2xx: the provider\'s message in one line (redacted), no retry for a 4xx, the status and body in the outcome', async () => {
  const cases: [string, string, string][] = [
    [head(401, { 'content-type': 'application/json' }, 'Unauthorized'), `{"error":{"message":"Incorrect API key provided: ${KEY}.","type":"invalid_request_error"}}`, 'keel: GPT-5 failed: example answered 401 Incorrect API key provided: [redacted].'],
    [head(400, { 'content-type': 'application/json' }), '{"type":"error","error":{"type":"invalid_request_error","message":"max_tokens: too large"}}', 'keel: GPT-5 failed: example answered 400 max_tokens: too large'],
    [head(404, { 'content-type': 'text/html' }), '<html><head><title>404 Not Found</title></head></html>', 'keel: GPT-5 failed: example answered 404 404 Not Found'],
    [head(403), '', 'keel: GPT-5 failed: example answered 403'],
  ]
  for (const [h, body, line] of cases) {
    const output = h + body
    const { chunks, outcome, w } = await send([fakeChild().out(...cutAt(output, [3, h.length - 1, h.length + 5])).exit(0)])
    assert.equal([chunks, lineOf(outcome)], [[], line], line)
    assert.equal(outcome.failure, { kind: 'status', status: Number(h.slice(9, 12)), body })
    assert.equal([outcome.retries, w.spawned.length, w.sleeps, outcome.end], [0, 1, [], undefined])
  }
  const big = 'e'.repeat(20_000)
  const { outcome } = await send([fakeChild().out(head(400), big.slice(0, 9000), big.slice(9000)).exit(0)])
  assert.is(outcome.failure?.kind === 'status' && outcome.failure.body.length, 16 * 1024, 'an error body is kept to 16 KiB')
})

test('429 and 5xx before output: retried after retry-after (seconds or a date) or the doubling wait, with a fresh decoder; the answer is the last attempt\'s', async () => {
  const ok = () => fakeChild().out(SSE_HEAD + TEXT).exit(0)
  const r1 = await send([fakeChild().out(head(429, { 'retry-after': '2' }), '{"error":{"message":"slow down"}}').exit(0), ok()])
  assert.equal([r1.w.sleeps, r1.w.spawned.length, r1.w.decoders, r1.outcome.retries], [[2000], 2, 2, 1])
  assert.equal(r1.chunks, EXPECTED.chunks, 'nothing of the failed attempt shows')
  assert.is(r1.outcome.failure, undefined)
  assert.equal(r1.w.spawned[0], r1.w.spawned[1], 'the same request again')

  const now = Date.parse('Wed, 01 Jan 2026 00:00:00 GMT')
  const r2 = await send([fakeChild().out(head(429, { 'Retry-After': 'Wed, 01 Jan 2026 00:00:03 GMT' })).exit(0), ok()], { clock: now })
  assert.equal(r2.w.sleeps, [3000], 'an HTTP date against the engine\'s clock')

  const r3 = await send([fakeChild().out(head(503)).exit(0), fakeChild().out(head(500)).exit(0), ok()])
  assert.equal([r3.w.sleeps, r3.outcome.retries, r3.chunks], [[500, 1000], 2, EXPECTED.chunks])

  const r4 = await send([fakeChild().out(head(500), 'one').exit(0), fakeChild().out(head(502), 'two').exit(0), fakeChild().out(head(529), '{"error":{"message":"Overloaded"}}').exit(0)])
  assert.equal([r4.w.sleeps, r4.w.spawned.length, r4.outcome.retries], [[500, 1000], 3, 2], 'twice at most')
  assert.equal([r4.chunks, lineOf(r4.outcome)], [[], 'keel: GPT-5 failed: example answered 529 Overloaded'], 'the last attempt\'s line')
  assert.equal(r4.outcome.failure, { kind: 'status', status: 529, body: '{"error":{"message":"Overloaded"}}' })

  const capped = await send([fakeChild().out(head(429, { 'retry-after': '60' })).exit(0), ok()])
  assert.equal(capped.w.sleeps, [4000], 'a long retry-after is capped')
})

test('a retry is bounded by the dispatch\'s remaining time and never made once it was abandoned', async () => {
  const tight = await send([fakeChild().out(head(500)).exit(0), fakeChild()], { remaining: 1400 })
  assert.equal([tight.w.sleeps, tight.w.spawned.length], [[], 1], '500 ms + the 1 s reserve do not fit in 1.4 s')
  assert.equal(tight.outcome.failure, { kind: 'status', status: 500, body: '' })
  const enough = await send([fakeChild().out(head(500)).exit(0), fakeChild().out(SSE_HEAD + TEXT).exit(0)], { remaining: 1500 })
  assert.equal(enough.w.sleeps, [500])
  const wait = await send([fakeChild().out(head(429, { 'retry-after': '3' })).exit(0), fakeChild()], { remaining: 3999 })
  assert.equal([wait.w.sleeps, wait.w.spawned.length], [[], 1], 'a retry-after that does not fit is told, not slept')
  const aborted = await send([fakeChild().out(head(503)).exit(0), fakeChild()], { aborted: true })
  assert.equal([aborted.w.sleeps, aborted.w.spawned.length], [[], 1])
})

test('curl exits 7 and 52 without an answer: retried; any other exit is its line with curl\'s stderr; exit 0 with nothing is no response', async () => {
  const ok = () => fakeChild().out(SSE_HEAD + TEXT).exit(0)
  const r7 = await send([fakeChild().err('curl: (7) Failed to connect to api.example.com port 443\n').exit(7), fakeChild().err('curl: (52) Empty reply from server\n').exit(52), ok()])
  assert.equal([r7.w.sleeps, r7.outcome.retries, r7.chunks], [[500, 1000], 2, EXPECTED.chunks])
  const r6 = await send([fakeChild().err('curl: (6) Could not resolve host: api.example.com\n').exit(6), fakeChild()])
  assert.equal(r6.w.spawned.length, 1)
  assert.equal([r6.chunks, lineOf(r6.outcome)], [[], "keel: GPT-5 failed: curl exited 6: the provider's host name did not resolve (curl: (6) Could not resolve host: api.example.com)"])
  assert.equal(r6.outcome.failure, { kind: 'curl', code: 6, stderr: 'curl: (6) Could not resolve host: api.example.com\n' })
  const r7x3 = await send([7, 7, 7].map((code) => fakeChild().err(`curl: (7) refused ${KEY}\n`).exit(code)))
  assert.equal([r7x3.w.spawned.length, r7x3.outcome.retries], [3, 2])
  assert.is(lineOf(r7x3.outcome), 'keel: GPT-5 failed: curl exited 7: the provider could not be reached (curl: (7) refused [redacted])', 'curl\'s stderr is redacted too')
  const empty = await send([fakeChild().exit(0)])
  assert.is(lineOf(empty.outcome), 'keel: GPT-5 failed: the provider closed the connection without an answer')
  assert.equal(empty.outcome.failure, { kind: 'other', reason: 'the provider closed the connection without an answer' })
  const signal = await send([fakeChild().exit(null)])
  assert.equal(signal.outcome.failure, { kind: 'other', reason: 'curl was stopped by SIGTERM' }, 'killed on a signal: says so')
  const noisy = await send([fakeChild().err('e'.repeat(10_000)).err('f'.repeat(10_000)).exit(35)])
  assert.is(noisy.outcome.failure?.kind === 'curl' && noisy.outcome.failure.stderr.length, 16 * 1024, 'stderr is kept to 16 KiB')
})

test('a 2xx answer that holds no event (a proxy\'s login page, an empty body) is no answer: its opening is quoted, never a silent empty turn', async () => {
  const page = await send([fakeChild().out(head(200, { 'content-type': 'text/html' }) + '<html><title>Sign in</title></html>').exit(0)])
  assert.equal(page.outcome.failure, { kind: 'unreadable', sample: '<html><title>Sign in</title></html>' })
  assert.equal([page.chunks, lineOf(page.outcome)], [[], 'keel: GPT-5 failed: example sent a stream that is not JSON (<html><title>Sign in</title></html>)'])
  const nothing = await send([fakeChild().out(SSE_HEAD).exit(0)])
  assert.equal(nothing.outcome.failure, { kind: 'unreadable', sample: 'an empty answer' })
})

test('a failure after output keeps the partial text as yielded, no stop after it, and returns the failure; it is never retried', async () => {
  const events = TEXT.split('\n\n').map((e) => `${e}\n\n`)
  const cut = await send([fakeChild().out(SSE_HEAD, ...events.slice(0, 3)).err('curl: (18) transfer closed with outstanding read data remaining\n').exit(18), fakeChild()])
  assert.equal(texts(cut.chunks), ['Hello', ', wörld '])
  assert.equal([cut.w.spawned.length, cut.outcome.retries], [1, 0])
  assert.equal(cut.outcome.failure, { kind: 'curl', code: 18, stderr: 'curl: (18) transfer closed with outstanding read data remaining\n' })
  assert.is(lineOf(cut.outcome), 'keel: GPT-5 failed: curl exited 18: the connection closed before the answer was complete (curl: (18) transfer closed with outstanding read data remaining)')

  const headOnly = await send([fakeChild().out(SSE_HEAD).exit(52), fakeChild()])
  assert.equal([headOnly.w.spawned.length, headOnly.outcome.failure?.kind], [1, 'curl'], 'an exit after a 2xx head is not retried, even 52')

  // An error event inside the stream: the child is let go at once, the rest never read.
  const child = fakeChild().out(SSE_HEAD, fixture('openai-error.txt'))
  const streamError = await send([child])
  assert.equal([texts(streamError.chunks), lineOf(streamError.outcome)], [['Partial ', 'answer'], 'keel: GPT-5 failed: example sent an error: Upstream overloaded'])
  assert.equal(streamError.outcome.failure, { kind: 'stream-error', message: 'Upstream overloaded\nplease retry' })
  assert.ok(child.left, 'the child is let go')

  const notJson = await send([fakeChild().out(SSE_HEAD + fixture('openai-not-json.txt')).exit(0)])
  assert.equal([texts(notJson.chunks), lineOf(notJson.outcome)], [['Before'], 'keel: GPT-5 failed: example sent a stream that is not JSON ({"choices": [oops)'])

  // A stream that ends cleanly with neither a finish reason nor [DONE]: cut, not finished.
  const unfinished = await send([fakeChild().out(SSE_HEAD, ...events.slice(0, 3)).exit(0), fakeChild()])
  assert.equal([texts(unfinished.chunks), unfinished.outcome.failure, unfinished.w.spawned.length], [['Hello', ', wörld '], { kind: 'unfinished' }, 1])
  assert.is(lineOf(unfinished.outcome), 'keel: GPT-5 failed: example ended the stream without finishing the answer (no finish reason, no end marker)')

  // A later pull that rejects (the dispatch torn down mid-stream): the text so far stands with the reason.
  const torn = await send([fakeChild().out(SSE_HEAD, events[0]!, events[1]!).fail(new Error('the dispatch ended')), fakeChild()])
  assert.equal([texts(torn.chunks), lineOf(torn.outcome)], [['Hello'], 'keel: GPT-5 failed: the dispatch ended'])
  assert.equal([torn.w.spawned.length, torn.outcome.failure], [1, { kind: 'other', reason: 'the dispatch ended' }])
})

test('the watchdog: a provider that stops sending for four quiet ticks (within 1.25x the idle time) is cut off, the partial answer standing', async () => {
  const child = fakeChild()
  const { w, edges, tick } = world([child, fakeChild()])
  const gen = sendRequest(edges, REQUEST, options(w, { idleMs: 1000 }))
  const events = TEXT.split('\n\n').map((e) => `${e}\n\n`)
  child.out(SSE_HEAD + events[0]! + events[1]!)
  assert.equal((await gen.next()).value, { kind: 'text', index: 0, text: 'Hello' })
  assert.is(w.timers[0]!.ms, 250)
  const pending = gen.next()
  // Four ticks: the first sees the piece that came, three are quiet.
  for (let i = 0; i < 4; i++) tick()
  child.out(events[2]!)
  assert.equal((await pending).value, { kind: 'text', index: 0, text: ', wörld ' }, 'a piece resets the count')
  const cutOff = gen.next()
  let settled = false
  void cutOff.then(() => (settled = true))
  for (let i = 0; i < 4; i++) tick()
  await settle()
  assert.is(settled, false, 'the first tick saw the new piece: three quiet ones are no stall')
  tick()
  const ended = await cutOff
  assert.is(ended.done, true, 'nothing more is yielded')
  const outcome = ended.value as Outcome
  assert.equal(outcome.failure, { kind: 'stall', idleMs: 1000 })
  assert.is(lineOf(outcome), 'keel: GPT-5 stopped sending (no data for 1 s); the partial answer stands')
  assert.ok(child.left, 'the stalled child is let go')
  assert.equal([w.timers[0]!.stopped, w.spawned.length], [true, 1], 'a stall is not retried')
})

test('the watchdog before any byte: four quiet ticks; a tiny idle time still ticks every millisecond', async () => {
  const { w, edges, tick } = world([fakeChild()])
  const gen = sendRequest(edges, REQUEST, options(w, { idleMs: 2 }))
  const first = gen.next()
  await settle()
  for (let i = 0; i < 4; i++) tick()
  const { done, value } = await first
  assert.is(done, true)
  assert.equal((value as Outcome).failure, { kind: 'stall', idleMs: 2 })
  assert.is(lineOf(value as Outcome), 'keel: GPT-5 stopped sending (no data for 0.002 s); the partial answer stands')
  assert.is(w.timers[0]!.ms, 1)
})

test('a 2xx JSON answer (a provider that ignored stream: true) goes through pushCompletion, whole at the end', async () => {
  const json = fixture('openai-completion.json')
  const expected = decodeOpenAiCompletion(json, context())
  assert.ok('chunks' in expected)
  const child = fakeChild()
  const { w, edges } = world([child])
  const gen = sendRequest(edges, REQUEST, options(w))
  const h = head(200, { 'content-type': 'application/json; charset=utf-8' })
  child.out(h, json.slice(0, 100))
  const first = gen.next()
  let settled = false
  void first.then(() => (settled = true))
  await settle()
  assert.is(settled, false, 'nothing before the JSON is whole')
  child.out(json.slice(100)).exit(0)
  const rest = await drain(gen)
  assert.equal([(await first).value, ...rest.chunks], expected.chunks)
  assert.equal(rest.outcome, { end: { chunks: expected.chunks.slice(2), result: expected.result, kept: expected.kept }, retries: 0 }, 'the end: the checked tool calls and the stop (and the reasoning the step sends back)')

  const broken = await send([fakeChild().out(h, '{"choices": [').exit(0)])
  assert.equal([broken.chunks, lineOf(broken.outcome)], [[], 'keel: GPT-5 failed: example sent a stream that is not JSON ({"choices": [)'])
  const cut = await send([fakeChild().out(h, json).exit(56)])
  assert.equal([texts(cut.chunks), lineOf(cut.outcome)], [['thinking', 'Reading it.'], 'keel: GPT-5 failed: curl exited 56: the connection broke while the answer was arriving'], 'the answer stands, the cut is said, and no held-back tool call goes out')
  // A decoder that reads streams only (anthropic): a JSON answer is unreadable, its start quoted.
  const message = `{"type":"message","content":[${' '.repeat(100)}]}`
  const anthropic = await send([fakeChild().out(h, message).exit(0)], {}, { makeDecoder: () => createAnthropicDecoder(context()) })
  assert.equal(anthropic.outcome.failure, { kind: 'unreadable', sample: message.slice(0, 80) })
})

test('a spawn whose first pull rejects (curl cannot start): its reason in one line, no retry', async () => {
  const r = await send([fakeChild().fail(new Error('spawn /usr/bin/curl ENOENT')), fakeChild()])
  assert.equal([r.chunks, lineOf(r.outcome)], [[], 'keel: GPT-5 failed: spawn /usr/bin/curl ENOENT'])
  assert.equal([r.outcome.failure, r.outcome.retries, r.w.spawned.length, r.w.decoders], [{ kind: 'other', reason: 'spawn /usr/bin/curl ENOENT' }, 0, 1, 1])
  assert.ok(r.w.timers[0]!.stopped)
  const odd = await send([fakeChild().fail('denied by a hook')])
  assert.equal(odd.outcome.failure, { kind: 'other', reason: 'denied by a hook' })
})

test.run()
