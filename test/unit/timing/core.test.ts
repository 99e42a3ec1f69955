// The timing core (wsflow §3.3): the advisory grammar, thresholds, levels, the latch table, the lever check, the texts.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { advisoryTokens, describeAdvisory, levelAt, observe, parseAdvisory, percentOf, thousands, thresholdsFor } from '../../../src/features/timing/core.ts'
import { advisoryText, labelOf, milestoneText, resumeText, vetoedResumeText } from '../../../src/features/timing/strings.ts'

const W = { rawMaxTokens: 200000, autoCompactThreshold: 160000, isAutoCompactEnabled: true }
const T = { raw: 200000, advisory: 100000, m1: 120000, m2: 140000, hard: 160000 }
const LABEL = labelOf('ws')

test('parseAdvisory: the §3.3 table exactly (acceptance 1)', () => {
  const table: [unknown, unknown][] = [
    ['50', { percent: 50 }], ['50%', { percent: 50 }], ['100', { percent: 100 }], ['150k', { tokens: 150000 }],
    ['1.5m', { tokens: 1500000 }], ['0.5k', { tokens: 500 }], ['50%|150k', { percent: 50, tokens: 150000 }],
    ['150k|50%', { percent: 50, tokens: 150000 }], ['1%', { percent: 1 }], ['0.0015k', { tokens: 2 }],
  ]
  for (const [input, want] of table) assert.equal(parseAdvisory(input), want, String(input))
  for (const bad of ['0', '101', '0k', '0.0k', '.5k', '150K', '50 %', '', '50|60', '1k|2k', '50%|1k|2k', '50|', 'abc', 50, null, undefined, {}]) {
    assert.is(parseAdvisory(bad), undefined, JSON.stringify(bad))
  }
})

test('describeAdvisory and advisoryTokens: the earlier of the two terms', () => {
  assert.equal([describeAdvisory({ percent: 50 }), describeAdvisory({ tokens: 150000 }), describeAdvisory({ percent: 50, tokens: 150000 })], ['50%', '150000 tokens', '50% or 150000 tokens'])
  assert.is(advisoryTokens({ percent: 50, tokens: 150000 }, 200000), 100000)
  assert.is(advisoryTokens({ percent: 90, tokens: 150000 }, 200000), 150000)
  assert.is(advisoryTokens({ tokens: 5_000_000 }, 200000), 5_000_000, 'a token term is not clamped to the window')
})

test('thresholdsFor (acceptance 2)', () => {
  assert.equal(thresholdsFor(W, { percent: 50 }), T)
  const t = thresholdsFor(W, { tokens: 150000 })!
  assert.is(t.advisory, 150000)
  assert.ok(Math.abs(t.m1 - 153333.33) < 0.01)
  assert.is(thresholdsFor(W, { percent: 90 }), undefined)
  assert.is(thresholdsFor({ ...W, isAutoCompactEnabled: false }, { percent: 50 }), undefined)
  assert.is(thresholdsFor({ rawMaxTokens: 200000, isAutoCompactEnabled: true }, { percent: 50 }), undefined)
  assert.is(thresholdsFor({ ...W, rawMaxTokens: 0 }, { percent: 50 }), undefined)
  assert.is(thresholdsFor(W, { percent: 50, tokens: 5_000_000 })!.advisory, 100000, 'past the auto point the other term decides')
})

test('levelAt counts the points reached', () => {
  assert.equal([99999, 100000, 119999, 120000, 140000, 170000].map((n) => levelAt(T, n)), [0, 1, 1, 2, 3, 3])
})

test('observe: the latch table of §3.3', () => {
  const rows: [0 | 1 | 2 | 3 | undefined, 0 | 1 | 2 | 3, boolean, number, unknown][] = [
    [undefined, 2, true, 2, undefined],
    [0, 1, true, 1, { kind: 'advisory' }],
    [0, 3, true, 3, { kind: 'advisory' }],
    [1, 2, true, 2, { kind: 'milestone', which: 1 }],
    [1, 3, true, 3, { kind: 'milestone', which: 2 }],
    [2, 3, true, 3, { kind: 'milestone', which: 2 }],
    [3, 3, true, 3, undefined],
    [2, 1, true, 1, undefined],
    [2, 1, false, 1, undefined],
    [1, 3, false, 1, undefined],
  ]
  for (const [latch, level, can, want, deliver] of rows) {
    const r = observe(latch, level, can)
    assert.equal([r.latch, r.deliver], [want, deliver], `${latch} ${level} ${can}`)
  }
})

test('formatting helpers', () => {
  assert.equal([percentOf(112000, 200000), thousands(112000), thousands(1499)], [56, '112k', '1k'])
})

test('the texts open with the package label and carry the figures (acceptance 4, 7)', () => {
  const a = advisoryText(LABEL, T, 112000)
  assert.ok(a.startsWith('[ws compaction] Context window at the end of the last turn: 56% (112k / 200k tokens) / 80% (automatic compaction point). This is past the advisory point (50%).'))
  assert.ok(a.includes('Reminders follow at 60% and 70%.'))
  assert.ok(a.includes('look for a good moment to compact before 80%'))
  assert.ok(milestoneText(LABEL, 1, T, 125000).includes('Past 80%, Claude Code compacts automatically, mid-work if need be.'))
  assert.ok(milestoneText(LABEL, 2, T, 141000).includes('This is the last reading before automatic compaction.'))
  assert.is(resumeText(labelOf('keel')), '[keel compaction] Compaction landed; resume the work in progress from the summary and your durable records.')
  assert.is(vetoedResumeText(LABEL, 'policy'), '[ws compaction] Compaction did not run (policy); your context is unchanged. Resume the work in progress.')
})

test.run()
