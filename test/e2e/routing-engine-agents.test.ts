// Routing measurements (src/features/routing/NOTES.md §6): subagents under a routed main
// (`--model gpt-5`). The routed main answers its first step with an Agent call; the probe records the
// `agent.spawn` input and result, each step's `e.model`/`e.agentId`, and whether the child's answer
// reaches the parent. Variants: general-purpose (foreground and background), a project agent definition
// with `model: gpt-mini` and `tools: Read, Bash`, an agent.spawn hook setting `model`, and a fork.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel } from './mock-model.ts'
import { cleanupTmp, runClaude, tmpDir, writePlugin, type RunResult } from './engine.ts'
import { kitSource, LOCAL_FETCH, tagged } from './probe-kit.ts'

// CFG.type: the Agent call's subagent_type; CFG.bg: its run_in_background (absent: the default);
// CFG.spawnModel: the agent.spawn hook rewrites `model` to it.
const PROBE = (cfg: object) => kitSource(cfg) + `
let delegated = false
export function register(on) {
  on('turn.step', async function* ($, e, next) {
    const ms = await $.session.messages(e.agentId ? { as: 'api', agentId: e.agentId } : { as: 'api' })
    const text = JSON.stringify(ms[ms.length - 1] || {})
    log($, 'STEP', { model: e.model, index: e.index, agent: !!e.agentId, sawChild: text.includes('child-answer-77'), notification: text.includes('<task-notification>') })
    if (!isAlias(e.model)) return yield* next(e)
    if (e.agentId) return yield* answer($, e, { text: 'child-answer-77 from ' + e.model })
    if (!delegated) {
      delegated = true
      const input = Object.assign({ description: 'probe task', prompt: 'CHILD: do it', subagent_type: CFG.type }, CFG.bg === undefined ? {} : { run_in_background: CFG.bg })
      return yield* answer($, e, { text: 'delegating', tools: [{ name: 'Agent', input }] })
    }
    return yield* answer($, e, { text: text.includes('child-answer-77') ? 'MAIN SAW THE CHILD' : 'MAIN WAITS' })
  })
  on('agent.spawn', async ($, e, next) => {
    log($, 'SPAWN', { type: e.subagentType, model: e.model === undefined ? null : e.model, parentModel: e.parentModel, fork: e.fork, background: e.background, provider: e.provider.plugin, origin: next.origin.plugin })
    const r = await next(CFG.spawnModel ? Object.assign({}, e, { model: CFG.spawnModel }) : e)
    log($, 'SPAWNED', { model: r.model, hasAgentId: typeof r.agentId === 'string' })
    return r
  })
  on('turn.complete', async ($, e, next) => { log($, 'DONE', { agent: !!e.agentId, answer: e.answer, model: e.usage && e.usage.model }); return next(e) })
` + LOCAL_FETCH + `
}
`

let mock: MockModel | undefined
test.after.each(async () => {
  await mock?.close()
  mock = undefined
})
test.after(() => cleanupTmp())

async function delegate(cfg: object): Promise<RunResult> {
  mock = await startMockModel()
  const cwd = tmpDir('proj')
  mkdirSync(join(cwd, '.claude/agents'), { recursive: true })
  writeFileSync(join(cwd, '.claude/agents/worker.md'), '---\nname: worker\ndescription: A worker for probe tasks\nmodel: gpt-mini\ntools: Read, Bash\n---\nYou are a worker.\n')
  const r = await runClaude({ prompt: 'delegate', cwd, pluginDirs: [writePlugin(tmpDir('probe'), 'probe', PROBE(cfg))], mock, extraArgs: ['--model', 'gpt-5'] })
  assert.is(r.code, 0, r.stderr)
  assert.is(mock.requests.length, 0, 'nothing reached the native API')
  return r
}
const steps = (r: RunResult) => tagged(r.debugLog, 'probe', 'STEP').map((s) => [s.agent ? 'child' : 'main', s.index, s.model])

test('general-purpose, foreground: parentModel gpt-5, model undefined; the child inherits gpt-5 and its answer is main\'s tool result', async () => {
  const r = await delegate({ type: 'general-purpose', bg: false })
  assert.equal(tagged(r.debugLog, 'probe', 'SPAWN'), [{ type: 'general-purpose', model: null, parentModel: 'gpt-5', fork: false, background: false, provider: 'engine', origin: 'engine' }])
  assert.equal(tagged(r.debugLog, 'probe', 'SPAWNED'), [{ model: 'gpt-5', hasAgentId: true }])
  assert.equal(steps(r), [['main', 0, 'gpt-5'], ['child', 0, 'gpt-5'], ['main', 1, 'gpt-5']])
  assert.ok(tagged(r.debugLog, 'probe', 'STEP')[2].sawChild)
  assert.is(r.json.result, 'MAIN SAW THE CHILD')
  assert.equal(tagged(r.debugLog, 'probe', 'DONE').map((d) => [d.agent, d.model]), [[true, 'gpt-5'], [false, 'gpt-5']])
})

test('general-purpose, background (the default): "Async agent launched", then a <task-notification> turn carries the child\'s answer', async () => {
  const r = await delegate({ type: 'general-purpose' })
  assert.equal(tagged(r.debugLog, 'probe', 'SPAWN').map((s) => s.background), [true])
  const st = tagged(r.debugLog, 'probe', 'STEP')
  const main = st.filter((s) => !s.agent)
  assert.equal(main.map((s) => s.index), [0, 1, 0], 'main: the Agent call, the launch result, then a new turn')
  assert.equal([main[1].sawChild, main[2].notification, main[2].sawChild], [false, true, true])
  assert.is(r.json.result, 'MAIN SAW THE CHILD')
})

test('an agent definition with model: gpt-mini routes the child as gpt-mini (spawn model undefined, result gpt-mini)', async () => {
  const r = await delegate({ type: 'worker', bg: false })
  assert.equal(tagged(r.debugLog, 'probe', 'SPAWN'), [{ type: 'worker', model: null, parentModel: 'gpt-5', fork: false, background: false, provider: 'project', origin: 'engine' }])
  assert.equal(tagged(r.debugLog, 'probe', 'SPAWNED'), [{ model: 'gpt-mini', hasAgentId: true }])
  assert.equal(steps(r), [['main', 0, 'gpt-5'], ['child', 0, 'gpt-mini'], ['main', 1, 'gpt-5']])
  assert.is(r.json.result, 'MAIN SAW THE CHILD')
})

test('an agent.spawn hook may set model to an alias the Agent tool\'s enum cannot name: the child runs as gpt-mini', async () => {
  const r = await delegate({ type: 'general-purpose', bg: false, spawnModel: 'gpt-mini' })
  assert.equal(tagged(r.debugLog, 'probe', 'SPAWNED'), [{ model: 'gpt-mini', hasAgentId: true }])
  assert.equal(steps(r), [['main', 0, 'gpt-5'], ['child', 0, 'gpt-mini'], ['main', 1, 'gpt-5']])
  assert.equal(tagged(r.debugLog, 'probe', 'DONE').map((d) => [d.agent, d.answer, d.model]), [[true, 'child-answer-77 from gpt-mini', 'gpt-mini'], [false, 'MAIN SAW THE CHILD', 'gpt-5']])
})

test('a fork (subagent_type "fork"): fork true, inherits gpt-5, routed; its answer reaches main', async () => {
  const r = await delegate({ type: 'fork', bg: false })
  assert.equal(tagged(r.debugLog, 'probe', 'SPAWN'), [{ type: 'fork', model: null, parentModel: 'gpt-5', fork: true, background: false, provider: 'engine', origin: 'engine' }])
  assert.equal(tagged(r.debugLog, 'probe', 'SPAWNED'), [{ model: 'gpt-5', hasAgentId: true }])
  assert.equal(steps(r), [['main', 0, 'gpt-5'], ['child', 0, 'gpt-5'], ['main', 1, 'gpt-5']])
  assert.is(r.json.result, 'MAIN SAW THE CHILD')
})

test.run()
