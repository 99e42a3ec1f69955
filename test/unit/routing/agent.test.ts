// The agent tool (issue 19 part 2): a native main hands one task to a routed model; the spawn is marked,
// claimed by routing's own agent.spawn hook, which sets the alias as the child's model; refusals before
// anything starts; a marked spawn with no route waiting is refused, never left to run on Claude.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { agentCallOf, agentTool, markerNonce, routeMarker } from '../../../src/features/routing/agent.ts'
import { fakeNext, macrotask } from '../fakes.ts'
import { approve, CONFIG, CONFIG_PATH, routingWorld, start } from './fake-port.ts'

const CALL = { tool: 'mcp__klyth__agent', tool_use_id: 'toolu_1', description: 'summarise', prompt: 'Summarise the README.', model: 'gpt-5' }
const signal = () => new AbortController().signal

async function world(over: Parameters<typeof routingWorld>[0] = {}) {
  const withUse = { ...CONFIG, models: { ...CONFIG.models, 'gpt-5': { ...CONFIG.models['gpt-5'], use: 'long refactors' } } }
  const r = routingWorld({ files: new Map([[CONFIG_PATH, JSON.stringify(withUse)]]), ...over })
  await start(r)
  return r
}
const call = (r: Awaited<ReturnType<typeof world>>, e: object, next = fakeNext(() => ({ result: 'native' }))) =>
  r.hooks['tool.call']!(r.port, e as never, Object.assign(next, { signal: signal() }) as never, r.ctx) as Promise<Record<string, unknown>>
const spawnHook = (r: Awaited<ReturnType<typeof world>>, e: object) => {
  const seen: unknown[] = []
  const next = fakeNext((input: unknown) => (seen.push(input), { model: 'gpt-5', agentId: 'agent-1' }))
  return { result: r.hooks['agent.spawn']!(r.port, e as never, next as never, r.ctx) as Promise<unknown>, seen }
}

test('the tool: registered at start with every routed alias, its label, window and use; its input read', async () => {
  const r = await world()
  assert.equal(r.w.tools.map((t) => t.name), ['agent'])
  assert.match(r.w.tools[0]!.description, /- gpt-5: GPT-5, window 400000 tokens; long refactors\n- kimi: Kimi K2, window 128000 tokens$/)
  assert.equal((agentTool('klyth', []).inputSchema.properties.model as { enum: string[] }).enum, [])
  assert.equal(agentCallOf({ prompt: 'p', model: 'm', run_in_background: true }), { description: 'm', prompt: 'p', model: 'm', background: true })
  assert.is(agentCallOf({ prompt: ' ', model: 'm' }), undefined)
  assert.is(markerNonce('klyth', routeMarker('klyth', 'ab12') + 'task'), 'ab12')
  assert.is(markerNonce('klyth', 'task'), undefined)
  assert.is(markerNonce('keel', routeMarker('klyth', 'ab12')), undefined, 'another package\'s marker is not this one\'s')
})

test('a foreground call: an approved alias, a marked spawn, the mark taken off and the alias set at agent.spawn, the child\'s answer as the result', async () => {
  const r = await world()
  await approve(r.w, 'example')
  const pending = call(r, CALL)
  for (let i = 0; i < 100 && !r.w.spawns.length; i++) await macrotask()
  assert.equal(r.w.spawns.length, 1)
  const marked = r.w.spawns[0]!.prompt
  assert.ok(marked.endsWith('\nSummarise the README.') && markerNonce('klyth', marked), marked)
  const spawn = spawnHook(r, { prompt: marked, description: 'summarise', subagentType: 'general-purpose' })
  await spawn.result
  assert.equal(spawn.seen, [{ prompt: 'Summarise the README.', description: 'summarise', subagentType: 'general-purpose', model: 'gpt-5' }])
  await r.hooks['turn.complete']!(r.port, { agentId: 'agent-1', answer: 'the summary', reason: 'answer', turnId: 't', durationMs: 1, isAborted: false } as never, fakeNext(() => ({ text: '' })) as never, r.ctx)
  assert.equal(await pending, { result: 'the summary' })
  // The same marker twice is no claim: a spawn meant for a provider never runs on Claude.
  assert.equal(await spawnHook(r, { prompt: marked, description: 'again' }).result, { deny: 'klyth agent: the spawned agent could not be routed, so it was not started on Claude' })
})

test('a background call returns at once; refusals before anything starts: an unknown alias, an unapproved provider, no prompt; another tool passes', async () => {
  const r = await world()
  await approve(r.w, 'example')
  assert.equal(await call(r, { ...CALL, run_in_background: true }), { result: 'GPT-5 started on the task as agent agent-1; its answer arrives when it finishes' })
  const before = r.w.spawns.length
  assert.match(String((await call(r, { ...CALL, model: 'nope' })).deny), /^klyth agent: nope cannot take the task/)
  assert.match(String((await call(r, { ...CALL, model: 'kimi' })).deny), /provider moon is not approved/)
  assert.match(String((await call(r, { ...CALL, prompt: '' })).deny), /needs a prompt and a model/)
  assert.is(r.w.spawns.length, before, 'nothing spawned for a refusal')
  assert.equal(await call(r, { tool: 'Bash', tool_use_id: 'x', command: 'ls' }), { result: 'native' })
  r.w.spawnAnswer = { deny: 'the engine says no' }
  assert.equal(await call(r, CALL), { deny: 'the engine says no' })
  const plain = spawnHook(r, { prompt: 'a plain task', description: 'd' })
  await plain.result
  assert.equal(plain.seen, [{ prompt: 'a plain task', description: 'd' }], 'a spawn with no mark passes untouched')
})

test.run()
