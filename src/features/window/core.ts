// The window feature's pure core (spec part A): parse the project's settings file, and decide what
// sync, reset, disable and enable do to it. Each decision returns its result and, when the file must
// change, the whole new text; index.ts does the reading and writing.
import { isRecord, isString } from '../../lib/shape.ts'
import { MAX_WINDOW_TOKENS, MIN_WINDOW_TOKENS, OPTOUT_KEY, OPTOUT_VALUE, WINDOW_KEY, WRITTEN_KEY } from './constants.ts'

type JsonObject = Record<string, unknown>

/** The settings file as read: absent (reads as `{}`), not safely editable, or an object. */
export type SettingsFile =
  | { readonly kind: 'missing' }
  | { readonly kind: 'unreadable'; readonly why: string }
  | { readonly kind: 'object'; readonly root: JsonObject; readonly env: JsonObject }

/** Where the file lives, and whether the project root is the home folder (then sync and disable refuse). */
export type WindowLocation = { readonly settingsPath: string; readonly projectIsHome: boolean }

export type SkipReason = 'opted-out' | 'unreadable-settings' | 'not-owned' | 'unsafe-project-root' | 'out-of-band'

export type SyncResult = {
  readonly settingsPath: string
  readonly action: 'written' | 'unchanged' | 'skipped'
  readonly reason?: SkipReason
  /** Why the file could not be edited, for `unreadable-settings`. */
  readonly why?: string
  /** The file's parsed value after the call: what the harness carries next. */
  readonly tokens: number | null
  /** The file's parsed value before the call (null: absent, unparseable or not read). */
  readonly previousTokens: number | null
  /** The window asked for (the option). */
  readonly requestedTokens: number
  /** The file's raw value before the call; undefined when absent. */
  readonly previousRawValue: unknown
  /** After the call, the file's value is this feature's own (the marker matches it). */
  readonly owned: boolean
  /**
   * Set when the value set outside this feature is not in the file but in the running process's
   * environment (the shell, another settings file); the value fields then describe that value.
   */
  readonly pinnedIn?: 'running-env'
}

export type Decision<R> = { readonly result: R; readonly write?: string }

export type ResetResult = {
  readonly settingsPath: string
  readonly action: 'removed' | 'absent' | 'unreadable-settings'
  readonly previousTokens: number | null
  /** Whether this call turned sync off (a row added). */
  readonly optedOut: boolean
  readonly why?: string
}

export type DisableResult = {
  readonly settingsPath: string
  readonly action: 'disabled' | 'already-opted-out' | 'unreadable-settings' | 'refused-unsafe-project-root'
  /** The window key's value, left as it was. */
  readonly fileRaw: unknown
  readonly why?: string
}

export type EnableResult = {
  readonly settingsPath: string
  readonly action: 'reenabled' | 'absent' | 'unreadable-settings'
  readonly why?: string
}

export type WindowRead = {
  /** The value in force in the running session: the process environment first, then the file. */
  readonly tokens: number | null
  readonly raw: unknown
  readonly source: 'process-env' | 'settings-file' | null
  readonly fileTokens: number | null
  readonly fileRaw: unknown
  readonly optedOut: boolean
  readonly owned: boolean
}

export function isWindowInBand(tokens: number | null): boolean {
  return tokens !== null && Number.isInteger(tokens) && tokens >= MIN_WINDOW_TOKENS && tokens <= MAX_WINDOW_TOKENS
}

/** A positive whole token count, as a number or a plain digit string (the harness takes no `850k`). */
export function parseWindowTokens(raw: unknown): number | null {
  if (typeof raw === 'number') return Number.isInteger(raw) && raw > 0 ? raw : null
  // Digits only, white space around them allowed.
  const n = isString(raw) && /^[ \t\r\n]*[0-9]+[ \t\r\n]*$/.test(raw) ? Number(raw) : 0
  return n > 0 && Number.isSafeInteger(n) ? n : null
}

/** The file's text (undefined when there is no file) as this feature may edit it. */
export function parseSettings(text: string | undefined): SettingsFile {
  if (text === undefined) return { kind: 'missing' }
  let root: unknown
  try {
    root = JSON.parse(text)
  } catch {
    return { kind: 'unreadable', why: 'not valid JSON' }
  }
  if (!isRecord(root)) return { kind: 'unreadable', why: 'not a JSON object' }
  const env = root.env === undefined ? {} : root.env
  return isRecord(env) ? { kind: 'object', root, env } : { kind: 'unreadable', why: 'its "env" is not an object' }
}

function envOf(file: SettingsFile | undefined): JsonObject {
  return file?.kind === 'object' ? file.env : {}
}

/**
 * The file with some `env` rows set or (undefined) removed, every other key kept in place and order.
 * Values in `env` are strings: the block is the process environment.
 */
export function withEnvRows(file: SettingsFile, rows: Readonly<Record<string, string | undefined>>): string {
  // A row set to undefined keeps its place in the object and is left out of the JSON: removed.
  const root = { ...(file.kind === 'object' && file.root), env: { ...envOf(file), ...rows } }
  return JSON.stringify(root, null, 2) + '\n'
}

/** Whether the file's value is this feature's own: the marker names the same number. */
function isOwned(env: JsonObject): boolean {
  const value = parseWindowTokens(env[WINDOW_KEY])
  return value !== null && parseWindowTokens(env[WRITTEN_KEY]) === value
}

/** What is in force now (the process environment, then the file) and what the file holds. */
export function readWindow(file: SettingsFile, processValue: string | undefined): WindowRead {
  const env = envOf(file)
  const fileRaw = env[WINDOW_KEY]
  const fileTokens = parseWindowTokens(fileRaw)
  const fromEnv = !!processValue
  const source = fromEnv ? 'process-env' : fileRaw !== undefined ? 'settings-file' : null
  const raw = fromEnv ? processValue : fileRaw
  return {
    tokens: parseWindowTokens(raw),
    raw,
    source,
    fileTokens,
    fileRaw,
    optedOut: env[OPTOUT_KEY] === OPTOUT_VALUE,
    // Decided from the file, never from the process copy: a running session keeps its start-up value.
    owned: isOwned(env),
  }
}

/**
 * Sync: make the file carry `tokens` as the harness's window, with the marker, unless the person
 * opted out or pinned another value, in the file or, where the file has none, in the value the
 * running process holds (`running`). The order: the file's state (none is read at the home
 * folder: the guard comes before any file access), then the number; an equal value is `unchanged`
 * whoever set it.
 */
export function decideSync(location: WindowLocation, file: SettingsFile | undefined, tokens: number, running?: string): Decision<SyncResult> {
  const base = { settingsPath: location.settingsPath, requestedTokens: tokens }
  // A file not read (the home folder) or not safely editable holds no value this feature knows of.
  const env = envOf(file)
  const previousRawValue = env[WINDOW_KEY]
  const previousTokens = parseWindowTokens(previousRawValue)
  const owned = isOwned(env)
  /** The decision: the file's value as it stands, unless `over` says otherwise. */
  const as = (action: SyncResult['action'], reason?: SkipReason, over?: Partial<SyncResult>): Decision<SyncResult> =>
    ({ result: { ...base, action, ...(reason && { reason }), tokens: previousTokens, previousTokens, previousRawValue, owned, ...over } })
  if (file?.kind === 'unreadable') return as('skipped', 'unreadable-settings', { why: file.why })
  if (location.projectIsHome || !file) return as('skipped', 'unsafe-project-root')
  if (env[OPTOUT_KEY] === OPTOUT_VALUE) return as('skipped', 'opted-out')
  if (!isWindowInBand(tokens)) return as('skipped', 'out-of-band')
  if (previousTokens === tokens) return as('unchanged')
  if (previousRawValue !== undefined && !owned) return as('skipped', 'not-owned')
  const runningTokens = parseWindowTokens(running)
  // The file has no value, but the process runs with another one: set outside this feature (the
  // marker names this feature's own, still running after its row left the file), so it is a pin
  // too. A running value equal to the one asked for is no pin: nothing to protect or write over
  // (a `claude` started from a Bash tool inherits the session's own value with its environment).
  if (previousRawValue === undefined && running && runningTokens !== tokens && (runningTokens === null || runningTokens !== parseWindowTokens(env[WRITTEN_KEY]))) {
    return as('skipped', 'not-owned', { tokens: runningTokens, previousTokens: runningTokens, previousRawValue: running, owned: false, pinnedIn: 'running-env' })
  }
  const value = String(tokens)
  return { ...as('written', undefined, { tokens, owned: true }), write: withEnvRows(file, { [WINDOW_KEY]: value, [WRITTEN_KEY]: value }) }
}

/**
 * Reset, the rollback: remove the window key (whoever wrote it: a release before the marker wrote
 * none) and turn sync off, in one write. Allowed at the home folder: removing is the way out.
 */
export function decideReset(settingsPath: string, file: SettingsFile): Decision<ResetResult> {
  if (file.kind === 'unreadable') return { result: { settingsPath, action: 'unreadable-settings', previousTokens: null, optedOut: false, why: file.why } }
  const env = envOf(file)
  const raw = env[WINDOW_KEY]
  const wasOff = env[OPTOUT_KEY] === OPTOUT_VALUE
  // A file with nothing of this feature's stays as it is: reset only undoes.
  const writes = raw !== undefined || (!wasOff && (env[WRITTEN_KEY] !== undefined || env[OPTOUT_KEY] !== undefined))
  const result: ResetResult = { settingsPath, action: raw === undefined ? 'absent' : 'removed', previousTokens: parseWindowTokens(raw), optedOut: writes && !wasOff }
  return writes ? { result, write: withEnvRows(file, { [WINDOW_KEY]: undefined, [WRITTEN_KEY]: undefined, [OPTOUT_KEY]: OPTOUT_VALUE }) } : { result }
}

/** Disable: record the opt-out, touching nothing else and claiming nothing (no marker). */
export function decideDisable(location: WindowLocation, file: SettingsFile | undefined): Decision<DisableResult> {
  const env = envOf(file)
  const as = (action: DisableResult['action']): DisableResult => ({ settingsPath: location.settingsPath, action, fileRaw: env[WINDOW_KEY] })
  if (location.projectIsHome || !file) return { result: as('refused-unsafe-project-root') }
  if (file.kind === 'unreadable') return { result: { ...as('unreadable-settings'), why: file.why } }
  if (env[OPTOUT_KEY] === OPTOUT_VALUE) return { result: as('already-opted-out') }
  return { result: as('disabled'), write: withEnvRows(file, { [OPTOUT_KEY]: OPTOUT_VALUE }) }
}

/** Enable: remove the opt-out row only; the key and the marker stay as they are. */
export function decideEnable(settingsPath: string, file: SettingsFile): Decision<EnableResult> {
  if (file.kind === 'unreadable') return { result: { settingsPath, action: 'unreadable-settings', why: file.why } }
  if (envOf(file)[OPTOUT_KEY] === undefined) return { result: { settingsPath, action: 'absent' } }
  return { result: { settingsPath, action: 'reenabled' }, write: withEnvRows(file, { [OPTOUT_KEY]: undefined }) }
}

/** Path spelling folded for comparison: one separator, none trailing, any case on Windows. */
function normalPath(path: string): string {
  const unified = path.replace(/\\/g, '/').replace(/\/+/g, '/')
  const trimmed = unified.length > 1 ? unified.replace(/\/+$/, '') : unified
  return /^[A-Za-z]:/.test(trimmed) ? trimmed.toLowerCase() : trimmed
}

/**
 * Whether the project root is the home folder itself (not a folder beneath it): then the settings
 * file would be the person's own, shared by every project. Real paths, when known, settle links.
 */
export function isHomeRoot(root: string, home: string | undefined, real: { root?: string; home?: string } = {}): boolean {
  const same = (a?: string, b?: string) => a !== undefined && b !== undefined && normalPath(a) === normalPath(b)
  return !!home && (same(root, home) || same(real.root, real.home))
}
