// The session's checkpoint as a state machine (B.7-B.13), pinned by the acceptance tests.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createCheckpointSession } from '../../../src/features/checkpoint/session.ts'
import { createNotes } from '../../../src/features/checkpoint/notes.ts'
import * as S from '../../../src/features/checkpoint/strings.ts'
import { SAVE_BOUND_MS } from '../../../src/features/checkpoint/constants.ts'
import { fakeEdges } from './fake-edges.ts'

const SETTINGS = { thresholdTokens: 150000, allowanceTokens: 20000, mode: 'auto' }
const TAG = '<command-name>/superheroes:checkpoint</command-name>'
/** Lets the promise chains started without await run to their end. */
const settle = async () => { for (let i = 0; i < 10; i++) await Promise.resolve() }
const block = (body: string) => `done\n\`\`\`superheroes-checkpoint\n${body}\n\`\`\`\n`

function setup(over: Parameters<typeof fakeEdges>[0] = {}) {
  const w = fakeEdges(over)
  const s = createCheckpointSession('S1', 'superheroes:checkpoint', ['superheroes-checkpoint'])
  s.isInteractive = true
  return { ...w, s }
}

/** A checkpoint started at 147000 and bound to turn t9, with notes 'old' before it. */
async function bound(over: Parameters<typeof fakeEdges>[0] = {}) {
  const x = setup(over)
  await createNotes(x.io).save('S1', 'old')
  x.world.tokens = 147000
  await x.s.evaluate(x.io, SETTINGS)
  await x.s.turnStarted(x.io, 't9', `run ${TAG}`)
  return x
}

test('#7 at the trigger, idle: the checkpoint starts, the band goes, the command runs once', async () => {
  const { s, io, seen, world } = setup()
  world.tokens = 147000
  await s.evaluate(io, SETTINGS)
  assert.equal(s.checkpoint, { startedAt: 1_000_000, compactionsAt: 0, fill: 147000, notesBefore: null })
  assert.is(s.band, false)
  assert.equal(seen.commands, ['checkpoint'])
  assert.is(s.lastSkip, null)
})

test('a deferred decision whose read answers no fill decides on the fill the measurement carried', async () => {
  const { s, io, files, world } = setup()
  s.isInteractive = false
  world.surfaces = []
  world.tokens = undefined
  await s.evaluate(io, SETTINGS)
  assert.is(files.has('/data/checkpoints/S1.skip'), false, 'no figure at all: nothing decided')
  await s.evaluate(io, SETTINGS, 160000)
  assert.is(s.lastSkip, 'headless:past')
  assert.is(JSON.parse(files.get('/data/checkpoints/S1.skip')!).tokens, 160000)
  world.tokens = 120000
  await s.evaluate(io, SETTINGS, 160000)
  assert.is(s.lastSkip, 'headless:near', 'a fill read afresh wins over the measured one')
})

test('a decision on a read started while bound: the harness threshold it carried names the trigger', async () => {
  const { s, io, files, world } = setup()
  s.isInteractive = false
  world.surfaces = []
  world.tokens = undefined // read now (the session unbound), the usage answers nothing
  await s.evaluate(io, SETTINGS, 160000, Promise.resolve({ tokens: 160000, breakdown: { autoCompactThreshold: 167000, isAutoCompactEnabled: true } }))
  assert.is(JSON.parse(files.get('/data/checkpoints/S1.skip')!).trigger, 147000)
})

test('the last skip record: this process\'s, else the one a process before it wrote, else none', async () => {
  const { s, io, files, world } = setup()
  assert.is(await s.lastSkipRecord(io), null)
  files.set('/data/checkpoints/S1.skip', '{"torn')
  assert.is(await s.lastSkipRecord(io), null, 'a torn record is none')
  files.set('/data/checkpoints/S1.skip', JSON.stringify({ at: '2026-01-01T00:00:00.000Z', reason: 'headless', tokens: 120000, trigger: 150000 }))
  assert.equal(await s.lastSkipRecord(io), { key: 'headless:near', at: '2026-01-01T00:00:00.000Z' }, 'a resumed session reads the file')
  s.isInteractive = false
  world.surfaces = []
  world.tokens = 160000
  await s.evaluate(io, SETTINGS)
  assert.is((await s.lastSkipRecord(io))?.key, 'headless:past')
})

// Review 4: a lever's compaction drains the lane inside its chain; a decision there must not start a checkpoint.
test('no checkpoint starts while a compaction runs, nor on a fill read before one entered', async () => {
  const during = setup()
  during.world.tokens = 147000
  during.world.compactions = { running: 1, entered: 1 }
  await during.s.evaluate(during.io, SETTINGS)
  await during.s.start(during.io, true)
  assert.equal(during.seen.commands, [])
  assert.is(during.s.checkpoint, null)
  // The fill was read, then a compaction entered (and landed) before the decision.
  const before = setup()
  before.world.tokens = 147000
  const usage = before.io.usage
  before.io.usage = async () => {
    const read = await usage()
    before.world.compactions = { running: 0, entered: 1 }
    before.s.compacted(before.io, 'plugin')
    return read
  }
  await before.s.evaluate(before.io, SETTINGS)
  assert.equal(before.seen.commands, [])
  assert.is(before.s.rearmAfterCompact, true, 'the stale fill re-arms nothing')
  // One entering while Now reads the fill.
  const now = setup()
  now.io.fill = async () => ((now.world.compactions = { running: 1, entered: 1 }), now.world.tokens)
  await now.s.start(now.io, true)
  assert.equal(now.seen.commands, [])
  assert.is(now.s.checkpoint, null)
  // Once it settled, the next measurement decides on a fill read after it.
  before.io.usage = usage
  before.world.tokens = 30000
  await before.s.evaluate(before.io, SETTINGS)
  before.world.tokens = 160000
  before.s.snoozeUntil = null
  await before.s.evaluate(before.io, SETTINGS)
  assert.equal(before.seen.commands, ['checkpoint'])
})

test('a quiet turn end clears the busy mark alone; another turn, or a checkpoint in force, is left to turnCompleted', async () => {
  const { s, io } = setup()
  // Issue 21 goal 4: with no checkpoint in force (and the session touched) a turn's start makes no host trip for the clock.
  await s.turnStarted(io, 't0', 'work')
  const reads: number[] = []
  const clock = io.now
  io.now = async () => (reads.push(1), clock())
  await s.turnStarted(io, 't1', 'work')
  assert.is(reads.length, 0, 'no clock read at a turn start with no checkpoint in force')
  assert.is(s.endQuietTurn('t0'), false)
  assert.is(s.activeTurn, 't1')
  assert.ok(s.endQuietTurn('t1'))
  assert.is(s.activeTurn, null)
  const x = await bound()
  assert.is(x.s.endQuietTurn('t9'), false)
  assert.is(x.s.activeTurn, 't9')
})

test('#3 headless: no band, no command, one skip record per change of key', async () => {
  const { s, io, seen, files, world } = setup()
  s.isInteractive = false
  world.surfaces = []
  await s.evaluate(io, SETTINGS)
  assert.is(s.band, false)
  assert.equal(seen.commands, [])
  assert.is(s.lastSkip, 'headless:past')
  const record = JSON.parse(files.get('/data/checkpoints/S1.skip')!)
  assert.equal(record, { at: new Date(1_000_000).toISOString(), reason: 'headless', tokens: 150000, trigger: 147000, isInteractive: false, isDesktopStarted: false, surfaces: [] })
  files.delete('/data/checkpoints/S1.skip')
  await s.evaluate(io, SETTINGS)
  assert.is(files.has('/data/checkpoints/S1.skip'), false, 'the same key is not written again')
  // #4: the desktop app on the roster makes it attended, and it fires.
  world.surfaces = ['terminal', 'desktop']
  await s.evaluate(io, SETTINGS)
  assert.equal(seen.commands, ['checkpoint'])
  assert.is(s.lastSkip, null)
})

test('a failed skip write is retried at the next measurement', async () => {
  let fails = true
  const { s, io, world } = setup({ write: async () => { if (fails) throw new Error('disk full') } })
  s.isInteractive = false
  world.surfaces = []
  await s.evaluate(io, SETTINGS)
  assert.is(s.lastSkip, null)
  fails = false
  await s.evaluate(io, SETTINGS)
  assert.is(s.lastSkip, 'headless:past')
  assert.is(s.lastRecorded?.key, 'headless:past')
})

test('a usage without tokens changes nothing', async () => {
  const { s, io, seen, world } = setup()
  world.tokens = undefined
  await s.evaluate(io, SETTINGS)
  assert.equal(seen.commands, [])
  assert.is(s.lastTrigger, null)
})

test('#8 busy; #10 Snooze; #11 Now while a turn runs', async () => {
  const { s, io, seen, world } = setup()
  await s.turnStarted(io, 't1', 'hi')
  await s.evaluate(io, SETTINGS)
  assert.is(s.band, true)
  assert.equal(seen.commands, [])
  await s.start(io, true)
  assert.equal(seen.toasts, [S.WAIT_FOR_TURN])
  assert.is(s.checkpoint, null)
  world.tokens = 160000
  await s.snoozeNow(io)
  assert.is(s.snoozeUntil, 260000)
  assert.is(s.band, false)
})

test('#13 binding: only the command turn binds; #14 changed notes compact after 1 s', async () => {
  const x = setup()
  await createNotes(x.io).save('S1', 'old')
  x.world.tokens = 147000
  await x.s.evaluate(x.io, SETTINGS)
  await x.s.turnStarted(x.io, 't8', 'hi')
  assert.is(x.s.checkpoint?.turnId, undefined)
  await x.s.turnCompleted(x.io, SETTINGS, { answer: 'x', isAborted: false, turnId: 't8' })
  await x.s.turnStarted(x.io, 't9', `run ${TAG}`)
  assert.is(x.s.checkpoint?.turnId, 't9')
  const warning = await x.s.turnCompleted(x.io, SETTINGS, { answer: block('new'), isAborted: false, turnId: 't9' })
  assert.is(warning, null)
  assert.equal(x.seen.toasts, [S.NOTES_SAVED])
  assert.is(x.s.checkpoint?.compacting, true)
  await x.tick(999)
  assert.is(x.seen.compacts, 0)
  await x.tick(1)
  assert.is(x.seen.compacts, 1)
  assert.equal(x.seen.toasts, [S.NOTES_SAVED, S.CHECKPOINTED])
  assert.is(x.s.checkpoint, null)
})

// Measured on engine 2.1.328 (test/e2e/checkpoint-interactive.test.ts): a `$.session.compact()` the
// mod's timer makes runs none of the plugin's own hooks, so no session.compact hook steers it or
// counts it (B.0 F1 no longer holds). The call carries the steering; the bookkeeping follows it.
test('the own compaction carries charter and notes, and resumes once, with no hook hearing it', async () => {
  const given: (string | undefined)[] = []
  const x = await bound({ compact: async (instructions) => (given.push(instructions), {}) })
  await x.s.setCharter(x.io, 'Build the parser', 'verb')
  await x.s.turnCompleted(x.io, SETTINGS, { answer: block('new'), isAborted: false, turnId: 't9' })
  await x.tick(1000)
  await settle()
  assert.is(given.length, 1)
  assert.ok(given[0]!.includes('## Charter\nBuild the parser'), given[0])
  assert.ok(given[0]!.includes('## Checkpoint notes\nnew'), given[0])
  assert.match(given[0]!, /kept in \/data\/checkpoints\/S1\.notes\.md;/)
  assert.is(x.s.compactionsDone, 1)
  assert.is(x.s.rearmAfterCompact, true)
  assert.equal(x.seen.submitted, [S.RESUME_PROMPT])
  assert.equal(x.seen.toasts.slice(-1), [S.CHECKPOINTED])
  await x.tick(5000)
  assert.is(given.length, 1, 'no second compaction')
})

test('a hook that does hear the own compaction passes its steering as it is, and it is counted once', async () => {
  const given: (string | undefined)[] = []
  const steered: string[] = []
  const x = await bound()
  x.io.compact = async (instructions) => {
    given.push(instructions)
    const isOwn = x.s.isOwn('plugin', instructions)
    steered.push(await x.s.steer(x.io, instructions))
    x.s.compacted(x.io, 'plugin', isOwn)
    return {}
  }
  await x.s.turnCompleted(x.io, SETTINGS, { answer: block('new'), isAborted: false, turnId: 't9' })
  await x.tick(1000)
  await settle()
  assert.equal(steered, given as string[], 'not wrapped a second time')
  assert.is(x.s.compactionsDone, 1)
  assert.equal(x.seen.submitted, [S.RESUME_PROMPT])
  assert.ok((await x.s.steer(x.io, given[0])).includes("## Owner's instructions"), 'outside the own compaction, the same text is an owner\'s')
})

test('notes unreadable at the own compaction: it goes on unsteered, says why, and resumes', async () => {
  const given: (string | undefined)[] = []
  const x = await bound({ compact: async (instructions) => (given.push(instructions), {}) })
  await x.s.turnCompleted(x.io, SETTINGS, { answer: block('new'), isAborted: false, turnId: 't9' })
  x.io.read = async () => { throw new Error('EIO') }
  await x.tick(1000)
  await settle()
  assert.equal(given, [undefined])
  assert.ok(x.seen.logs.includes('session.compact: the notes could not be read'), x.seen.logs.join('\n'))
  assert.equal(x.seen.submitted, [S.RESUME_PROMPT])
})

test('#15/#16 after a compaction: re-arm, one resume prompt for manual, none for auto or precompute', async () => {
  const { s, io, seen } = setup()
  s.snoozeUntil = 5
  s.compacted(io, 'precompute')
  assert.is(s.compactionsDone, 0)
  assert.is(s.snoozeUntil, 5)
  s.compacted(io, 'auto')
  assert.equal(seen.submitted, [])
  assert.is(s.rearmAfterCompact, true)
  assert.is(s.snoozeUntil, null)
  s.compacted(io, 'manual')
  s.compacted(io, 'manual')
  await Promise.resolve()
  assert.equal(seen.submitted, [S.RESUME_PROMPT], 'one prompt while one is pending')
  await settle()
  s.compacted(io, 'manual')
  assert.equal(seen.submitted, [S.RESUME_PROMPT, S.RESUME_PROMPT])
  assert.is(s.compactionsDone, 4)
})

// M5: the runtime runs every feature's compaction through the package's chain with trigger
// `plugin`; the timing lever's says itself whether a prompt follows, so the checkpoint adds none.
test('another feature\'s plugin compaction is steered and counted, with no resume; the own one resumes once', async () => {
  const x = await bound()
  await x.s.setCharter(x.io, 'Build the parser', 'verb')
  await createNotes(x.io).save('S1', 'lever notes')
  const steered = await x.s.steer(x.io, undefined)
  assert.ok(steered.includes('## Charter\nBuild the parser') && steered.includes('## Checkpoint notes\nlever notes'), steered)
  x.s.compacted(x.io, 'plugin')
  await settle()
  assert.equal(x.seen.submitted, [], 'no checkpoint resume after the lever\'s compaction')
  assert.is(x.s.compactionsDone, 1)
  // The own compaction, heard by the hook through the chain (trigger plugin), resumes once.
  const y = await bound()
  y.io.compact = async (instructions) => {
    const isOwn = y.s.isOwn('plugin', instructions)
    await y.s.steer(y.io, instructions)
    y.s.compacted(y.io, 'plugin', isOwn)
    return {}
  }
  await y.s.turnCompleted(y.io, SETTINGS, { answer: block('new'), isAborted: false, turnId: 't9' })
  await y.tick(1000)
  await settle()
  assert.equal(y.seen.submitted, [S.RESUME_PROMPT])
  y.s.compacted(y.io, 'plugin')
  await settle()
  assert.equal(y.seen.submitted, [S.RESUME_PROMPT], 'a later plugin compaction is not the own one')
})

// The lever during the checkpoint's turn (runtime: a second request joins the compaction under way).
test('the own call that joins another feature\'s compaction adds no resume; only its own instructions make it own', async () => {
  const x = await bound()
  let land = () => {}
  const landed = new Promise<void>((resolve) => (land = resolve))
  const given: (string | undefined)[] = []
  x.io.compact = async (instructions) => (given.push(instructions), await landed, {})
  await x.s.turnCompleted(x.io, SETTINGS, { answer: block('new'), isAborted: false, turnId: 't9' })
  const leverIsOwn = x.s.isOwn('plugin', undefined)
  const ticking = x.tick(1000)
  for (let i = 0; i < 1000 && given.length === 0; i++) await Promise.resolve()
  assert.is(given.length, 1)
  assert.is(x.s.isOwn('plugin', given[0]), true)
  assert.is(x.s.isOwn('plugin', undefined), false, 'the lever\'s instructions are not the own call\'s')
  assert.is(x.s.isOwn('auto', given[0]), false)
  x.s.compacted(x.io, 'plugin', leverIsOwn)
  land()
  await ticking
  await settle()
  assert.equal(x.seen.submitted, [])
  assert.is(x.s.compactionsDone, 1)
  assert.equal(x.seen.toasts.slice(-1), [S.CHECKPOINTED])
})

test('the own compaction waits while another runs, which satisfies it; gives up once stale', async () => {
  const x = await bound()
  await x.s.turnCompleted(x.io, SETTINGS, { answer: block('new'), isAborted: false, turnId: 't9' })
  x.world.compactions = { running: 1, entered: 1 }
  await x.tick(3000)
  assert.is(x.seen.compacts, 0)
  x.s.compacted(x.io, 'plugin')
  x.world.compactions = { running: 0, entered: 1 }
  await x.tick(5000)
  assert.is(x.seen.compacts, 0)
  assert.is(x.s.checkpoint, null)
  const y = await bound()
  await y.s.turnCompleted(y.io, SETTINGS, { answer: block('new'), isAborted: false, turnId: 't9' })
  y.world.compactions = { running: 1, entered: 1 }
  y.world.now += 30 * 60 * 1000
  await y.tick(1000)
  assert.is(y.seen.compacts, 0)
  assert.equal(y.seen.logs.slice(-1), [`compact: ${S.ERR_COMPACTION_RUNNING}`])
  assert.equal(y.seen.toasts.slice(-1), [S.COULD_NOT_COMPACT])
})

// M4: an auto compaction that lands mid-turn, while a checkpoint is started or bound, is the compaction.
test('a compaction that lands while the checkpoint runs: its turn ends with no second compaction and no resume', async () => {
  const x = await bound()
  x.s.compacted(x.io, 'auto')
  await x.s.turnCompleted(x.io, SETTINGS, { answer: block('new'), isAborted: false, turnId: 't9' })
  await x.tick(5000)
  await settle()
  assert.is(x.seen.compacts, 0)
  assert.equal(x.seen.submitted, [])
  assert.is(x.s.checkpoint, null)
  assert.equal(x.seen.toasts, [S.NOTES_SAVED, S.skipped(S.WHY_COMPACTED)])
  assert.is(await createNotes(x.io).read('S1'), 'new', 'the block is still the notes')
  // Started, not yet bound: the lever's compaction lands before the checkpoint's turn starts.
  const y = setup()
  await createNotes(y.io).save('S1', 'old')
  y.world.tokens = 147000
  await y.s.evaluate(y.io, SETTINGS)
  y.s.compacted(y.io, 'plugin')
  await y.s.turnStarted(y.io, 't9', `run ${TAG}`)
  await y.s.turnCompleted(y.io, SETTINGS, { answer: block('new'), isAborted: false, turnId: 't9' })
  await y.tick(5000)
  assert.is(y.seen.compacts, 0)
  assert.equal(y.seen.submitted, [])
})

// M7: a /clear ends the session; its pending compaction must not compact the new, empty one.
test('a session that ends drops its pending compaction, waiting on its delay or behind a running turn', async () => {
  const x = await bound()
  await x.s.turnCompleted(x.io, SETTINGS, { answer: block('new'), isAborted: false, turnId: 't9' })
  assert.is(x.s.checkpoint?.compacting, true)
  x.s.ended(x.io)
  await x.tick(5000)
  assert.is(x.seen.compacts, 0)
  assert.equal(x.seen.submitted, [])
  assert.is(x.s.checkpoint, null)
  const y = await bound()
  await y.s.turnCompleted(y.io, SETTINGS, { answer: block('new'), isAborted: false, turnId: 't9' })
  y.s.activeTurn = 't10'
  await y.tick(1000)
  y.s.ended(y.io)
  y.s.activeTurn = null
  await y.tick(5000)
  assert.is(y.seen.compacts, 0)
  assert.equal(y.seen.submitted, [])
  const banded = setup()
  banded.world.tokens = 120000
  await banded.s.evaluate(banded.io, SETTINGS)
  assert.is(banded.s.band, true)
  banded.s.ended(banded.io)
  assert.is(banded.s.band, false)
})

// Review 5: the session ends (a /clear) while the compaction reads the notes it is steered with.
test('a session that ends while its compaction reads the notes is not compacted, nor resumed', async () => {
  const x = await bound()
  await x.s.turnCompleted(x.io, SETTINGS, { answer: block('new'), isAborted: false, turnId: 't9' })
  const read = x.io.read
  x.io.read = async (path) => {
    x.s.ended(x.io)
    return read(path)
  }
  await x.tick(5000)
  await settle()
  assert.is(x.seen.compacts, 0)
  assert.equal(x.seen.submitted, [])
  assert.is(x.s.checkpoint, null)
})

test('a resume submit that fails is logged and frees the next', async () => {
  const { s, io, seen } = setup({ submit: async () => { throw new Error('busy') } })
  s.compacted(io, 'manual')
  await settle()
  assert.equal(seen.logs, ['resume prompt: busy'])
  const sync = setup({ submit: () => { throw new Error('sync') } })
  sync.s.compacted(sync.io, 'manual')
  assert.equal(sync.seen.logs, ['resume prompt: sync'])
})

test('#17 the first measurement after a compaction re-arms and decides with it', async () => {
  const { s, io, seen } = setup()
  s.compacted(io, 'auto')
  await s.evaluate(io, SETTINGS)
  assert.is(s.snoozeUntil, 158500)
  assert.is(s.rearmAfterCompact, false)
  assert.is(s.band, true)
  assert.equal(seen.commands, [], 'snoozed, not fired')
  const low = setup()
  low.s.compacted(low.io, 'auto')
  low.world.tokens = 30000
  await low.s.evaluate(low.io, SETTINGS)
  assert.is(low.s.snoozeUntil, null)
})

test('#18 notes unchanged: skipped, re-armed from the fill now', async () => {
  const x = await bound()
  x.world.tokens = 150000
  await x.s.turnCompleted(x.io, SETTINGS, { answer: 'no block', isAborted: false, turnId: 't9' })
  assert.equal(x.seen.toasts, [S.skipped(S.WHY_UNCHANGED)])
  assert.is(x.s.checkpoint, null)
  assert.is(x.s.snoozeUntil, 158500)
})

test('#19 notes unreadable before: skipped, no compaction', async () => {
  const x = setup()
  await createNotes(x.io).save('S1', 'old')
  x.files.set('/data/checkpoints/S1.notes.a.md', 'torn')
  x.world.tokens = 147000
  await x.s.evaluate(x.io, SETTINGS)
  assert.is(x.s.checkpoint!.notesBefore, undefined)
  await x.s.turnStarted(x.io, 't9', TAG)
  await x.s.turnCompleted(x.io, SETTINGS, { answer: block('new'), isAborted: false, turnId: 't9' })
  assert.equal(x.seen.toasts, [S.NOTES_SAVED, S.skipped(S.WHY_BASELINE_UNREADABLE)])
  await x.tick(5000)
  assert.is(x.seen.compacts, 0)
})

test('#20 aborted: cancelled and re-armed', async () => {
  const x = await bound()
  x.world.tokens = 90000
  await x.s.turnCompleted(x.io, SETTINGS, { answer: block('new'), isAborted: true, turnId: 't9' })
  assert.equal(x.seen.toasts, [S.NOTES_SAVED, S.CHECKPOINT_CANCELLED])
  assert.is(x.s.checkpoint, null)
  assert.is(x.s.snoozeUntil, null, 'below the trigger the trigger alone governs')
})

test('#21 the block fails to save: the warning, the toast, and a skipped checkpoint', async () => {
  const x = await bound()
  x.io.write = async () => { throw new Error('disk full') }
  const warning = await x.s.turnCompleted(x.io, SETTINGS, { answer: block('new'), isAborted: false, turnId: 't9' })
  assert.is(warning, S.NOTES_NOT_SAVED)
  assert.equal(x.seen.toasts, [S.NOTES_NOT_SAVED, S.skipped(S.WHY_SAVE_FAILED)])
  assert.is(await createNotes(x.io).read('S1'), 'old')
})

// Issue 17 #13: a save the disk held was dropped by the engine after 60 s with nothing said.
test('a save the disk holds past its bound is given up and said; when the disk answers late, nothing is committed', async () => {
  const x = await bound()
  let answer!: () => void
  const write = x.io.write
  x.io.write = (path, text) => new Promise((resolve) => { answer = () => void write(path, text).then(resolve) })
  const ending = x.s.turnCompleted(x.io, SETTINGS, { answer: block('new'), isAborted: false, turnId: 't9' })
  await settle()
  assert.equal(x.sleeps.map((z) => z.ms), [SAVE_BOUND_MS], 'the bound, on the engine clock')
  x.sleeps[0]!.wake()
  const said = `${S.NOTES_NOT_SAVED}. The disk did not answer within 30 s, so the save was given up.`
  assert.is(await ending, said)
  assert.equal(x.seen.toasts, [said, S.skipped(S.WHY_SAVE_FAILED)])
  answer()
  await settle()
  assert.is(await createNotes(x.io).read('S1'), 'old', 'the late slot write commits nothing')
  // The bound does not hurry a save that answers: the next one commits.
  x.io.write = write
  assert.is(await x.s.turnCompleted(x.io, SETTINGS, { answer: block('newer'), isAborted: false, turnId: 't10' }), null)
  assert.is(await createNotes(x.io).read('S1'), 'newer')
})

test('#22 vetoed twice: two compacts 1 s apart, then the toast with the reason, and a re-arm', async () => {
  const x = await bound()
  x.world.compactAnswer = { skip: 'vetoed' }
  await x.s.turnCompleted(x.io, SETTINGS, { answer: block('new'), isAborted: false, turnId: 't9' })
  await x.tick(1000)
  assert.is(x.seen.compacts, 1)
  await x.tick(1000)
  assert.is(x.seen.compacts, 2)
  assert.equal(x.seen.toasts.slice(-1), [`${S.COULD_NOT_COMPACT} (vetoed)`])
  assert.is(x.s.checkpoint, null)
  assert.is(x.s.snoozeUntil, 157000, 'rearmAt(147000, 167000)')
})

test('#23 not interactive: /compact, and success only when the hook counted one', async () => {
  const x = await bound()
  x.s.isInteractive = false
  await x.s.turnCompleted(x.io, SETTINGS, { answer: block('new'), isAborted: false, turnId: 't9' })
  await x.tick(2000)
  assert.equal(x.seen.commands, ['checkpoint', 'compact', 'compact'])
  assert.equal(x.seen.toasts.slice(-1), [S.COULD_NOT_COMPACT])
  const y = await bound()
  y.s.isInteractive = false
  y.io.compactCommand = async () => y.s.compacted(y.io, 'manual')
  await y.s.turnCompleted(y.io, SETTINGS, { answer: block('new'), isAborted: false, turnId: 't9' })
  await y.tick(1000)
  assert.equal(y.seen.toasts.slice(-1), [S.CHECKPOINTED])
  assert.equal(y.seen.submitted, [S.RESUME_PROMPT])
})

test('a compaction waits while its own checkpoint turn still runs, and gives up once stale', async () => {
  const x = await bound()
  await x.s.turnCompleted(x.io, SETTINGS, { answer: block('new'), isAborted: false, turnId: 't9' })
  x.s.activeTurn = 't10'
  await x.tick(3000)
  assert.is(x.seen.compacts, 0, 'waiting costs no attempt')
  x.world.now += 30 * 60 * 1000
  await x.tick(1000)
  assert.is(x.seen.compacts, 0)
  assert.equal(x.seen.toasts.slice(-1), [S.COULD_NOT_COMPACT])
  assert.equal(x.seen.logs.slice(-1), [`compact: ${S.ERR_TURN_RUNNING}`])
})

test('#24 a stale checkpoint frees its lost turn and the same evaluation starts anew', async () => {
  const x = await bound()
  x.world.now += 30 * 60 * 1000 + 1
  x.world.tokens = 150000
  x.s.snoozeUntil = null
  await x.s.evaluate(x.io, SETTINGS)
  assert.is(x.s.activeTurn, null)
  assert.is(x.s.checkpoint?.startedAt, x.world.now)
  assert.equal(x.seen.commands, ['checkpoint', 'checkpoint'])
  const y = await bound()
  y.world.now += 30 * 60 * 1000 - 1
  await y.s.evaluate(y.io, SETTINGS)
  assert.is(y.s.band, false)
  assert.is(y.s.lastSkip, 'running:past')
})

test('a rejected checkpoint command abandons the checkpoint', async () => {
  const x = setup({ runCheckpoint: async () => { throw new Error('refused') } })
  x.world.tokens = 147000
  await x.s.evaluate(x.io, SETTINGS)
  await settle()
  assert.is(x.s.checkpoint, null)
  assert.equal(x.seen.toasts, [S.CHECKPOINT_FAILED])
  assert.equal(x.seen.logs, ['checkpoint: refused'])
})

test('charter: the first prompt stands in until the verb sets one; carried, not read back', async () => {
  const x = setup()
  await x.s.turnStarted(x.io, 't1', 'Build the parser')
  await x.s.turnStarted(x.io, 't2', 'later prompt')
  assert.equal(await x.s.charter(x.io), { text: 'Build the parser', source: 'first prompt' })
  await x.s.setCharter(x.io, 'y'.repeat(20_000), 'verb')
  assert.is((x.store.get('charter:S1') as { text: string }).text.length, 16_000)
  const fresh = createCheckpointSession('S1', 'superheroes:checkpoint', ['superheroes-checkpoint'])
  assert.is((await fresh.charter(x.io))?.source, 'verb')
  assert.match(await fresh.instructions(x.io, 'owner'), /## Charter\ny+\n\n## Owner's instructions\nowner$/)
})

// H1: the store keeps a key's first place when it is set again; eviction goes by the time set.
test('a long-lived session that sets its charter again keeps it when others follow', async () => {
  const x = setup()
  const other = (i: number) => createCheckpointSession(`s${i}`, 'superheroes:checkpoint', []).setCharter(x.io, `task ${i}`, 'first prompt')
  await x.s.setCharter(x.io, 'the long task', 'first prompt')
  for (let i = 0; i < 49; i++) {
    x.world.now += 1000
    await other(i)
  }
  x.world.now += 1000
  await x.s.setCharter(x.io, 'the long task, again', 'verb')
  x.world.now += 1000
  await other(49)
  assert.equal((x.store.get('charter:S1') as { text: string }).text, 'the long task, again', 'set last but one: kept')
  assert.is(x.store.has('charter:s0'), false, 'the least recently set goes')
  assert.is([...x.store.keys()].filter((k) => k.startsWith('charter:')).length, 50)
  for (let i = 50; i < 100; i++) {
    x.world.now += 1000
    await other(i)
  }
  assert.is(x.store.has('charter:S1'), false, 'and goes once 50 others were set after it')
})

// Review 6: eviction goes by last use, not last save; the cap stands.
test('a live session that has not saved lately keeps its notes and charter: its first turn and each steering mark it used', async () => {
  const x = setup()
  await createNotes(x.io).save('S1', 'long notes')
  await x.s.setCharter(x.io, 'the long task', 'verb')
  let n = 0
  /** `count` other sessions, each saving notes and a charter after the last. */
  const others = async (count: number) => {
    for (const end = n + count; n < end; n++) {
      x.world.now += 1000
      await createNotes(x.io).save(`s${n}`, `n${n}`)
      await createNotes(x.io).evict(`s${n}`)
      await createCheckpointSession(`s${n}`, 'superheroes:checkpoint', []).setCharter(x.io, `task ${n}`, 'first prompt')
    }
  }
  const kept = async () => (await createNotes(x.io).read('S1')) === 'long notes' && x.store.has('charter:S1')
  await others(49)
  x.world.now += 1000
  await x.s.steer(x.io, undefined)
  await others(49)
  assert.ok(await kept(), 'steered: used after all but 49 others')
  // The same session in another process (or after a long pause): its first turn marks it used.
  const again = createCheckpointSession('S1', 'superheroes:checkpoint', ['superheroes-checkpoint'])
  x.world.now += 1000
  await again.turnStarted(x.io, 't1', 'go on')
  await others(49)
  assert.ok(await kept(), 'its first turn: used after all but 49 others')
  await others(1)
  assert.not.ok(await kept(), 'the cap stands: 50 used after it')
  assert.is(x.files.has('/data/checkpoints/S1.notes.a.md'), false, 'its files go with it')
})

test('a touch and a save run one after the other, so the touch never writes back the pointer the save replaced', async () => {
  const x = setup()
  await createNotes(x.io).save('S1', 'old')
  await x.s.turnStarted(x.io, 't1', 'go')
  // The touch's read of the pointer answers what the store held, but only once released.
  let release = () => {}
  const held = new Promise<void>((resolve) => (release = resolve))
  const storeGet = x.io.storeGet
  let armed = true
  x.io.storeGet = async (key) => {
    const value = await storeGet(key)
    if (armed && key === 'notes:S1') {
      armed = false
      await held
    }
    return value
  }
  const touching = x.s.touch(x.io)
  for (let i = 0; i < 200; i++) await Promise.resolve()
  const saving = x.s.turnCompleted(x.io, SETTINGS, { answer: block('new'), isAborted: false, turnId: 't1' })
  for (let i = 0; i < 200; i++) await Promise.resolve()
  release()
  await Promise.all([saving, touching])
  assert.is(await createNotes(x.io).read('S1'), 'new')
})

test('steering refuses when the notes cannot be read', async () => {
  const x = setup()
  await createNotes(x.io).save('S1', 'n')
  x.files.set('/data/checkpoints/S1.notes.a.md', 'x')
  let err: Error | undefined
  await x.s.instructions(x.io, 'o').catch((e: Error) => (err = e))
  assert.match(err!.message, 'could not be read')
})

test.run()
