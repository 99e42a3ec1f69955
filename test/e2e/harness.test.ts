// Proves the e2e harness against the real pinned engine, with throwaway plugins written at test time.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { startMockModel, byKind, requestText, type MockModel } from './mock-model.ts'
import {
  runClaude, writePlugin, tmpDir, cleanupTmp, debugLines, loadedModules, hookSettleTimes,
  loadRefusals, skippedHooks, type RunResult,
} from './engine.ts'

// The probe logs at session.start, and its context fill at turn.complete. The fill goes under `ctx`
// because the debug log redacts values under a key named `tokens`.
const PROBE = `export function register(on) {
  on('session.start', ($, e, next) => { $.ui.log('probe started', { to: 'debug' }); return next(e) })
  on('turn.complete', async ($, e, next) => {
    const u = await $.session.usage()
    $.ui.log('usage ' + JSON.stringify({ ctx: u.context.tokens, window: u.context.window }), { to: 'debug' })
    return next(e)
  })
}
`

let mock: MockModel | undefined
const probeDir = () => writePlugin(tmpDir('probe'), 'probe', PROBE)

// A failed run's output is the first thing anyone needs; put it in the assertion message.
function ok(r: RunResult): void {
  assert.ok(!r.timedOut && r.code === 0, `engine exit ${r.code} (timedOut=${r.timedOut})\nstderr: ${r.stderr}\nstdout: ${r.stdout}`)
}

test.after.each(async () => {
  await mock?.close()
  mock = undefined
})
test.after(() => cleanupTmp())

test('mock: JSON, SSE framing, count_tokens and unknown paths', async () => {
  mock = await startMockModel([{ text: 'plain' }, { toolUse: { name: 'Bash', input: { command: 'ls' }, id: 'toolu_1' }, inputTokens: 7 }])
  const post = (path: string, body: object) => fetch(mock!.url + path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const user = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }

  const json: any = await (await post("/v1/messages", user)).json()
  assert.is(json.content[0].text, 'plain')
  assert.is(json.stop_reason, 'end_turn')

  const sse = await (await post('/v1/messages?beta=true', { ...user, stream: true })).text()
  const events = [...sse.matchAll(/^event: (\S+)\ndata: (.*)$/gm)].map((m) => ({ name: m[1], data: JSON.parse(m[2]) }))
  assert.equal(events.map((e) => e.name).filter((n) => n !== 'ping'),
    ['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'])
  assert.ok(events.every((e) => e.data.type === e.name), 'each data.type names its event')
  assert.is(events[0].data.message.usage.input_tokens, 7)
  const start = events.find((e) => e.name === 'content_block_start')!.data
  assert.equal(start.content_block, { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: {} })
  const delta = events.find((e) => e.name === 'content_block_delta')!.data
  assert.equal(JSON.parse(delta.delta.partial_json), { command: 'ls' })
  assert.is(events.find((e) => e.name === 'message_delta')!.data.delta.stop_reason, 'tool_use')

  const count: any = await (await post("/v1/messages/count_tokens", user)).json()
  assert.ok(count.input_tokens > 0)
  assert.is((await post('/v1/nowhere', {})).status, 404)
  assert.equal(mock.messages().map((r) => r.path), ['/v1/messages', '/v1/messages?beta=true'])
})

test('headless run loads the probe, logs it, and sends the prompt to the mock', async () => {
  mock = await startMockModel(byKind({ main: { text: 'pong from mock' } }))
  const r = await runClaude({ prompt: 'hello probe 7391', pluginDirs: [probeDir()], mock })
  ok(r)
  assert.is(r.json?.result, 'pong from mock', 'the engine parsed our SSE answer')
  assert.ok(r.sessionId, 'json output carries session_id')
  assert.ok(debugLines(r.debugLog, 'probe').includes('probe started'), r.debugLog)
  const probe = loadedModules(r.debugLog).find((m) => m.plugin === 'probe')
  assert.equal(probe && { source: probe.source, tier: probe.tier, events: probe.events },
    { source: 'inline', tier: 'user', events: ['session.start', 'turn.complete'] })
  assert.ok(hookSettleTimes(r.debugLog, 'probe')['session.start']?.length === 1)
  assert.equal(loadRefusals(r.debugLog), [])
  const main = mock.messages('main')
  assert.is(main.length, 1)
  assert.ok(requestText(main[0].body).includes('hello probe 7391'))
})

test('/compact with --resume sends a summarize request carrying the instructions', async () => {
  mock = await startMockModel()
  const plugin = probeDir()
  const t1 = await runClaude({ prompt: 'turn one', pluginDirs: [plugin], mock })
  ok(t1)
  assert.is(mock.messages('summarize').length, 0)
  const t2 = await runClaude({ prompt: '/compact keep the probe', pluginDirs: [plugin], mock, home: t1.home, cwd: t1.cwd, resume: t1.sessionId })
  ok(t2)
  assert.is(t2.sessionId, t1.sessionId)
  const sums = mock.messages('summarize')
  assert.is(sums.length, 1)
  assert.ok(requestText(sums[0].body).includes('keep the probe'))
  assert.ok(requestText(sums[0].body).includes('turn one'), 'the summarizer sees the resumed conversation')
})

test('mock inputTokens drive the session context fill', async () => {
  mock = await startMockModel(byKind({ main: { text: 'big', inputTokens: 150_000 } }))
  const r = await runClaude({ prompt: 'fill it', pluginDirs: [probeDir()], mock })
  ok(r)
  const usage = debugLines(r.debugLog, 'probe').filter((l) => l.startsWith('usage '))
  assert.is(usage.length, 1, r.debugLog)
  assert.is(JSON.parse(usage[0].slice('usage '.length)).ctx, 150_000)
})

test('tool_use round-trips, and log readers see refusals and skipped hooks', async () => {
  mock = await startMockModel(byKind({
    main: (_req, i) => i === 0 ? { toolUse: { name: 'Bash', input: { command: 'echo tool-ran-42', description: 'echo' } } } : { text: 'done' },
  }))
  const refused = writePlugin(tmpDir('refused'), 'refused', `export function register(on) { on('no.such.event', ($, e, next) => next(e)) }`)
  const thrower = writePlugin(tmpDir('thrower'), 'thrower', `export function register(on) { on('turn.complete', () => { throw new Error('boom') }) }`)
  const r = await runClaude({ prompt: 'run it', pluginDirs: [refused, thrower], mock, extraArgs: ['--allowedTools', 'Bash'] })
  ok(r)
  assert.is(r.json?.result, 'done')
  const main = mock.messages('main')
  assert.is(main.length, 2)
  assert.ok(requestText(main[1].body).includes('tool-ran-42'), 'the Bash result went back to the model')
  const refusals = loadRefusals(r.debugLog)
  assert.is(refusals.length, 1)
  assert.is(refusals[0].plugin, 'refused')
  assert.match(refusals[0].reason, '"no.such.event" is not an event')
  assert.equal(skippedHooks(r.debugLog), [{ plugin: 'thrower', event: 'turn.complete', reason: 'threw Error: boom' }])
})

test.run()
