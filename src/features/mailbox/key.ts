// A session's mailbox key: which texts may be one, the folder it names in the spool, and how a
// session settles its own key at start (design §3.1 "The key", NOTES §1).
//
// The allowed form: a string, trimmed, of 1-64 characters, with no control character (C0, DEL, C1,
// the line and paragraph separators: a key sits on one header line), no `/` or `\`, no `..`, and a
// folder name (below) of at most 255 bytes. Anything else a session name may hold is allowed.
import * as v from 'valibot'
import { FOLDER_NAME_MAX, KEY_MAX_CHARS, KEY_STORE_PREFIX, KEY_STORE_TTL_MS, MINTED_SUFFIX_CHARS, SLUG_FALLBACK, SLUG_MAX_CHARS, type Naming } from './constants.ts'
import { randomBase32 } from './ids.ts'
import { KEY_WHY, NO_KEY_WHY } from './strings.ts'

export type KeyCheck = { ok: true; key: string } | { ok: false; why: string }

const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/

export function checkKey(raw: unknown): KeyCheck {
  if (typeof raw !== 'string') return { ok: false, why: KEY_WHY.notText }
  const key = raw.trim()
  if (!keyIdOf(key)) return { ok: false, why: KEY_WHY.empty }
  if (CONTROL.test(key)) return { ok: false, why: KEY_WHY.control }
  if (/[/\\]/.test(key)) return { ok: false, why: KEY_WHY.path }
  if (key.includes('..')) return { ok: false, why: KEY_WHY.dots }
  if ([...key].length > KEY_MAX_CHARS) return { ok: false, why: KEY_WHY.long }
  if (folderOf(key).length > FOLDER_NAME_MAX) return { ok: false, why: KEY_WHY.folder }
  return { ok: true, key }
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
  if (!/^(?:[a-z0-9_-]|%[0-9A-F]{2})+$/.test(name)) return undefined
  let key: string
  try {
    key = decodeURIComponent(name)
  } catch {
    return undefined // not UTF-8
  }
  return escapeName(key) === name ? key : undefined
}

// ---- Settling the session's own key ----

/** The session's own name and where it came from: the registry record's `nameSource`, or `unknown` (ListAgents gives no source). */
export type OwnName = { name: string; source: 'user' | 'auto' | 'derived' | 'unknown' }

/** `$.store` `mailbox-key:<sessionId>`. */
export type StoredKey = { key: string; at: number }
const StoredKeySchema = v.object({ key: v.string(), at: v.number() })

/** A stored value as a key entry, or undefined when it is not one (a damaged or foreign value is ignored). */
export function storedKeyOf(value: unknown): StoredKey | undefined {
  const parsed = v.safeParse(StoredKeySchema, value)
  return parsed.success && checkKey(parsed.output.key).ok ? { key: parsed.output.key, at: parsed.output.at } : undefined
}

export const keyStoreName = (sessionId: string) => `${KEY_STORE_PREFIX}${sessionId}`

export type KeySource = 'user' | 'auto' | 'stored' | 'minted'
export type StoreWrite = { name: string; value: StoredKey }

export type KeyPlan =
  | {
    key: string
    source: KeySource
    /** Apply with `$.command.run({ command: 'rename', args })` from a timer (the engine then records it as `user`). */
    rename?: string
    /** Refreshes `at`, so an entry in use is never pruned. */
    store: StoreWrite
  }
  | { key?: undefined; why: string }

export type SettleInput = {
  sessionId: string
  /** From `<config root>/sessions/<CLAUDE_PID>.json` first, else ListAgents' first line; undefined when neither was read. */
  own: OwnName | undefined
  /** `$.store.get(keyStoreName(sessionId))`. */
  stored: unknown
  naming: Naming
  /** The session's working folder: a derived name is made from its basename, and so is a minted key. */
  cwd: string
  now: number
  /** For minting: at least `bytesFor(4)` = 3 random bytes. */
  randomBytes: (length: number) => Uint8Array
}

const basename = (cwd: string) => cwd.replace(/[\\/]+$/, '').split(/[\\/]/).pop() ?? ''

/** The engine derives `<cwd basename, lowercased>-<2 hex>` and changes it at every resume (A8, NOTES §1). */
export function looksDerived(name: string, cwd: string): boolean {
  const base = basename(cwd).toLowerCase()
  return base !== '' && name.length === base.length + 3 && name.startsWith(`${base}-`) && /^[0-9a-f]{2}$/.test(name.slice(-2))
}

/** The working folder's basename as a key's first part: lower case, runs of other characters as one `-`, at most 24. */
export function slugOf(cwd: string): string {
  const slug = basename(cwd).toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+/, '').slice(0, SLUG_MAX_CHARS).replace(/-+$/, '')
  return slug || SLUG_FALLBACK
}

/** `<dir slug>-<4 base32>`: unlike the engine's derived name, it survives resume once applied by /rename. */
export const mintKey = (cwd: string, randomBytes: (length: number) => Uint8Array) =>
  `${slugOf(cwd)}-${randomBase32(randomBytes, MINTED_SUFFIX_CHARS)}`

const entry = (sessionId: string, key: string, now: number): StoreWrite => ({ name: keyStoreName(sessionId), value: { key, at: now } })

/**
 * The key a session takes at start. A name the person gave (`user`) or the engine restored
 * (`auto`) is the key; a derived name is replaced by the key stored for this session id, else by a
 * minted one, unless `mailboxNaming` is off. ListAgents' name has no source: it counts as derived
 * when it has the derived form for this folder, else as given.
 */
export function settleKey(input: SettleInput): KeyPlan {
  const { own, sessionId, now } = input
  if (!own) return { why: NO_KEY_WHY.unknown }
  const source = own.source === 'unknown' ? (looksDerived(own.name, input.cwd) ? 'derived' : 'user') : own.source
  if (source !== 'derived') return adopt(own.name, source, sessionId, now)
  if (input.naming === 'off') return { why: NO_KEY_WHY.namingOff(own.name) }
  const stored = storedKeyOf(input.stored)
  if (stored) return { key: stored.key, source: 'stored', ...(stored.key === own.name ? {} : { rename: stored.key }), store: entry(sessionId, stored.key, now) }
  const minted = mintKey(input.cwd, input.randomBytes)
  return { key: minted, source: 'minted', rename: minted, store: entry(sessionId, minted, now) }
}

function adopt(name: string, source: 'user' | 'auto', sessionId: string, now: number): KeyPlan {
  const checked = checkKey(name)
  if (!checked.ok) return { why: NO_KEY_WHY.invalid(name, checked.why) }
  return { key: checked.key, source, store: entry(sessionId, checked.key, now) }
}

/**
 * The person renamed the session (`/rename K2`, heard at `command.run` after `next`): K2 becomes the
 * key (adoption; the caller then scans K2's mailbox). A name that cannot be a key leaves the session
 * with none: the key follows the name, or another session could take the old name and its mail.
 */
export const adoptRename = (name: string, sessionId: string, now: number): KeyPlan => adopt(name, 'user', sessionId, now)

/** `/clear` keeps the process and its name but changes the session id: the key entry follows it. */
export const carryAcrossClear = (key: string, newSessionId: string, now: number): StoreWrite => entry(newSessionId, key, now)

/** The engine's answer to a rename that applied (A10). */
export const renameApplied = (answer: unknown, key: string) =>
  typeof (answer as { text?: unknown } | undefined)?.text === 'string' && (answer as { text: string }).text.trim() === `Session renamed to: ${key}`

/** The key entries to delete: not a key entry any more, or not refreshed for 30 days. */
export function staleKeyEntries(entries: readonly (readonly [string, unknown])[], now: number): string[] {
  return entries
    .filter(([name, value]) => {
      if (!name.startsWith(KEY_STORE_PREFIX)) return false
      const stored = storedKeyOf(value)
      return !stored || now - stored.at > KEY_STORE_TTL_MS
    })
    .map(([name]) => name)
}
