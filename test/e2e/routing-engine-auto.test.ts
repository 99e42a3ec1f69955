// Routing measurements (src/features/routing/NOTES.md §3): auto mode (`--permission-mode auto`) under a
// routed main whose answer is a Bash call that no rule allows (a curl to a closed local port, then an
// echo: not read-only, not an edit). Is a classifier request made, with which model, through http.fetch?
// What do `tool.judge` and its `next(e)` say, and what happens when a hook denies or allows?
// Against this harness (ANTHROPIC_BASE_URL = a local mock) the engine has no classifier at all: its
// auto-mode check runs on the Anthropic server inside the main response, and no local one stands in.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { startMockModel, type MockModel } from './mock-model.ts'
import { cleanupTmp, runClaude, tmpDir, writePlugin } from './engine.ts'
import { hasPty, startLive, type LiveSession } from './live.ts'
import { kitSource, screenText, sleep, tagged } from './probe-kit.ts'

const CMD = 'curl -s -m 1 http://127.0.0.1:9/x; echo judged-marker-7'
// CFG.routed: main on gpt-5 answered by the hook (else the mock answers natively); CFG.judge: the
// tool.judge hook answers this decision without next.
const PROBE = (cfg: object) => kitSource(cfg) + `
export function register(on) {
  on('turn.step', async function* ($, e, next) {
    if (!isAlias(e.model)) return yield* next(e)
    if (e.index === 0) return yield* answer($, e, { text: 'running', tools: [{ name: 'Bash', input: { command: ${JSON.stringify(CMD)}, description: 'probe' } }] })
    return yield* answer($, e, { text: 'DONE' })
  })
  on('tool.check', async ($, e, next) => {
    if (CFG.checkAsk) return { decision: 'ask', reason: 'probe asks' }
    const r = await next(e)
    if (CFG.facts) log($, 'CHECKED', { keys: Object.keys(e).sort(), approver: e.approver, result: r })
    return r
  })
  on('tool.judge', async ($, e, next) => {
    log($, 'JUDGE', { tool: e.tool, origin: next.origin.plugin, id: String(e.tool_use_id).slice(0, 11) })
    if (CFG.facts) log($, 'JUDGE-FACTS', { keys: Object.keys(e).sort(), approver: e.approver, agentId: e.agentId, input: e.input, cwdMatches: (await $.session.cwd()) === CFG.cwd, scratch: typeof (await $.session.info()).scratchpadDir })
    if (CFG.complete) {
      const c = await $.model.complete({ model: 'gpt-mini', system: 'judge', prompt: 'JUDGE-THIS', maxTokens: 200 })
      log($, 'COMPLETED', { isAnswered: c.isAnswered, text: c.text, reason: c.reason })
      return { decision: 'allow' }
    }
    if (CFG.judge) return { decision: CFG.judge, reason: 'probe says ' + CFG.judge }
    const r = await next(e)
    log($, 'JUDGED', r)
    return r
  })
  on('tool.call', async ($, e, next) => {
    const r = await next(e)
    log($, 'CALL', { tool: e.tool, isError: !!r.isError, text: String(r.text || '').split('\\n')[0].slice(0, 120) })
    return r
  })
  on('http.fetch', async ($, e, next) => {
    const body = bodyOf(e)
    log($, 'FETCH', { path: new URL(e.url).pathname, origin: next.origin.plugin, model: body && body.model })
    if (body && isAlias(body.model)) return localAnswer(200, jsonMessage(body.model, 'SIDE'))
    return next(e)
  })
}
`
const probe = (cfg: object) => writePlugin(tmpDir('probe'), 'probe', PROBE(cfg))

let mock: MockModel | undefined
let live: LiveSession | undefined
test.after.each(async () => {
  await live?.stop()
  live = undefined
  await mock?.close()
  mock = undefined
})
test.after(() => cleanupTmp())

test('routed main in auto mode: no classifier request anywhere; tool.judge next(e) says ask, so headless refuses the call and exits 1', async () => {
  mock = await startMockModel()
  const r = await runClaude({ prompt: 'run it', pluginDirs: [probe({})], mock, extraArgs: ['--model', 'gpt-5', '--permission-mode', 'auto'] })
  assert.is(r.code, 1, r.stderr)
  assert.match(r.stderr, 'auto mode could not check some actions Claude tried, so they did not run.')
  assert.equal(tagged(r.debugLog, 'probe', 'JUDGE'), [{ tool: 'Bash', origin: 'engine', id: 'toolu_keel_' }])
  assert.equal(tagged(r.debugLog, 'probe', 'JUDGED'), [{ decision: 'ask', reason: 'No classifier runs for this session' }])
  assert.match(r.debugLog, '[server-classifier] Bash: no server verdict for this call (server_not_requested) and there is no local classifier to fall back to')
  const [call] = tagged(r.debugLog, 'probe', 'CALL')
  assert.equal([call.isError, call.text.startsWith('Bash was not run: auto mode has no safety result for this call, and nobody can be asked to approve it here.')], [true, true], call.text)
  assert.equal(r.json.permission_denials.map((d: any) => [d.tool_name, d.tool_input.command]), [['Bash', CMD]])
  assert.equal(tagged(r.debugLog, 'probe', 'FETCH'), [], 'no engine request of any kind reached http.fetch')
  assert.is(mock.requests.length, 0)
})

test('auto mode: a tool.judge hook that denies refuses the call with its reason; one that allows runs it (exit 0)', async () => {
  mock = await startMockModel()
  const deny = await runClaude({ prompt: 'run it', pluginDirs: [probe({ judge: 'deny' })], mock, extraArgs: ['--model', 'gpt-5', '--permission-mode', 'auto'] })
  assert.is(deny.code, 0, deny.stderr)
  assert.equal(tagged(deny.debugLog, 'probe', 'CALL'), [{ tool: 'Bash', isError: true, text: 'Permission to use Bash denied by plugin probe: probe says deny' }])
  assert.is(deny.json.result, 'DONE')
  const allow = await runClaude({ prompt: 'run it', pluginDirs: [probe({ judge: 'allow' })], mock, extraArgs: ['--model', 'gpt-5', '--permission-mode', 'auto'] })
  assert.is(allow.code, 0, allow.stderr)
  assert.equal(tagged(allow.debugLog, 'probe', 'CALL'), [{ tool: 'Bash', isError: false, text: 'judged-marker-7' }])
  assert.equal(allow.json.permission_denials, [])
  assert.is(mock.requests.length, 0)
})

test('the same call from native Claude (the mock) in auto mode: also no classifier here; the engine names the reason (the base URL)', async () => {
  let n = 0
  mock = await startMockModel((req) => (req.kind === 'main' && n++ === 0 ? { toolUse: { name: 'Bash', input: { command: CMD, description: 'probe' } } } : { text: 'fin' }))
  const r = await runClaude({ prompt: 'run it', pluginDirs: [probe({})], mock, extraArgs: ['--permission-mode', 'auto'] })
  assert.is(r.code, 1)
  assert.match(r.stderr, `Its safety check runs on the server, and your requests go through 127.0.0.1:`)
  assert.equal(tagged(r.debugLog, 'probe', 'JUDGED'), [{ decision: 'ask', reason: 'No classifier runs for this session' }])
  assert.match(r.debugLog, '(server_no_result) and no local one judges in its place')
  // The main requests ask the server for its verdict (beta afk-mode); no other request is made.
  assert.equal(mock.requests.map((q) => [q.kind, q.body.model]), [['main', 'claude-opus-5-5'], ['main', 'claude-opus-5-5']])
  assert.match(String(mock.requests[0]!.headers['anthropic-beta']), 'afk-mode-2026-01-31')
})

test('what tool.judge carries, and which asks reach it: a plain ask does (approver absent headless); a settings ask rule and a deny rule do not, a tool.check hook\'s ask does; $.model.complete of an alias works inside it', async () => {
  mock = await startMockModel()
  const cwd = tmpDir('proj')
  const args = ['--model', 'gpt-5', '--permission-mode', 'auto']
  const plain = await runClaude({ prompt: 'run it', cwd, pluginDirs: [probe({ facts: true, cwd })], mock, extraArgs: args })
  const [checked] = tagged(plain.debugLog, 'probe', 'CHECKED')
  const [facts] = tagged(plain.debugLog, 'probe', 'JUDGE-FACTS')
  console.log('plain:', JSON.stringify(checked), JSON.stringify(facts))
  // tool.judge carries no mode, no cwd and no rule: the tool, its input, the call's id; approver absent (nobody can be asked).
  assert.equal(facts, { keys: ['input', 'tool', 'tool_use_id'], input: { command: CMD, description: 'probe' }, cwdMatches: true, scratch: 'undefined' })
  assert.equal(checked, { keys: ['input', 'tool', 'tool_use_id'], result: { decision: 'ask', reason: checked.result.reason } })
  const ruled = await runClaude({ prompt: 'run it', cwd, pluginDirs: [probe({ facts: true, cwd })], mock, extraArgs: args, settings: { permissions: { ask: ['Bash(curl:*)'] } } })
  console.log('ask rule:', JSON.stringify(tagged(ruled.debugLog, 'probe', 'CHECKED')), JSON.stringify(tagged(ruled.debugLog, 'probe', 'CALL')))
  assert.equal(tagged(ruled.debugLog, 'probe', 'JUDGE'), [], 'a settings ask rule never reaches tool.judge')
  const denied = await runClaude({ prompt: 'run it', cwd, pluginDirs: [probe({ facts: true, cwd })], mock, extraArgs: [...args, '--disallowedTools', 'Bash(curl:*)'] })
  console.log('deny rule:', JSON.stringify(tagged(denied.debugLog, 'probe', 'CHECKED')), JSON.stringify(tagged(denied.debugLog, 'probe', 'CALL')))
  assert.equal(tagged(denied.debugLog, 'probe', 'JUDGE'), [], 'a deny rule never reaches tool.judge')
  const hooked = await runClaude({ prompt: 'run it', cwd, pluginDirs: [probe({ checkAsk: true })], mock, extraArgs: args })
  console.log('hook ask:', JSON.stringify(tagged(hooked.debugLog, 'probe', 'CALL')))
  // A tool.check hook's ask DOES reach tool.judge, with nothing on e to tell it from a plain one: only what a
  // tool.check hook heard from beneath (rule, hook, setting, plugin) tells them apart.
  assert.equal(tagged(hooked.debugLog, 'probe', 'JUDGE').length, 1, 'a hook\'s ask reaches tool.judge')
  const completed = await runClaude({ prompt: 'run it', cwd, pluginDirs: [probe({ complete: true })], mock, extraArgs: args })
  console.log('complete:', JSON.stringify(tagged(completed.debugLog, 'probe', 'COMPLETED')), JSON.stringify(tagged(completed.debugLog, 'probe', 'FETCH')))
  assert.equal(tagged(completed.debugLog, 'probe', 'COMPLETED'), [{ isAnswered: true, text: 'SIDE' }])
  assert.equal(tagged(completed.debugLog, 'probe', 'CALL'), [{ tool: 'Bash', isError: false, text: 'judged-marker-7' }])
})

test('where someone can be asked, tool.check and tool.judge say so: approver "person" in the terminal UI, absent headless and in stream-json (which has no permission host here)', async () => {
  mock = await startMockModel()
  const seen: Record<string, unknown> = {}
  for (const mode of ['stream-json', 'tui'] as const) {
    if (mode === 'tui' && !hasPty()) break
    const cwd = tmpDir('proj')
    live = await startLive({ mode, pluginDirs: [probe({ facts: true, cwd })], mock, cwd, extraArgs: ['--model', 'gpt-5', '--permission-mode', 'auto'] })
    await live.send('run it')
    const [facts] = await live.waitFor(`tool.judge (${mode})`, () => { const f = tagged(live!.debugLog(), 'probe', 'JUDGE-FACTS'); return f.length ? f : undefined }, 60_000)
    seen[mode] = facts.approver ?? 'absent'
    seen[`${mode} check`] = tagged(live.debugLog(), 'probe', 'CHECKED')[0]?.approver ?? 'absent'
    await live.stop()
    live = undefined
  }
  console.log('approver:', JSON.stringify(seen))
  assert.is(seen['stream-json'], 'absent')
  assert.is(seen['stream-json check'], 'absent')
  if (hasPty()) assert.equal([seen.tui, seen['tui check']], ['person', 'person'], 'tool.check carries it too')
})

test('auto mode and routine Bash: a read-only or edit-like command needs no classifier (the tool\'s own allow stands)', async () => {
  mock = await startMockModel()
  for (const [cmd, line] of [
    ['echo judged-marker-7', 'Server classifier skipped Bash or left it to this CLI: the tool\'s own allow stands'],
    ['touch judged.txt && echo judged-marker-7', 'Skipping auto mode classifier for Bash: would be allowed in acceptEdits mode'],
  ]) {
    const src = PROBE({}).replace(JSON.stringify(CMD), JSON.stringify(cmd))
    const r = await runClaude({ prompt: 'run it', pluginDirs: [writePlugin(tmpDir('probe'), 'probe', src)], mock, extraArgs: ['--model', 'gpt-5', '--permission-mode', 'auto'] })
    assert.is(r.code, 0, r.stderr)
    assert.equal(tagged(r.debugLog, 'probe', 'JUDGE'), [], cmd)
    assert.equal(tagged(r.debugLog, 'probe', 'CALL'), [{ tool: 'Bash', isError: false, text: 'judged-marker-7' }], cmd)
    assert.match(r.debugLog, line)
  }
})

// The review pane (issue 20 item 1, routing NOTES §3): in the terminal UI, can a tool.judge hook hold the
// routed call's step while a pane of its own is shown, until its button, Esc or an 8 s timer answers?
const PANE_PROBE = kitSource({ facts: true }) + `
let pending
export function register(on) {
  on('turn.step', async function* ($, e, next) {
    if (!isAlias(e.model)) return yield* next(e)
    if (e.index === 0) return yield* answer($, e, { text: 'running', tools: [{ name: 'Bash', input: { command: ${JSON.stringify(CMD)}, description: 'probe' } }] })
    return yield* answer($, e, { text: 'DONE' })
  })
  on('tool.check', async ($, e, next) => {
    const r = await next(e)
    log($, 'CHECKED', { approver: e.approver, result: r })
    return r
  })
  on('tool.judge', async ($, e, next) => {
    const r = await next(e)
    log($, 'JUDGE-NEXT', { approver: e.approver, result: r, remaining: Math.round(next.budget.remainingMs / 100) * 100 })
    const opened = await $.ui.open({ id: 'probe-review', title: 'Review action', focus: true, closeOnEscape: true, rows: 10 })
    log($, 'OPENED', opened)
    let done
    const answered = new Promise((res) => { done = res })
    const started = Date.now()
    pending = { done, seconds: 8 }
    const timer = $.clock.after(8000, () => done('timeout'))
    const tick = $.clock.every(1000, async () => {
      pending.seconds = Math.max(0, pending.seconds - 1)
      $.ui.invalidate('ui.render')
      if (!(await $.ui.panes()).some((p) => p.id === 'probe-review' && p.isShown)) done('closed')
    })
    $.ui.invalidate('ui.render')
    const outcome = await answered
    timer.cancel(); tick.cancel(); pending = undefined
    await $.ui.close({ id: 'probe-review' }).catch(() => {})
    log($, 'OUTCOME', { outcome, waitedS: Math.round((Date.now() - started) / 1000), remaining: Math.round(next.budget.remainingMs / 100) * 100, aborted: next.signal.aborted })
    return outcome === 'allow' || outcome === 'timeout' ? { decision: 'allow', reason: 'probe ' + outcome } : r
  })
  on('ui.render', ($, e, next) => {
    if (e.component !== 'Pane' || e.requestId !== 'probe-review' || !pending) return next(e)
    const els = $.ui.resolve(e)
    const p = pending
    log($, 'DRAWN', p.seconds)
    return els.Box({ flexDirection: 'column', children: [
      els.Text({ children: 'Review action: ' + p.seconds + 's' }),
      els.Text({ children: 'PROBE-ACTION Bash' }),
      els.Box({ children: [els.Button({ key: 'allow-once', label: 'Allow once', onPress: () => p.done('allow') }), els.Button({ key: 'deny', label: 'Deny', onPress: () => p.done('deny') })] }),
    ] })
  })
  on('tool.call', async ($, e, next) => {
    const r = await next(e)
    log($, 'CALL', { tool: e.tool, isError: !!r.isError, text: String(r.text || '').split('\\n')[0].slice(0, 120) })
    return r
  })
}
`

test('the review pane, measured in the terminal UI: a tool.judge hook holds the routed call while its own pane counts down; the button, Esc (a poll of $.ui.panes) or the 8 s timer answers; the engine dialog comes only after an ask', async () => {
  if (!hasPty()) return console.log('skipped: no pty')
  mock = await startMockModel()
  live = await startLive({ mode: 'tui', pluginDirs: [writePlugin(tmpDir('probe'), 'probe', PANE_PROBE)], mock, extraArgs: ['--model', 'gpt-5', '--permission-mode', 'auto'] })
  const s = live
  let mark = 0
  const since = () => screenText(s.output().slice(mark))
  const outcomes = () => tagged(s.debugLog(), 'probe', 'OUTCOME')
  const waitOutcome = (n: number) => s.waitFor(`outcome ${n}`, () => outcomes().length >= n && outcomes()[n - 1], 60_000)
  const waitScreen = (what: string, text: string) => s.waitFor(what, () => since().includes(text), 60_000).catch((err) => { throw new Error(`${err}\n${since().slice(-2500)}`) })
  // 1. lapse: nobody answers.
  await s.send('run it')
  await waitScreen('the pane', 'PROBE-ACTION Bash')
  await waitScreen('the countdown', 'Review action: 8s')
  const during = since()
  const lapsed = await waitOutcome(1)
  await s.waitFor('the call ran', () => tagged(s.debugLog(), 'probe', 'CALL').length >= 1, 60_000)
  // 2. Allow once: Tab onto the first button, Enter presses it.
  mark = s.output().length
  await s.send('run it')
  await waitScreen('the pane again', 'PROBE-ACTION Bash')
  s.write('\t')
  await sleep(300)
  s.write('\r')
  const allowed = await waitOutcome(2)
  await s.waitFor('the call ran', () => tagged(s.debugLog(), 'probe', 'CALL').length >= 2, 60_000)
  // 3. Esc: the pane closes; the hook hands up the engine's ask.
  mark = s.output().length
  await s.send('run it')
  await waitScreen('the pane a third time', 'PROBE-ACTION Bash')
  s.write('\x1b')
  const escaped = await waitOutcome(3)
  await waitScreen('the engine dialog after the hook\'s ask', "Auto mode couldn't check this action, so it needs your approval")
  const after = since()
  const drawn = [...new Set(tagged(s.debugLog(), 'probe', 'DRAWN'))]
  console.log('pane:', JSON.stringify(drawn), JSON.stringify({ checked: tagged(s.debugLog(), 'probe', 'CHECKED'), next: tagged(s.debugLog(), 'probe', 'JUDGE-NEXT'), opened: tagged(s.debugLog(), 'probe', 'OPENED'), outcomes: outcomes(), calls: tagged(s.debugLog(), 'probe', 'CALL') }))
  console.log('after Esc:', after.slice(-600))
  assert.equal(tagged(s.debugLog(), 'probe', 'CHECKED')[0], { approver: 'person', result: { decision: 'ask', reason: tagged(s.debugLog(), 'probe', 'CHECKED')[0].result.reason } })
  assert.equal(tagged(s.debugLog(), 'probe', 'JUDGE-NEXT')[0].result, { decision: 'ask', reason: 'No classifier runs for this session' })
  assert.equal(tagged(s.debugLog(), 'probe', 'OPENED')[0], { isPlaced: true })
  assert.equal([lapsed.outcome, allowed.outcome, escaped.outcome], ['timeout', 'allow', 'closed'])
  assert.equal(drawn.slice(0, 3), [8, 7, 6], 'one draw a second')
  assert.ok(drawn.every((n: number, i: number) => i === 0 || n < drawn[i - 1]), JSON.stringify(drawn))
  // The wait on a promise is the hook's own time: its 10 s budget runs on through the pane (about 2 s left after 8 s).
  assert.ok(lapsed.remaining < 3000 && allowed.remaining > 5000, JSON.stringify([lapsed, allowed]))
  assert.ok(!/Do you want to proceed/.test(during), 'no engine dialog while the pane waits')
  assert.equal(tagged(s.debugLog(), 'probe', 'CALL').slice(0, 2).map((c: any) => c.isError), [false, false])
})

test.run()
