// Routing usage (issue 19 part 1): two routed sessions on one config folder at once, each counted from the
// provider's own usage into its own file under keel's home (nothing lost to the other's write), priced per
// alias; `/klyth route usage` then shows the session's own and the last 30 days' totals summed from those files.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { cleanupTmp, runClaude } from './engine.ts'
import { startMockModel, type MockModel } from './mock-model.ts'
import { startMockProvider, type MockProvider } from './mock-provider.ts'
import { ALIAS, routed, routedHome } from './routing-kit.ts'

let mock: MockModel | undefined
let provider: MockProvider | undefined
test.after.each(async () => {
  await mock?.close()
  await provider?.close()
  mock = provider = undefined
})
test.after(() => cleanupTmp())

// The mock provider's usage for every answer: 100 in, 5 out; priced at $2 and $10 per million.
const PRICING = { input: 2, output: 10 }
const PER_REQUEST = (100 * 2 + 5 * 10) / 1e6

test('two routed sessions at once: each its own usage file, both counted, priced; route usage sums them', async () => {
  mock = await startMockModel()
  provider = await startMockProvider()
  const { home, plugin } = await routedHome(mock, provider, { extras: { model: { pricing: PRICING } } })
  const [a, b] = await Promise.all([
    routed({ prompt: 'hello from one', pluginDirs: [plugin], mock, home }),
    routed({ prompt: 'hello from two', pluginDirs: [plugin], mock, home }),
  ])
  for (const r of [a, b]) assert.is(r.code, 0, r.stderr.slice(-800))
  const dir = join(home, '.claude/keel/usage')
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'))
  assert.equal(files.sort(), [`${a.sessionId}.json`, `${b.sessionId}.json`].sort(), 'one file a session')
  const totals = files.map((f) => JSON.parse(readFileSync(join(dir, f), 'utf8')).aliases[ALIAS])
  const served = provider.requests.filter((q) => q.path.endsWith('/chat/completions')).length
  assert.is(totals.reduce((n, t) => n + t.requests, 0), served, 'every request the provider answered is counted once')
  for (const t of totals) {
    assert.ok(t.requests >= 1 && t.gaps === 0, JSON.stringify(t))
    assert.is(t.input, 100 * t.requests)
    assert.is(t.output, 5 * t.requests)
    assert.ok(Math.abs(t.cost - PER_REQUEST * t.requests) < 1e-12, `${t.cost}`)
  }
  const view = await runClaude({ prompt: '/klyth route usage', pluginDirs: [plugin], mock, home })
  const text = String(view.json.result)
  assert.match(text, 'this session, by alias:')
  assert.match(text, `the last 30 days, by alias (every session of this config folder):\n  ${ALIAS}: ${served} request${served === 1 ? '' : 's'}, in ${100 * served}, out ${5 * served}`)
  assert.match(text, `$${(PER_REQUEST * served).toFixed(4)}`)
})

test.run()
