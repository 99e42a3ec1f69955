// Every word the checkpoint feature shows or sends, one home each (spec B.12, B.17, B.18.2).
import { SAVE_BOUND_MS } from './constants.ts'

/** Sent once after a compaction the mod started, or a manual `/compact`, completes (B.12, exact). */
export const RESUME_PROMPT =
  'Resume: this session was just compacted. Re-read your resume point (your checkpoint notes, and your charter if this session has one), then continue where you left off.'

export const NOTES_SAVED = 'Checkpoint notes saved'
/** Toasted, and returned alone as the turn's text (the engine draws it under the answer), because a headless run shows no toast. */
export const NOTES_NOT_SAVED = 'Checkpoint notes NOT saved: the previous notes are still in place'

/**
 * Measured: once the engine's store file of a plugin is damaged (a torn or hand-edited JSON), every
 * `$.store` call rejects naming it: `store file <path> is malformed (<why>)`; a folder in its place:
 * `store file <path> is unreadable (EISDIR: illegal operation on a directory, read)`. The engine
 * never repairs either. keel may not write there (it writes only its data folder, the project's
 * .claude/ and its home), so it says exactly what to do: moving it aside mends both.
 */
const DAMAGED_STORE = /store file (.+?) is (?:malformed|unreadable) \(([^)]*)\)/
export function damagedStore(err: unknown): string | undefined {
  const m = DAMAGED_STORE.exec(String(err))
  return m ? `the engine's store file for this plugin is damaged (${m[2]}): move it aside with mv "${m[1]}" "${m[1]}.damaged", and the next save works; the notes files saved so far stay in the data folder` : undefined
}
/** Why a save held by the disk was given up (SAVE_BOUND_MS); said to the person. */
export const ERR_SAVE_HELD = `the disk did not answer within ${SAVE_BOUND_MS / 1000} s, so the save was given up`
/** The line a failed save shows: why, when it is the engine's store or a disk that does not answer. */
export const notSaved = (err: unknown) => {
  const why = damagedStore(err) ?? (String(err).includes(ERR_SAVE_HELD) ? ERR_SAVE_HELD : undefined)
  return why ? `${NOTES_NOT_SAVED}. ${why[0]!.toUpperCase()}${why.slice(1)}.` : NOTES_NOT_SAVED
}
export const CHECKPOINT_FAILED = 'Auto-checkpoint failed'
export const WAIT_FOR_TURN = 'Auto-checkpoint: wait for the current turn to finish'
export const CHECKPOINT_CANCELLED = 'Auto-checkpoint cancelled: the turn was interrupted'
export const CHECKPOINTED = 'Checkpointed and compacted'
export const COULD_NOT_COMPACT = 'Auto-checkpoint saved the notes but could not compact'

/** Why a finished checkpoint did not compact; each goes into `skipped(why)`. */
export const WHY_SAVE_FAILED = 'the notes could not be saved'
export const WHY_BASELINE_UNREADABLE = 'the notes could not be read before the checkpoint'
export const WHY_UNCHANGED = 'the notes file did not change'
export const WHY_COMPACTED = 'the session was compacted while it ran'
export const skipped = (why: string) => `Auto-checkpoint skipped: ${why}; next try after more context`

/** The band's words: its text has a trailing space so the buttons do not touch it (B.11). */
export const BAND_CLICK_ONLY = 'Context is near the checkpoint threshold '
export const BAND_AUTO = 'Auto-checkpoint soon '
export const BUTTON_NOW = 'Now'
export const BUTTON_SNOOZE = 'Snooze'

/** Internal error texts (B.17). */
export const ERR_TURN_RUNNING = 'a turn is still running'
export const ERR_COMPACTION_RUNNING = 'another compaction is still running'
export const ERR_COMPACT_COMMAND = 'the /compact command did not compact'
export const ERR_NOTES_TOO_LARGE = 'the block is over the notes cap'
export const ERR_READ_BACK = 'the notes read back differ from what was written'

/** The compaction instructions (B.18.2 `instructions`): a preamble, then one section per part present. */
export const preamble = (notesPath: string | null) =>
  'Keep the charter and the checkpoint notes below in the summary verbatim: they are the session\'s task and its resume point.' +
  (notesPath ? ` The notes are kept in ${notesPath}; name that file in the summary so the session can re-read it.` : '')
export const CHARTER_HEADING = '## Charter'
export const NOTES_HEADING = '## Checkpoint notes'
export const OWNER_HEADING = "## Owner's instructions"

/** The charter verb. */
export const CHARTER_USAGE = 'charter [<text>]'
export const charterSet = (firstLine: string) => `Charter set: ${firstLine}`
export const CHARTER_NONE = 'No charter yet: set one with the charter verb; until then the session\'s first prompt stands in.'
