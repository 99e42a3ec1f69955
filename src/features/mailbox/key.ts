// A session's mailbox key: which texts may be one, the folder it names in the spool, and how a
// session settles its own key at start (design §3.1 "The key", NOTES §1).
//
// The allowed form: a string, trimmed, of 1-64 characters, with no control character (C0, DEL, C1,
// the line and paragraph separators: a key sits on one header line), no `/` or `\`, no `..`, and a
// folder name (below) of at most 255 bytes. Anything else a session name may hold is allowed.
import { isRecord, isString } from '../../lib/shape.ts'
import { FOLDER_NAME_MAX, KEY_MAX_CHARS, KEY_STORE_PREFIX, KEY_STORE_TTL_MS, MINTED_SUFFIX_CHARS, SLUG_FALLBACK, SLUG_MAX_CHARS, type Naming } from './constants.ts'
import { randomBase32 } from './ids.ts'
import { KEY_WHY, NO_KEY_WHY } from './strings.ts'

export type KeyCheck = { ok: true; key: string } | { ok: false; why: string }

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/

/** What a trimmed text must not be, in order: the first that holds is why it is no key. */
const NOT_A_KEY: readonly (readonly [keyof typeof KEY_WHY, (key: string) => boolean])[] = [
  ['empty', (key) => !keyIdOf(key)],
  ['control', (key) => CONTROL.test(key)],
  ['path', (key) => /[/\\]/.test(key)],
  ['dots', (key) => key.includes('..')],
  ['long', (key) => [...key].length > KEY_MAX_CHARS],
  ['folder', (key) => folderOf(key).length > FOLDER_NAME_MAX],
]

export function checkKey(raw: unknown): KeyCheck {
  if (typeof raw !== 'string') return { ok: false, why: KEY_WHY.notText }
  const key = raw.trim()
  const broken = NOT_A_KEY.find(([, breaks]) => breaks(key))
  return broken ? { ok: false, why: KEY_WHY[broken[0]] } : { ok: true, key }
}

/**
 * A name as the engine tells session names apart (measured, NOTES §9: SendMessage reaches `Release
 * Bot` as `release bot`, `RELEASE  BOT`, `release-bot`, its full-width form and with a zero-width space
 * inside): compatibility forms folded (NFKC), control and format characters that are not white space
 * dropped, case folded, and every run of white space one `-` (the engine's own function, as read). Names alike under it are one session to the engine, so one key.
 * (The engine also reads `<…>` and look-alike brackets as `(…)`; keel does not fold those.)
 */
export const keyIdOf = (name: string) =>
  name.normalize('NFKC').replace(/[\p{Cc}\p{Cf}\p{Cs}]/gu, (c) => (/\s/.test(c) ? c : '')).trim().toLowerCase().replace(/\s+/g, '-')
export const sameKey = (a: string, b: string | undefined) => b !== undefined && keyIdOf(a) === keyIdOf(b)

/**
 * A text as a file name: every UTF-8 byte outside `a-z 0-9 _ -` as `%XX` (upper-case hex).
 * Reversible, ASCII only, never `.` or `..`, and no two texts give names that differ only in case
 * (an upper-case letter is always escaped, and a hex digit always follows `%`): safe on a
 * case-insensitive file system (macOS).
 */
export function escapeName(text: string): string {
  let out = ''
  for (const byte of new TextEncoder().encode(text)) {
    const c = String.fromCharCode(byte)
    out += /[a-z0-9_-]/.test(c) ? c : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/** The key's mailbox folder: its identity, escaped (`keel-B` is `keel-b`, `Release Bot` is `release-bot`). */
export const folderOf = (key: string) => escapeName(keyIdOf(key))

/**
 * The spelling a folder name stands for: the key of a mailbox folder, or (where `folderOf` of it is
 * another name) a spelling a keel before keys were folded filed mail under as it was given. Undefined
 * for a name `escapeName` would not have made.
 */
export function keyOfFolder(name: string): string | undefined {
  if (!/^(?:[a-z0-9_-]|%[0-9A-F]{2})+$/.test(name)) return
  let key: string
  try {
    key = decodeURIComponent(name)
  } catch {
    return // not UTF-8
  }
  return escapeName(key) === name ? key : undefined
}

// ---- Settling the session's own key ----

/** The session's own name and where it came from: the registry record's `nameSource`, or `unknown` (ListAgents gives no source). */
export type OwnName = { name: string; source: 'user' | 'auto' | 'derived' | 'unknown' }

/** `$.store` `mailbox-key:<sessionId>`. */
export type StoredKey = { key: string; at: number }

/** A stored value as a key entry, or undefined when it is not one (a damaged or foreign value is ignored). */
export function storedKeyOf(value: unknown): StoredKey | undefined {
  return isRecord(value) && isString(value.key) && typeof value.at === 'number' && checkKey(value.key).ok ? { key: value.key, at: value.at } : undefined
}

export const keyStoreName = (sessionId: string) => `${KEY_STORE_PREFIX}${sessionId}`

export type KeySource = 'user' | 'auto' | 'stored' | 'minted'

/** The key, or why there is none. The caller stores `{ key, at }` under `keyStoreName(sessionId)` at every settle, so an entry in use is never pruned. */
export type KeyPlan =
  | {
    key: string
    source: KeySource
    /** Apply with `$.command.run({ command: 'rename', args })` from a timer (the engine then records it as `user`). */
    rename?: string
  }
  | { key?: undefined; why: string }

export type SettleInput = {
  /** From `<config root>/sessions/<CLAUDE_PID>.json` first, else ListAgents' first line; undefined when neither was read. */
  own: OwnName | undefined
  /** `$.store.get(keyStoreName(sessionId))`. */
  stored: unknown
  naming: Naming
  /** Nobody watches the session (`-p`, the SDK): keel renames only a watched one, since a plugin's /rename answers into a headless run's output. */
  headless?: boolean
  /** The session's working folder: a derived name is made from its basename, and so is a minted key. */
  cwd: string
  /** For minting: at least 4 random bytes. */
  randomBytes: (length: number) => Uint8Array
}

const basename = (cwd: string) => cwd.replace(/[\\/]+$/, '').split(/[\\/]/).pop() ?? ''

/** The engine derives `<cwd basename, lowercased>-<2 hex>` and changes it at every resume (A8, NOTES §1). */
export function looksDerived(name: string, cwd: string): boolean {
  const base = basename(cwd).toLowerCase()
  return base !== '' && /^(.+)-[0-9a-f]{2}$/.exec(name)?.[1] === base
}

/** The working folder's basename as a key's first part: lower case, runs of other characters as one `-`, at most 24. */
export function slugOf(cwd: string): string {
  const slug = basename(cwd).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+/, '').slice(0, SLUG_MAX_CHARS).replace(/-+$/, '')
  return slug || SLUG_FALLBACK
}

/** `<dir slug>-<4 base32>`: unlike the engine's derived name, it survives resume once applied by /rename. */
export const mintKey = (cwd: string, randomBytes: (length: number) => Uint8Array) =>
  `${slugOf(cwd)}-${randomBase32(randomBytes, MINTED_SUFFIX_CHARS)}`

/**
 * The key a session takes at start. A name the person gave (`user`) or the engine restored
 * (`auto`) is the key; a derived name is replaced by the key stored for this session id, else by a
 * minted one, unless `mailboxNaming` is off or the session is headless. ListAgents' name has no
 * source: it counts as derived when it has the derived form for this folder, else as given.
 */
export function settleKey(input: SettleInput): KeyPlan {
  const { own } = input
  if (!own) return { why: NO_KEY_WHY.unknown }
  const source = own.source === 'unknown' ? (looksDerived(own.name, input.cwd) ? 'derived' : 'user') : own.source
  if (source !== 'derived') return adopt(own.name, source)
  if (input.naming === 'off') return { why: NO_KEY_WHY.namingOff(own.name) }
  if (input.headless) return { why: NO_KEY_WHY.headless(own.name) }
  const stored = storedKeyOf(input.stored)?.key
  if (stored !== undefined) return { key: stored, source: 'stored', ...(stored !== own.name && { rename: stored }) }
  const minted = mintKey(input.cwd, input.randomBytes)
  return { key: minted, source: 'minted', rename: minted }
}

function adopt(name: string, source: 'user' | 'auto'): KeyPlan {
  const checked = checkKey(name)
  return checked.ok ? { key: checked.key, source } : { why: NO_KEY_WHY.invalid(name, checked.why) }
}

/**
 * The person renamed the session (`/rename K2`, heard at `command.run` after `next`): K2 becomes the
 * key (adoption; the caller then scans K2's mailbox). A name that cannot be a key leaves the session
 * with none: the key follows the name, or another session could take the old name and its mail.
 */
export const adoptRename = (name: string): KeyPlan => adopt(name, 'user')

/** The name a `/rename` answered with (`Session renamed to: K`, measured, A10), or undefined when it did not apply. */
export function renamedTo(answer: unknown): string | undefined {
  const text = (answer as { text?: unknown } | undefined)?.text
  return isString(text) ? /^Session renamed to: (.+)$/m.exec(text.trim())?.[1]?.trim() : undefined
}

/** A key entry (`mailbox-key:…`) to delete: not a key entry any more, or not refreshed for 30 days. */
export function isStaleKeyEntry(value: unknown, now: number): boolean {
  const stored = storedKeyOf(value)
  return !stored || now - stored.at > KEY_STORE_TTL_MS
}
