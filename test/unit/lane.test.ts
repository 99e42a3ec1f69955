// The lane: deferred work runs from the clock, in order, once; a drain runs it at once; a failure is logged.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createLane } from '../../src/lib/lane.ts'

/** A clock whose timers fire when the test says, and a debug log. */
function world() {
  const timers: (() => void)[] = []
  const lines: string[] = []
  const port = { after: (_ms: number, fn: () => void) => void timers.push(fn), log: (line: string) => void lines.push(line) }
  const fire = async () => {
    for (const fn of timers.splice(0)) fn()
    for (let i = 0; i < 20; i++) await Promise.resolve()
  }
  return { port, timers, lines, fire }
}

test('a deferred task waits for its timer; tasks run one at a time, in order', async () => {
  const w = world()
  const lane = createLane()
  const ran: string[] = []
  let release!: () => void
  lane.defer(w.port, w.port, 'a', () => new Promise<void>((resolve) => { ran.push('a start'); release = () => (ran.push('a end'), resolve()) }))
  lane.defer(w.port, w.port, 'b', () => void ran.push('b'))
  assert.equal(ran, [], 'nothing runs on the hook\'s path')
  assert.is(w.timers.length, 2)
  assert.not.ok(lane.idle())
  await w.fire()
  assert.equal(ran, ['a start'], 'b waits for a')
  release()
  await w.fire()
  assert.equal(ran, ['a start', 'a end', 'b'])
  assert.ok(lane.idle())
})

test('a drain runs what is pending at once, and the timer then finds nothing: each task runs once', async () => {
  const w = world()
  const lane = createLane()
  let runs = 0
  lane.defer(w.port, w.port, 'task', async () => void runs++)
  await lane.drain()
  assert.is(runs, 1)
  await w.fire()
  assert.is(runs, 1)
  await lane.drain()
  assert.is(runs, 1, 'an empty lane drains at once')
})

test('a drain during a run waits for it, and for what was queued meanwhile', async () => {
  const w = world()
  const lane = createLane()
  const ran: string[] = []
  lane.defer(w.port, w.port, 'first', async () => {
    await Promise.resolve()
    lane.defer(w.port, w.port, 'second', () => void ran.push('second'))
    ran.push('first')
  })
  w.timers.splice(0)[0]!()
  await lane.drain()
  assert.equal(ran, ['first', 'second'])
})

test('a task that fails is logged under its name; the next still runs', async () => {
  const w = world()
  const lane = createLane()
  let ran = false
  lane.defer(w.port, w.port, 'timing: session.measure', () => { throw new Error('usage down') })
  lane.defer(w.port, w.port, 'timing: next', async () => void (ran = true))
  await w.fire()
  assert.equal(w.lines, ['timing: session.measure: usage down'])
  assert.ok(ran)
})

test('with no timer to wait on, the task runs at once, off the path, and says so', async () => {
  const w = world()
  const lane = createLane()
  let ran = false
  const port = { ...w.port, after: () => { throw new Error('no clock') } }
  lane.defer(port, port, 'checkpoint: turn.start', async () => void (ran = true))
  await lane.drain()
  assert.ok(ran)
  assert.equal(w.lines, ['checkpoint: turn.start: no timer (no clock); run at once'])
})

test.run()
