// Every text the manual feature shows the model, the person or the debug log. One home each.
import type { Problem } from './file.ts'
import type { ContentKind } from './section.ts'
import { plural } from '../../lib/text.ts'
import { COMPOSE_WAIT_MS, MANUAL_CAP_BYTES, sectionIdOf } from './constants.ts'

// ---- The section (design §4.2) ----
/** The section's first line when it carries the manual. */
export const headerLine = (file: string) =>
  `This project's workflow manual, ${file}, is below as it read when this system prompt was built; do not Read it to learn it, Read it when you are about to edit it.`

/** The mailbox's key (wsflow §5.6 `keyLine`, adapted): given only when the mailbox settled one. */
export const keyLine = (key: string) =>
  `Your mailbox key for this conversation is \`${key}\`; other sessions reach you with mailbox_send or SendMessage to \`${key}\`.`

/** With the mailbox on (wsflow §5.6 `MAILBOX_LINE`, adapted: nothing is drained, nothing to bind). */
export const MAILBOX_LINE =
  'Mail from other sessions is delivered to you by itself: it starts your next turn when you are idle and joins the current turn when you are busy, so launch no wait and do not poll for it.'

/** The section's first line, by what the manual holds: the manual itself follows only when it is `ok`. */
export const OPENING_LINES: { readonly [K in ContentKind]: (file: string, bytes: number) => string } = {
  ok: headerLine,
  // Over the cap: the file is not cut (a cut manual would read as whole).
  'too-large': (file, bytes) =>
    `This project's workflow manual, ${file}, is not in this system prompt: it is ${bytes} bytes, over the ${MANUAL_CAP_BYTES} bytes the prompt carries. Read it when you need it, in parts (offset and limit) if it is long.`,
  binary: (file) =>
    `This project's workflow manual, ${file}, is not in this system prompt: it is not UTF-8 text (it holds a NUL byte or bytes that are not UTF-8).`,
  empty: (file) => `This project's workflow manual, ${file}, is empty.`,
}

// ---- What a collapsed Read reads (design §3.2, wsflow §5.6) ----
/** A full Read of the manual whose content is the prompt's copy. */
export const manualPointer = (file: string, pkg: string) =>
  `${file} is unchanged and is in your system prompt (section ${sectionIdOf(pkg)}); use it from there.`

/** wsflow §5.6 `pointerText('playbook_read', t)`, adapted to Read: a repeat whose full result is still in view. */
export const repeatPointer = (headings: string) =>
  `The result is unchanged. Continue using the full result of your earlier Read of this file in this conversation. Do not read it again (headings: ${headings}).`

/** `headings(text)` with no heading line. */
export const NO_HEADINGS = '(no headings)'

// ---- The manualFile option ----
export const LOCATION_EMPTY = 'manualFile is empty'
export const locationAbsolute = (spelled: string) => `manualFile "${spelled}" is absolute; it is read relative to the project root`
export const locationOutside = (spelled: string) => `manualFile "${spelled}" climbs out of the project root`

// ---- Why the prompt carries no manual (status and debug log) ----
export function problemText(problem: Problem): string {
  switch (problem.kind) {
    case 'missing':
      return 'no such file'
    case 'unreadable':
      return `unreadable (${problem.detail})`
    case 'outside':
      return `refused: it lands at ${problem.realPath}, outside the project root ${problem.realRoot}`
    case 'not-a-file':
      return `refused: ${problem.realPath} is not a regular file`
  }
}

// ---- Status lines (`/<pkg> status`) ----
export const statusFile = (file: string, what: string) => `manual: ${file}: ${what}`
export const statusLocation = (problem: string) => `manual: ${problem}; nothing is added`
/** The file line's size, by what the manual holds. */
export const SIZE_TEXTS: { readonly [K in ContentKind]: (bytes: number) => string } = {
  ok: (bytes) => `${bytes} bytes`,
  'too-large': (bytes) => `${bytes} bytes, over the ${MANUAL_CAP_BYTES}-byte cap: too large to carry (the section names it instead)`,
  binary: (bytes) => `${bytes} bytes, not UTF-8 text (a NUL byte or bytes that are not UTF-8): not carried (the section says so instead)`,
  empty: (bytes) => `empty (${bytes} bytes)`,
}
export const STATUS_FILE_UNCHECKED = 'not looked at (see the debug log)'
/** No file and no copy carried: the whole status of a project without a manual. */
export const NOT_A_MANUAL_PROJECT = 'no such file (not a manual project: nothing is added and no read is touched)'

/** Why the prompt's copy was taken, as the status names it. */
export const reasonWord = (reason: string) => (reason === 'clear' ? '/clear' : reason)
export const promptCopy = (at: string, why: string, bytes: number, hash: string) =>
  `system prompt: carries the manual as it read at ${at} (${why}), ${bytes} bytes, sha256 ${hash.slice(0, 12)}`
export const promptNoCopy = (at: string, why: string) => `system prompt: carries no copy of the manual (since ${at}, ${why})`
export const resumedWhy = (reason: string) => `resume (recorded): taken at ${reasonWord(reason)}`
export const promptPending = (reason: string) => `system prompt: refreshed by ${reasonWord(reason)}; the next prompt takes the manual's copy`
/** The prompt line of a state that carries no reason. */
export const PROMPT_STATE_LINES = {
  unknown: 'system prompt: unknown (resumed with no record of what it carries); no read is collapsed until the next compaction or /clear',
  loading: 'system prompt: resumed; reading the record of what it carries',
  'not-started': 'system prompt: the session has not started yet',
}
export const promptEnded = (reason: string) => `system prompt: the session ended (${reason})`
export const FILE_SAME = "file now: the same as the prompt's copy"
export const FILE_CHANGED = "file now: changed since the prompt's copy (the prompt refreshes at the next compaction or /clear; until then a Read returns the file)"
export const FILE_GONE = "file now: not readable as the prompt's copy was (see the manual line)"
/** The prompt section stays as it was taken until a refresh (the engine sends only the first compose after one). */
export const FILE_DELETED = "file now: deleted; the prompt keeps its copy until the next compaction or /clear"
export const pointersLine = (manual: number, repeat: number, tokens: number) =>
  `pointers: ${manual + repeat} reads answered with a pointer (${manual} of the manual, ${repeat} repeats), about ${tokens} tokens saved`

// ---- Debug log (the binding prefixes each line with the feature's name) ----
export const COMPOSED_EARLY = 'a prompt was composed before session.start: this conversation\'s prompt goes without the manual'
export const noManualInTime = (reason: string) =>
  `no manual by the first prompt after ${reasonWord(reason)} (${COMPOSE_WAIT_MS} ms): the prompt goes without it and no read is collapsed until the next refresh`
export const carried = (file: string, kind: string, bytes: number, reason: string) =>
  `the prompt after ${reasonWord(reason)} carries ${file} (${kind}, ${bytes} bytes)`
export const notCarried = (reason: string, why: string) => `the prompt after ${reasonWord(reason)} carries no manual: ${why}`
export const takeFailed = (err: string) => `the manual's copy failed (${err}): the prompt goes without it`
export const timerFailed = (err: string) => `the ${COMPOSE_WAIT_MS} ms bound could not be set (${err}): the prompt goes without the manual`
export const EXTRAS_LATE = `the mailbox key and line were not there by ${COMPOSE_WAIT_MS} ms; the section goes without them`
export const extrasFailed = (err: string) => `the mailbox key and line were not read (${err}); the section goes without them`
export const recordNotWritten = (err: string) => `the snapshot record was not written (${err}); a resume of this session reads its prompt as unknown`
export const recordUnread = (err: string) => `the snapshot record was not read (${err}); the prompt reads as unknown until the next compaction or /clear`
export const RECORD_INVALID = 'the snapshot record is not one keel wrote; the prompt reads as unknown until the next compaction or /clear'
export const RESUMED_UNKNOWN = 'resumed with no snapshot record: the prompt reads as unknown until the next compaction or /clear'
export const resumedRecorded = (reason: string, bytes: number) => `resumed: the replayed prompt carries the copy taken at ${reasonWord(reason)} (${bytes} bytes)`
export const ended = (reason: string) => `session.end ${reason}: the prompt's copy is forgotten${reason === 'clear' ? '; the next prompt takes a new one' : ''}`
export const pruneFailed = (err: string) => `old snapshot records were not pruned (${err})`
export const pruned = (count: number) => `pruned ${plural(count, 'snapshot record')} older than 30 days`
export const readFailed = (err: string) => `a Read was not examined (${err}); it passes whole`
export const conversationUnread = (err: string) => `the conversation was not read (${err}); the Read passes whole`
