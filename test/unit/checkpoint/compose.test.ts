// B.18.2 `instructions`: the charter, the notes, the owner's text verbatim; never empty.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { composeInstructions } from '../../../src/features/checkpoint/compose.ts'
import { CHARTER_HEADING, NOTES_HEADING, OWNER_HEADING, preamble, recallSteering } from '../../../src/features/checkpoint/strings.ts'

test('all parts, in order, the owner text untrimmed', () => {
  const text = composeInstructions({ charter: 'Ship the parser', notes: 'Now: tests', notesPath: '/d/s.notes.a.md', owner: '  keep the tests  ' })
  assert.is(text, `${preamble('/d/s.notes.a.md')}\n\n${CHARTER_HEADING}\nShip the parser\n\n${NOTES_HEADING}\nNow: tests\n\n${OWNER_HEADING}\n  keep the tests  `)
  assert.ok(text.includes('/d/s.notes.a.md'), 'the notes file is named')
})

test('missing parts are left out; the preamble always stands', () => {
  const bare = composeInstructions({ charter: null, notes: null, notesPath: null, owner: undefined })
  assert.is(bare, preamble(null))
  assert.ok(bare.length > 0)
  assert.not.ok(bare.includes('kept in'))
  const ownerOnly = composeInstructions({ charter: ' ', notes: '', notesPath: null, owner: 'focus' })
  assert.is(ownerOnly, `${preamble(null)}\n\n${OWNER_HEADING}\nfocus`)
  assert.not.ok(composeInstructions({ charter: 'c', notes: null, notesPath: null, owner: '   ' }).includes(OWNER_HEADING))
})

test('with recall registered, the summarizer is told of the tool, right after the preamble', () => {
  const text = composeInstructions({ charter: 'c', notes: null, notesPath: null, owner: undefined, recall: 'mcp__superheroes__recall' })
  assert.is(text, `${preamble(null)}\n\n${recallSteering('mcp__superheroes__recall')}\n\n${CHARTER_HEADING}\nc`)
  assert.ok(text.includes('"details: recall <topic>"'))
  assert.not.ok(composeInstructions({ charter: 'c', notes: null, notesPath: null, owner: undefined }).includes('recall'))
})

test.run()
