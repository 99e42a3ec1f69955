// Routing measurements (src/features/routing/NOTES.md §1): the compaction window the engine uses for a
// model name it does not know (`--model gpt-5`, or `/model gpt-5`), and which lever changes it live:
// `$.env.set` of CLAUDE_CODE_AUTO_COMPACT_WINDOW or CLAUDE_CODE_MAX_CONTEXT_TOKENS (at session start,
// mid-session, at the switch), the process environment, `/autocompact`, a settings file write.
// Then whether the engine really compacts a routed conversation at the chosen window.
// Main is "routed": a turn.step hook answers every alias step alone, its stop chunk's input_tokens
// setting the fill; the summarizer reaches http.fetch and is answered locally (probe-kit LOCAL_FETCH).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel } from './mock-model.ts'
import { cleanupTmp, runClaude, tmpDir, writePlugin, type RunResult } from './engine.ts'
import { startLive, type LiveSession } from './live.ts'
import { kitSource, LOCAL_FETCH, results, sendEach, sleep, tagged, turnsSettled } from './probe-kit.ts'

// CFG: startWindow/startMax (env.set at session.start), midAt + midWindow/midMax (env.set at the
// turn.complete of main turn N), switchMax (env.set at PostModelSwitch), fills (per main turn),
// autocompactLater (a timer after PostModelSwitch runs `/autocompact 200000`), writeUser (session start
// writes modelSettings into the user settings file).
const PROBE = (cfg: object) => kitSource(cfg) + `
let turns = 0
async function usageLog($, when) {
  const u = await $.session.usage({ breakdown: 'summary' })
  const b = u.context.breakdown || {}
  log($, 'USAGE', { when, turns, model: await $.session.model(), win: u.context.window, at: b.autoCompactThreshold, raw: b.rawMaxTokens, src: b.autocompactSource })
}
export function register(on) {
  on('session.start', async ($, e, next) => {
    if (CFG.startWindow) log($, 'SET', await $.env.set('CLAUDE_CODE_AUTO_COMPACT_WINDOW', CFG.startWindow))
    if (CFG.startMax) log($, 'SET', await $.env.set('CLAUDE_CODE_MAX_CONTEXT_TOKENS', CFG.startMax))
    if (CFG.writeUser) await $.fs.write((await $.env.get('HOME')) + '/.claude/settings.json', JSON.stringify({ modelSettings: { 'gpt-5': { autoCompactWindow: 200000 } } }))
    return next(e)
  })
  on('turn.step', async function* ($, e, next) {
    if (!isAlias(e.model)) return yield* next(e)
    return yield* answer($, e, { text: 'ROUTED', fill: (CFG.fills || [])[turns] || 5000 })
  })
  on('turn.complete', async ($, e, next) => {
    const r = await next(e)
    if (e.agentId) return r
    turns++
    await usageLog($, 'pre')
    if (turns === CFG.midAt && CFG.midWindow) log($, 'SET', await $.env.set('CLAUDE_CODE_AUTO_COMPACT_WINDOW', CFG.midWindow))
    if (turns === CFG.midAt && CFG.midMax) log($, 'SET', await $.env.set('CLAUDE_CODE_MAX_CONTEXT_TOKENS', CFG.midMax))
    if (turns === CFG.midAt) await usageLog($, 'post')
    return r
  })
  on('classic.PostModelSwitch', async ($, e, next) => {
    if (CFG.switchMax) log($, 'SET', await $.env.set('CLAUDE_CODE_MAX_CONTEXT_TOKENS', CFG.switchMax))
    if (CFG.autocompactLater) $.clock.after(10, async () => log($, 'AUTOCOMPACT', await $.command.run({ command: 'autocompact', args: '200000' })))
    return next(e)
  })
  on('session.compact', async ($, e, next) => {
    log($, 'COMPACT', { trigger: e.trigger })
    const r = await next(e)
    log($, 'COMPACTED', { skip: r.skip || null })
    return r
  })
` + LOCAL_FETCH + `
}
`

type Usage = { when: string; turns: number; model: string; win: number; at: number; raw: number; src: string }
const usages = (log: string): Usage[] => tagged(log, 'probe', 'USAGE')
const pick = (u: Usage) => ({ win: u.win, at: u.at, raw: u.raw, src: u.src })
const probe = (cfg: object) => writePlugin(tmpDir('probe'), 'probe', PROBE(cfg))
// The engine's own per-turn check: "autocompact: tokens=[REDACTED] level=ok effectiveWindow=980000".
const effectiveWindows = (log: string) => [...log.matchAll(/autocompact: tokens=\S+ level=(\w+) effectiveWindow=(\d+)/g)].map((m) => [m[1], Number(m[2])])

const DEFAULT = { win: 1_000_000, at: 967_000, raw: 1_000_000, src: 'unknown-model' }
const BY_WINDOW = { win: 1_000_000, at: 167_000, raw: 200_000, src: 'env' } // AUTO_COMPACT_WINDOW: threshold only
const BY_MAX = { win: 200_000, at: 167_000, raw: 200_000, src: 'unknown-model' } // MAX_CONTEXT_TOKENS: the window itself

let mock: MockModel | undefined
let live: LiveSession | undefined
test.after.each(async () => {
  await live?.stop()
  live = undefined
  await mock?.close()
  mock = undefined
})
test.after(() => cleanupTmp())

function ok(r: RunResult): void {
  assert.ok(!r.timedOut && r.code === 0, `engine exit ${r.code} (timedOut=${r.timedOut})\nstderr: ${r.stderr}\nstdout: ${r.stdout}`)
}

async function session(cfg: object, prompts: string[], extraArgs = ['--model', 'gpt-5']): Promise<string> {
  mock = await startMockModel()
  live = await startLive({ mode: 'stream-json', pluginDirs: [probe(cfg)], mock, extraArgs })
  await sendEach(live, prompts)
  return turnsSettled(live, prompts.filter((p) => !p.startsWith('/')).length)
}

test('--model gpt-5 headless: 1M assumed; env.set at session start, or the process env, changes the window from turn one', async () => {
  mock = await startMockModel()
  const cases: [string, object, Record<string, string>, object][] = [
    ['nothing set', {}, {}, DEFAULT],
    ['$.env.set AUTO_COMPACT_WINDOW at session.start', { startWindow: '200000' }, {}, BY_WINDOW],
    ['$.env.set MAX_CONTEXT_TOKENS at session.start', { startMax: '200000' }, {}, BY_MAX],
    ['process env AUTO_COMPACT_WINDOW', {}, { CLAUDE_CODE_AUTO_COMPACT_WINDOW: '200000' }, BY_WINDOW],
    ['process env MAX_CONTEXT_TOKENS', {}, { CLAUDE_CODE_MAX_CONTEXT_TOKENS: '200000' }, BY_MAX],
  ]
  for (const [what, cfg, env, want] of cases) {
    const r = await runClaude({ prompt: 'hello', pluginDirs: [probe(cfg)], mock, env, extraArgs: ['--model', 'gpt-5'] })
    ok(r)
    assert.is(r.json?.result, 'ROUTED', what)
    assert.equal(usages(r.debugLog).map(pick), [want], what)
  }
  assert.is(mock.requests.length, 0, 'routed: nothing reached the mock')
})

test('mid-session (stream-json): $.env.set at a turn.complete applies at once, and the next turn checks against it', async () => {
  for (const [cfg, want] of [[{ midAt: 1, midWindow: '200000' }, BY_WINDOW], [{ midAt: 1, midMax: '200000' }, BY_MAX]] as const) {
    const log = await session(cfg, ['one', 'two'])
    assert.equal(usages(log).map((u) => [u.when, u.turns, pick(u)]), [['pre', 1, DEFAULT], ['post', 1, want], ['pre', 2, want]])
    // The engine's own check before each main request: 1M less the 20k reserve, then the new window less it.
    assert.equal(effectiveWindows(log), [['ok', 980_000], ['ok', 180_000]])
    await live!.stop()
    await mock!.close()
  }
})

test('after /model gpt-5 (stream-json): MAX_CONTEXT_TOKENS binds unknown models only; either variable set before the switch silences the 1M notice', async () => {
  const NOTICE = `Claude Code doesn't recognize the model "gpt-5", so it assumes a context window of 1m tokens.`
  const runs: [object, Usage[], string[]][] = []
  for (const cfg of [{}, { startWindow: '200000' }, { startMax: '200000' }, { switchMax: '200000' }]) {
    const log = await session(cfg, ['one', '/model gpt-5', 'two'], [])
    runs.push([cfg, usages(log), results(live!.output()).map((x) => x.result)])
    await live!.stop()
    await mock!.close()
  }
  const opus = { win: 1_000_000, at: 967_000, raw: 1_000_000, src: 'model-default' }
  const [none, w, m, atSwitch] = runs
  assert.equal(none![1].map((u) => [u.model, pick(u)]), [['claude-opus-5-5', opus], ['gpt-5', DEFAULT]])
  // AUTO_COMPACT_WINDOW applies to every model, Claude's included.
  assert.equal(w![1].map((u) => [u.model, pick(u)]), [['claude-opus-5-5', { ...BY_WINDOW }], ['gpt-5', BY_WINDOW]])
  // MAX_CONTEXT_TOKENS leaves the Claude model alone and takes over once the model is unknown.
  assert.equal(m![1].map((u) => [u.model, pick(u)]), [['claude-opus-5-5', opus], ['gpt-5', BY_MAX]])
  assert.equal(atSwitch![1].map((u) => [u.model, pick(u)]), [['claude-opus-5-5', opus], ['gpt-5', BY_MAX]])
  assert.ok(none![2][1]!.includes(NOTICE), none![2][1])
  assert.not.ok(w![2][1]!.includes(NOTICE), w![2][1])
  assert.not.ok(m![2][1]!.includes(NOTICE), m![2][1])
  assert.ok(atSwitch![2][1]!.includes(NOTICE), 'set at PostModelSwitch: the notice was already written')
  for (const [, , texts] of runs) assert.is(texts[1]!.split('\n')[0], 'Set model to `gpt-5` for this session only')
})

test('/autocompact from a timer after the switch: per model in the user settings, live; a modelSettings file write is not applied live', async () => {
  await session({ autocompactLater: true }, ['/model gpt-5'], [])
  await live!.waitFor('the /autocompact result', () => results(live!.output()).length >= 2)
  await sendEach(live!, ['two'])
  await turnsSettled(live!, 1)
  assert.equal(tagged(live!.debugLog(), 'probe', 'AUTOCOMPACT'), [{ text: 'Auto-compact window for gpt-5 set to 200k tokens' }])
  assert.equal(usages(live!.debugLog()).map(pick), [{ win: 1_000_000, at: 167_000, raw: 200_000, src: 'settings' }])
  assert.equal(JSON.parse(readFileSync(join(live!.home, '.claude/settings.json'), 'utf8')), { modelSettings: { 'gpt-5': { autoCompactWindow: 200000 } } })
  // In stream-json the command's output is one more `result` line.
  assert.equal(results(live!.output()).map((x) => x.result.split('\n')[0]), ['Set model to `gpt-5` for this session only', 'Auto-compact window for gpt-5 set to 200k tokens', 'ROUTED'])
  await live!.stop()
  await mock!.close()

  // The same entry written into the user settings file by the plugin: seen by the watcher, not applied.
  await session({ writeUser: true }, ['one'])
  await live!.waitFor('the settings watcher', () => /Detected change to .*\/\.claude\/settings\.json/.test(live!.debugLog()))
  await sleep(1500)
  await sendEach(live!, ['two'])
  await turnsSettled(live!, 2)
  assert.ok(existsSync(join(live!.home, '.claude/settings.json')))
  assert.equal(usages(live!.debugLog()).map(pick), [DEFAULT, DEFAULT])
})

test('auto-compaction of a routed conversation at the chosen window: trigger auto, the summarizer at http.fetch with the alias, no turn.step', async () => {
  // The threshold is 167000 for a window of 200000 (the window less 33000).
  const cases: [object, boolean][] = [
    [{ startWindow: '200000', fills: [5000, 168_000, 5000] }, true],
    [{ startMax: '200000', fills: [5000, 168_000, 5000] }, true],
    [{ startWindow: '200000', fills: [5000, 166_000, 5000] }, false],
  ]
  for (const [cfg, compacts] of cases) {
    const log = await session(cfg, ['one', 'two', 'three'])
    const what = JSON.stringify(cfg)
    const fetches = tagged(log, 'probe', 'FETCH')
    if (compacts) {
      assert.equal(tagged(log, 'probe', 'COMPACT'), [{ trigger: 'auto' }], what)
      assert.equal(tagged(log, 'probe', 'COMPACTED'), [{ skip: null }], what)
      assert.equal(fetches.map((f) => [f.kind, f.origin, f.model, f.stream]), [['summary', 'engine', 'gpt-5', true]], what)
      assert.match(log, 'autocompact: tokens=[REDACTED] level=compact effectiveWindow=180000')
      // Three main turns, three routed steps: the summarizer raised none.
      assert.is((log.match(/turn\.step: a hook answered without the request/g) ?? []).length, 3, what)
    } else {
      assert.equal(tagged(log, 'probe', 'COMPACT'), [], what)
      assert.equal(fetches, [], what)
    }
    assert.equal(results(live!.output()).map((x) => x.result), ['ROUTED', 'ROUTED', 'ROUTED'], what)
    assert.is(mock!.requests.length, 0, what)
    await live!.stop()
    await mock!.close()
  }
})

test('a fill past the threshold on the first exchange: the reactive compaction bails (nothing to summarize) and the turn goes on uncompacted', async () => {
  const log = await session({ startWindow: '200000', fills: [190_000, 5000] }, ['one', 'two'])
  assert.equal(tagged(log, 'probe', 'COMPACT'), [{ trigger: 'auto' }])
  assert.equal(tagged(log, 'probe', 'COMPACTED'), [], 'next(e) rejected beneath')
  assert.match(log, 'Reactive compact: no assistant messages in summarize set, bailing')
  assert.equal(tagged(log, 'probe', 'FETCH'), [])
  assert.equal(results(live!.output()).map((x) => x.result), ['ROUTED', 'ROUTED'])
})

test.run()
