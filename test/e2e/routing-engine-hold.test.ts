// Routing measurements (src/features/routing/NOTES.md §11.1): an `http.fetch` hook holding the engine's
// own request for a routed step (`--model gpt-5`, a probe turn.step that calls `next` and yields its own
// text) until a verdict comes, then answering it or refusing it. How long the engine waits, whether the
// hook's budget runs during the hold, and what a refusal after the hook's text makes of the run.
// The hold's verdict comes when the step's `$.process.run(sleep)` ends. KEEL_E2E_LONG=1 adds the
// 200 s and 330 s holds and the late-read variant (about 12 minutes).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { startMockModel, byKind, type MockModel } from './mock-model.ts'
import { cleanupTmp, runClaude, tmpDir, writePlugin } from './engine.ts'
import { kitSource, tagged } from './probe-kit.ts'

let mock: MockModel | undefined
test.after.each(async () => {
  await mock?.close()
  mock = undefined
})
test.after(() => cleanupTmp())

type Case = { waitMs: number; outcome: 'answer' | 'deny'; poll?: boolean; late?: boolean }
const PROBE = (cfg: Case) => kitSource(cfg) + `
let release
const verdict = new Promise((r) => { release = r })
let fetches = 0
function unfinished(model) {
  const ev = (type, data) => 'event: ' + type + '\\ndata: ' + JSON.stringify(Object.assign({ type }, data)) + '\\n\\n'
  const usage = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
  return ev('message_start', { message: { id: 'msg_keel_local', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage } })
    + ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } })
    + ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: '.' } })
}
export function register(on) {
  on('turn.step', async function* ($, e, next) {
    if (!isAlias(e.model)) return yield* next(e)
    const beneath = next(e)
    const got = []
    let done
    const readAll = async () => { for (let r = await beneath.next(); ; r = await beneath.next()) { if (r.done) { done = r.value; return } got.push(r.value) } }
    let reading
    if (CFG.late) got.push((await beneath.next()).value)
    else reading = readAll()
    yield { kind: 'text', index: 0, text: 'PARTIAL ' }
    await $.process.run(['/bin/sleep', String(CFG.waitMs / 1000)], { timeoutMs: 600000 })
    release(CFG.outcome)
    if (CFG.late) reading = readAll()
    await reading
    log($, 'BENEATH', { kinds: got.map((c) => c.kind), stop: done && done.stopReason, fetches })
    if (CFG.outcome === 'deny') { for (const c of got) if (c.kind === 'engine') yield c; return done }
    const usage = { input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, model: e.model }
    yield { kind: 'stop', stopReason: 'end_turn', usage }
    return { turnId: e.turnId, index: e.index, answer: 'PARTIAL ', toolUses: [], stopReason: 'end_turn', usage }
  })
  on('http.fetch', async ($, e, next) => {
    const body = bodyOf(e)
    if (!body || !isAlias(body.model) || next.origin.plugin !== 'engine') return next(e)
    if (new URL(e.url).pathname.endsWith('/count_tokens')) return localAnswer(200, JSON.stringify({ input_tokens: 1 }))
    fetches++
    if (CFG.late && fetches === 1) return localAnswer(200, unfinished(body.model), 'text/event-stream')
    const t0 = Date.now()
    let outcome
    // poll: a $ call is always in flight while the hook waits; else a plain await.
    if (CFG.poll) { for (;;) { const o = await Promise.race([verdict, $.process.run(['/bin/sleep', '2'], { timeoutMs: 5000 }).then(() => undefined)]); if (o) { outcome = o; break } } }
    else outcome = await verdict
    log($, 'HELD', { ms: Date.now() - t0, fetches })
    if (outcome === 'deny') return { deny: 'probe: the routed request failed' }
    return localAnswer(200, body.stream ? sse(body.model, '.') : jsonMessage(body.model, '.'), body.stream ? 'text/event-stream' : 'application/json')
  })
}
`

async function run(cfg: Case) {
  mock = await startMockModel(byKind({ main: { text: 'native claude answer' } }))
  const r = await runClaude({ prompt: 'hello', pluginDirs: [writePlugin(tmpDir('probe'), 'probe', PROBE(cfg))], mock, extraArgs: ['--model', 'gpt-5'], timeoutMs: 600_000 })
  console.log(JSON.stringify(cfg), JSON.stringify({ code: r.code, is_error: r.json?.is_error, result: r.json?.result, ms: r.durationMs, held: tagged(r.debugLog, 'probe', 'HELD'), beneath: tagged(r.debugLog, 'probe', 'BENEATH') }))
  return r
}

test('a refusal after the hook\'s own text, the engine chunk passed on: exit 1, is_error, the engine\'s line around the reason', async () => {
  const r = await run({ waitMs: 1000, outcome: 'deny', poll: true })
  assert.equal([r.code, r.json.is_error, r.json.subtype, r.json.api_error_status], [1, true, 'success', 403])
  assert.is(r.json.result, "A mod's http.fetch hook stopped this request: probe: the routed request failed")
  assert.equal(tagged(r.debugLog, 'probe', 'BENEATH')[0].kinds, ['engine'])
  assert.is(mock!.messages().length, 0)
})

test('held 15 s with a plain await: the hook runs past its 10 s budget, is skipped, and the request goes to the network', async () => {
  const r = await run({ waitMs: 15_000, outcome: 'answer' })
  assert.match(r.debugLog, 'probe: http.fetch hook skipped: ran past its 10s budget')
  assert.is(mock!.messages().length, 1, 'native Claude got the alias request')
})

test('held 15 s with a $ call always in flight: no budget runs out, the engine waits and takes the answer', async () => {
  const r = await run({ waitMs: 15_000, outcome: 'answer', poll: true })
  assert.equal([r.code, r.json.is_error, r.json.result], [0, false, 'PARTIAL '])
  assert.ok(tagged(r.debugLog, 'probe', 'HELD')[0].ms >= 14_000)
  assert.not.match(r.debugLog, 'budget')
  assert.is(mock!.messages().length, 0)
})

if (process.env.KEEL_E2E_LONG) {
  test('held 200 s (an answer) and 330 s (a refusal): no engine watchdog, no retry; the late answer is taken', async () => {
    const answered = await run({ waitMs: 200_000, outcome: 'answer', poll: true })
    assert.equal([answered.code, answered.json.result], [0, 'PARTIAL '])
    const refused = await run({ waitMs: 330_000, outcome: 'deny', poll: true })
    assert.equal([refused.code, refused.json.is_error], [1, true])
    assert.equal(tagged(refused.debugLog, 'probe', 'BENEATH')[0].fetches, 1, 'one request: no retry')
  })

  test('answered at once with no message_stop and read 200 s later: the engine\'s stream watchdog warns at 150 s and retries', async () => {
    const r = await run({ waitMs: 200_000, outcome: 'deny', poll: true, late: true })
    assert.match(r.debugLog, 'Streaming idle warning: no chunks received for 150s')
    assert.match(r.debugLog, 'Stream connection error (StreamTruncated) — retrying streaming')
  })
}

test.run()
