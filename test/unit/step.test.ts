// The shared turn-end step: a later schedule replaces a waiting one; a refused timer schedules nothing.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { scheduleStep, type Schedulable } from '../../src/lib/step.ts'

function clock() {
  const timers: (() => void)[] = []
  return { after: (fn: () => void) => void timers.push(fn), fire: () => timers.splice(0).forEach((fn) => fn()) }
}

test('a step runs once from its timer, and is no longer scheduled after', () => {
  const target: Schedulable = {}
  const { after, fire } = clock()
  const ran: string[] = []
  scheduleStep(target, after, () => ran.push('step'), () => ran.push('replaced'), () => ran.push('refused'))
  assert.ok(target.scheduled !== undefined)
  fire()
  assert.equal(ran, ['step'])
  assert.is(target.scheduled, undefined)
})

test('scheduling again replaces the waiting step: it is said, and only the newer one runs', () => {
  const target: Schedulable = {}
  const { after, fire } = clock()
  const ran: string[] = []
  scheduleStep(target, after, () => ran.push('first'), () => ran.push('replaced'), () => {})
  scheduleStep(target, after, () => ran.push('second'), () => ran.push('replaced'), () => {})
  fire()
  assert.equal(ran, ['replaced', 'second'])
})

test('a clock that refuses the timer leaves nothing scheduled and says why', () => {
  const target: Schedulable = {}
  const refused: unknown[] = []
  scheduleStep(target, () => { throw new Error('no clock') }, () => assert.unreachable(), () => {}, (err) => refused.push(err))
  assert.is(target.scheduled, undefined)
  assert.is((refused[0] as Error).message, 'no clock')
})

test.run()
