// Delegating from a native main (issue 19 part 2): Claude (the mock model) calls `mcp__klyth__agent` with
// an alias; the child runs on the provider (the mock provider) through its own tool loop of two Bash calls,
// and its answer comes back as the call's result; refusals start nothing, and no child meant for the
// provider reaches Claude.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { cleanupTmp, runClaude } from './engine.ts'
import { startMockModel, type MockModel } from './mock-model.ts'
import { startMockProvider, type MockProvider } from './mock-provider.ts'
import { ALIAS, routedHome } from './routing-kit.ts'

let mock: MockModel | undefined
let provider: MockProvider | undefined
test.after.each(async () => {
  await mock?.close()
  await provider?.close()
  mock = provider = undefined
})
test.after(() => cleanupTmp())

const TOOL = 'mcp__klyth__agent'
/** Claude's side: the prompt gets a call of the agent tool; the call's result gets Claude's last word, quoting it. */
const claude = (input: object) => startMockModel((req) => {
  const last = req.body.messages.at(-1)
  const result = Array.isArray(last?.content) ? last.content.find((b: any) => b.type === 'tool_result') : undefined
  if (result) return { text: `CLAUDE GOT: ${JSON.stringify(result.content)}` }
  // The person's prompt gets the call; the prompt a background answer comes back in gets a plain word.
  const answered = JSON.stringify(req.body.messages).includes('finished the task you handed it')
  return req.kind === 'main' && !answered ? { toolUse: { name: TOOL, input } } : { text: 'NOTED' }
})

test('a native main hands a task to an alias: the child\'s loop of two Bash calls runs on the provider, its answer is the tool\'s result', async () => {
  mock = await claude({ description: 'count files', prompt: 'DELEGATED: run two commands', model: ALIAS })
  provider = await startMockProvider([
    { match: /DELEGATED/, reply: { toolCalls: [{ name: 'Bash', arguments: JSON.stringify({ command: 'echo child-one', description: 'one' }) }] } },
    { match: /child-one/, reply: { toolCalls: [{ name: 'Bash', arguments: JSON.stringify({ command: 'echo child-two', description: 'two' }) }] } },
    { match: /child-two/, reply: { text: 'CHILD-ANSWER-91' } },
  ])
  const { home, plugin } = await routedHome(mock, provider)
  const before = mock.requests.length
  const r = await runClaude({ prompt: 'delegate please', pluginDirs: [plugin], mock, home, extraArgs: ['--allowedTools', 'Bash'] })
  assert.is(r.code, 0, r.stderr.slice(-800))
  assert.match(String(r.json.result), 'CLAUDE GOT:')
  assert.match(String(r.json.result), 'CHILD-ANSWER-91', 'the child\'s answer is the call\'s result')
  const child = provider.requests.filter((q) => q.path.endsWith('/chat/completions'))
  assert.equal(child.map((q) => q.lastText.match(/DELEGATED|child-one|child-two/)?.[0]), ['DELEGATED', 'child-one', 'child-two'], 'three requests: the task, then each call\'s result')
  assert.not.match(JSON.stringify(child[0]!.body.messages), 'klyth-route:', 'the marker never reaches the provider')
  const native = mock.requests.slice(before).filter((q) => q.kind === 'main')
  // A child on Claude would open its own request with the task as its user text (main has it only in its tool_use).
  const userText = (m: any) => (typeof m.content === 'string' ? m.content : m.content.filter((b: any) => b.type === 'text').map((b: any) => b.text).join(''))
  assert.ok(mock.requests.slice(before).every((q) => !q.body.messages.some((m: any) => m.role === 'user' && userText(m).includes('DELEGATED'))), 'the child never ran on Claude')
  assert.ok(native[0]!.body.tools.some((t: any) => t.name === TOOL && t.description.includes(`- ${ALIAS}: Mock GPT`)), 'Claude sees the tool and the aliases')
})

test('in the background: the call returns at once, and the child\'s answer reaches main once it is done', async () => {
  mock = await claude({ description: 'bg', prompt: 'DELEGATED in the background', model: ALIAS, run_in_background: true })
  provider = await startMockProvider([{ match: /DELEGATED/, reply: { text: 'BG-ANSWER-33', firstByteMs: 1500 } }])
  const { home, plugin } = await routedHome(mock, provider)
  const before = mock.requests.length
  const r = await runClaude({ prompt: 'delegate please', pluginDirs: [plugin], mock, home })
  assert.is(r.code, 0, r.stderr.slice(-800))
  const seen = mock.requests.slice(before).map((q) => JSON.stringify(q.body.messages))
  assert.ok(seen.some((m) => m.includes('started on the task as agent')), 'the call returned at once')
  assert.ok(seen.some((m) => m.includes('BG-ANSWER-33')), `the answer reached main: ${r.json.result}`)
})

test('refusals start nothing: an alias that is not configured, an unapproved provider', async () => {
  mock = await claude({ description: 'x', prompt: 'DELEGATED', model: 'nope' })
  provider = await startMockProvider([])
  const { home, plugin } = await routedHome(mock, provider)
  const r = await runClaude({ prompt: 'delegate please', pluginDirs: [plugin], mock, home })
  assert.is(r.code, 0, r.stderr.slice(-800))
  assert.match(String(r.json.result), 'nope cannot take the task')
  assert.is(provider.requests.length, 0)
  await mock.close()
  mock = await claude({ description: 'x', prompt: 'DELEGATED', model: ALIAS })
  const untrusted = await routedHome(mock, provider, { trusted: false })
  const u = await runClaude({ prompt: 'delegate please', pluginDirs: [untrusted.plugin], mock, home: untrusted.home })
  assert.match(String(u.json.result), 'provider mock is not approved')
  assert.is(provider.requests.length, 0, 'nothing reached the provider')
})

test.run()
