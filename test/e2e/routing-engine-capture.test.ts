// Routing measurements (src/features/routing/NOTES.md §7, §8): capture of the engine's own request
// (design §2.2 source 2, the mutex variant), what an http.fetch hook sees and which answers the engine
// accepts from it, and which side requests naming an alias reach http.fetch in a routed session.
// Capture: the turn.step hook calls next(e); the same plugin's http.fetch hook takes the next alias
// request's body while a capture is pending and answers the engine with a one-block SSE (`.`); the step
// hook drains that stream without yielding it, then yields its own answer.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel } from './mock-model.ts'
import { cleanupTmp, findFiles, runClaude, tmpDir, writePlugin, type RunResult } from './engine.ts'
import { hasPty, startLive, type LiveSession } from './live.ts'
import { kitSource, SECRET, screenText, sleep, tagged } from './probe-kit.ts'

const CAPTURE = (cfg: object) => kitSource(cfg) + `
let pending = null
function summarize(body) {
  const sys = Array.isArray(body.system) ? body.system : []
  return {
    keys: Object.keys(body).sort(),
    system: sys.map((b) => (b.text || '').slice(0, 28)),
    cached: sys.map((b) => !!b.cache_control),
    worker: JSON.stringify(body.system).includes('You are a worker.'),
    tools: (body.tools || []).map((t) => t.name),
    schemas: (body.tools || []).every((t) => t.input_schema && t.input_schema.type === 'object'),
    toolKeys: Array.from(new Set((body.tools || []).flatMap((t) => Object.keys(t)))).sort(),
    metadata: body.metadata ? Object.keys(body.metadata) : null,
    thinking: body.thinking || null, max: body.max_tokens, stream: body.stream, effort: body.output_config ? body.output_config.effort : null,
    roles: (body.messages || []).map((m) => m.role),
  }
}
export function register(on) {
  on('turn.step', async function* ($, e, next) {
    if (!isAlias(e.model)) return yield* next(e)
    const t0 = await $.clock.now()
    const got = new Promise((resolve) => { pending = resolve })
    const s = next(e)
    const kinds = []
    let beneath
    for (;;) { const x = await s.next(); if (x.done) { beneath = x.value; break } kinds.push(x.value.kind) }
    const c = await Promise.race([got, new Promise((resolve) => setTimeout(() => resolve(null), 5000))])
    pending = null
    log($, 'CAPT', { agent: !!e.agentId, index: e.index, ms: c ? c.at - t0 : null, kinds, beneath: { answer: beneath.answer, stop: beneath.stopReason, model: beneath.usage && beneath.usage.model }, body: c && summarize(c.body), fetch: c && c.fetch })
    if (e.agentId) return yield* answer($, e, { text: 'child-answer-77' })
    if (e.index === 0 && CFG.delegate) return yield* answer($, e, { text: 'delegating', tools: [{ name: 'Agent', input: { description: 'probe task', prompt: 'CHILD: do it', subagent_type: 'worker', run_in_background: false } }] })
    return yield* answer($, e, { text: 'CAPTURED-ANSWER' })
  }).catch(async function* ($, e, next) {
    log($, 'CATCH', next.error)
    yield { kind: 'text', index: 0, text: 'probe failed' }
    return { turnId: e.turnId, index: e.index, answer: 'probe failed', toolUses: [], stopReason: 'end_turn', usage: null }
  })
  on('http.fetch', async ($, e, next) => {
    const body = bodyOf(e)
    if (!body || !isAlias(body.model) || !pending) return next(e)
    const h = (e.init && e.init.headers) || {}
    const fetch = {
      url: new URL(e.url).pathname + new URL(e.url).search, initKeys: Object.keys(e.init || {}).filter((k) => e.init[k] !== undefined).sort(),
      method: e.init.method, bodyType: typeof e.init.body, origin: next.origin,
      headerNames: Object.keys(h).sort(), kv: h['x-api-key'], sess: h['x-claude-code-session-id'], agentHeader: h['x-claude-code-agent-id'] === undefined ? null : 'set',
    }
    const p = pending
    pending = null
    p({ body, fetch, at: await $.clock.now() })
    return localAnswer(200, sse(body.model, '.', 'msg_keel_capture'), 'text/event-stream')
  })
}
`

let mock: MockModel | undefined
let live: LiveSession | undefined
test.after.each(async () => {
  await live?.stop()
  live = undefined
  await mock?.close()
  mock = undefined
})
test.after(() => cleanupTmp())

async function captureRun(cfg: object): Promise<RunResult> {
  mock = await startMockModel()
  const cwd = tmpDir('proj')
  mkdirSync(join(cwd, '.claude/agents'), { recursive: true })
  writeFileSync(join(cwd, '.claude/agents/worker.md'), '---\nname: worker\ndescription: A worker for probe tasks\nmodel: gpt-mini\ntools: Read, Bash\n---\nYou are a worker.\n')
  const r = await runClaude({ prompt: 'delegate', cwd, pluginDirs: [writePlugin(tmpDir('probe'), 'probe', CAPTURE(cfg))], mock, extraArgs: ['--model', 'gpt-5'], env: { ANTHROPIC_API_KEY: SECRET } })
  assert.is(r.code, 0, r.stderr)
  assert.is(mock.requests.length, 0)
  return r
}
const transcripts = (r: RunResult) => findFiles(join(r.home, '.claude/projects'), '.jsonl').map((f) => readFileSync(f, 'utf8')).join('\n')

test('capture, main and a definition\'s child: the engine\'s exact body (child: its own prompt and exactly its tools), what http.fetch\'s e holds', async () => {
  const r = await captureRun({ delegate: true })
  assert.is(r.json.result, 'CAPTURED-ANSWER')
  const caps = tagged(r.debugLog, 'probe', 'CAPT')
  assert.equal(caps.map((c) => [c.agent, c.index]), [[false, 0], [true, 0], [false, 1]])
  const [main, child, main1] = caps
  const MAIN_TOOLS = ['Agent', 'Bash', 'Edit', 'ListAgents', 'Read', 'ReportFindings', 'ScheduleWakeup', 'Skill', 'ToolSearch', 'Workflow', 'DeferredToolPlaceholder', 'Write']
  const common = { keys: ['context_management', 'max_tokens', 'messages', 'metadata', 'model', 'output_config', 'stream', 'system', 'thinking', 'tools'], metadata: ['user_id'], thinking: { type: 'adaptive', display: 'omitted' }, max: 32000, stream: true, effort: 'high', schemas: true, cached: [false, true, true] }
  assert.equal(main.body, { ...common, system: ['x-anthropic-billing-header: ', "You are a Claude agent, buil", '\nYou are an agent working wi'], worker: false, tools: MAIN_TOOLS, toolKeys: ['defer_loading', 'description', 'input_schema', 'name'], roles: ['user', 'system'] })
  assert.equal(child.body, { ...common, system: ['x-anthropic-billing-header: ', "You are a Claude agent, buil", 'You are a worker.\n\nMessages '], worker: true, tools: ['Read', 'Bash'], toolKeys: ['description', 'input_schema', 'name'], roles: ['user', 'system'] })
  assert.equal(main1.body.roles, ['user', 'system', 'assistant', 'user'])
  // The request as http.fetch's e holds it; the key reaches the hook as "[redacted]".
  for (const c of caps) {
    assert.equal({ ...c.fetch, headerNames: undefined }, { url: '/v1/messages?beta=true', initKeys: ['body', 'headers', 'method'], method: 'POST', bodyType: 'string', origin: { plugin: 'engine', tier: 'core' }, headerNames: undefined, kv: '[redacted]', sess: '[redacted]', agentHeader: c.agent ? 'set' : null })
    assert.ok(['anthropic-beta', 'anthropic-version', 'content-type', 'user-agent', 'x-api-key', 'x-app', 'x-claude-code-session-id'].every((h) => c.fetch.headerNames.includes(h)), c.fetch.headerNames.join())
    assert.not.ok(c.fetch.headerNames.includes('authorization'))
    // What beneath streamed: the fake response, read whole and yielded by no one.
    assert.equal(c.beneath, { answer: '.', stop: 'end_turn', model: c.agent ? 'gpt-mini' : 'gpt-5' })
    assert.ok(c.kinds.includes('text') && c.kinds.includes('stop'), c.kinds.join())
    assert.ok(c.ms !== null && c.ms < 5000)
  }
  // No trace of the fake response or the key anywhere.
  const t = transcripts(r)
  assert.not.ok(t.includes('msg_keel_capture'))
  assert.not.ok(t.includes('"text":"."'))
  for (const [where, text] of [['transcript', t], ['debug log', r.debugLog], ['stdout', r.stdout], ['stderr', r.stderr]]) assert.not.ok(text!.includes(SECRET), `${where} holds the key`)
  // The engine reports the unknown model on stderr, per model and query source.
  assert.match(r.stderr, '[claude-code:unrecognized_model] {"model":"gpt-5","query_source":"sdk"}')
  assert.match(r.stderr, '[claude-code:unrecognized_model] {"model":"gpt-mini","query_source":"agent:custom:worker"}')
  console.log(`  capture ms (step start to body): main ${main.ms}, child ${child.ms}, main step 1 ${main1.ms}`)
})

test('--output-format json: capture counts its fake responses (duration_api_ms > 0, modelUsage per alias at $0); a hook answering alone counts none', async () => {
  const cap = await captureRun({})
  assert.ok(cap.json.duration_api_ms > 0, String(cap.json.duration_api_ms))
  assert.is(cap.json.total_cost_usd, 0)
  assert.equal(Object.keys(cap.json.modelUsage), ['gpt-5'])
  assert.equal([cap.json.modelUsage['gpt-5'].costUSD, cap.json.modelUsage['gpt-5'].inputTokens, cap.json.modelUsage['gpt-5'].costBasis, cap.json.modelUsage['gpt-5'].contextWindow], [0, 0, 'unknown', 1_000_000])
  assert.is(cap.json.usage.input_tokens, 1000, 'the hook\'s stop chunk usage is what the run counts')
  assert.match(cap.debugLog, '[API REQUEST] /v1/messages source=sdk')
  await mock!.close()

  // The same answer without capture (the hook answers alone): no API time, no modelUsage entry.
  mock = await startMockModel()
  const alone = kitSource({}) + `export function register(on) {
    on('turn.step', async function* ($, e, next) { if (!isAlias(e.model)) return yield* next(e); return yield* answer($, e, { text: 'ALONE' }) })
  }`
  const r = await runClaude({ prompt: 'hello', pluginDirs: [writePlugin(tmpDir('probe'), 'probe', alone)], mock, extraArgs: ['--model', 'gpt-5'] })
  assert.is(r.json.result, 'ALONE')
  assert.equal([r.json.duration_api_ms, r.json.total_cost_usd, r.json.modelUsage, r.json.usage.input_tokens], [0, 0, {}, 1000])
  assert.not.match(r.debugLog, '[API REQUEST]')
  assert.not.match(r.stderr, 'unrecognized_model', 'no request built, no unknown-model line')
})

test('capture timing over three runs (printed for NOTES.md; asserted only to be captured)', async () => {
  const seen: number[] = []
  for (let i = 0; i < 3; i++) {
    const r = await captureRun({ delegate: true })
    const caps = tagged(r.debugLog, 'probe', 'CAPT')
    assert.is(caps.length, 3)
    assert.ok(caps.every((c) => typeof c.ms === 'number'))
    seen.push(...caps.map((c) => c.ms))
    await mock!.close()
  }
  console.log(`  capture ms per step [main0, child, main1] x3: ${JSON.stringify(seen)}`)
})

// http.fetch answers for an alias request the step passes through (no capture, next(e) streamed as is).
const ANSWERS = (cfg: { mode: string; fcatch?: boolean; side?: boolean }) => kitSource(cfg) + `
export function register(on) {
  on('turn.complete', async ($, e, next) => {
    const r = await next(e)
    if (CFG.side && !e.agentId) log($, 'COMPLETE', await $.model.complete({ model: 'gpt-5', prompt: 'hi' }))
    return r
  })
  on('http.fetch', async ($, e, next) => {
    const body = bodyOf(e)
    if (!body || !isAlias(body.model)) return next(e)
    if (CFG.mode === 'deny') return { deny: 'probe: not sent' }
    if (CFG.mode === 'throw') throw new Error('fetch-boom')
    if (CFG.mode === 'status500') return localAnswer(500, JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'probe 500' } }))
    if (CFG.mode === 'noText') return { value: { status: 200 } }
    if (CFG.mode === 'noHeaders') return { value: { status: 200, ok: true, text: sse(body.model, 'NO-HEADERS') } }
    if (CFG.mode === 'minimal') return { value: { status: 200, headers: {}, text: sse(body.model, 'MINIMAL-ANSWER') } }
    if (CFG.mode === 'sse') return localAnswer(200, sse(body.model, 'LOCAL-SSE-ANSWER'), 'text/event-stream')
    return next(e)
  })` + (cfg.fcatch ? `.catch(() => ({ deny: 'probe: caught' }))` : '') + `
}
`

test('http.fetch answers the engine accepts: a local SSE is the answer; {deny} and a local 500 end the turn as an error, no retry, nothing sent', async () => {
  mock = await startMockModel()
  const run = (cfg: { mode: string; fcatch?: boolean; side?: boolean }) => runClaude({ prompt: 'hello', pluginDirs: [writePlugin(tmpDir('probe'), 'probe', ANSWERS(cfg))], mock: mock!, extraArgs: ['--model', 'gpt-5'] })
  const ok = await run({ mode: 'sse' })
  assert.equal([ok.code, ok.json.result], [0, 'LOCAL-SSE-ANSWER'])
  // The least the engine takes: status, headers (may be empty: no content-type needed) and text; ok is not read.
  const minimal = await run({ mode: 'minimal' })
  assert.equal([minimal.code, minimal.json.result], [0, 'MINIMAL-ANSWER'])
  for (const [cfg, reason] of [[{ mode: 'deny' }, 'probe: not sent'], [{ mode: 'throw', fcatch: true }, 'probe: caught'], [{ mode: 'status500' }, 'probe 500']] as const) {
    const r = await run(cfg)
    assert.equal([r.code, r.json.is_error, r.json.result], [1, true, `A mod's http.fetch hook stopped this request: ${reason}`], JSON.stringify(cfg))
    assert.match(r.debugLog, `API hook_denied: ${reason}`)
    assert.is((r.debugLog.match(/\[API REQUEST\]/g) ?? []).length, 1, 'no retry')
  }
  assert.match((await run({ mode: 'deny' })).debugLog, 'Error in API request: 403 {"type":"error","error":{"type":"permission_error","message":"probe: not sent"}}')
  assert.is(mock.requests.length, 0)
  // $.model.complete of an alias, denied: the caller reads an api-error, not a throw.
  const side = await run({ mode: 'deny', side: true })
  assert.equal(tagged(side.debugLog, 'probe', 'COMPLETE').map((c) => [c.isAnswered, c.reason, c.status, c.error]), [[false, 'api-error', 403, 'invalid_request']])
  assert.is(mock.requests.length, 0)
})

test('http.fetch failing open: a throw with no .catch, or a value without text or headers, is skipped and the alias request goes to the network', async () => {
  mock = await startMockModel()
  for (const mode of ['throw', 'noText', 'noHeaders']) {
    mock.requests.length = 0
    const r = await runClaude({ prompt: 'hello', pluginDirs: [writePlugin(tmpDir('probe'), 'probe', ANSWERS({ mode }))], mock, extraArgs: ['--model', 'gpt-5'] })
    assert.equal([r.code, r.json.result], [0, 'ok'], mode)
    assert.match(r.debugLog, '(http.fetch; skipped; what is below it ran in its place)')
    assert.equal(mock.messages().map((q) => q.body.model), ['gpt-5'], mode)
  }
})

// Side requests: every engine request naming an alias, logged and answered locally.
const SIDES = (cfg: object) => kitSource(cfg) + `
let done = false
export function register(on) {
  on('turn.step', async function* ($, e, next) {
    if (!isAlias(e.model)) return yield* next(e)
    return yield* answer($, e, { text: 'ROUTED' })
  })
  on('turn.complete', async ($, e, next) => {
    const r = await next(e)
    if (e.agentId || done || !CFG.side) return r
    done = true
    const u = await $.session.usage({ breakdown: 'full' })
    log($, 'FULL', { total: u.context.breakdown.totalTokens })
    log($, 'COMPLETE', await $.model.complete({ model: 'gpt-5', prompt: 'hi from a hook', maxTokens: 50 }))
    return r
  })
  on('http.fetch', async ($, e, next) => {
    const body = bodyOf(e)
    if (!body || !isAlias(body.model)) return next(e)
    const u = new URL(e.url)
    const last = Array.isArray(body.messages) && body.messages.length ? body.messages[body.messages.length - 1] : undefined
    const oc = body.output_config && body.output_config.format ? body.output_config.format.type + ':' + Object.keys(body.output_config.format.schema.properties).join() : null
    log($, 'F', { path: u.pathname + u.search, origin: next.origin.plugin, stream: !!body.stream, keys: Object.keys(body).sort(), nTools: Array.isArray(body.tools) ? body.tools.length : null, nSystem: Array.isArray(body.system) ? body.system.length : null, format: oc, lastIsString: !!last && typeof last.content === 'string' })
    if (u.pathname.endsWith('/count_tokens')) return localAnswer(200, JSON.stringify({ input_tokens: 7 }))
    if (oc) return localAnswer(200, sse(body.model, JSON.stringify({ title: 'Routed probe title' })), 'text/event-stream')
    return localAnswer(200, body.stream ? sse(body.model, 'SIDE') : jsonMessage(body.model, 'SIDE-JSON'), body.stream ? 'text/event-stream' : 'application/json')
  })
}
`

test('side requests with the alias at http.fetch: usage({breakdown:"full"}) count_tokens, and $.model.complete({model: alias})', async () => {
  mock = await startMockModel()
  const r = await runClaude({ prompt: 'hello', pluginDirs: [writePlugin(tmpDir('probe'), 'probe', SIDES({ side: true }))], mock, extraArgs: ['--model', 'gpt-5'] })
  assert.is(r.json.result, 'ROUTED')
  const fs = tagged(r.debugLog, 'probe', 'F')
  const counts = fs.filter((f) => f.path === '/v1/messages/count_tokens?beta=true')
  assert.ok(counts.length >= 20, String(counts.length))
  assert.ok(counts.every((f) => f.origin === 'engine' && !f.stream && JSON.stringify(f.keys) === '["messages","model","tools"]'))
  const toolCounts = counts.map((f) => f.nTools)
  assert.ok(toolCounts.includes(0) && toolCounts.includes(1), JSON.stringify(toolCounts))
  const completes = fs.filter((f) => f.path === '/v1/messages?beta=true')
  assert.equal(completes, [{ path: '/v1/messages?beta=true', origin: 'engine', stream: false, keys: ['max_tokens', 'messages', 'metadata', 'model', 'system'], nTools: null, nSystem: 1, format: null, lastIsString: true }])
  assert.equal(tagged(r.debugLog, 'probe', 'COMPLETE').map((c) => [c.isAnswered, c.text]), [[true, 'SIDE-JSON']])
  assert.is(tagged(r.debugLog, 'probe', 'FULL').length, 1)
  assert.is(mock.requests.length, 0)
  console.log(`  count_tokens requests for one breakdown:'full': ${counts.length} (tools per request: ${JSON.stringify(toolCounts)})`)
})

test('interactive title generation: with non-essential traffic allowed, a structured request on the main alias (none when it is disabled)', async () => {
  if (!hasPty()) return console.log('skipped: no `script` for a pty')
  for (const allowed of [false, true]) {
    mock = await startMockModel()
    live = await startLive({ mode: 'tui', pluginDirs: [writePlugin(tmpDir('probe'), 'probe', SIDES({}))], mock, extraArgs: ['--model', 'gpt-5'], env: allowed ? { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '' } : {} })
    await live.send('hello there, name this session')
    await live.waitFor('the answer', () => screenText(live!.output()).includes('ROUTED'))
    await sleep(3000)
    const fs = tagged(live.debugLog(), 'probe', 'F')
    if (allowed) {
      assert.equal(fs, [{ path: '/v1/messages?beta=true', origin: 'engine', stream: true, keys: ['max_tokens', 'messages', 'metadata', 'model', 'output_config', 'stream', 'system', 'tools'], nTools: 0, nSystem: 3, format: 'json_schema:title', lastIsString: false }])
      assert.match(live.debugLog(), '[API REQUEST] /v1/messages source=generate_session_title')
    } else {
      assert.equal(fs, [])
    }
    assert.equal(mock.messages(), [])
    await live.stop()
    await mock.close()
  }
})

test.run()
