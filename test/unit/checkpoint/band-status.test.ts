// B.11 / #12 the band's tree and words; the status lines.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { bandTree, type BandElements } from '../../../src/features/checkpoint/band.ts'
import { statusLines, type StatusFacts } from '../../../src/features/checkpoint/status.ts'
import { damagedStore, notSaved } from '../../../src/features/checkpoint/strings.ts'

const els: BandElements = {
  Box: (p) => ({ type: 'Box', ...p }),
  Text: (p) => ({ type: 'Text', ...p }),
  Button: (p) => ({ type: 'Button', ...p }),
}

test('#12 the band: its text per mode, then Now and Snooze acting', () => {
  const pressed: string[] = []
  const tree = bandTree(els, 'click-only', () => pressed.push('now'), () => pressed.push('snooze')) as { children: { type: string; children?: string; key?: string; label?: string; onPress?: () => void }[] }
  assert.equal(tree.children.map((c) => [c.type, c.children ?? c.key, c.label]), [
    ['Text', 'Context is near the checkpoint threshold ', undefined], ['Button', 'now', 'Now'], ['Button', 'snooze', 'Snooze'],
  ])
  tree.children[1]!.onPress!()
  tree.children[2]!.onPress!()
  assert.equal(pressed, ['now', 'snooze'])
  const auto = bandTree(els, 'auto', () => {}, () => {}) as { children: { children?: string }[] }
  assert.is(auto.children[0]!.children, 'Auto-checkpoint soon ')
  const unknown = bandTree(els, undefined, () => {}, () => {}) as { children: { children?: string }[] }
  assert.is(unknown.children[0]!.children, 'Auto-checkpoint soon ', 'settings unreadable')
})

const SETTINGS = { thresholdTokens: 150000, allowanceTokens: 20000, mode: 'auto' }
const facts: StatusFacts = {
  pkg: 'superheroes', charter: { text: 'Ship the parser\nwith tests', source: 'verb' }, notes: { bytes: 42, path: '/d/S.notes.a.md' },
  folder: '/d', settings: SETTINGS, trigger: { tokens: 147000, source: 'harness', harnessAt: 167000 }, fill: 120000, attended: true,
  lastSkip: { key: 'headless:past', at: '2026-01-01T00:00:00.000Z' },
}

test('status: charter first line, notes size and place, trigger and why, last skip', () => {
  assert.equal(statusLines(facts), [
    'charter: "Ship the parser" (set with /superheroes charter)',
    'notes: 42 bytes in /d/S.notes.a.md',
    'automatic checkpoint: auto, at 147000 tokens (the harness compacts at 167000, less the 20000 allowance); the context holds 120000',
    'last skip: headless:past at 2026-01-01T00:00:00.000Z',
  ])
})

test('status: the other cases say why', () => {
  const lines = (over: Partial<StatusFacts>) => statusLines({ ...facts, ...over })
  assert.match(lines({ charter: null })[0]!, /none yet \(set one with \/superheroes charter <text>/)
  assert.match(lines({ charter: { text: 'x'.repeat(200), source: 'first prompt' } })[0]!, /x{99}…" \(the session's first prompt/)
  assert.is(lines({ charter: undefined })[0], 'charter: unreadable (see the debug log)')
  assert.is(lines({ notes: null })[1], 'notes: none saved yet (kept in /d)')
  assert.is(lines({ notes: null, folder: undefined })[1], 'notes: none saved yet')
  assert.is(lines({ notes: undefined })[1], 'notes: unreadable (see the debug log)')
  assert.match(lines({ settings: { ...SETTINGS, mode: 'off' } })[2]!, /autoCheckpointMode is off/)
  assert.match(lines({ trigger: null, attended: false })[2]!, /not measured yet; this session is not attended/)
  assert.match(lines({ trigger: { tokens: 150000, source: 'threshold' }, fill: undefined })[2]!, /at 150000 tokens \(autoCheckpointTokens\)$/)
  assert.match(lines({ trigger: { tokens: 50000, source: 'floor' } })[2]!, /the floor/)
  assert.is(lines({ lastSkip: null })[3], 'last skip: none')
})

test('a damaged store: a torn file and a folder in its place are named alike, with the way out (engine 2.1.328 words)', () => {
  const at = '/h/.claude/plugins/store/superheroes_inline-05efa6207baa.json'
  const torn = new Error(`superheroes@inline: store file ${at} is malformed (Unexpected end of JSON input)`)
  const folder = new Error(`superheroes@inline: store file ${at} is unreadable (EISDIR: illegal operation on a directory, read)`)
  assert.is(damagedStore(torn), `the engine's store file for this plugin is damaged (Unexpected end of JSON input): move it aside with mv "${at}" "${at}.damaged", and the next save works; the notes files saved so far stay in the data folder`)
  assert.is(damagedStore(folder), `the engine's store file for this plugin is damaged (EISDIR: illegal operation on a directory, read): move it aside with mv "${at}" "${at}.damaged", and the next save works; the notes files saved so far stay in the data folder`)
  assert.match(notSaved(folder), `Checkpoint notes NOT saved: the previous notes are still in place. The engine's store file for this plugin is damaged (EISDIR`)
  assert.equal(statusLines({ ...facts, store: damagedStore(folder) }).at(-1), `store: ${damagedStore(folder)}`)
  assert.is(damagedStore(new Error('ENOSPC: no space left on device')), undefined)
})

test.run()
