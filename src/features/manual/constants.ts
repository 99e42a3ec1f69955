// The manual feature's constants, one home each (design mailbox-and-manual.md §3.2, wsflow §5.3).

/** The section's id is `<pkg>:workflow-manual`: a plugin's own section is `<plugin>:<name>`. */
export const SECTION_NAME = 'workflow-manual'
export const sectionIdOf = (pkg: string) => `${pkg}:${SECTION_NAME}`

/** The option naming the manual, relative to the project root, and its default. */
export const MANUAL_FILE_OPTION = 'manualFile'
export const DEFAULT_MANUAL_FILE = 'ai-docs/WORKFLOW.md'

/**
 * The most bytes (UTF-8) of manual the system prompt carries: 64 KiB, about 16k tokens, paid on
 * every request of the conversation (design §6 item 9). A larger manual is not cut (a cut manual
 * reads as whole and misleads); the section names the file and says it is too large to carry.
 */
export const MANUAL_CAP_BYTES = 64 * 1024

/**
 * How long the first compose after a reset waits for the manual (wsflow §5.3): half the engine's
 * 10 s hook budget, so the hook always answers itself and the snapshot is never filled by a read
 * the engine did not wait for.
 */
export const COMPOSE_WAIT_MS = 5000

/** `$.store` key of the record of what a session's system prompt carries: `{ hash, at, reason, bytes }`. */
export const SNAPSHOT_STORE_PREFIX = 'manual-snapshot:'
export const snapshotKeyOf = (sessionId: string) => SNAPSHOT_STORE_PREFIX + sessionId

/**
 * A record older than this is pruned at a session start (the spec's 30-day key retention, wsflow
 * §5.3): a session resumed after that reads as unknown, which only costs whole reads until a refresh.
 */
export const SNAPSHOT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000

/** The compaction triggers that refresh the main prompt once they land (design C3): not `precompute`. */
export const REFRESHING_TRIGGERS: readonly string[] = ['manual', 'auto', 'plugin']

/** The `session.end` reason of a `/clear`: the conversation starts over under a new session id. */
export const CLEAR_REASON = 'clear'

/** A render that measures the prompt (`/context`) and sends nothing: it never takes the snapshot. */
export const ANALYSIS_TRAIT = 'analysis'
/** An in-process teammate's render of its lead's prompt: not the main conversation's, left as built. */
export const TEAMMATE_TRAIT = 'teammate'

/** The saved-tokens estimate: characters over four (the rule of thumb). */
export const CHARS_PER_TOKEN = 4

/** The Read tool's name, as `tool.call` and the transcript name it. */
export const READ_TOOL = 'Read'
