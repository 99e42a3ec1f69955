// Routing's failure rules end to end (routing.md §4), one test each: a request naming an alias never
// reaches native Claude (the mock Messages API gets nothing in any test here) and never falls back
// silently: the turn ends as the engine ends on its own API error (exit 1, is_error: NOTES §11.1),
// showing `klyth: <label> failed: <reason>` (or the rule's own line); a partial answer stands;
// retries happen only before any output.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { rmSync } from 'node:fs'
import { startMockModel, type MockModel } from './mock-model.ts'
import { startMockProvider, type MockProvider, type ProviderReply } from './mock-provider.ts'
import { cleanupTmp, tmpDir, writePlugin } from './engine.ts'
import { startLive, type LiveSession } from './live.ts'
import { results, sendEach } from './probe-kit.ts'
import { ALIAS, assertFailed, REFUSED, routed, routedHome, stepRequests, transcripts } from './routing-kit.ts'

let mock: MockModel | undefined
let provider: MockProvider | undefined
let live: LiveSession | undefined
test.after.each(async () => {
  await live?.stop()
  await mock?.close()
  await provider?.close()
  live = mock = provider = undefined
})
test.after(() => cleanupTmp())

const options = (o: Record<string, unknown>) => ({ pluginConfigs: { klyth: { options: o } } })

async function failingIn(reply: ProviderReply, opts: Parameters<typeof routedHome>[2] & { prompt?: string } = {}) {
  mock = await startMockModel()
  provider = await startMockProvider([{ match: /go/, reply }])
  const { home, plugin } = await routedHome(mock, provider, opts)
  const r = await routed({ prompt: opts.prompt ?? 'go now', pluginDirs: [plugin], mock, home, ...(opts.settings ? { settings: opts.settings } : {}) })
  assert.is(mock.requests.length, 0, 'nothing reached native Claude')
  return { home, r }
}

const failing = async (reply: ProviderReply, opts: Parameters<typeof failingIn>[1] = {}) => (await failingIn(reply, opts)).r

test('401: the provider\'s own message, the turn ends, no retry', async () => {
  const r = await failing({ status: 401, errorMessage: 'Incorrect API key provided' })
  assertFailed(r, 'klyth: Mock GPT failed: mock answered 401 Incorrect API key provided')
  assert.is(r.json.api_error_status, 401, 'the provider\'s own status')
  assert.is(stepRequests(provider!).length, 1)
})

test('500 then 200: retried before any output, and answered', async () => {
  const r = await failing({ text: 'after the retry', failTimes: 1, status: 500 })
  assert.is(r.json.result, 'after the retry')
  assert.is(stepRequests(provider!).length, 2)
})

test('429 with retry-after: the wait honoured, then answered', async () => {
  const r = await failing({ text: 'rate limit passed', failTimes: 1, status: 429, retryAfter: 1 })
  assert.is(r.json.result, 'rate limit passed')
  const [a, b] = stepRequests(provider!)
  assert.ok(b!.arrivedAt - a!.arrivedAt >= 900, `retried after ${b!.arrivedAt - a!.arrivedAt} ms`)
})

test('5xx every time: two retries, then the failure line', async () => {
  const r = await failing({ status: 503, errorMessage: 'overloaded' })
  assertFailed(r, 'klyth: Mock GPT failed: mock answered 503 overloaded')
  assert.is(stepRequests(provider!).length, 3, 'keel\'s two retries; the engine retries no answer keel gave')
})

test('a stream cut mid-way: the partial answer stands, the line says why, no retry after output', async () => {
  const { home, r } = await failingIn({ text: ['partial ', 'answer ', 'never ', 'finished'], dropAfter: 2, pieceMs: 30 })
  assertFailed(r, /^klyth: Mock GPT failed: curl exited \d+/)
  assert.match(transcripts(home), '"text":"partial "', 'the partial answer stands, recorded')
  assert.is(stepRequests(provider!).length, 1)
})

test('no byte for the idle timeout: cut off, the partial answer stands, the provider sees the close', async () => {
  const { home, r } = await failingIn({ text: ['before ', 'the stall'], stallAfter: 2, stallMs: 20_000 }, { settings: options({ routingIdleSeconds: 2 }) })
  assertFailed(r, 'klyth: Mock GPT stopped sending (no data for 2 s); the partial answer stands')
  assert.match(transcripts(home), '"text":"before "', 'the partial answer stands, recorded')
  const [req] = stepRequests(provider!)
  await provider!.closed(req!)
  assert.ok(req!.aborted, 'keel hung up')
  // Cut off before the 20 s stall could end, measured at the provider (the run's own length depends on the machine's load).
  const silent = req!.closedAt! - req!.writes.at(-1)!.at
  assert.ok(silent < 15_000, `the provider was hung up on ${silent} ms after its last byte`)
})

test('a stream that is not JSON: the line names it', async () => {
  const r = await failing({ text: ['some ', 'text'], badJson: true })
  assertFailed(r, /^klyth: Mock GPT failed: mock sent a stream that is not JSON/)
  assert.is(r.json.api_error_status, 502, 'no provider status: a bad gateway')
})

test('an unapproved provider: nothing is sent anywhere, and the line says how to approve', async () => {
  const r = await failing({ text: 'never' }, { trusted: false })
  assertFailed(r, `klyth: provider mock is not approved; run /model ${ALIAS} or /klyth route trust mock`)
  assert.is(provider!.requests.length, 0)
})

test('curl missing: the line says where it was looked for; nothing is sent', async () => {
  const r = await failing({ text: 'never' }, { settings: options({ routingCurl: '/nonexistent/curl' }) })
  assertFailed(r, 'klyth: Mock GPT failed: curl was not found at /nonexistent/curl (set the routingCurl option to its path)')
  assert.is(provider!.requests.length, 0)
})

test('the key command fails: the line names the command and its exit; nothing is sent', async () => {
  const r = await failing({ text: 'never' }, { extras: { provider: { auth: { helper: ['/bin/false'] } } } })
  assertFailed(r, 'klyth: Mock GPT failed: the key for mock could not be read: /bin/false exited 1 (run it yourself to see why)')
  assert.is(provider!.requests.length, 0)
})

test('an alias whose entry has errors is still routing\'s: it fails visibly, never reaching Claude', async () => {
  const r = await failing({ text: 'never' }, { trusted: false, extras: { model: { provider: 'nowhere' } } })
  assertFailed(r, /^klyth: gpt has errors in .*routing\.json \(\/klyth route status names them\); use \/model to pick another$/)
  assert.is(provider!.requests.length, 0)
})

test('the config removed mid-session and reloaded: the alias fails as not configured, never reaching Claude', async () => {
  mock = await startMockModel()
  provider = await startMockProvider([{ match: /one/, reply: { text: 'routed one' } }])
  const { home, plugin } = await routedHome(mock, provider)
  live = await startLive({ mode: 'stream-json', pluginDirs: [plugin], mock, home, extraArgs: ['--model', ALIAS] })
  await sendEach(live, ['turn one'])
  rmSync(`${home}/.claude/keel/routing.json`)
  await sendEach(live, ['/klyth route reload', 'turn two'])
  const out = results(live.output()).map((x) => x.result)
  assert.is(out[0], 'routed one')
  assert.match(out[1], 'routing config read again: config:')
  assert.match(out[1], 'not there')
  assert.match(out[2], new RegExp(`^${REFUSED}klyth: gpt is not configured \\(.*routing\\.json\\); use /model to pick another$`))
  assert.is(results(live.output())[2].is_error, true)
  assert.is(mock.requests.length, 0)
})

test('a request the engine never lets keel see (another plugin answers it first): the step fails visibly, never native', async () => {
  mock = await startMockModel()
  provider = await startMockProvider([{ match: /go/, reply: { text: 'never' } }])
  const { home, plugin } = await routedHome(mock, provider)
  // A plugin above klyth that answers every engine model request itself: klyth's capture never sees it.
  const hider = writePlugin(tmpDir('hider'), 'hider', `export function register(on) {
  on('http.fetch', async ($, e, next) => {
    if (next.origin && next.origin.plugin === 'engine' && /\\/v1\\/messages$/.test(new URL(e.url).pathname)) {
      const ev = (type, data) => 'event: ' + type + '\\ndata: ' + JSON.stringify(Object.assign({ type }, data)) + '\\n\\n'
      const u = { input_tokens: 0, output_tokens: 0 }
      return { value: { status: 200, ok: true, headers: { 'content-type': 'text/event-stream' }, text: ev('message_start', { message: { id: 'msg_hidden', type: 'message', role: 'assistant', model: 'gpt', content: [], stop_reason: null, usage: u } }) + ev('message_delta', { delta: { stop_reason: 'end_turn' }, usage: u }) + ev('message_stop', {}) } }
    }
    return next(e)
  })
}`)
  const r = await routed({ prompt: 'go hidden', pluginDirs: [hider, plugin], mock, home })
  assert.match(r.json.result, /^klyth: Mock GPT failed: the engine sent no request keel could read/)
  assert.is(provider.requests.length, 0)
  assert.is(mock.requests.length, 0)
})

test.run()
