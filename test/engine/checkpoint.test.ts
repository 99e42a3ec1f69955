// packages: superheroes, keel
// The checkpoint feature through real dispatch: steering reaches the bottom's instructions, a block
// is saved, the band draws and its buttons act on terminal and desktop, and a throw in any `$` call
// leaves the compaction going on. The test's `on` hooks stand for the engine and its world.
import { expect, mock, test, type TestBody } from 'claude-code/testing'
import { PKG } from './package.ts'
import { filesWorld } from './files-world.ts'

const ON = { options: { checkpoint: 'on' } }
const FENCE = `${PKG}-checkpoint`
const RESUME = 'Resume: this session was just compacted. Re-read your resume point (your checkpoint notes, and your charter if this session has one), then continue where you left off.'
const MESSAGES = [{ role: 'user' as const, text: 'hello', toolUses: [] }, { role: 'assistant' as const, text: 'hi', toolUses: [] }]
const TURN = { durationMs: 10, isAborted: false, reason: 'answer' as const }

type On = Parameters<TestBody>[1]
/** What the engine stamps on a command typed at the prompt. */
const TYPED = { origin: { kind: 'composer' }, presentation: { isFullscreen: false, columns: 100 } } as const

/** The world beneath the plugin: files in a map, the store, the clock, and what the plugin raised. */
function world(on: On, { fill = 1000, interactive = true } = {}) {
  const clock = mock.clock(on, { now: 1_000_000 })
  /** `broken` names the one op that throws from now on. */
  const state = { session: 'session-1', broken: '', idReads: 0 }
  const seen = { toasts: [] as string[], submitted: [] as string[], commands: [] as string[], instructions: [] as (string | undefined)[], logs: [] as string[] }
  const fail = (op: string) => {
    if (state.broken === op) throw new Error(`${op} broke`)
  }
  const store = new Map<string, unknown>()
  on('store.get', (_, e) => (fail('store.get'), { value: store.get(e.key) }))
  on('store.set', (_, e) => (store.set(e.key, e.value), { value: undefined }))
  on('store.keys', () => ({ value: [...store.keys()] }))
  on('store.delete', (_, e) => (store.delete(e.key), { value: undefined }))
  const files = new Map<string, string>()
  on('ui.log', (_, e) => (seen.logs.push(e.text), { value: undefined }))
  on('session.measure', (_, e) => ({ changed: e.changed }))
  on('command.register', (_, e) => ({ value: { command: e.name } }))
  on('session.start', (_, e) => ({ cwd: e.cwd }))
  on('session.id', () => (fail('session.id'), state.idReads++, { value: state.session }))
  on('session.end', (_, e) => ({ sessionId: e.sessionId }))
  on('env.get', () => ({ value: undefined }))
  on('env.set', () => ({ value: {} }))
  on('process.hookEnv', () => (fail('process.hookEnv'), { value: { CLAUDE_PLUGIN_DATA: '/data' } }))
  filesWorld(on, files, { dirs: ['/data'], fail })
  on('ui.toast', (_, e) => (seen.toasts.push(e.text), { value: undefined }))
  on('ui.invalidate', () => ({ value: undefined }))
  on('session.surfaces', () => ({ value: interactive ? ['terminal'] : [] }))
  on('session.usage', () => ({ value: { startedAt: 0, context: { tokens: fill, window: 200_000, percent: 1, breakdown: { isAutoCompactEnabled: true, autoCompactThreshold: 167_000 } }, rateLimits: [] } as never }))
  on('prompt.submit', (_, e) => (seen.submitted.push(e.text), { text: e.text }))
  on('command.run', (_, e) => (seen.commands.push(`${e.command} ${e.args}`.trim()), { text: '' }))
  // A compaction the plugin asks for (`$.session.compact`) comes with no messages: the engine has them.
  on('session.compact', (_, e) => (seen.instructions.push(e.instructions), { messages: e.messages ?? MESSAGES }))
  on('turn.complete', (_, e) => ({ text: e.answer }))
  on('turn.start', (_, e) => ({ turnId: e.turnId }))
  return { clock, files, seen, state, store }
}

const block = (body: string) => `Here is where I am.\n\n\`\`\`${FENCE}\n${body}\n\`\`\`\n`

test('a block is saved, and steering carries charter, notes and the owner text to the bottom', ON, async ($, on) => {
  const { files, seen } = world(on)
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  await $.turn.start({ text: 'Build the parser', turnId: 't1' })
  const r = await $.turn.complete({ ...TURN, answer: block('Now: the lexer tests'), turnId: 't1' })
  expect(r.text).toEndWith('```\n')
  expect(seen.toasts).toEqual(['Checkpoint notes saved'])
  expect(files.get('/data/checkpoints/session-1.notes.a.md')).toBe('Now: the lexer tests')

  await $.session.compact({ trigger: 'manual', instructions: '  keep the tests  ', messages: MESSAGES })
  const steered = seen.instructions[0]!
  expect(steered).toContain('## Charter\nBuild the parser')
  expect(steered).toContain('## Checkpoint notes\nNow: the lexer tests')
  expect(steered).toEndWith("## Owner's instructions\n  keep the tests  ")
  expect(steered).toContain('kept in /data/checkpoints/session-1.notes.md;')
  // The stable copy the summary names holds the notes too.
  expect(files.get('/data/checkpoints/session-1.notes.md')).toBe('Now: the lexer tests')
  // A manual compaction resumes the session, once.
  expect(seen.submitted).toEqual([RESUME])
})

test('the charter verb replaces the first prompt; the status names charter, notes, trigger and skip', ON, async ($, on) => {
  const { seen } = world(on)
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  await $.turn.start({ text: 'first prompt', turnId: 't1' })
  const set = await $.command.run({ command: PKG, args: 'charter Ship the parser\nwith tests', ...TYPED })
  expect(set.text).toBe('Charter set: Ship the parser')
  await $.session.compact({ trigger: 'auto', messages: MESSAGES })
  expect(seen.instructions[0]).toContain('## Charter\nShip the parser\nwith tests')
  expect(seen.instructions[0]).not.toContain('first prompt')
  expect(seen.submitted).toEqual([]) // auto carries on by itself
  const status = (await $.command.run({ command: PKG, args: 'status', ...TYPED })).text!
  expect(status).toContain('charter: "Ship the parser" (set with')
  expect(status).toContain('notes: none saved yet (kept in /data/checkpoints)')
  expect(status).toContain('last skip: none')
})

test("a subagent's compaction is untouched, and its block never touches the notes", ON, async ($, on) => {
  const { files, seen } = world(on)
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  await $.turn.complete({ ...TURN, answer: block('sub notes'), turnId: 's1', agentId: 'a1' })
  expect(files.size).toBe(0)
  expect(seen.toasts).toEqual([])
  await $.session.compact({ trigger: 'auto', agentId: 'a1', instructions: 'sub', messages: MESSAGES })
  expect(seen.instructions).toEqual(['sub'])
})

test('a precompute is steered, but starts no resume', ON, async ($, on) => {
  const { seen } = world(on)
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  await $.session.compact({ trigger: 'precompute', messages: MESSAGES })
  expect(seen.instructions[0]).toStartWith('Keep the charter and the checkpoint notes')
  expect(seen.submitted).toEqual([])
})

for (const op of ['session.id', 'store.get', 'fs.read']) {
  test(`a throw in ${op} leaves the compaction going on with the owner's text`, ON, async ($, on) => {
    const { seen, state } = world(on)
    // The session id is read once and cached (the runtime's facts): it can only fail at that first read.
    if (op === 'session.id') state.broken = op
    await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
    if (op !== 'session.id') {
      await $.turn.complete({ ...TURN, answer: block('notes'), turnId: 't1' })
      expect(seen.toasts).toEqual(['Checkpoint notes saved'])
    }
    state.broken = op
    const r = await $.session.compact({ trigger: 'manual', instructions: 'owner words', messages: MESSAGES })
    expect(r.messages).toHaveLength(2)
    expect(seen.instructions).toEqual(['owner words'])
    expect(seen.logs.some((l) => l.includes('session.compact: '))).toBe(true)
  })
}

test('a throw in process.hookEnv: no notes folder, the save fails, the compaction goes on', ON, async ($, on) => {
  const { seen, state } = world(on)
  state.broken = 'process.hookEnv'
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  await $.turn.complete({ ...TURN, answer: block('notes'), turnId: 't1' })
  expect(seen.toasts).toEqual(['Checkpoint notes NOT saved: the previous notes are still in place'])
  const r = await $.session.compact({ trigger: 'manual', instructions: 'owner words', messages: MESSAGES })
  expect(r.messages).toHaveLength(2)
  expect(seen.instructions[0]).toEndWith("## Owner's instructions\nowner words")
})

test('a failed save toasts, and says so beneath the answer', ON, async ($, on) => {
  const { seen, state } = world(on)
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  state.broken = 'fs.write'
  const r = await $.turn.complete({ ...TURN, answer: block('notes'), turnId: 't1' })
  expect(r.text).toBe('Checkpoint notes NOT saved: the previous notes are still in place')
  expect(seen.toasts).toEqual(['Checkpoint notes NOT saved: the previous notes are still in place'])
})

for (const surface of ['terminal', 'desktop'] as const) {
  test(`the band draws on ${surface} near the trigger; Snooze hides it, Now starts the checkpoint`, ON, async ($, on) => {
    const { clock, seen, state } = world(on, { fill: 120_000 })
    await $.session.start({ cwd: '/w', surface, isInteractive: true })
    const measure = { context: { tokens: 120_000, window: 200_000, percent: 60 }, rateLimits: [], changed: [] }
    await $.session.measure(measure)
    // The decision runs from the clock, off the measure's path.
    await clock.settle()
    const props = { hasSurvey: false, isCollapsed: false, isWorking: false, maxRows: 10, bodyColumns: 80, scroll: { bodyRows: 9, offset: 0 }, view: {} }
    const band = await $.ui.mount({ plugin: PKG, surface, component: 'AbovePrompt', props } as never)
    expect(await band.find({ type: 'Text', text: /Auto-checkpoint soon/ })).toBeDefined()
    await band.press({ key: 'snooze' })
    // Snoozed one step past the fill: the band is gone until a measurement shows it again.
    await band.redraw()
    expect(await band.find({ type: 'Text', text: /Auto-checkpoint soon/ })).toBeUndefined()
    expect(seen.commands).toEqual([])

    const again = await $.ui.mount({ plugin: PKG, surface, component: 'AbovePrompt', props } as never)
    expect(await again.find({ key: 'now' })).toBeUndefined()
    // A fresh session of the same process is not snoozed: Now starts the skill's command.
    state.session = 'session-2'
    await $.session.start({ cwd: '/w', surface, isInteractive: true })
    await $.session.measure(measure)
    await clock.settle()
    const fresh = await $.ui.mount({ plugin: PKG, surface, component: 'AbovePrompt', props } as never)
    await fresh.press({ key: 'now' })
    expect(seen.commands).toEqual([`${PKG}:checkpoint auto`])
  })
}

test('a measure decides off its path, after the turn it saw: busy while a main turn runs, a checkpoint once it ended', ON, async ($, on) => {
  const { clock, seen } = world(on, { fill: 160_000 })
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  const measure = { context: { tokens: 160_000, window: 200_000, percent: 80 }, rateLimits: [], changed: ['context' as const] }
  await $.turn.start({ text: 'work', turnId: 't1' })
  await $.session.measure(measure)
  await clock.settle()
  expect(seen.commands).toEqual([])
  await $.turn.complete({ ...TURN, answer: 'no block here', turnId: 't1' })
  await $.session.measure(measure)
  expect(seen.commands).toEqual([])
  await clock.settle()
  expect(seen.commands).toEqual([`${PKG}:checkpoint auto`])
})

const MEASURE = { context: { tokens: 160_000, window: 200_000, percent: 80 }, rateLimits: [], changed: ['context' as const] }
/** A /clear: the session ends, and the process goes on under a new id with no session.start. */
async function clear($: Parameters<TestBody>[0], state: { session: string }, next: string) {
  await $.session.end({ reason: 'clear', sessionId: state.session, resume: { id: state.session } })
  state.session = next
}

// H2: whether the process is interactive is a fact of the process; a /clear starts no session.start.
test('after a /clear the new session is still interactive: its automatic checkpoint runs', ON, async ($, on) => {
  const { clock, seen, state } = world(on, { fill: 160_000, interactive: false })
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  await clear($, state, 'session-2')
  await $.turn.start({ text: 'next task', turnId: 't1' })
  await $.turn.complete({ ...TURN, answer: 'done', turnId: 't1' })
  await $.session.measure(MEASURE)
  await clock.settle()
  expect(seen.commands).toEqual([`${PKG}:checkpoint auto`])
})

// M7: the checkpoint's compaction waits a second after its turn; a /clear in that second ends it.
for (const cleared of [false, true]) {
  test(`a pending compaction ${cleared ? 'is dropped by a /clear' : 'runs a second after the checkpoint\'s turn'}`, ON, async ($, on) => {
    const { clock, seen, state } = world(on, { fill: 160_000 })
    await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
    await $.session.measure(MEASURE)
    await clock.settle()
    expect(seen.commands).toEqual([`${PKG}:checkpoint auto`])
    await $.turn.start({ text: `<command-name>/${PKG}:checkpoint</command-name>`, turnId: 't2' })
    await $.turn.complete({ ...TURN, answer: block('the notes'), turnId: 't2' })
    if (cleared) await clear($, state, 'session-2')
    await clock.advance(5000)
    await clock.settle()
    expect(seen.instructions).toHaveLength(cleared ? 0 : 1)
    expect(seen.submitted).toEqual(cleared ? [] : [RESUME])
  })
}

// M4: the busy mark is set by the turn start itself, not by its deferred work.
test('a turn that starts while a decision waits in the lane keeps it from starting a checkpoint', ON, async ($, on) => {
  const { clock, seen } = world(on, { fill: 160_000 })
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  await $.session.measure(MEASURE)
  await $.turn.start({ text: 'the next task', turnId: 't1' })
  await clock.settle()
  expect(seen.commands).toEqual([])
})

// M8: one skill text for every package; the package that runs the feature saves another's fence.
test('a block in another package\'s fence is saved by the package that runs the feature', ON, async ($, on) => {
  const { files, seen } = world(on)
  const other = PKG === 'keel' ? 'superheroes' : 'keel'
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  await $.turn.complete({ ...TURN, answer: `Done.\n\n\`\`\`${other}-checkpoint\nNow: the other fence\n\`\`\`\n`, turnId: 't1' })
  expect(seen.toasts).toEqual(['Checkpoint notes saved'])
  expect(files.get('/data/checkpoints/session-1.notes.a.md')).toBe('Now: the other fence')
})

// Low (c): AbovePrompt draws at every render; with no band up it costs no host trip.
test('with no band up, drawing AbovePrompt reads nothing from the host', ON, async ($, on) => {
  const { state } = world(on)
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  const reads = state.idReads
  const props = { hasSurvey: false, isCollapsed: false, isWorking: false, maxRows: 10, bodyColumns: 80, scroll: { bodyRows: 9, offset: 0 }, view: {} }
  const band = await $.ui.mount({ plugin: PKG, surface: 'terminal', component: 'AbovePrompt', props } as never)
  await band.redraw()
  expect(await band.find({ type: 'Text', text: /Auto-checkpoint soon/ })).toBeUndefined()
  expect(state.idReads).toBe(reads)
})

// Review 6: eviction goes by last use; a session that starts marks its notes and charter used.
test('a session start marks its notes and charter as used now', ON, async ($, on) => {
  const { clock, store } = world(on)
  store.set('notes:session-1', { slot: 'a', length: 3, digest: '00000000', savedAt: 5 })
  store.set('charter:session-1', { text: 'the task', source: 'verb', savedAt: 5 })
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  await clock.settle()
  expect(store.get('notes:session-1')).toEqual({ slot: 'a', length: 3, digest: '00000000', savedAt: 1_000_000 })
  expect(store.get('charter:session-1')).toEqual({ text: 'the task', source: 'verb', savedAt: 1_000_000 })
})
