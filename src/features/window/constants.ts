// The window feature's constants: the keys it owns in the project's settings file, and the band.

/** The harness's own override of its compaction window, in the settings file's `env` block. */
export const WINDOW_KEY = 'CLAUDE_CODE_AUTO_COMPACT_WINDOW'

/**
 * The provenance marker: the window value this feature itself last wrote, always written in the same
 * write as the value. keel's own name, not peaks-loop's: two tools that each took the other's marker
 * for their own would rewrite each other's value on every start.
 */
export const WRITTEN_KEY = 'KEEL_AUTO_COMPACT_WINDOW_WRITTEN'

/** The opt-out row, beside the key where the person sees it; only `off` disables sync. */
export const OPTOUT_KEY = 'KEEL_AUTO_COMPACT_WINDOW_SYNC'
export const OPTOUT_VALUE = 'off'

/** The harness documents the key as "in tokens from 100000 to 1000000"; outside it, it compacts on another number. */
export const MIN_WINDOW_TOKENS = 100_000
export const MAX_WINDOW_TOKENS = 1_000_000

/** The machine-local settings file, under the project root. */
export const SETTINGS_RELATIVE_PATH = '.claude/settings.local.json'

/** The option that sets the window; 0 leaves the harness's window alone. */
export const WINDOW_OPTION = 'compactWindowTokens'
