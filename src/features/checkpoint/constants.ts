// The checkpoint feature's numbers and names, each with the reason it has that value (spec B.2, B.18.4).

/** The skill the automatic checkpoint runs, as `/<pkg>:checkpoint`: every package that carries the feature ships it. */
export const CHECKPOINT_SKILL = 'checkpoint'
/** The argument the automatic run passes, so the skill can tell it from a person's own `/…:checkpoint`. */
export const CHECKPOINT_ARGS = 'auto'
/** The command the mod's headless path runs to compact: `$.session.compact()` is refused there (B.8.11). */
export const COMPACT_COMMAND = 'compact'
/** The pause between a checkpoint's turn ending and its compaction, and between the two attempts (B.8.11). */
export const COMPACT_DELAY_MS = 1000
/** A checkpoint older than this lost its turn: it no longer counts as running (B.8.3). */
export const STALE_CHECKPOINT_MS = 1_800_000 // 30 minutes
/** How far below the trigger the band appears (B.4.3 row 4). */
export const HEADS_UP_TOKENS = 50_000
/** How far past the fill a Snooze or a re-arm pushes the next automatic run (B.4.4). */
export const SNOOZE_STEP_TOKENS = 100_000
/** The trigger never sits below this: a checkpoint on a nearly empty context is noise (B.4.1). */
export const MIN_TRIGGER_TOKENS = 50_000
/** The surface whose presence on the roster makes a session attended (B.4.2). */
export const DESKTOP_SURFACE = 'desktop'
/** Entrypoints of a session the desktop app started: attended though not interactive (B.4.2). */
export const DESKTOP_ENTRYPOINTS: readonly string[] = ['claude-desktop', 'claude-desktop-3p']
/** The modes of `autoCheckpointMode`; any mode but these two is band-only, like `click-only` (B.3.1). */
export const AUTO_MODE = 'auto'
export const OFF_MODE = 'off'
export const CLICK_ONLY_MODE = 'click-only'
/** The largest block one save keeps, in UTF-8 bytes: a bigger one fails the save (B.18.4). */
export const NOTES_CAP_BYTES = 262_144 // 256 KiB
/**
 * A save the disk holds longer than this is given up and said. Measured: a headless session ends a
 * turn whose events still run after 60 s (`turn events still running after 60000ms; the turn ends
 * without them and their late notes are dropped`), so a save held there was dropped unsaid; half of
 * it leaves the rest of the turn's end its time. A healthy save takes milliseconds.
 */
export const SAVE_BOUND_MS = 30_000
/** Sessions whose notes and charter the store keeps; the oldest beyond it are evicted (B.18.4). */
export const SESSIONS_KEPT = 50
/**
 * The longest charter kept, in characters. Decision: a first prompt can be a pasted file; the
 * charter rides on every compaction's instructions, so it is held to a size a summary can carry.
 */
export const CHARTER_CAP_CHARS = 16_000
/** The notes folder under the plugin's data folder (B.18.2). */
export const NOTES_FOLDER = 'checkpoints'
/** How a session's files in it end, after its id: the stable copy of the notes (the slots are `.notes.a.md`, `.notes.b.md`), the skip record. */
export const STABLE_ENDING = '.notes.md'
export const SKIP_ENDING = '.skip'
/** Store keys, one per session: the committed notes slot and the charter. */
export const NOTES_KEY_PREFIX = 'notes:'
export const CHARTER_KEY_PREFIX = 'charter:'
// ---- recall (issue 22): the session's own transcript, searched where the engine keeps it ----
/** The option that turns recall on or off within the feature (a picker, like a feature's switch). */
export const RECALL_OPTION = 'recall'
/** The tool's short name: the model calls it as `mcp__<pkg>__recall`. */
export const RECALL_TOOL = 'recall'
/** The longest query taken, in characters: a query is a few words or a phrase, never a pasted text. */
export const RECALL_QUERY_MAX = 500
/** Excerpts returned unless the call asks for another number, and the most it may ask for. */
export const RECALL_LIMIT_DEFAULT = 6
export const RECALL_LIMIT_MAX = 20
/** The excerpts' text in all, in UTF-8 bytes: an answer that fits beside the work in the context. */
export const RECALL_BUDGET_BYTES = 8_192 // 8 KiB
/**
 * Bytes per `$.fs.read` of the transcript (the engine caps one at 4 MiB). Measured on 2.1.328, 200 MB
 * read in order: 1 MiB ranges beat 4 MiB ones (a 4 MiB answer cost up to twice as much per byte) and
 * 64 KiB ones (the per-call cost dominates); two reads in flight were slower than one (NOTES.md).
 */
export const RECALL_CHUNK_BYTES = 1_048_576 // 1 MiB
/** Words too common to find anything by: a query of these alone is refused; mixed in, they are dropped. */
export const STOP_WORDS = new Set('a an and are as at be but by did do does for from had has have he her his how i if in into is it its me my no not of on or our she so than that the their them then there these they this to too was we were what when where which who why will with would you your'.split(' '))
