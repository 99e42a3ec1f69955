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

// ---- recall (issue 22) ----
export const RECALL_DESCRIPTION =
  "Search this session's own transcript (every turn since the session began, across compactions; not a conversation a /clear ended) for details a summary dropped: an exact error text, the file a decision was about, what the person said about a rule. " +
  'Words match whole words in any case; "quoted words" match as an exact phrase. The best excerpts come back verbatim, with when and who (person, model, a tool\'s result), ranked by how many of the query\'s words they hold and how rare those are, the newest first among equals. ' +
  'Read-only: it reads the transcript the engine keeps on this machine and changes nothing.'
export const RECALL_SCHEMA = {
  type: 'object',
  properties: {
    query: { type: 'string', description: 'The words or "exact phrases" to look for, at most 500 characters.' },
    limit: { type: 'integer', description: 'How many excerpts, from 1 to 20; 6 unless given (8 KiB of text in all).' },
  },
  required: ['query'],
} as const
export const RECALL_USAGE = 'recall <query>'
export const RECALL_OFF = 'Recall is off in this package: set its option recall to on (with the checkpoint feature on).'
export const RECALL_TOO_LONG = 'Recall refused: the query is over 500 characters. Ask for the few words, or the "exact phrase", the row would hold.'
export const RECALL_ONLY_STOP_WORDS = 'Recall refused: the query holds only words too common to find anything by (the, of, is, ...). Name the thing itself: a file, the words of an error, a "quoted phrase".'
export const recallFailed = (why: string) => `Recall failed: ${why}`
/** The first line of every answer: a row holding it is recall's own, never found again. */
export const RECALL_HEAD = "Recall, from this session's transcript:"
/** How many rows were found and shown; a damaged row (a torn or hand-edited line) is skipped and counted. */
export const recallHead = (shown: number, matched: number, damaged: number) =>
  `${RECALL_HEAD} the best ${shown} of ${matched} matching rows; damaged rows skipped: ${damaged}.`
export const recallRow = (at: unknown, who: string) => `--- ${at}, ${who}:`
export const WHO_PERSON = 'the person'
export const WHO_MODEL = 'the model'
export const WHO_TOOL = "a tool's result"
/** An image is named where it was, never inlined. */
export const namedImage = (type: unknown) => `[an image (${type}), not shown]`
/** Told to the summarizer of every compaction, so the summary can point at a detail instead of carrying it. */
export const recallSteering = (tool: string) =>
  `Details the summary leaves out are not lost: the tool ${tool} searches this session's whole transcript. Where you drop a detail (an exact error text, the file a decision was about, a rule the person gave), name its topic so it can be found again: "details: recall <topic>".`
