// packages: keel
// checkpoint and timing in one package: the runtime runs a compaction either feature asks for
// through the package's own session.compact chain, so each hears the other's, with trigger `plugin`.
// Each must tell its own: the lever's compaction is steered with the charter and the notes, and no
// resume prompt follows it unless the lever asked for one; the checkpoint's own is resumed once.
import { expect, mock, test, type TestBody } from 'claude-code/testing'
import { PKG } from './package.ts'
import { filesWorld } from './files-world.ts'

const ON = { options: { checkpoint: 'on', timing: 'on' } }
const LEVER = `mcp__${PKG}__request_compaction`
const CHECKPOINT_RESUME = 'Resume: this session was just compacted. Re-read your resume point (your checkpoint notes, and your charter if this session has one), then continue where you left off.'
const LEVER_RESUME = `[${PKG} compaction] Compaction landed; resume the work in progress from the summary and your durable records.`
const TURN = { durationMs: 10, isAborted: false, reason: 'answer' as const }
const SUMMARY = [{ role: 'user' as const, text: 'summary', toolUses: [] }]

type On = Parameters<TestBody>[1]

/** `compactMs`: how long the engine's compaction takes, on the mocked clock. */
function world(on: On, fill: number, compactMs = 0) {
  const clock = mock.clock(on, { now: 1_000_000 })
  const seen = { submitted: [] as string[], commands: [] as string[], instructions: [] as (string | undefined)[] }
  const store = new Map<string, unknown>()
  const files = new Map<string, string>()
  on('store.get', (_, e) => ({ value: store.get(e.key) }))
  on('store.set', (_, e) => (store.set(e.key, e.value), { value: undefined }))
  on('store.keys', () => ({ value: [...store.keys()] }))
  on('store.delete', (_, e) => (store.delete(e.key), { value: undefined }))
  filesWorld(on, files, { dirs: ['/data'] })
  on('ui.log', () => ({ value: undefined }))
  on('ui.toast', () => ({ value: undefined }))
  on('ui.invalidate', () => ({ value: undefined }))
  on('command.register', (_, e) => ({ value: { command: e.name } }))
  on('tool.register', (_, e) => ({ value: { tool: `mcp__${PKG}__${e.name}` } }))
  on('session.start', (_, e) => ({ cwd: e.cwd }))
  on('session.id', () => ({ value: 'session-1' }))
  on('env.get', () => ({ value: undefined }))
  on('env.set', () => ({ value: {} }))
  on('process.hookEnv', () => ({ value: { CLAUDE_PLUGIN_DATA: '/data' } }))
  on('session.surfaces', () => ({ value: ['terminal'] }))
  on('session.usage', () => ({ value: <never>{ startedAt: 0, rateLimits: [], context: { tokens: fill, window: 200_000, percent: 1, breakdown: { rawMaxTokens: 200_000, autoCompactThreshold: 167_000, isAutoCompactEnabled: true, autocompactSource: 'model-default' } } } }))
  on('session.measure', (_, e) => ({ changed: e.changed }))
  on('prompt.submit', (_, e) => (seen.submitted.push(e.text), { text: e.text }))
  on('command.run', (_, e) => (seen.commands.push(`${e.command} ${e.args}`.trim()), { text: '' }))
  on('session.compact', async (_, e) => {
    seen.instructions.push(e.instructions)
    if (compactMs > 0) await clock.sleep(compactMs)
    return { messages: e.messages ?? SUMMARY }
  })
  on('tool.call', () => ({ result: 'beneath' }))
  on('turn.start', (_, e) => ({ turnId: e.turnId }))
  on('turn.complete', (_, e) => ({ text: e.answer }))
  return { clock, seen }
}

const block = (body: string) => `Here is where I am.\n\n\`\`\`${PKG}-checkpoint\n${body}\n\`\`\`\n`

test('the lever without continue: steered with the charter and the notes, and no resume prompt follows', ON, async ($, on) => {
  const { clock, seen } = world(on, 20_000)
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  await $.turn.start({ text: 'Build the parser', turnId: 't1' })
  await $.turn.complete({ ...TURN, answer: block('Now: the lexer tests'), turnId: 't1' })
  await $.turn.start({ text: 'compact at this boundary', turnId: 't2' })
  const lever = await $.tool.call(<never>{ tool: LEVER, tool_use_id: 'u1' })
  expect(lever).toMatchObject({ result: expect.stringContaining('Compaction requested.') })
  await $.turn.complete({ ...TURN, answer: 'ending my turn', turnId: 't2' })
  await clock.advance(0)
  await clock.settle()
  expect(seen.instructions).toHaveLength(1)
  expect(seen.instructions[0]).toContain('## Charter\nBuild the parser')
  expect(seen.instructions[0]).toContain('## Checkpoint notes\nNow: the lexer tests')
  await clock.advance(5_000)
  await clock.settle()
  expect(seen.submitted).toEqual([])
  expect(seen.instructions).toHaveLength(1)
})

test('the lever with continue: the lever\'s resume prompt alone', ON, async ($, on) => {
  const { clock, seen } = world(on, 20_000)
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  await $.tool.call(<never>{ tool: LEVER, tool_use_id: 'u1', continue: true })
  await $.turn.complete({ ...TURN, answer: 'ending my turn', turnId: 't1' })
  await clock.advance(5_000)
  await clock.settle()
  expect(seen.instructions).toHaveLength(1)
  expect(seen.submitted).toEqual([LEVER_RESUME])
})

test('the checkpoint\'s own compaction: steered, and its resume prompt once', ON, async ($, on) => {
  const { clock, seen } = world(on, 160_000)
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  await $.session.measure({ context: { tokens: 160_000, window: 200_000, percent: 80 }, rateLimits: [], changed: ['context'] })
  await clock.settle()
  expect(seen.commands).toEqual([`${PKG}:checkpoint auto`])
  await $.turn.start({ text: `<command-name>/${PKG}:checkpoint</command-name>`, turnId: 't2' })
  await $.turn.complete({ ...TURN, answer: block('the notes'), turnId: 't2' })
  await clock.advance(5_000)
  await clock.settle()
  expect(seen.instructions).toHaveLength(1)
  expect(seen.instructions[0]).toContain('## Checkpoint notes\nthe notes')
  expect(seen.submitted).toEqual([CHECKPOINT_RESUME])
})

// Review 4: the lever's compaction drains the checkpoint's lane inside its chain; a decision waiting
// there, on a fill past the trigger, must not start a checkpoint that the compaction then overtakes.
test('a decision drained inside the lever\'s compaction starts no checkpoint', ON, async ($, on) => {
  const { clock, seen } = world(on, 160_000)
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  await $.turn.start({ text: 'compact at this boundary', turnId: 't1' })
  await clock.settle()
  await $.tool.call(<never>{ tool: LEVER, tool_use_id: 'u1' })
  await $.turn.complete({ ...TURN, answer: 'ending my turn', turnId: 't1' })
  // Deferred behind the lever's timer: it runs when the compaction's chain drains the lane.
  await $.session.measure({ context: { tokens: 160_000, window: 200_000, percent: 80 }, rateLimits: [], changed: ['context'] })
  await clock.advance(5_000)
  await clock.settle()
  expect(seen.instructions).toHaveLength(1)
  expect(seen.commands).toEqual([])
  expect(seen.submitted).toEqual([])
})

// The lever called during the checkpoint's own turn, with an engine compaction slow enough that the
// checkpoint's own call (a second after the turn) comes while the lever's is still under way.
test('the lever during the checkpoint\'s own turn: one compaction, at most one resume prompt', ON, async ($, on) => {
  const { clock, seen } = world(on, 160_000, 3_000)
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  await $.session.measure({ context: { tokens: 160_000, window: 200_000, percent: 80 }, rateLimits: [], changed: ['context'] })
  await clock.settle()
  expect(seen.commands).toEqual([`${PKG}:checkpoint auto`])
  await $.turn.start({ text: `<command-name>/${PKG}:checkpoint</command-name>`, turnId: 't2' })
  const lever = await $.tool.call(<never>{ tool: LEVER, tool_use_id: 'u1', continue: true })
  expect(lever).toMatchObject({ result: expect.stringContaining('Compaction requested.') })
  await $.turn.complete({ ...TURN, answer: block('the notes'), turnId: 't2' })
  for (let i = 0; i < 20; i++) await clock.advance(1_000)
  await clock.settle()
  expect(seen.instructions).toHaveLength(1)
  expect(seen.instructions[0]).toContain('## Checkpoint notes\nthe notes')
  expect(seen.submitted.length).toBeLessThanOrEqual(1)
})
