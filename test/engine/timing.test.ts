// packages: ws, keel
// The timing feature through real dispatch: the lever registered at session start and served at
// tool.call, the compaction at the turn's end and the resume held for the continuation window, the
// wake prompts from session.measure, and the status lines. The test's `on` hooks stand for the engine.
import { expect, mock, test, type TestBody } from 'claude-code/testing'
import { PKG } from './package.ts'

const TOOL = `mcp__${PKG}__request_compaction`
const ON = { options: { timing: 'on' } }
const RUN = { origin: { kind: 'composer' }, presentation: { isFullscreen: false, columns: 100 } } as const
const TURN = { answer: 'done', durationMs: 10, isAborted: false, turnId: 't1', reason: 'answer' as const }
const RESUME = `[${PKG} compaction] Compaction landed; resume the work in progress from the summary and your durable records.`

type On = Parameters<TestBody>[1]
type Engine = Parameters<TestBody>[0]

function world(on: On) {
  const clock = mock.clock(on, { now: 1_000 })
  const seen = { registered: [] as { name: string; isDeferred?: unknown }[], submitted: [] as string[], logs: [] as string[], compactions: 0, tokens: 50_000 }
  on('ui.log', (_, e) => (seen.logs.push(e.text), { value: undefined }))
  on('command.register', (_, e) => ({ value: { command: e.name } }))
  on('session.start', (_, e) => ({ cwd: e.cwd }))
  on('session.id', () => ({ value: 'session-1' }))
  on('env.get', () => ({ value: undefined }))
  on('env.set', () => ({ value: {} }))
  on('tool.register', (_, e) => (seen.registered.push(e), { value: { tool: `mcp__${PKG}__${e.name}` } }))
  on('session.usage', () => ({
    value: <never>{ startedAt: 0, rateLimits: [], context: { tokens: seen.tokens, window: 200_000, percent: 0, breakdown: { rawMaxTokens: 200_000, autoCompactThreshold: 160_000, isAutoCompactEnabled: true, autocompactSource: 'model-default' } } },
  }))
  on('prompt.submit', (_, e) => (seen.submitted.push(e.text), { text: e.text }))
  on('session.compact', (_, e) => (seen.compactions++, { messages: e.messages ?? [{ role: 'user', text: 'summary', toolUses: [] }] }))
  on('session.measure', (_, e) => ({ changed: e.changed }))
  on('tool.call', () => ({ result: 'beneath' }))
  on('turn.start', (_, e) => ({ turnId: e.turnId }))
  on('turn.complete', (_, e) => ({ text: e.answer }))
  on('session.end', (_, e) => ({ sessionId: e.sessionId }))
  return { clock, seen }
}

const start = ($: Engine) => $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
const measure = ($: Engine, tokens: number) => $.session.measure({ context: { tokens, window: 200_000, percent: Math.round(tokens / 2000) }, rateLimits: [], changed: ['context'] })
/** A measurement and the work it defers to the clock (the hook answers before its reads). */
const observe = async ($: Engine, w: ReturnType<typeof world>, tokens: number) => {
  await measure($, tokens)
  await w.clock.settle()
}

test('the lever is registered at session start, eager, and the status lines say so', ON, async ($, on) => {
  const w = world(on)
  await start($)
  expect(w.seen.registered.filter((t) => t.name === 'request_compaction')).toEqual([expect.objectContaining({ name: 'request_compaction', isDeferred: false })])
  const status = await $.command.run({ command: PKG, args: 'status', ...RUN })
  expect(status.text).toContain('timing: ')
  expect(status.text).toContain('  advisory point: 50%')
  expect(status.text).toContain(`  request_compaction: registered as ${TOOL}`)
})

test('usage past the advisory point wakes the session with fresh figures', ON, async ($, on) => {
  const w = world(on)
  await start($)
  await observe($, w, 50_000)
  expect(w.seen.submitted).toEqual([])
  w.seen.tokens = 112_000
  await measure($, 110_000)
  expect(w.seen.submitted).toEqual([]) // the measure answered at once; its reads wait for the clock
  await w.clock.settle()
  expect(w.seen.submitted).toHaveLength(1)
  expect(w.seen.submitted[0]).toStartWith(`[${PKG} compaction] Context window at the end of the last turn: 56% (112k / 200k tokens) / 80% (automatic compaction point). This is past the advisory point (50%).`)
  w.seen.tokens = 125_000
  await observe($, w, 125_000)
  expect(w.seen.submitted[1]).toContain('Past 80%, Claude Code compacts automatically')
  const status = await $.command.run({ command: PKG, args: 'status', ...RUN })
  expect(status.text).toContain('  compaction window 200000: advisory 50%, milestones 60% and 70%, auto compaction 80%')
  expect(status.text).toContain('  messages delivered up to level 2 of 3')
})

test('a crossing during a main turn is delivered after its end', ON, async ($, on) => {
  const w = world(on)
  await start($)
  await observe($, w, 50_000)
  await $.turn.start({ text: 'work', turnId: 't1' })
  w.seen.tokens = 112_000
  await observe($, w, 110_000)
  expect(w.seen.submitted).toEqual([])
  await $.turn.complete(TURN)
  await w.clock.advance(0)
  expect(w.seen.submitted).toHaveLength(1)
})

test('request_compaction with continue: compaction at the turn end, the resume after 1.5 s', ON, async ($, on) => {
  const w = world(on)
  await start($)
  const r = await $.tool.call(<never>{ tool: TOOL, tool_use_id: 'u1', continue: true })
  expect(r).toMatchObject({ result: expect.stringContaining('a resume prompt follows it') })
  expect(w.seen.compactions).toBe(0)
  await $.turn.complete(TURN)
  await w.clock.advance(0)
  expect(w.seen.compactions).toBe(1)
  await w.clock.advance(1_499)
  expect(w.seen.submitted).toEqual([])
  await w.clock.advance(1)
  expect(w.seen.submitted).toEqual([RESUME])
})

test('a main-thread turn within the continuation window cancels the resume', ON, async ($, on) => {
  const w = world(on)
  await start($)
  await $.tool.call(<never>{ tool: TOOL, tool_use_id: 'u1', continue: true })
  await $.turn.complete(TURN)
  await w.clock.advance(800)
  await $.turn.start({ text: 'the person typed', turnId: 't2' })
  await w.clock.advance(1_000)
  expect(w.seen.submitted).toEqual([])
})

test('a subagent is refused, and another tool of the same short name passes through', ON, async ($, on) => {
  world(on)
  await start($)
  const sub = await $.tool.call(<never>{ tool: TOOL, tool_use_id: 'u1', agentId: 'A1' })
  expect(sub).toMatchObject({ deny: 'request_compaction compacts the main session only; called from subagent A1.' })
  const other = await $.tool.call(<never>{ tool: 'mcp__other__request_compaction', tool_use_id: 'u2' })
  expect(other).toMatchObject({ result: 'beneath' })
})

test('an invalid advisory keeps the default and says so in the debug log and the status', { options: { timing: 'on', compactionAdvisory: '50 %' } }, async ($, on) => {
  const w = world(on)
  await start($)
  expect(w.seen.logs).toContain('timing: compactionAdvisory "50 %" is not valid (use 50, 50%, 150k, 1.5m or 50%|150k); the default 50% applies')
  const status = await $.command.run({ command: PKG, args: 'status', ...RUN })
  expect(status.text).toContain('  advisory point: 50% (compactionAdvisory "50 %" is not valid')
})

test('a token advisory point from the option', { options: { timing: 'on', compactionAdvisory: '50%|60k' } }, async ($, on) => {
  const w = world(on)
  await start($)
  expect(w.seen.logs).toContain('timing: advisory point "50%|60k" read as 50% or 60000 tokens')
  await observe($, w, 50_000)
  w.seen.tokens = 62_000
  await observe($, w, 61_000)
  expect(w.seen.submitted[0]).toContain('This is past the advisory point (30%).')
})
