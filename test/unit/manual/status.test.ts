// The status lines: the file and its size, what the prompt carries and since when, whether the file
// changed since, the pointers and what they saved.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Inspection } from '../../../src/features/manual/file.ts'
import { statusLines, type StatusFacts } from '../../../src/features/manual/status.ts'

const FILE = 'ai-docs/WORKFLOW.md'
const H1 = 'a'.repeat(64)
const H2 = 'b'.repeat(64)
const AT = Date.UTC(2025, 0, 2, 3, 4, 5)
const ok = (hash: string, bytes = 1234): Inspection => ({ found: true, realPath: '/p/ai-docs/WORKFLOW.md', content: { kind: 'ok', text: 't', bytes }, hash })
const none = { manual: 0, repeat: 0, tokensSaved: 0 }
const facts = (over: Partial<StatusFacts>): StatusFacts => ({ file: FILE, now: ok(H1), prompt: { state: 'copy', resumed: false, reason: 'start', hash: H1, bytes: 1234, at: AT }, reads: none, ...over })

test('a carried copy, the file the same: size, when and why, short hash; the pointers', () => {
  assert.equal(statusLines(facts({ reads: { manual: 3, repeat: 1, tokensSaved: 4500 } })), [
    'manual: ai-docs/WORKFLOW.md: 1234 bytes',
    'system prompt: carries the manual as it read at 2025-01-02T03:04:05.000Z (start), 1234 bytes, sha256 aaaaaaaaaaaa',
    "file now: the same as the prompt's copy",
    'pointers: 4 reads answered with a pointer (3 of the manual, 1 repeats), about 4500 tokens saved',
  ])
})

test('why the copy was taken: compaction, /clear, resume (recorded)', () => {
  const why = (prompt: StatusFacts['prompt']) => statusLines(facts({ prompt }))[1]
  assert.is(why({ state: 'copy', resumed: false, reason: 'compaction', hash: H1, bytes: 1, at: AT }), 'system prompt: carries the manual as it read at 2025-01-02T03:04:05.000Z (compaction), 1 bytes, sha256 aaaaaaaaaaaa')
  assert.is(why({ state: 'copy', resumed: false, reason: 'clear', hash: H1, bytes: 1, at: AT }), 'system prompt: carries the manual as it read at 2025-01-02T03:04:05.000Z (/clear), 1 bytes, sha256 aaaaaaaaaaaa')
  assert.is(why({ state: 'copy', resumed: true, reason: 'clear', hash: H1, bytes: 1, at: AT }), 'system prompt: carries the manual as it read at 2025-01-02T03:04:05.000Z (resume (recorded): taken at /clear), 1 bytes, sha256 aaaaaaaaaaaa')
  assert.is(why({ state: 'copy', resumed: false, reason: 'start', hash: H1, bytes: 1 }), 'system prompt: carries the manual as it read at an unknown time (start), 1 bytes, sha256 aaaaaaaaaaaa')
})

test('the file changed since the copy, or is gone, or was not looked at', () => {
  assert.is(statusLines(facts({ now: ok(H2, 99) }))[2], "file now: changed since the prompt's copy (the prompt refreshes at the next compaction or /clear; until then a Read returns the file)")
  assert.is(statusLines(facts({ now: ok(H2, 99) }))[0], 'manual: ai-docs/WORKFLOW.md: 99 bytes')
  const gone = statusLines(facts({ now: { found: false, problem: { kind: 'missing' } } }))
  // Issue 17 item 9: deleted while the prompt carries it, it is no "not a manual project".
  assert.equal(gone.slice(0, 3).concat(), [
    'manual: ai-docs/WORKFLOW.md: no such file',
    'system prompt: carries the manual as it read at 2025-01-02T03:04:05.000Z (start), 1234 bytes, sha256 aaaaaaaaaaaa',
    "file now: deleted; the prompt keeps its copy until the next compaction or /clear",
  ])
  const refused = statusLines(facts({ now: { found: false, problem: { kind: 'not-a-file', realPath: '/p/ai-docs/WORKFLOW.md' } } }))
  assert.is(refused[2], "file now: not readable as the prompt's copy was (see the manual line)")
  const unlooked = statusLines(facts({ now: undefined }))
  assert.is(unlooked[0], 'manual: ai-docs/WORKFLOW.md: not looked at (see the debug log)')
  assert.is(unlooked[2], "file now: not readable as the prompt's copy was (see the manual line)")
})

test('a prompt with no copy: no "file now" line', () => {
  const lines = statusLines(facts({ now: { found: true, realPath: '/p/ai-docs/WORKFLOW.md', content: { kind: 'too-large', bytes: 70000 }, hash: null }, prompt: { state: 'copy', resumed: false, reason: 'start', hash: null, bytes: 70000, at: AT } }))
  assert.equal(lines, [
    'manual: ai-docs/WORKFLOW.md: 70000 bytes, over the 65536-byte cap: too large to carry (the section names it instead)',
    'system prompt: carries no copy of the manual (since 2025-01-02T03:04:05.000Z, start)',
    'pointers: 0 reads answered with a pointer (0 of the manual, 0 repeats), about 0 tokens saved',
  ])
  assert.is(statusLines(facts({ prompt: { state: 'copy', resumed: true, reason: 'compaction', hash: null, bytes: 0, at: AT } }))[1],
    'system prompt: carries no copy of the manual (since 2025-01-02T03:04:05.000Z, resume (recorded): taken at compaction)')
})

test('every kind of file now', () => {
  const line = (now: Inspection) => statusLines(facts({ now }))[0]
  assert.is(line({ found: true, realPath: '/r', content: { kind: 'binary', bytes: 5 }, hash: null }), 'manual: ai-docs/WORKFLOW.md: 5 bytes, not UTF-8 text (a NUL byte or bytes that are not UTF-8): not carried (the section says so instead)')
  assert.is(line({ found: true, realPath: '/r', content: { kind: 'empty', bytes: 0 }, hash: null }), 'manual: ai-docs/WORKFLOW.md: empty (0 bytes)')
  assert.is(line({ found: false, problem: { kind: 'outside', realPath: '/etc/x.md', realRoot: '/p' } }), 'manual: ai-docs/WORKFLOW.md: refused: it lands at /etc/x.md, outside the project root /p')
  assert.is(line({ found: false, problem: { kind: 'not-a-file', realPath: '/p/ai-docs/WORKFLOW.md' } }), 'manual: ai-docs/WORKFLOW.md: refused: /p/ai-docs/WORKFLOW.md is not a regular file')
  assert.is(line({ found: false, problem: { kind: 'unreadable', detail: 'EACCES' } }), 'manual: ai-docs/WORKFLOW.md: unreadable (EACCES)')
})

test('the prompt before a copy: not started, pending after a reset, resuming, unknown, ended', () => {
  const second = (prompt: StatusFacts['prompt']) => statusLines(facts({ prompt }))[1]
  assert.is(second({ state: 'not-started' }), 'system prompt: the session has not started yet')
  assert.is(second({ state: 'pending', reason: 'clear' }), 'system prompt: refreshed by /clear; the next prompt takes the manual\'s copy')
  assert.is(second({ state: 'pending', reason: 'compaction' }), 'system prompt: refreshed by compaction; the next prompt takes the manual\'s copy')
  assert.is(second({ state: 'loading' }), 'system prompt: resumed; reading the record of what it carries')
  assert.is(second({ state: 'unknown' }), 'system prompt: unknown (resumed with no record of what it carries); no read is collapsed until the next compaction or /clear')
  assert.is(second({ state: 'ended', reason: 'other' }), 'system prompt: the session ended (other)')
  assert.is(statusLines(facts({ prompt: { state: 'unknown' } })).length, 3)
})

test('not a manual project (no file, no copy carried): the file line alone', () => {
  const missing: Inspection = { found: false, problem: { kind: 'missing' } }
  const only = ['manual: ai-docs/WORKFLOW.md: no such file (not a manual project: nothing is added and no read is touched)']
  assert.equal(statusLines(facts({ now: missing, prompt: { state: 'copy', resumed: false, reason: 'start', hash: null, bytes: 0 } })), only)
  assert.equal(statusLines(facts({ now: missing, prompt: { state: 'not-started' } })), only)
  assert.is(statusLines(facts({ now: missing })).length, 4, 'a copy carried of a manual since removed still says so')
})

test('a manualFile option that names no file inside the project: one line', () => {
  assert.equal(statusLines(facts({ locationProblem: 'manualFile "/etc/x" is absolute; it is read relative to the project root' })), [
    'manual: manualFile "/etc/x" is absolute; it is read relative to the project root; nothing is added',
  ])
})

test.run()
