// Routing measurements (src/features/routing/NOTES.md §13.3, issue 19 part 1): what the engine prices and
// shows of a routed step's usage: `--output-format json` (`total_cost_usd`, `modelUsage`, `usage`), `/cost`,
// the status line's input, `$.session.usage().cost`, `session.measure`'s `cost`, `classic.PostModelSwitch`'s
// `pricing`; for a step a hook answers alone (its stop chunk's usage) and for a captured step (the engine's own
// request answered at http.fetch with a fake answer that carries usage), under the settings keys the engine's
// pricing reads (`modelPricing`, `modelPicker` rows with `behavesAs`).
//
// CFG.mode 'alone': the step yields text and a stop whose usage is CFG.stop (model: CFG.usageModel or the
// step's, plus CFG.extraUsage). 'capture': the step also calls next(e) and drains it; http.fetch answers the
// alias request with an SSE whose usage is CFG.fake (message model CFG.fakeModel or the request's).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { startMockModel, type MockModel } from './mock-model.ts'
import { cleanupTmp, runClaude, tmpDir, writePlugin, type RunResult } from './engine.ts'
import { hasPty, startLive, type LiveSession } from './live.ts'
import { kitSource, results, screenText, sendEach, tagged } from './probe-kit.ts'
import { startMockProvider } from './mock-provider.ts'
import { ALIAS, LABEL, routed, routedHome } from './routing-kit.ts'
import { MANAGED_SETTINGS, stepFailed } from '../../src/features/routing/strings.ts'

const PROBE = (cfg: object) => kitSource(cfg) + `
// Token counts renamed: the debug log redacts a value whose key looks like a token count.
const counts = (u) => u && { in: u.input_tokens, out: u.output_tokens, model: u.model }
function fakeSse(model) {
  const ev = (type, data) => 'event: ' + type + '\\ndata: ' + JSON.stringify(Object.assign({ type }, data)) + '\\n\\n'
  const usage = CFG.fake
  return ev('message_start', { message: { id: 'msg_keel_capture_' + Math.random().toString(36).slice(2, 8), type: 'message', role: 'assistant', model: CFG.fakeModel || model, content: [], stop_reason: null, stop_sequence: null, usage } })
    + ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } })
    + ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: '.' } })
    + ev('content_block_stop', { index: 0 })
    + ev('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage })
    + ev('message_stop', {})
}
export function register(on) {
  on('turn.step', async function* ($, e, next) {
    if (!isAlias(e.model)) return yield* next(e)
    if (CFG.mode === 'capture') {
      const s = next(e)
      for (;;) { const x = await s.next(); if (x.done) break }
    }
    const usage = Object.assign({ cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }, CFG.stop, { model: CFG.usageModel || e.model }, CFG.extraUsage || {})
    yield { kind: 'text', index: 0, text: 'ROUTED' }
    yield { kind: 'stop', stopReason: 'end_turn', usage }
    return { turnId: e.turnId, index: e.index, answer: 'ROUTED', toolUses: [], stopReason: 'end_turn', usage }
  })
  on('http.fetch', async ($, e, next) => {
    const body = bodyOf(e)
    if (!body || !isAlias(body.model)) return next(e)
    log($, 'FETCHED', { path: new URL(e.url).pathname })
    if (new URL(e.url).pathname.endsWith('/count_tokens')) return localAnswer(200, JSON.stringify({ input_tokens: 1 }))
    if (body.stream) return localAnswer(200, fakeSse(body.model), 'text/event-stream')
    return localAnswer(200, jsonMessage(body.model, 'SIDE'))
  })
  on('turn.complete', async ($, e, next) => {
    const r = await next(e)
    const u = await $.session.usage()
    log($, 'DONE', { usage: counts(e.usage), cost: u.cost || null })
    return r
  })
  on('session.measure', async ($, e, next) => { log($, 'MEASURE', { cost: e.cost || null, changed: e.changed }); return next(e) })
  on('classic.PostModelSwitch', async ($, e, next) => { log($, 'SWITCH', { to: e.to_model, pricing: e.pricing, usd: e.estimated_cache_write_usd, ctx: e.context_tokens }); return next(e) })
}
`

const BIG = { input_tokens: 1_000_000, output_tokens: 100_000, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }
const SMALL = { input_tokens: 2000, output_tokens: 20 }
const PRICE = { input: 0.27, output: 1.1, cacheRead: 0.07, cacheWrite: 0.27 }
const BEHAVES_AS = { modelPicker: { options: [{ model: 'gpt-5', behavesAs: 'claude-haiku-4-5' }] } }

let mock: MockModel | undefined
let live: LiveSession | undefined
test.after.each(async () => {
  await live?.stop()
  live = undefined
  await mock?.close()
  mock = undefined
})
test.after(() => cleanupTmp())

const probe = (cfg: object) => writePlugin(tmpDir('probe'), 'probe', PROBE(cfg))
async function run(cfg: object, opts: { settings?: object; wrap?: string[] } = {}): Promise<RunResult> {
  mock = await startMockModel()
  const r = await runClaude({ prompt: 'hello', pluginDirs: [probe(cfg)], mock, extraArgs: ['--model', 'gpt-5'], ...opts })
  assert.is(r.code, 0, r.stderr.slice(-800))
  assert.is(r.json.result, 'ROUTED')
  await mock.close()
  mock = undefined
  return r
}
/** What a script reads of the run, and what the probe read of the cost at the turn's end. */
const view = (r: RunResult) => ({
  total: r.json.total_cost_usd,
  usage: [r.json.usage.input_tokens, r.json.usage.output_tokens],
  modelUsage: Object.fromEntries(Object.entries(r.json.modelUsage).map(([k, v]: [string, any]) => [k, { in: v.inputTokens, out: v.outputTokens, usd: v.costUSD, basis: v.costBasis, canonical: v.canonicalModel, window: v.contextWindow }])),
  done: tagged(r.debugLog, 'probe', 'DONE'),
  measured: tagged(r.debugLog, 'probe', 'MEASURE').map((m) => m.cost),
})

test('a step a hook answers alone: its stop\'s usage is summed into `usage` and priced nowhere ($0, modelUsage {}); a Claude id as its model, or cost fields, change nothing', async () => {
  for (const extra of [{}, { usageModel: 'claude-haiku-4-5' }, { extraUsage: { cost_usd: 5, costUSD: 5, total_cost_usd: 5 } }]) {
    const v = view(await run({ mode: 'alone', stop: BIG, ...extra }))
    assert.equal(v, {
      total: 0, usage: [1_000_000, 100_000], modelUsage: {},
      // turn.complete's usage names the step's model, not the one the stop chunk gave.
      done: [{ usage: { in: 1_000_000, out: 100_000, model: 'gpt-5' }, cost: { usd: 0 } }], measured: [{ usd: 0 }],
    }, JSON.stringify(extra))
  }
})

test('a captured step: the fake answer\'s usage is what modelUsage and the cost count, priced at the default model\'s rates ($6.00 for 1M in + 100k out, costBasis unknown, hasUnknownPrice) whatever model it names; `usage` is still the step\'s stop', async () => {
  for (const fakeModel of [undefined, 'claude-haiku-4-5']) {
    const v = view(await run({ mode: 'capture', fake: BIG, stop: SMALL, ...(fakeModel ? { fakeModel } : {}) }))
    assert.equal(v, {
      total: 6, usage: [2000, 20],
      modelUsage: { 'gpt-5': { in: 1_000_000, out: 100_000, usd: 6, basis: 'unknown', canonical: 'gpt-5', window: 1_000_000 } },
      done: [{ usage: { in: 2000, out: 20, model: 'gpt-5' }, cost: { usd: 6, hasUnknownPrice: true } }], measured: [{ usd: 6, hasUnknownPrice: true }],
    }, String(fakeModel))
  }
  // The default model's rates: 1M input alone is $4.
  const inputOnly = view(await run({ mode: 'capture', fake: { ...BIG, output_tokens: 0 }, stop: SMALL }))
  assert.is(inputOnly.total, 4, 'the default tier: $4 per million input, so $20 per million output')
})

test('settings: modelPricing in the user settings is ignored; a modelPicker row with behavesAs prices the alias at that model\'s list rate, names that model, and moves the window to its 200k', async () => {
  const user = view(await run({ mode: 'capture', fake: BIG, stop: SMALL }, { settings: { modelPricing: { overrides: { 'gpt-5': PRICE } } } }))
  assert.equal([user.total, user.modelUsage['gpt-5']!.basis], [6, 'unknown'])
  const behaves = await run({ mode: 'capture', fake: BIG, stop: SMALL }, { settings: BEHAVES_AS })
  assert.equal(view(behaves).modelUsage, { 'gpt-5': { in: 1_000_000, out: 100_000, usd: 1.5, basis: 'list', canonical: 'claude-haiku-4-5', window: 200_000 } })
  assert.equal(view(behaves).done[0].cost, { usd: 1.5 })
  assert.not.match(behaves.debugLog, `"gpt-5" isn't described by this version's model catalog`)
  // A step answered alone stays unpriced with behavesAs too: nothing was requested.
  assert.is(view(await run({ mode: 'alone', stop: BIG }, { settings: BEHAVES_AS })).total, 0)
})

/** `unshare -m` with /etc overlaid, so the engine alone reads /etc/claude-code/managed-settings.json (root only). */
function managedWrap(settings: object): string[] | undefined {
  if (spawnSync('unshare', ['-m', 'true']).status !== 0) return undefined
  const dir = tmpDir('managed')
  for (const d of ['upper/claude-code', 'work']) mkdirSync(join(dir, d), { recursive: true })
  writeFileSync(join(dir, 'upper/claude-code/managed-settings.json'), JSON.stringify(settings))
  return ['unshare', '-m', 'sh', '-c', `mount --make-rprivate / && mount -t overlay overlay -o lowerdir=/etc,upperdir=${dir}/upper,workdir=${dir}/work /etc && exec "$@"`, 'sh']
}

test('managed settings: modelPricing.overrides prices the alias (costBasis managed); and with any managed settings the probe\'s http.fetch never saw the engine\'s request, which reached ANTHROPIC_BASE_URL', async () => {
  const priced = managedWrap({ modelPricing: { overrides: { 'gpt-5': PRICE } } })
  if (!priced) return console.log('skipped: no `unshare -m` (needs root)')
  const r = await run({ mode: 'capture', fake: BIG, stop: SMALL }, { wrap: priced })
  assert.match(r.debugLog, 'cc-plugin-sec-default@builtin seated outermost: this machine has managed settings')
  // The mock model answered (100 in, 5 out), priced at the managed rates.
  const mu = view(r).modelUsage['gpt-5']!
  assert.equal({ ...mu, usd: undefined }, { in: 100, out: 5, usd: undefined, basis: 'managed', canonical: 'gpt-5', window: 1_000_000 })
  assert.ok(Math.abs(mu.usd - (100 * 0.27 + 5 * 1.1) / 1e6) < 1e-12, String(mu.usd))
  assert.equal(tagged(r.debugLog, 'probe', 'FETCHED'), [])
  // Any managed key does it, pricing or not.
  const other = await run({ mode: 'capture', fake: BIG, stop: SMALL }, { wrap: managedWrap({ cleanupPeriodDays: 30 })! })
  assert.equal([tagged(other.debugLog, 'probe', 'FETCHED').length, view(other).modelUsage['gpt-5']!.in, view(other).modelUsage['gpt-5']!.basis], [0, 100, 'unknown'])
})

// Found while measuring managed pricing: under managed settings no plugin's http.fetch sees the engine's
// request. Through klyth the routed turn's request (the alias, the conversation) reached ANTHROPIC_BASE_URL and
// keel's step ended on its capture timeout (measured before the fix). Now routing reads the policy source at the
// start and makes no routed step there: nothing reaches Anthropic or the provider, and the line says why.
test('managed settings through klyth: no routed step is made, so nothing of the conversation reaches ANTHROPIC_BASE_URL or the provider; the line says why', async () => {
  const wrap = managedWrap({ cleanupPeriodDays: 30 })
  if (!wrap) return console.log('skipped: no `unshare -m` (needs root)')
  mock = await startMockModel()
  const provider = await startMockProvider([{ match: /hello/, reply: { text: 'PROVIDER-ANSWER' } }])
  try {
    const { home, plugin } = await routedHome(mock, provider)
    mock.requests.length = 0
    const r = await routed({ prompt: 'hello', pluginDirs: [plugin], mock, home, wrap })
    assert.match(r.debugLog, 'cc-plugin-sec-default@builtin seated outermost: this machine has managed settings')
    assert.match(String(r.json.result), stepFailed('klyth', LABEL, MANAGED_SETTINGS))
    assert.equal(provider.requests, [])
    assert.equal(mock.messages().filter((q) => q.body.model === ALIAS), [], 'no request naming the alias reached Anthropic')
  } finally {
    await provider.close()
  }
})

test('/cost (stream-json): a captured step shows its tokens and the default-tier price with the unknown-model note; a step answered alone shows nothing; PostModelSwitch pricing is "default" for an alias, "catalog" with behavesAs', async () => {
  // Every case starts with a native turn (the mock's 100 in, 5 out on the default model, $0.0005), so the switch has context to price.
  const NATIVE = '     claude-opus-5-5:  100 input, 5 output, 0 cache read, 0 cache write ($0.0005)'
  const cases = [
    { cfg: { mode: 'capture', fake: BIG, stop: SMALL }, settings: {}, pricing: 'default', cost: ['Estimated cost:        $6.00 (costs may be inaccurate due to usage of unknown models)', NATIVE, '               gpt-5:  1.0m input, 100.0k output, 0 cache read, 0 cache write ($6.00)'], not: [] },
    { cfg: { mode: 'alone', stop: BIG }, settings: {}, pricing: 'default', cost: ['Estimated cost:        $0.0005\n', NATIVE], not: ['gpt-5', '1.0m'] },
    { cfg: { mode: 'capture', fake: BIG, stop: SMALL }, settings: BEHAVES_AS, pricing: 'catalog', cost: ['Estimated cost:        $1.50\n', NATIVE, '    claude-haiku-4-5:  1.0m input, 100.0k output, 0 cache read, 0 cache write ($1.50)'], not: ['gpt-5'] },
  ]
  for (const c of cases) {
    mock = await startMockModel()
    live = await startLive({ mode: 'stream-json', pluginDirs: [probe(c.cfg)], mock, settings: c.settings })
    // A native turn first (the mock's 100 in, 5 out), so the switch has context to price.
    await sendEach(live, ['first', '/model gpt-5', 'hello', '/cost'])
    const out = results(live.output())
    const text = String(out[3].result)
    console.log(`  /cost ${JSON.stringify(c.cfg.mode)} ${JSON.stringify(c.settings)}:\n${text}`)
    for (const line of c.cost) assert.match(text, line)
    for (const word of c.not) assert.not.match(text, word)
    const [sw] = tagged(live.debugLog(), 'probe', 'SWITCH')
    assert.equal([sw.to, sw.pricing, sw.ctx], ['gpt-5', c.pricing, 105])
    console.log(`  PostModelSwitch: ${JSON.stringify(sw)}`)
    assert.ok(sw.usd > 0)
    await live.stop()
    live = undefined
    await mock.close()
    mock = undefined
  }
})

test('status line (terminal UI): its input\'s cost.total_cost_usd is the priced capture ($6) or 0 alone; context_window counts a step answered alone, not a captured one', async () => {
  if (!hasPty()) return console.log('skipped: no `script` for a pty')
  const seen: Record<string, any> = {}
  for (const [name, cfg] of [['capture', { mode: 'capture', fake: BIG, stop: SMALL }], ['alone', { mode: 'alone', stop: BIG }]] as const) {
    mock = await startMockModel()
    const file = join(tmpDir('statusline'), 'input.json')
    live = await startLive({ mode: 'tui', pluginDirs: [probe(cfg)], mock, extraArgs: ['--model', 'gpt-5'], settings: { statusLine: { type: 'command', command: `cat > ${file}.tmp && mv ${file}.tmp ${file}` } } })
    const start = live.output().length
    await live.send('hello')
    await live.waitFor('the answer', () => screenText(live!.output().slice(start)).includes('ROUTED'), 40_000)
    // The status line is fed again after the turn: wait for an input that has seen the turn's cost or tokens.
    const input = await live.waitFor('a status line input after the turn', () => {
      try {
        const j = JSON.parse(readFileSync(file, 'utf8'))
        return j.cost.total_cost_usd > 0 || j.context_window.total_input_tokens > 0 ? j : undefined
      } catch {
        return undefined
      }
    }, 30_000)
    seen[name] = { usd: input.cost.total_cost_usd, ctxIn: input.context_window.total_input_tokens, ctxOut: input.context_window.total_output_tokens, current: input.context_window.current_usage, model: input.model }
    await live.stop()
    live = undefined
    await mock.close()
    mock = undefined
  }
  console.log(`  status line input: ${JSON.stringify(seen)}`)
  assert.equal(seen.capture, { usd: 6, ctxIn: 0, ctxOut: 0, current: null, model: { id: 'gpt-5', display_name: 'gpt-5' } })
  assert.equal(seen.alone, { usd: 0, ctxIn: 1_000_000, ctxOut: 100_000, current: { input_tokens: 1_000_000, output_tokens: 100_000, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }, model: { id: 'gpt-5', display_name: 'gpt-5' } })
})

test.run()
