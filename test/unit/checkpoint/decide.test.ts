// B.3-B.4 and the acceptance tests that pin them (#1, #2, #5, #6, #8, #9, #17).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  decide, isAttended, isDesktopStarted, notesChanged, rearmAt, rearmTo, resumesAfter, settingsFrom, skipKey,
  snooze, triggerOf, type DecideInput,
} from '../../../src/features/checkpoint/decide.ts'
import { allFields, type Template } from '../../../src/runtime/activation.ts'
import { parseOptions } from '../../../src/runtime/options.ts'
import template from '../../../plugin.json'

const SETTINGS = { thresholdTokens: 150000, allowanceTokens: 20000, mode: 'auto' }
const BD = { isAutoCompactEnabled: true, autoCompactThreshold: 167000 }
const TRIGGER = 147000
const base: DecideInput = { tokens: 0, trigger: TRIGGER, mode: 'auto', isIdle: true, isAttended: true, isRunning: false, snoozeUntilTokens: null }
const at = (tokens: number, over: Partial<DecideInput> = {}) => decide({ ...base, tokens, ...over })

test('#1 the effective trigger', () => {
  const trigger = (autoCompactThreshold: number | undefined, isAutoCompactEnabled: boolean) => triggerOf(SETTINGS, { autoCompactThreshold, isAutoCompactEnabled }).tokens
  assert.is(trigger(167000, true), 147000)
  assert.is(trigger(167000, false), 150000)
  assert.is(trigger(60000, true), 50000)
  assert.is(trigger(undefined, true), 150000)
  assert.is(trigger(Infinity, true), 150000)
})

test('triggerOf says why', () => {
  assert.equal(triggerOf(SETTINGS, BD), { tokens: 147000, source: 'harness' })
  assert.equal(triggerOf(SETTINGS, undefined), { tokens: 150000, source: 'threshold' })
  assert.equal(triggerOf(SETTINGS, { isAutoCompactEnabled: true, autoCompactThreshold: 60000 }), { tokens: 50000, source: 'floor' })
})

test('settings: the options as the runtime checked them, a bad or missing one its default', () => {
  const options = { autoCheckpointTokens: 150000, autoCheckpointAllowance: 20000, autoCheckpointMode: 'auto' }
  assert.equal(settingsFrom(options), SETTINGS)
  // settingsFrom checks nothing again: every field arrives, whole and within its bounds (runtime/options.ts).
  const checked = (raw: Record<string, unknown>) => settingsFrom(parseOptions(allFields(template as Template), raw).values)
  assert.equal(checked({ autoCheckpointTokens: 'x', autoCheckpointAllowance: NaN, autoCheckpointMode: '' }), SETTINGS)
  assert.equal(checked({}), SETTINGS)
  assert.equal(checked({ autoCheckpointTokens: 49999, autoCheckpointAllowance: 1.5, autoCheckpointMode: 'click-only' }), { ...SETTINGS, mode: 'click-only' })
})

test('#2 off, with its skip keys', () => {
  const d = at(150000, { mode: 'off' })
  assert.equal(d, { showBand: false, fire: false, reason: 'off' })
  assert.is(skipKey(d, 150000, TRIGGER), 'off:past')
  assert.is(skipKey(at(100000, { mode: 'off' }), 100000, TRIGGER), 'off:near')
  assert.is(skipKey(at(90000, { mode: 'off' }), 90000, TRIGGER), null)
})

test('#3 headless, #24 running: quiet, with keys', () => {
  const d = at(150000, { isAttended: false })
  assert.equal(d, { showBand: false, fire: false, reason: 'headless' })
  assert.is(skipKey(d, 150000, TRIGGER), 'headless:past')
  assert.equal(at(150000, { isRunning: true }), { showBand: false, fire: false, reason: 'running' })
})

test('#6 the heads-up line', () => {
  const below = at(96999)
  assert.equal(below, { showBand: false, fire: false, reason: 'below-heads-up' })
  assert.is(skipKey(below, 96999, TRIGGER), null)
  const near = at(97000)
  assert.equal(near, { showBand: true, fire: false, reason: 'below-trigger' })
  assert.is(skipKey(near, 97000, TRIGGER), 'below-trigger:near')
})

test('#7 fire at the trigger, idle; no key', () => {
  const d = at(147000)
  assert.equal(d, { showBand: true, fire: true, reason: 'fire' })
  assert.is(skipKey(d, 147000, TRIGGER), null)
})

test('#8 busy', () => {
  assert.equal(at(150000, { isIdle: false }), { showBand: true, fire: false, reason: 'busy' })
})

test('#9 snooze per mode', () => {
  assert.equal(at(160000, { snoozeUntilTokens: 250000 }), { showBand: true, fire: false, reason: 'snoozed' })
  assert.equal(at(160000, { snoozeUntilTokens: 250000, mode: 'click-only' }), { showBand: false, fire: false, reason: 'snoozed' })
  assert.equal(at(260000, { snoozeUntilTokens: 250000, mode: 'click-only' }), { showBand: true, fire: false, reason: 'click-only' })
  assert.equal(at(260000, { mode: 'something-else' }), { showBand: true, fire: false, reason: 'click-only' }, 'any other mode is band-only')
})

test('snooze, rearmAt, rearmTo (#17)', () => {
  assert.is(snooze(160000), 260000)
  assert.is(rearmAt(150000, 167000), 158500)
  assert.is(rearmAt(150000, 500000), 250000)
  assert.is(rearmAt(150000, 150001), 150001, 'at least one token past')
  assert.is(rearmAt(150000, 140000), 250000)
  assert.is(rearmAt(150000), 250000)
  assert.is(rearmTo(150000, TRIGGER, BD), 158500)
  assert.is(rearmTo(30000, TRIGGER, BD), null)
  assert.is(rearmTo(150000, TRIGGER, { isAutoCompactEnabled: false, autoCompactThreshold: 167000 }), 250000)
  // #17: the same measurement decides with the snooze it just wrote.
  assert.equal(at(150000, { snoozeUntilTokens: 158500 }), { showBand: true, fire: false, reason: 'snoozed' })
})

test('#5 desktop-started, and attendance', () => {
  assert.is(isDesktopStarted('claude-desktop-3p', undefined), true)
  assert.is(isDesktopStarted('claude-desktop', ''), true)
  assert.is(isDesktopStarted('claude-desktop-3p', '1'), false)
  assert.is(isDesktopStarted('cli', undefined), false)
  assert.is(isDesktopStarted(undefined, undefined), false)
  assert.is(isAttended(false, false, []), false)
  assert.is(isAttended(false, false, null), false)
  assert.is(isAttended(false, false, ['terminal', 'desktop']), true, '#4')
  assert.is(isAttended(true, false, null), true)
  assert.is(isAttended(false, true, []), true)
})

test('notesChanged and resumesAfter', () => {
  assert.is(notesChanged('old', 'new'), true)
  assert.is(notesChanged(null, 'new'), true)
  assert.is(notesChanged('same', 'same'), false)
  assert.is(notesChanged('old', ''), false)
  assert.is(notesChanged('old', null), false)
  assert.is(notesChanged('old', undefined), false)
  assert.equal(['plugin', 'manual', 'auto', 'precompute'].map((t) => resumesAfter(t, true)), [true, true, false, false], 'the checkpoint\'s own')
  assert.equal(['plugin', 'manual', 'auto', 'precompute'].map((t) => resumesAfter(t, false)), [false, true, false, false], 'another feature\'s plugin compaction: no resume')
})

test.run()
