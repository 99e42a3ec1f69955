// Routing measurements (src/features/routing/NOTES.md §2, §4): `/model <alias>` headless, in
// stream-json and in the interactive UI: its output, the validation probe at http.fetch, what a
// `command.run {command:'model'}` hook sees and can do before and after `next`, PostModelSwitch, the
// settings file; and a `/model` switch sent while a routed turn is running its tool steps.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel } from './mock-model.ts'
import { cleanupTmp, runClaude, tmpDir, writePlugin } from './engine.ts'
import { hasPty, startLive, type LiveSession } from './live.ts'
import { kitSource, LOCAL_FETCH, results, screenText, sendEach, sleep, tagged, turnsSettled } from './probe-kit.ts'

// Every observation is one `EV` line, in the order it happened. CFG.refuse answers `/model gpt-5` without
// next; CFG.rewrite replaces the text after next. CFG.steps: routed tool steps (Bash `sleep 1`) per turn.
const PROBE = (cfg: object) => kitSource(cfg) + `
export function register(on) {
  on('turn.step', async function* ($, e, next) {
    log($, 'EV', { ev: 'step', model: e.model, index: e.index, turn: e.turnId.slice(0, 8), effort: e.effort || null })
    if (!isAlias(e.model)) return yield* next(e)
    if (e.index < (CFG.steps || 0)) return yield* answer($, e, { text: 'step ' + e.index + ' ', tools: [{ name: 'Bash', input: { command: 'sleep 1', description: 'wait' } }] })
    return yield* answer($, e, { text: 'END ' + e.model })
  })
  on('command.run', { command: 'model' }, async ($, e, next) => {
    log($, 'EV', { ev: 'cmd', args: e.args, origin: e.origin.kind })
    if (CFG.presetMax && isAlias(e.args)) await $.env.set('CLAUDE_CODE_MAX_CONTEXT_TOKENS', CFG.presetMax)
    if (CFG.refuse && e.args === 'gpt-5') return { text: 'REFUSED-BY-PROBE' }
    const r = await next(e)
    log($, 'EV', { ev: 'cmd-result', keys: Object.keys(r).sort(), text: r.text === undefined ? null : r.text.split('\\n')[0] })
    if (CFG.rewrite) return Object.assign({}, r, { text: 'REWRITTEN-BY-PROBE' })
    return r
  })
  on('classic.PostModelSwitch', async ($, e, next) => {
    log($, 'EV', { ev: 'switch', from: e.from_model, to: e.to_model, requested: e.requested_model, source: e.source, keys: Object.keys(e).filter((k) => e[k] !== undefined).sort() })
    return next(e)
  })
  on('turn.complete', async ($, e, next) => {
    const r = await next(e)
    const u = await $.session.usage({ breakdown: 'summary' })
    log($, 'EV', { ev: 'usage', win: u.context.window, at: u.context.breakdown.autoCompactThreshold })
    return r
  })
  on('prompt.submit', async ($, e, next) => { log($, 'EV', { ev: 'submit', text: e.text, inTurn: !!e.turnId }); return next(e) })
` + LOCAL_FETCH.replace("log($, 'FETCH', {", "log($, 'EV', { ev: 'fetch',") + `
}
`
const events = (log: string) => tagged(log, 'probe', 'EV')
const probe = (cfg: object) => writePlugin(tmpDir('probe'), 'probe', PROBE(cfg))
const userSettings = (home: string) => {
  const f = join(home, '.claude/settings.json')
  return existsSync(f) ? JSON.parse(readFileSync(f, 'utf8')) : undefined
}
const SET = 'Set model to `gpt-5` for this session only'
const NOTICE = `Claude Code doesn't recognize the model "gpt-5", so it assumes a context window of 1m tokens.`
const SWITCH = { ev: 'switch', from: 'claude-opus-5-5', to: 'gpt-5', requested: 'gpt-5', source: 'command' }
const PROBE_FETCH = { ev: 'fetch', kind: 'probe', path: '/v1/messages', origin: 'engine', model: 'gpt-5', stream: false, max: 1, nTools: null, keys: ['max_tokens', 'messages', 'metadata', 'model', 'system'] }

let mock: MockModel | undefined
let live: LiveSession | undefined
test.after.each(async () => {
  await live?.stop()
  live = undefined
  await mock?.close()
  mock = undefined
})
test.after(() => cleanupTmp())

test('/model gpt-5 in stream-json: the probe at http.fetch, PostModelSwitch, the text, nothing persisted; the next turn is gpt-5', async () => {
  mock = await startMockModel()
  live = await startLive({ mode: 'stream-json', pluginDirs: [probe({})], mock })
  await sendEach(live, ['/model gpt-5', 'hello'])
  const log = await turnsSettled(live, 0)
  await live.waitFor('the routed step', () => events(live!.debugLog()).some((x) => x.ev === 'step'))
  const ev = events(live.debugLog()).filter((x) => x.ev !== 'submit' && x.ev !== 'usage')
  const switchKeys = ev.find((x) => x.ev === 'switch')!.keys
  assert.equal(ev.map((x) => (x.ev === 'switch' ? { ...x, keys: undefined } : x)), [
    { ev: 'cmd', args: 'gpt-5', origin: 'sdk' },
    PROBE_FETCH,
    { ...SWITCH, keys: undefined },
    { ev: 'cmd-result', keys: ['ref', 'text'], text: SET },
    { ev: 'step', model: 'gpt-5', index: 0, turn: ev.find((x) => x.ev === 'step')!.turn, effort: 'high' },
  ], log)
  assert.equal(switchKeys, ['cache_ttl', 'context_tokens', 'cwd', 'estimated_cache_write_usd', 'from_model', 'hook_event_name', 'pricing', 'prompt_cache_warm', 'prompt_id', 'requested_model', 'session_id', 'source', 'to_model', 'transcript_path'])
  const texts = results(live.output()).map((x) => x.result)
  assert.equal(texts[0]!.split('\n'), [SET, texts[0]!.split('\n')[1]])
  assert.ok(texts[0]!.includes(NOTICE))
  assert.is(texts[1], 'END gpt-5')
  assert.is(userSettings(live.home), undefined, 'stream-json: "for this session only", no settings file written')
  assert.is(mock.requests.length, 0)
})

test('command.run {model}: answering before next refuses the switch; a text after next replaces the output (both prefixed "probe: ")', async () => {
  mock = await startMockModel()
  live = await startLive({ mode: 'stream-json', pluginDirs: [probe({ refuse: true })], mock })
  await sendEach(live, ['/model gpt-5', 'hello'])
  await live.waitFor('the step', () => events(live!.debugLog()).some((x) => x.ev === 'step'))
  assert.equal(events(live.debugLog()).filter((x) => x.ev !== 'submit' && x.ev !== 'usage').map((x) => x.ev === 'step' ? [x.ev, x.model] : [x.ev]), [['cmd'], ['step', 'claude-opus-5-5']])
  assert.equal(results(live.output()).map((x) => x.result), ['probe: REFUSED-BY-PROBE', 'ok'])
  assert.is(mock.messages().length, 1, 'the model stayed native: the mock answered')
  await live.stop()
  await mock.close()

  mock = await startMockModel()
  live = await startLive({ mode: 'stream-json', pluginDirs: [probe({ rewrite: true })], mock })
  await sendEach(live, ['/model gpt-5', 'hello'])
  assert.equal(results(live.output()).map((x) => x.result), ['probe: REWRITTEN-BY-PROBE', 'END gpt-5'])
  assert.is(mock.requests.length, 0)
})

test('-p "/model gpt-5": the same text and probe; local_command "model", num_turns 0, no settings file', async () => {
  mock = await startMockModel()
  const r = await runClaude({ prompt: '/model gpt-5', pluginDirs: [probe({})], mock })
  assert.is(r.code, 0, r.stderr)
  assert.is(r.json.local_command, 'model')
  assert.is(r.json.num_turns, 0)
  assert.is(r.json.result.split('\n')[0], SET)
  const ev = events(r.debugLog)
  assert.equal(ev.filter((x) => x.ev === 'fetch'), [PROBE_FETCH])
  assert.equal(ev.filter((x) => x.ev === 'switch').map((x) => ({ ...x, keys: undefined })), [{ ...SWITCH, keys: undefined }])
  assert.is(userSettings(r.home), undefined)
  assert.is(mock.requests.length, 0)
})

test('interactive /model gpt-5: "saved as your default", user settings.json model gpt-5, the result after next has no text', async () => {
  if (!hasPty()) return console.log('skipped: no `script` for a pty')
  mock = await startMockModel()
  live = await startLive({ mode: 'tui', pluginDirs: [probe({})], mock })
  await live.send('/model gpt-5')
  await live.waitFor('the switch', () => events(live!.debugLog()).some((x) => x.ev === 'cmd-result'))
  await live.waitFor('the output', () => screenText(live!.output()).includes('saved as your default for new sessions'))
  await sleep(500)
  await live.send('hello')
  await live.waitFor('the routed step', () => events(live!.debugLog()).some((x) => x.ev === 'step'))
  const ev = events(live.debugLog()).filter((x) => x.ev !== 'submit' && x.ev !== 'usage')
  assert.equal(ev.slice(0, 4).map((x) => (x.ev === 'switch' ? { ...x, keys: undefined } : x)), [
    { ev: 'cmd', args: 'gpt-5', origin: 'composer' },
    PROBE_FETCH,
    { ...SWITCH, keys: undefined },
    { ev: 'cmd-result', keys: ['ref', 'text'], text: null },
  ])
  assert.equal(ev[4]!.model, 'gpt-5')
  assert.match(screenText(live.output()), 'Set model to gpt-5 and saved as your default for new sessions')
  assert.equal(userSettings(live.home), { model: 'gpt-5' })
  assert.is(mock.requests.length, 0)
})

test('interactive: a refusal before next shows its text and keeps the model and settings; a text set after next is not shown', async () => {
  if (!hasPty()) return console.log('skipped: no `script` for a pty')
  for (const cfg of [{ refuse: true }, { rewrite: true }]) {
    mock = await startMockModel()
    live = await startLive({ mode: 'tui', pluginDirs: [probe(cfg)], mock })
    const refuse = 'refuse' in cfg
    await live.send('/model gpt-5')
    await live.waitFor('the output', () => screenText(live!.output()).includes(refuse ? 'REFUSED-BY-PROBE' : 'saved as your default'))
    await sleep(1500)
    const screen = screenText(live.output())
    if (refuse) {
      assert.match(screen, 'probe: REFUSED-BY-PROBE')
      assert.not.match(screen, 'Set model to')
      assert.is(userSettings(live.home), undefined)
      assert.not.ok(events(live.debugLog()).some((x) => x.ev === 'switch' || x.ev === 'fetch'))
    } else {
      // The engine drew its own output by `ref` before the hook's value came back; the hook's text is dropped.
      assert.not.match(screen, 'REWRITTEN-BY-PROBE')
      assert.match(screen, 'Set model to gpt-5 and saved as your default for new sessions')
      assert.equal(userSettings(live.home), { model: 'gpt-5' })
    }
    await live.stop()
    await mock.close()
  }
})

test('MAX_CONTEXT_TOKENS set in the command.run hook before next: the window holds from the switch and the 1M notice is not printed (stream-json and UI)', async () => {
  mock = await startMockModel()
  live = await startLive({ mode: 'stream-json', pluginDirs: [probe({ presetMax: '200000' })], mock })
  await sendEach(live, ['/model gpt-5', 'two'])
  await turnsSettled(live, 1)
  assert.equal(results(live.output()).map((x) => x.result), [SET, 'END gpt-5'])
  assert.equal(events(live.debugLog()).filter((x) => x.ev === 'usage'), [{ ev: 'usage', win: 200_000, at: 167_000 }])
  await live.stop()
  if (!hasPty()) return console.log('skipped the UI half: no `script` for a pty')
  live = await startLive({ mode: 'tui', pluginDirs: [probe({ presetMax: '200000' })], mock })
  await live.send('/model gpt-5')
  await live.waitFor('the output', () => screenText(live!.output()).includes('saved as your default for new sessions'))
  await sleep(1500)
  assert.not.match(screenText(live.output()), "doesn't recognize the model")
  assert.is(mock.requests.length, 0)
})

test('a /model sent mid-turn in stream-json waits for the turn to end; a prompt sent after it is folded into the running turn first', async () => {
  mock = await startMockModel()
  live = await startLive({ mode: 'stream-json', pluginDirs: [probe({ steps: 3 })], mock, extraArgs: ['--model', 'gpt-5', '--allowedTools', 'Bash'] })
  await live.send('work')
  await live.waitFor('step 1', () => events(live!.debugLog()).filter((x) => x.ev === 'step').length >= 2)
  await live.send('/model gpt-mini')
  await live.send('folded prompt')
  await live.waitFor('two results', () => results(live!.output()).length >= 2)
  await sendEach(live, ['later'])
  await turnsSettled(live, 0)
  const ev = events(live.debugLog())
  const steps = ev.filter((x) => x.ev === 'step')
  const first = steps[0]!.turn
  assert.equal(steps.filter((x) => x.turn === first).map((x) => x.model), ['gpt-5', 'gpt-5', 'gpt-5', 'gpt-5'], 'the running turn keeps its model')
  assert.equal(steps.filter((x) => x.turn !== first).map((x) => x.model), ['gpt-mini', 'gpt-mini', 'gpt-mini', 'gpt-mini'], 'the next turn has the new one')
  // Order: the folded prompt is submitted inside the turn; the command runs after that turn completed ("usage" is
  // logged by the turn.complete hook).
  const order = ev.map((x) => x.ev === 'step' ? `step${x.index}:${x.turn === first ? 1 : 2}` : x.ev === 'submit' ? `submit:${x.text}:${x.inTurn}` : x.ev)
  assert.equal(order.slice(0, order.indexOf('switch') + 1), ['submit:work:false', 'step0:1', 'step1:1', 'submit:folded prompt:true', 'step2:1', 'step3:1', 'usage', 'cmd', 'fetch', 'switch'])
  assert.equal(results(live.output()).map((x) => x.result.split('\n')[0]), ['END gpt-5', 'Set model to `gpt-mini` for this session only', 'END gpt-mini'])
  assert.is(mock.requests.length, 0)
})

test('a /model typed mid-turn in the interactive UI applies at once: the next step of the same turn carries the new model', async () => {
  if (!hasPty()) return console.log('skipped: no `script` for a pty')
  mock = await startMockModel()
  live = await startLive({ mode: 'tui', pluginDirs: [probe({ steps: 4 })], mock, extraArgs: ['--model', 'gpt-5', '--allowedTools', 'Bash'] })
  await live.send('work')
  await live.waitFor('step 1', () => events(live!.debugLog()).filter((x) => x.ev === 'step').length >= 2)
  await live.send('/model gpt-mini')
  await live.waitFor('the last step', () => events(live!.debugLog()).some((x) => x.ev === 'step' && x.index === 4), 30_000)
  await sleep(300)
  const ev = events(live.debugLog())
  const steps = ev.filter((x) => x.ev === 'step')
  const at = ev.findIndex((x) => x.ev === 'switch')
  assert.ok(at > 0, 'switched')
  assert.is(new Set(steps.map((x) => x.turn)).size, 1, 'one turn')
  const before = ev.slice(0, at).filter((x) => x.ev === 'step').map((x) => x.model)
  const after = ev.slice(at).filter((x) => x.ev === 'step').map((x) => x.model)
  assert.ok(before.length >= 2 && before.every((m) => m === 'gpt-5'), JSON.stringify(before))
  assert.ok(after.length >= 1 && after.every((m) => m === 'gpt-mini'), JSON.stringify(after))
  assert.is(before.length + after.length, 5)
  assert.is(mock.requests.length, 0)
  console.log(`  mid-turn /model in the UI: steps before the switch ${JSON.stringify(before)}, after ${JSON.stringify(after)}`)
})

test.run()
