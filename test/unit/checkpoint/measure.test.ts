// checkpoint's session.measure hook and the facts' summary read: one read per main turn, shared, so a
// measurement after reconnect's turn-start read makes no host trip of its own on the hook's path.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createCheckpointFeature } from '../../../src/features/checkpoint/index.ts'
import { createFacts } from '../../../src/runtime/facts.ts'
import type { FeatureContext } from '../../../src/registry.ts'
import { hookOf } from '../fakes.ts'

const SUMMARY = { context: { tokens: 100, window: 1_000_000, breakdown: { autoCompactThreshold: 967_000, isAutoCompactEnabled: true } } }

function world() {
  const counts = { summary: 0, portUsage: 0, timers: 0 }
  const facts = createFacts()
  facts.bind({ sessionId: async () => 's1', ownServer: async () => undefined, summary: async () => (counts.summary++, SUMMARY) as never })
  const port = { pkg: 'keel', files: {}, usage: async () => (counts.portUsage++, SUMMARY.context), after: () => void counts.timers++ }
  const ctx = { pkg: 'keel', options: { checkpoint: true }, defaults: {}, facts, log: () => {}, compact: async () => ({ messages: [] }) } as unknown as FeatureContext
  return { counts, facts, port, ctx }
}

test('facts: one summary read per main turn, shared by every caller; a subagent\'s turn start keeps it, a main one reads afresh', async () => {
  const { counts, facts } = world()
  facts.turnStarted(undefined)
  await Promise.all([facts.summary(), facts.summary()])
  facts.turnStarted('agent-1')
  await facts.summary()
  assert.is(counts.summary, 1)
  facts.turnStarted(undefined)
  await facts.summary()
  assert.is(counts.summary, 2)
})

test('facts: a failed summary read is not kept for the turn; the next call reads again', async () => {
  const facts = createFacts()
  let reads = 0
  facts.bind({ sessionId: async () => 's1', ownServer: async () => undefined, summary: async () => (++reads === 1 ? Promise.reject(new Error('host busy')) : SUMMARY) as never })
  facts.turnStarted(undefined)
  await facts.summary().then(() => assert.unreachable('the first read fails'), (err: Error) => assert.is(err.message, 'host busy'))
  assert.equal(await facts.summary(), SUMMARY)
  assert.is(reads, 2)
})

test('session.measure after the turn\'s summary read: no read of its own on the hook\'s path, the decision deferred', async () => {
  const { counts, facts, port, ctx } = world()
  facts.turnStarted(undefined)
  await facts.summary() // reconnect's turn start
  const measure = hookOf(createCheckpointFeature(), 'session.measure')
  const answer = await measure(port, { context: { tokens: 5000, window: 1_000_000 }, rateLimits: [], changed: ['context'] }, async (e: unknown) => ({ passed: e }), ctx)
  assert.ok('passed' in answer)
  assert.is(counts.portUsage, 0, 'the measurement made its own usage read')
  assert.is(counts.summary, 1)
  assert.is(counts.timers, 1, 'the decision runs off the path')
})

test('session.measure with no read yet this turn: the facts read it once, while the hook runs (the session is bound)', async () => {
  const { counts, facts, port, ctx } = world()
  facts.turnStarted(undefined)
  const measure = hookOf(createCheckpointFeature(), 'session.measure')
  await measure(port, { context: { tokens: 5000, window: 1_000_000 }, rateLimits: [], changed: ['context'] }, async (e: unknown) => ({ passed: e }), ctx)
  assert.is(counts.summary, 1)
  assert.is(counts.portUsage, 0)
})

test.run()
