// Every sentence the window feature shows: one wording per outcome (spec A.3.9), so no call site
// composes its own. `who` is the package name, `cmd` its window verb (`/ws window`).
import { MAX_WINDOW_TOKENS, MIN_WINDOW_TOKENS, OPTOUT_KEY, OPTOUT_VALUE, WINDOW_KEY, WINDOW_OPTION } from './constants.ts'
import type { DisableResult, EnableResult, ResetResult, SyncResult, WindowRead } from './core.ts'
import { isString } from '../../lib/shape.ts'

export type Names = { readonly who: string; readonly cmd: string }

const BAND = `${MIN_WINDOW_TOKENS}..${MAX_WINDOW_TOKENS}`
/** The opt-out row, as the file holds it. */
const OPTOUT_ROW = `${OPTOUT_KEY}=${OPTOUT_VALUE}`

export const VERB_USAGE = 'window status|reset|disable|enable'
export const UNKNOWN_SUBVERB = (cmd: string, given: string) => `${cmd}: unknown action "${given}". Usage: ${cmd} status|reset|disable|enable`
export const NOT_MANAGED = (names: Names) => `Harness auto-compact window: not managed (${WINDOW_OPTION} is 0); ${names.who} leaves ${WINDOW_KEY} alone.`
export const SYNC_NOT_RUN = 'Harness window sync did not run in this session.'
/** A write the safe writer did not make (lib/safe-write.ts says why): the file is as it was. */
export const NOT_WRITTEN = (reason: string) => `Harness window not written: ${reason}. The file is as it was.`
/** Where a pin lives when the file has none: the running process's environment. */
export const RUNNING_ENV = `the running session's environment (from your shell or another settings file)`
/** After a reset: the harness keeps a variable whose row left the file, so the feature says what runs now. */
export const RESET_ENV_CLEARED = `The running session compacts on the model's own window again.`
export const RESET_ENV_KEPT = (raw: string) => `The running session keeps ${WINDOW_KEY}=${raw} (from its environment) until it restarts.`
export const ENV_SET_REFUSED = (deny: string) => `the running session's ${WINDOW_KEY} was not set (${deny}); the harness reads the file when it next loads its settings`

/** A file that is not safely editable: what was not done, where, and why; the file is left as it is. */
const notEditable = (what: string, path: string, names: Names, why: string | undefined) =>
  `${what}: ${path} is not a JSON object ${names.who} can edit safely (${why}); left untouched.`

function valueClause(raw: unknown): string {
  return raw === undefined ? 'unset' : JSON.stringify(raw)
}

/** Where the value set outside lives: the file, or the running process's environment. */
const pinPlace = (result: SyncResult) => (result.pinnedIn === 'running-env' ? RUNNING_ENV : result.settingsPath)

/** Both numbers when the file pins a different one, or the raw value quoted when it is no number at all. */
function conflictClause(result: SyncResult, names: Names): string {
  const raw = result.previousRawValue
  if (raw === undefined) return ''
  if (result.previousTokens === null) return ` ${pinPlace(result)} holds ${WINDOW_KEY}=${JSON.stringify(raw)}, which is not a plain token count, so the harness ignores it; ${names.who} asked for ${result.requestedTokens} and left it untouched.`
  if (result.previousTokens !== result.requestedTokens) return ` ${pinPlace(result)} pins ${WINDOW_KEY}=${result.previousTokens}, while ${names.who} asked for ${result.requestedTokens}; the harness compacts on ${result.previousTokens}.`
  return ''
}

/** How to hand the value over: a file's pin goes with reset; one in the environment is unset where it was set. */
const handOver = (result: SyncResult, names: Names) =>
  result.pinnedIn === 'running-env'
    ? `To let ${names.who} manage it: unset ${WINDOW_KEY} where it is set, then start a new session.`
    : `To let ${names.who} manage it: ${names.cmd} reset, then ${names.cmd} enable.`

/** The one wording of what a sync did (A.3.9); a sentence (NOT_WRITTEN) as it is. */
export function describeSync(result: SyncResult | string | undefined, names: Names): string {
  if (!result) return SYNC_NOT_RUN
  if (isString(result)) return result
  const { settingsPath: p, requestedTokens: n } = result
  switch (result.action) {
    case 'written':
      return `Harness auto-compact window: wrote ${WINDOW_KEY}=${n} to ${p} (was ${result.previousTokens ?? valueClause(result.previousRawValue)}). Undo: ${names.cmd} reset`
    case 'unchanged':
      return result.owned
        ? `Harness auto-compact window: ${WINDOW_KEY}=${n} in ${p} already (managed by ${names.who}).`
        : `Harness auto-compact window: ${WINDOW_KEY}=${n} in ${pinPlace(result)} was set outside ${names.who}; ${names.who} does not manage it.`
    case 'skipped':
      switch (result.reason) {
        case 'not-owned':
          return `Harness window not managed (set outside ${names.who}):${conflictClause(result, names)} ${handOver(result, names)}`
        case 'opted-out':
          return `Harness window sync is off (${OPTOUT_ROW} in ${p}); nothing written.${conflictClause(result, names)} Re-enable: ${names.cmd} enable`
        case 'unsafe-project-root':
          return `Harness window not written: the project root is your home folder, so ${p} would be your personal settings for every project. Start the session in the project's folder.`
        case 'unreadable-settings':
          return notEditable('Harness window not written', p, names, result.why)
        default:
          return `Harness window not written: ${WINDOW_OPTION} ${n} is not a whole number in the harness's accepted ${BAND}; the harness would not compact on it.`
      }
  }
}

/**
 * The same disagreement as one line, or null when there is none: the file compacts on another
 * number than the one asked for, holds an unusable value, or the number is out of band.
 */
export function syncWarning(result: SyncResult | undefined, names: Names): string | null {
  if (!result) return null
  if (result.reason === 'out-of-band') return `harness window: ${WINDOW_OPTION} ${result.requestedTokens} is outside ${BAND}; nothing written`
  // What the harness compacts on instead: a value that is no token count (never this feature's own, so
  // only a skip meets one; left untouched), or another number.
  const raw = result.previousRawValue
  const instead = raw !== undefined && result.previousTokens === null ? `${JSON.stringify(raw)}, not a token count,`
    : result.tokens !== null && result.tokens !== result.requestedTokens ? result.tokens
    : undefined
  return instead === undefined ? null : `harness window disagreement: ${WINDOW_KEY} in ${pinPlace(result)} is ${instead} but ${names.who} asked for ${result.requestedTokens}`
}

/** `window reset`: what was removed, the value before, the file, and how to undo it. */
export function describeReset(result: ResetResult, names: Names): string {
  const p = result.settingsPath
  switch (result.action) {
    case 'removed':
      return `Harness auto-compact window: removed ${WINDOW_KEY} (was ${result.previousTokens ?? 'not a token count'}) from ${p} and turned sync off there (${OPTOUT_ROW}), so it is not written back. Undo: ${names.cmd} enable`
    case 'absent':
      return result.optedOut
        ? `Harness auto-compact window: ${p} holds no ${WINDOW_KEY}; turned sync off there (${OPTOUT_ROW}). Undo: ${names.cmd} enable`
        : `Harness auto-compact window: ${p} holds nothing of ${names.who}'s window sync to remove; nothing written.`
    case 'unreadable-settings':
      return notEditable('Harness window not reset', p, names, result.why)
  }
}

/** `window disable`: the opt-out recorded, the key left as it was. */
export function describeDisable(result: DisableResult, names: Names): string {
  const p = result.settingsPath
  switch (result.action) {
    case 'disabled':
      return `Harness window sync is now off: wrote ${OPTOUT_ROW} to ${p}; ${WINDOW_KEY} left as it was (${valueClause(result.fileRaw)}). Undo: ${names.cmd} enable`
    case 'already-opted-out':
      return `Harness window sync was already off (${OPTOUT_ROW} in ${p}); nothing written. Re-enable: ${names.cmd} enable`
    case 'refused-unsafe-project-root':
      return `Harness window sync not turned off here: the project root is your home folder, so ${p} would be your personal settings, and ${names.who} never writes there anyway; nothing written.`
    case 'unreadable-settings':
      return notEditable('Harness window sync not turned off', p, names, result.why)
  }
}

/** `window enable`: the opt-out removed; what the next sync will do. */
export function describeEnable(result: EnableResult, requested: number, names: Names): string {
  const p = result.settingsPath
  const next = requested === 0 ? `${WINDOW_OPTION} is 0, so nothing is written` : `the next session start writes ${WINDOW_KEY}=${requested} unless a value set outside ${names.who} is there`
  switch (result.action) {
    case 'reenabled':
      return `Harness window sync is on again: removed ${OPTOUT_KEY} from ${p}; ${next}. Undo: ${names.cmd} disable`
    case 'absent':
      return `Harness window sync was not off in ${p}; nothing written.`
    case 'unreadable-settings':
      return notEditable('Harness window sync not re-enabled', p, names, result.why)
  }
}

/** The harness's own window, as its usage breakdown reports it. */
export type HarnessWindow = { readonly rawMaxTokens: number; readonly source: string; readonly autoCompactThreshold?: number; readonly isAutoCompactEnabled: boolean }

/** `window status` and the status lines: the option, the file, the running session, the harness. */
export function describeState(requested: number, read: WindowRead | undefined, settingsPath: string, harness: HarnessWindow | undefined, names: Names): string[] {
  const lines = [`${WINDOW_OPTION}: ${requested}${requested === 0 ? ' (not managed)' : ''}`]
  if (read) {
    const owner = read.fileRaw === undefined ? 'unset' : `${JSON.stringify(read.fileRaw)}, ${read.owned ? 'written by' : 'set outside'} ${names.who}`
    lines.push(
      `${settingsPath}: ${WINDOW_KEY} ${owner}; sync ${read.optedOut ? `off (${OPTOUT_ROW})` : 'on'}`,
      `running session: ${WINDOW_KEY} ${read.source === 'process-env' ? JSON.stringify(read.raw) : 'unset in its environment'}`,
    )
  }
  if (harness) {
    const auto = harness.isAutoCompactEnabled && harness.autoCompactThreshold !== undefined ? `auto-compaction at ${harness.autoCompactThreshold} tokens` : 'auto-compaction off'
    lines.push(`the harness compacts on a window of ${harness.rawMaxTokens} tokens (source: ${harness.source}); ${auto}`)
  }
  return lines
}
