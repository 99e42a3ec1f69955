// The registry's guard policy and the agent.spawn event in the real engine, with test-only features
// built into the test bundle (test/fixtures/stream-features): a guard on http.fetch that fails refuses
// the engine's request instead of letting it through unguarded, and an agent.spawn hook's rewrite of
// `model` reaches the child's requests.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { requestText, startMockModel, type MockModel, type RecordedRequest } from './mock-model.ts'
import { cleanupTmp, runClaude, testPackage } from './engine.ts'
import { GUARD_TEXT } from '../fixtures/stream-features/features.ts'

let mock: MockModel | undefined
test.after.each(async () => {
  await mock?.close()
  mock = undefined
})
test.after(() => cleanupTmp())

const withOptions = (options: object) => ({ pluginConfigs: { 'keeltest@inline': { options } } })

test('a guard that fails refuses the engine\'s request (its declared deny), nothing reaches the model', async () => {
  mock = await startMockModel()
  const r = await runClaude({ prompt: 'hello', pluginDirs: [testPackage('stream-features')], mock, settings: withOptions({ guardThrow: 'on' }) })
  assert.is(mock.messages().length, 0, 'the request was never sent')
  assert.match(JSON.stringify(r.json ?? r.stdout), GUARD_TEXT)
  assert.match(r.debugLog, 'guardThrow: http.fetch hook skipped (Error: guardThrow failed)')
})

test('without the guard the same request goes through (the test above can fail)', async () => {
  mock = await startMockModel()
  const r = await runClaude({ prompt: 'hello', pluginDirs: [testPackage('stream-features')], mock })
  assert.is(r.code, 0, r.stderr)
  assert.ok(mock.messages().length > 0)
})

test('agent.spawn: a feature\'s rewrite of the child\'s model reaches the child\'s requests', async () => {
  const isChild = (q: RecordedRequest) => requestText(q.body).includes('CHILD-TASK')
  mock = await startMockModel((q) => {
    if (isChild(q)) return { text: 'child done' }
    if (requestText(q.body).includes('child done')) return { text: 'lead done' }
    return { toolUse: { name: 'Agent', input: { description: 'a task', prompt: 'CHILD-TASK: say done', subagent_type: 'general-purpose', run_in_background: false } } }
  })
  const r = await runClaude({ prompt: 'delegate', pluginDirs: [testPackage('stream-features')], mock, settings: withOptions({ spawnModel: 'on' }), extraArgs: ['--allowedTools', 'Agent'] })
  assert.is(r.code, 0, r.stderr)
  assert.is(r.json.result, 'lead done')
  const child = mock.messages().find(isChild)
  const lead = mock.messages().find((q) => !isChild(q))
  assert.ok(child && lead)
  assert.match(child!.body.model, /haiku/, `the child ran on ${child!.body.model}`)
  assert.not.match(lead!.body.model, /haiku/)
})

test.run()
