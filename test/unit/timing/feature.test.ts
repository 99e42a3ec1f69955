// The timing feature's hooks over a fake port: registration, the main-turn flag, measure, the lever, status.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { advisoryOf, createTimingFeature } from '../../../src/features/timing/index.ts'
import { createRegistry, type FeatureContext } from '../../../src/registry.ts'
import { fakeNext, fakePort, hooksOf, type FakePort } from '../fakes.ts'

let fake: FakePort = fakePort('ws')
let timingFeature = createTimingFeature()
const ctx = (compactionAdvisory = '50%'): FeatureContext => fake.ctx(timingFeature, { timing: true, compactionAdvisory })
const TOOL = 'mcp__ws__request_compaction'

function setup(over: Record<string, unknown> = {}) {
  const seen = { submits: [] as string[], timers: [] as (() => void)[], compacts: 0, tokens: 50_000, notices: [] as string[] }
  fake = fakePort('ws', {
    registerTool: async (spec: { name: string }) => `mcp__ws__${spec.name}`,
    windowEnv: async () => undefined,
    usage: async () => ({ startedAt: 0, rateLimits: [], context: { tokens: seen.tokens, window: 200_000, breakdown: { rawMaxTokens: 200_000, autoCompactThreshold: 160_000, isAutoCompactEnabled: true } } }) as never,
    submitPrompt: async (text: string) => void seen.submits.push(text),
    compactSession: async () => (seen.compacts++, { messages: [] }) as never,
    after: (_ms: number, fn: () => void) => void seen.timers.push(fn),
    notice: (line: string) => void seen.notices.push(line),
    ...over,
  })
  timingFeature = createTimingFeature()
  const hooks = hooksOf(timingFeature)
  // The runtime's facts follow the main turn around the features' own turn hooks.
  const h = {
    ...hooks,
    'turn.start': (port: unknown, e: { agentId?: string }, next: unknown, c: FeatureContext) => (fake.facts.turnStarted(e.agentId), hooks['turn.start']!(port, e, next, c)),
    'turn.complete': async (port: unknown, e: { agentId?: string }, next: unknown, c: FeatureContext) => {
      try {
        return await hooks['turn.complete']!(port, e, next, c)
      } finally {
        fake.facts.turnEnded(e.agentId)
      }
    },
  }
  const run = async () => {
    for (const fn of seen.timers.splice(0)) fn()
    for (let i = 0; i < 20; i++) await Promise.resolve()
  }
  return { port: fake.port, lines: fake.lines, seen, h, run }
}

const measure = (s: ReturnType<typeof setup>, tokens: number) =>
  s.h['session.measure']!(s.port, { context: { tokens, window: 200_000 }, rateLimits: [], changed: ['context'] } as never, fakeNext((e: { changed: unknown }) => ({ changed: e.changed })), ctx())

test('advisoryOf: a bad value keeps the default and names the problem', () => {
  assert.equal(advisoryOf(ctx('150k')), { spec: { tokens: 150000 } })
  assert.equal(advisoryOf(ctx('bogus')).spec, { percent: 50 })
  assert.match(advisoryOf(ctx('bogus')).problem!, 'compactionAdvisory "bogus" is not valid')
})

test('start registers the lever; measure wakes; the lever compacts at the turn end; status says it all', async () => {
  const s = setup()
  await s.h['session.start']!(s.port, { cwd: '/w' } as never, fakeNext((e: { cwd: string }) => ({ cwd: e.cwd })), ctx())
  assert.ok(s.lines.includes('timing: advisory point "50%" read as 50%'))
  await measure(s, 50_000)
  await s.run()
  s.seen.tokens = 112_000
  await s.h['turn.start']!(s.port, { text: 'x', turnId: 't1' } as never, fakeNext((e: { turnId: string }) => ({ turnId: e.turnId })), ctx())
  await measure(s, 110_000)
  await s.run()
  assert.equal(s.seen.submits, [], 'a main turn runs')
  await s.h['turn.complete']!(s.port, { answer: 'a', turnId: 't1', reason: 'answer' } as never, fakeNext((e: { answer: string }) => ({ text: e.answer })), ctx())
  await s.run()
  assert.is(s.seen.submits.length, 1)
  const lever = await s.h['tool.call']!(s.port, { tool: TOOL, tool_use_id: 'u1', continue: true } as never, fakeNext(() => ({ result: 'beneath' })), ctx())
  assert.match((lever as { result: string }).result, 'Compaction requested.')
  const other = await s.h['tool.call']!(s.port, { tool: 'mcp__x__request_compaction', tool_use_id: 'u2' } as never, fakeNext(() => ({ result: 'beneath' })), ctx())
  assert.equal(other, { result: 'beneath' })
  const status = await timingFeature.status!(s.port, ctx())
  assert.ok(status.includes('a compaction request waits for the turn end'), status.join('\n'))
  await s.h['turn.complete']!(s.port, { answer: 'a', turnId: 't2', reason: 'answer' } as never, fakeNext((e: { answer: string }) => ({ text: e.answer })), ctx())
  await s.run()
  assert.is(s.seen.compacts, 1)
  assert.ok((await timingFeature.status!(s.port, ctx())).includes('a resume prompt is held in the continuation window'))
  await s.h['session.compact']!(s.port, { trigger: 'auto', messages: [] } as never, fakeNext(() => ({ messages: [] })), ctx())
  await s.h['session.end']!(s.port, { reason: 'clear', sessionId: 's', resume: { id: 's' } } as never, fakeNext((e: { sessionId: string }) => ({ sessionId: e.sessionId })), ctx())
  assert.equal(s.seen.notices, [`ws compaction: a prompt was not submitted (session.end clear):\n[ws compaction] Compaction landed; resume the work in progress from the summary and your durable records.`])
})

test('a failed registration, a failing breakdown read, and a throwing lever answer as they should', async () => {
  const s = setup({ registerTool: async () => { throw new Error('not bound') } })
  await s.h['session.start']!(s.port, { cwd: '/w' } as never, fakeNext((e: { cwd: string }) => ({ cwd: e.cwd })), ctx('x'))
  assert.ok(s.lines.includes('timing: setup failed (not bound); request_compaction not registered'))
  assert.ok(s.lines.some((l) => l.includes('compactionAdvisory "x" is not valid')))
  assert.ok((await timingFeature.status!(s.port, ctx('x'))).includes('request_compaction: not registered'))
  const passed = await s.h['tool.call']!(s.port, { tool: TOOL, tool_use_id: 'u1' } as never, fakeNext(() => ({ result: 'beneath' })), ctx())
  assert.equal(passed, { result: 'beneath' }, 'an unregistered lever is not served')
  s.port.usage = async () => { throw new Error('no usage') }
  const answered = await measure(s, 50_000)
  assert.equal(answered, { changed: ['context'] }, 'the measure goes on at once')
  assert.not.ok(s.lines.includes('timing: usage observation failed: no usage'), 'the read waits for the clock')
  await s.run()
  assert.ok(s.lines.includes('timing: usage observation failed: no usage'))

  // A lever that throws is refused by its declared failure policy, which the registry applies.
  const t = setup()
  const broken = ctx('50%', )
  const throwing: FeatureContext = { ...broken, log: (line) => { if (line.startsWith('compaction requested')) throw new Error('log broke'); broken.log(line) } }
  const registry = createRegistry([timingFeature], (line) => t.lines.push(line))
  registry.bind({ timing: t.port }, { timing: throwing })
  // The machine's edges are bound at session.start, over the one context a load has.
  await registry.dispatch('session.start', { cwd: '/w' } as never, fakeNext((e: { cwd: string }) => ({ cwd: e.cwd })))
  const denied = await registry.dispatch('tool.call', { tool: TOOL, tool_use_id: 'u1' } as never, fakeNext(() => ({ result: 'beneath' })))
  assert.equal(denied, { deny: 'request_compaction: the compaction request hook failed; see the debug log.' })
  assert.ok(t.lines.includes('timing: tool.call hook skipped (Error: log broke)'), t.lines.join('\n'))
})

test.run()
