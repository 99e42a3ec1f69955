// The timing state machine (wsflow §3.4, acceptance tests 3-27) over fake edges and a manual clock.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createTiming, type Edges, type Usage } from '../../../src/features/timing/machine.ts'
import { labelOf, LEVER_RESULT, LEVER_RESULT_NO_RESUME, resumeText } from '../../../src/features/timing/strings.ts'

const BREAKDOWN = { rawMaxTokens: 200000, autoCompactThreshold: 160000, isAutoCompactEnabled: true }
const KEY = '200000|'
const RESUME = resumeText(labelOf('ws'))

function world(opts: { submitAnswer?: (text: string) => Promise<unknown>; spec?: { percent?: number; tokens?: number } } = {}) {
  const seen = { submits: [] as string[], logs: [] as string[], notices: [] as string[], compacts: 0, breakdownReads: 0, usageReads: 0 }
  let now = 0
  const timers: { at: number; fn: () => void }[] = []
  const state = {
    running: false,
    fresh: { tokens: 112000 as number | undefined, window: 200000, key: KEY } as Usage,
    compact: [] as (() => Promise<{ skip?: string }>)[],
    afterThrows: false,
    delayThrows: false,
    usageThrows: false,
    breakdown: BREAKDOWN as typeof BREAKDOWN | undefined,
  }
  const edges: Edges = {
    submit: (text) => (seen.submits.push(text), opts.submitAnswer ? opts.submitAnswer(text) : Promise.resolve({ text })),
    compact: () => (seen.compacts++, (state.compact.shift() ?? (() => Promise.resolve({})))()),
    after: (fn) => {
      if (state.afterThrows) throw new Error('refused')
      timers.push({ at: now, fn })
    },
    delay: (ms, fn) => {
      if (state.delayThrows) throw new Error('no clock')
      timers.push({ at: now + ms, fn })
    },
    log: (text) => void seen.logs.push(text),
    notice: (text) => void seen.notices.push(text),
    turnRunning: () => state.running,
    readUsage: async () => {
      seen.usageReads++
      if (state.usageThrows) throw new Error('no usage')
      return state.fresh
    },
  }
  const timing = createTiming('ws')
  timing.start(edges, opts.spec ?? { percent: 50 })
  /** Lets every pending promise chain settle (the machine's submits and compactions are promise chains). */
  const flush = async () => {
    for (let i = 0; i < 20; i++) await Promise.resolve()
  }
  /** Runs every timer due by `ms` from now, in order, letting promises settle between. */
  async function advance(ms: number) {
    const until = now + ms
    for (;;) {
      timers.sort((a, b) => a.at - b.at)
      const next = timers[0]
      if (!next || next.at > until) break
      timers.shift()
      now = next.at
      next.fn()
      await flush()
      await flush()
    }
    now = until
    await flush()
  }
  const measure = async (tokens: number | undefined, key = KEY) => {
    await timing.measure({ tokens, window: 200000, key }, async () => (seen.breakdownReads++, state.breakdown))
    await flush()
  }
  /** Baselines the latch at 0 with an idle observation below the advisory point. */
  const baseline = () => measure(50000)
  return { timing, seen, state, advance, measure, baseline, flush }
}

test('a first observation only baselines (acceptance 3)', async () => {
  const w = world()
  await w.measure(150000)
  assert.equal(w.seen.submits, [])
  assert.is(w.timing.inspect().latch, 3)
  assert.equal(w.seen.logs, ['compaction window 200000: advisory 50%, milestones 60% and 70%, auto compaction 80%'])
})

test('an idle crossing delivers the advisory with the fresh figures (acceptance 4)', async () => {
  const w = world()
  await w.baseline()
  await w.measure(110000)
  assert.is(w.seen.submits.length, 1)
  assert.ok(w.seen.submits[0]!.startsWith('[ws compaction] Context window at the end of the last turn: 56% (112k / 200k tokens) / 80% (automatic compaction point). This is past the advisory point (50%).'))
  assert.ok(w.seen.submits[0]!.includes('Reminders follow at 60% and 70%.'))
  assert.ok(w.seen.logs.includes('advisory delivered: crossing measured at 110000 tokens (55%), fresh read 112000 tokens (56%), compaction window 200000 tokens, model window 200000 tokens'))
  assert.is(w.seen.breakdownReads, 1, 'the breakdown is read once while the window stays')
})

test('a crossing mid-turn waits for the turn end; an aborted end keeps waiting (acceptance 5)', async () => {
  const w = world()
  await w.baseline()
  w.state.running = true
  await w.measure(110000)
  assert.equal([w.seen.submits, w.timing.inspect().crossing], [[], 110000])
  w.state.running = false
  w.timing.turnComplete(undefined, 'aborted')
  await w.advance(0)
  assert.equal(w.seen.submits, [])
  w.timing.turnComplete('sub', 'answer')
  await w.advance(0)
  assert.equal(w.seen.submits, [], 'a subagent turn end is no delivery point')
  w.timing.turnComplete(undefined, 'answer')
  assert.equal(w.seen.usageReads, 0, 'delivered after the hook returned')
  await w.advance(0)
  assert.is(w.seen.submits.length, 1)
})

test('a delivery the engine drops (a turn stopped with Esc) is not counted: it goes again at the next main turn end', async () => {
  let drop = true
  const w = world({ submitAnswer: async () => (drop ? { drop: 'the session was stopped and nobody has sent input since' } : {}) })
  await w.baseline()
  await w.measure(110000)
  assert.is(w.seen.submits.length, 1)
  assert.is(w.timing.inspect().latch, 0, 'the latch did not advance')
  assert.is(w.timing.inspect().crossing, 110000, 'the crossing stands')
  assert.ok(w.seen.logs.includes('the message was not delivered; it goes at the next main turn end'))
  drop = false
  w.timing.turnComplete(undefined, 'aborted')
  await w.advance(0)
  assert.is(w.seen.submits.length, 1, 'not right after another stopped turn')
  w.timing.turnComplete(undefined, 'answer')
  await w.advance(0)
  assert.is(w.seen.submits.length, 2)
  assert.is(w.timing.inspect().latch, 1)
  await w.measure(112000)
  assert.is(w.seen.submits.length, 2, 'delivered once')
})

test('a dropped delivery overtaken by a newer observation leaves the newer state', async () => {
  const answers: ((v: unknown) => void)[] = []
  const w = world({ submitAnswer: () => new Promise((resolve) => answers.push(resolve)) })
  await w.baseline()
  await w.measure(110000)
  w.state.fresh = { tokens: 130000, window: 200000, key: KEY }
  await w.measure(130000)
  await w.flush()
  const latch = w.timing.inspect().latch
  assert.is(answers.length, 2)
  answers[0]!({ drop: 'late' })
  await w.flush()
  assert.is(w.timing.inspect().latch, latch, 'the first message\'s late drop leaves the second delivery\'s latch')
})

test('one message for several points at once, then none (acceptance 6)', async () => {
  const w = world()
  await w.baseline()
  w.state.fresh = { tokens: 145000, window: 200000, key: KEY }
  await w.measure(145000)
  assert.is(w.seen.submits.length, 1)
  assert.match(w.seen.submits[0]!, 'This is past the advisory point')
  assert.is(w.timing.inspect().latch, 3)
  await w.measure(150000)
  assert.is(w.seen.submits.length, 1)
})

test('milestones, and re-arming below the latch (acceptance 7, 8)', async () => {
  const w = world()
  await w.baseline()
  w.state.fresh = { tokens: 110000, window: 200000, key: KEY }
  await w.measure(110000)
  w.state.fresh = { tokens: 125000, window: 200000, key: KEY }
  await w.measure(125000)
  assert.match(w.seen.submits[1]!, 'Past 80%, Claude Code compacts automatically')
  w.state.fresh = { tokens: 141000, window: 200000, key: KEY }
  await w.measure(141000)
  assert.match(w.seen.submits[2]!, 'This is the last reading before automatic compaction.')
  await w.measure(110000)
  assert.is(w.timing.inspect().latch, 1)
  await w.measure(141000)
  assert.is(w.seen.submits.length, 4)
  assert.match(w.seen.submits[3]!, 'This is the last reading')
})

test('no threshold message while a request is pending or a resume is held (acceptance 9)', async () => {
  const w = world()
  await w.baseline()
  w.timing.lever(undefined, true)
  await w.measure(110000)
  assert.equal([w.seen.submits, w.timing.inspect().crossing], [[], 110000])
  w.timing.turnComplete(undefined, 'answer')
  await w.advance(0)
  assert.is(w.timing.inspect().held, true)
  await w.measure(110000)
  assert.equal(w.seen.submits, [])
  await w.advance(1500)
  assert.equal(w.seen.submits, [RESUME])
})

test('a fresh read under another window delivers nothing and keeps the crossing (acceptance 10)', async () => {
  const w = world()
  await w.baseline()
  w.state.fresh = { tokens: 112000, window: 200000, key: '200000|150000' }
  await w.measure(110000)
  assert.equal([w.seen.submits, w.timing.inspect().crossing], [[], 110000])
})

test('a fresh read without tokens shows the crossing figure; one below the point delivers nothing', async () => {
  const w = world()
  await w.baseline()
  w.state.fresh = { window: 200000, key: KEY }
  await w.measure(110000)
  assert.match(w.seen.submits[0]!, '55% (110k / 200k tokens)')
  assert.ok(w.seen.logs.some((l) => l.includes("fresh read without tokens, so the crossing's figure is shown")))
  const low = world()
  await low.baseline()
  low.state.fresh = { tokens: 90000, window: 200000, key: KEY }
  await low.measure(110000)
  assert.equal([low.seen.submits, low.timing.inspect().crossing, low.timing.inspect().latch], [[], undefined, 0])
})

test('a failed usage read keeps the crossing; a turn that started meanwhile stops the delivery', async () => {
  const w = world()
  await w.baseline()
  w.state.usageThrows = true
  await w.measure(110000)
  assert.ok(w.seen.logs.includes('usage not read for delivery (no usage); the crossing stays recorded'))
  assert.is(w.timing.inspect().crossing, 110000)
  w.state.usageThrows = false
  w.state.running = true
  const pending = w.timing.turnComplete(undefined, 'answer')
  void pending
  await w.advance(0)
  assert.equal(w.seen.submits, [], 'the main turn flag stands until its turn.complete clears it')
})

test('the lever: main session only, a literal true only (acceptance 11)', () => {
  const w = world()
  assert.equal(w.timing.lever('A1', true), { deny: 'request_compaction compacts the main session only; called from subagent A1.' })
  assert.equal([w.timing.lever(undefined, true), w.timing.lever(undefined, 'true'), w.timing.lever(undefined, undefined)], [{ result: LEVER_RESULT }, { result: LEVER_RESULT_NO_RESUME }, { result: LEVER_RESULT_NO_RESUME }])
})

test('the lever: a subagent is refused; without continue nothing follows the landing (acceptance 11, 12)', async () => {
  const w = world()
  assert.equal(w.timing.lever('A1', true), { deny: 'request_compaction compacts the main session only; called from subagent A1.' })
  assert.equal(w.timing.lever(undefined, undefined), { result: LEVER_RESULT_NO_RESUME })
  assert.ok(w.seen.logs.includes('compaction requested; resume: false'))
  w.timing.turnComplete(undefined, 'answer')
  assert.is(w.seen.compacts, 0, 'compaction runs after the hook returned')
  await w.advance(0)
  assert.is(w.seen.compacts, 1)
  await w.advance(5000)
  assert.equal(w.seen.submits, [])
  assert.equal(w.timing.inspect().latch, 0, 'a landing re-arms the latch at 0')
})

test('continue: the resume waits the continuation window; a main turn cancels it, a subagent turn does not (acceptance 13, 14)', async () => {
  const w = world()
  assert.equal(w.timing.lever(undefined, true), { result: LEVER_RESULT })
  w.timing.turnComplete(undefined, 'answer')
  await w.advance(1499)
  assert.equal(w.seen.submits, [])
  await w.advance(1)
  assert.equal(w.seen.submits, [RESUME])

  const c = world()
  c.timing.lever(undefined, true)
  c.timing.turnComplete(undefined, 'answer')
  await c.advance(800)
  c.timing.turnStarted(undefined)
  await c.advance(1000)
  assert.equal(c.seen.submits, [])
  assert.ok(c.seen.logs.includes('a turn started within the resume window; the resume prompt is not submitted'))

  const s = world()
  s.timing.lever(undefined, true)
  s.timing.turnComplete(undefined, 'answer')
  await s.advance(800)
  s.timing.turnStarted('sub')
  await s.advance(1000)
  assert.equal(s.seen.submits, [RESUME])
})

test('a rejected compaction: a transcript notice once, then the debug log, retried each turn end (acceptance 15)', async () => {
  const w = world()
  const reject = () => Promise.reject(new Error('turn running'))
  w.state.compact.push(reject, reject)
  w.timing.lever(undefined, undefined)
  w.timing.turnComplete(undefined, 'answer')
  await w.advance(0)
  assert.equal(w.seen.notices, ['the requested compaction was rejected (turn running); retrying at the next turn end'])
  w.timing.turnComplete(undefined, 'answer')
  await w.advance(0)
  assert.is(w.seen.notices.length, 1)
  assert.ok(w.seen.logs.includes('the requested compaction was rejected (turn running); retrying at the next turn end'))
  w.timing.turnComplete(undefined, 'answer')
  await w.advance(0)
  assert.is(w.seen.compacts, 3)
  assert.is(w.timing.inspect().requested, false)
})

test('a vetoed compaction: with continue a noted resume follows; without, a notice only (acceptance 16)', async () => {
  const w = world()
  w.state.compact.push(() => Promise.resolve({ skip: 'policy' }))
  w.timing.lever(undefined, true)
  w.timing.turnComplete(undefined, 'answer')
  await w.advance(0)
  assert.equal(w.seen.notices, ['the requested compaction did not run (policy); a resume prompt follows with a note'])
  await w.advance(1500)
  assert.equal(w.seen.submits, ['[ws compaction] Compaction did not run (policy); your context is unchanged. Resume the work in progress.'])
  const n = world()
  n.state.compact.push(() => Promise.resolve({ skip: 'policy' }))
  n.timing.lever(undefined, false)
  n.timing.turnComplete(undefined, 'answer')
  await n.advance(2000)
  assert.equal([n.seen.notices, n.seen.submits], [['the requested compaction did not run (policy); no resume was requested, so no turn follows'], []])
})

test('another compaction landing first drops the requested one; the resume follows at the next turn end (acceptance 17)', async () => {
  const w = world()
  w.timing.lever(undefined, true)
  w.timing.compacted('auto', undefined, {})
  assert.equal(w.seen.notices, ['a auto compaction landed first, so the requested compaction is dropped; its resume prompt follows at the next turn end'])
  w.timing.turnComplete(undefined, 'answer')
  assert.equal(w.seen.submits, [RESUME], 'immediately, with no window')
  await w.advance(2000)
  assert.is(w.seen.compacts, 0)
  const n = world()
  n.timing.lever(undefined, false)
  n.timing.compacted('manual', undefined, {})
  assert.match(n.seen.notices[0]!, 'no resume was requested, so no prompt follows')
  n.timing.turnComplete(undefined, 'answer')
  assert.equal([n.seen.submits, n.timing.inspect().requested], [[], false])
})

test('precompute, subagent and vetoed compactions change nothing (acceptance 18)', async () => {
  const w = world()
  await w.measure(150000)
  w.timing.lever(undefined, true)
  w.timing.compacted('precompute', undefined, {})
  w.timing.compacted('auto', 'sub', {})
  w.timing.compacted('auto', undefined, { skip: 'no' })
  assert.equal([w.timing.inspect().latch, w.timing.inspect().requested, w.seen.notices], [3, true, []])
})

test('an aborted turn end leaves the request pending (acceptance 19); the latest call wins (acceptance 20)', async () => {
  const w = world()
  w.timing.lever(undefined, true)
  w.timing.turnComplete(undefined, 'aborted')
  await w.advance(0)
  assert.is(w.seen.compacts, 0)
  w.timing.lever(undefined, undefined)
  w.timing.turnComplete(undefined, 'answer')
  await w.advance(2000)
  assert.equal([w.seen.compacts, w.seen.submits], [1, []])
})

test('session end: a held resume is written to the transcript, not submitted (acceptance 21); a pending request is logged', async () => {
  const w = world()
  w.timing.lever(undefined, true)
  w.timing.turnComplete(undefined, 'answer')
  await w.advance(0)
  w.timing.end('clear')
  assert.equal(w.seen.notices, [`a prompt was not submitted (session.end clear):\n${RESUME}`])
  await w.advance(2000)
  assert.equal(w.seen.submits, [])
  w.timing.lever(undefined, false)
  w.timing.end('other')
  assert.ok(w.seen.logs.includes('session.end other dropped a pending compaction request'))
  assert.is(w.timing.inspect().latch, undefined)
})

test('a dropped resume goes to the transcript, a dropped threshold message to the debug log (acceptance 22)', async () => {
  const w = world({ submitAnswer: async () => ({ drop: 'stopped' }) })
  w.timing.lever(undefined, true)
  w.timing.turnComplete(undefined, 'answer')
  await w.advance(1500)
  await w.flush()
  assert.equal(w.seen.notices, [`a prompt was not submitted (dropped: stopped):\n${RESUME}`])
  const t = world({ submitAnswer: async () => { throw new Error('closed') } })
  await t.baseline()
  await t.measure(110000)
  await t.flush()
  assert.equal(t.seen.notices, [])
  assert.ok(t.seen.logs.includes('a prompt was not submitted (closed)'))
})

test('a landing at latch 3 lets the next crossing deliver without a baseline (acceptance 24)', async () => {
  const w = world()
  await w.measure(150000)
  w.timing.compacted('auto', undefined, {})
  w.state.fresh = { tokens: 105000, window: 200000, key: KEY }
  await w.measure(105000)
  assert.is(w.seen.submits.length, 1)
  assert.is(w.seen.breakdownReads, 2, 'a landing drops the cached breakdown')
})

test('the after edge throwing: logged, and the next turn end schedules again (acceptance 26)', async () => {
  const w = world()
  w.timing.lever(undefined, false)
  w.state.afterThrows = true
  w.timing.turnComplete(undefined, 'answer')
  assert.ok(w.seen.logs.includes('the compaction step was not scheduled (refused); retrying at the next turn end'))
  w.state.afterThrows = false
  w.timing.turnComplete(undefined, 'answer')
  w.timing.turnComplete(undefined, 'answer')
  assert.ok(w.seen.logs.includes('the scheduled compaction step did not run; scheduling it again'))
  await w.advance(0)
  assert.is(w.seen.compacts, 1, 'only the latest scheduled step runs')
  const d = world()
  await d.baseline()
  d.state.running = true
  await d.measure(110000)
  d.state.running = false
  d.state.afterThrows = true
  d.timing.turnComplete(undefined, 'answer')
  assert.ok(d.seen.logs.includes('the delivery was not scheduled (refused); the crossing stays recorded'))
})

test('the delay edge throwing submits the resume at once', async () => {
  const w = world()
  w.state.delayThrows = true
  w.timing.lever(undefined, true)
  w.timing.turnComplete(undefined, 'answer')
  await w.advance(0)
  assert.equal(w.seen.submits, [RESUME])
  assert.ok(w.seen.logs.includes('the resume window was not started (no clock); submitting the resume prompt now'))
})

test('an observation whose breakdown read straddles a landing changes nothing (acceptance 27)', async () => {
  const w = world()
  let release: () => void = () => {}
  const slow = w.timing.measure({ tokens: 150000, window: 200000, key: KEY }, () => new Promise((r) => { release = () => r(BREAKDOWN) }))
  w.timing.compacted('auto', undefined, {})
  release()
  await slow
  assert.equal([w.timing.inspect().thresholds, w.timing.inspect().latch], [undefined, 0])
})

test('thresholds off, no breakdown, or no tokens: nothing happens', async () => {
  const w = world()
  await w.measure(undefined)
  assert.is(w.seen.breakdownReads, 0)
  w.state.breakdown = undefined
  await w.measure(150000)
  assert.is(w.timing.inspect().latch, undefined)
  w.state.breakdown = { ...BREAKDOWN, isAutoCompactEnabled: false }
  await w.measure(150000)
  assert.ok(w.seen.logs.includes('thresholds off (auto compaction off, or its point not above the advisory point)'))
  assert.equal(w.seen.submits, [])
  await w.measure(150000, 'another')
  assert.is(w.seen.breakdownReads, 3, 'a changed window key reads the breakdown again')
})

test('a token-term advisory point (acceptance 23, from the option)', async () => {
  const w = world({ spec: { tokens: 150000 } })
  await w.baseline()
  assert.is(w.timing.inspect().thresholds!.advisory, 150000)
  w.state.fresh = { tokens: 149000, window: 200000, key: KEY }
  await w.measure(140000)
  assert.equal(w.seen.submits, [])
})

test.run()
