// The spool: one folder a key under `<config root>/keel/mailbox/`, one file a mail, each written
// once and never in place (NOTES §7: a file overwritten in place reads mixed 1-4 % of the time).
//
// The names of one mail `B` = `<sentAt, 13 digits>-<id>`:
//   B.json                        the mail, published by a temporary file renamed into place
//   B.claimed-<owner>-<claimedAt> claimed by the session `owner` (an encoded session id): where the
//                                 host runs commands the mail itself renamed (exactly one claimant
//                                 wins, NOTES §7); elsewhere an empty marker beside B.json
//   B.done                        delivered (the engine stored its row): the claimed file renamed, or a marker
//   B.dropped                     never taken within the retention period (the text kept, for the person)
//   B.corrupt                     set aside: unreadable as a mail (named in status)
// The state of B is the strongest name present: corrupt, done, dropped, claimed, waiting.
import { byteLength } from '../../lib/text.ts'
import { is, isString, parseJson, problemsOf, STRING, type Shape } from '../../lib/shape.ts'
import { TEMP_PATTERN } from '../../lib/safe-write.ts'
import { CLAIM_STALE_MS, DROPPED_KEPT_FACTOR, HALF_WRITTEN_GRACE_MS, MAIL_ID_CHARS, MAIL_TEXT_MAX_BYTES, MAIL_VERSION, SENT_AT_DIGITS, TEMP_STALE_MS } from './constants.ts'
import { MAIL_ID_PATTERN } from './ids.ts'
import { checkKey, escapeName, sameKey } from './key.ts'
import { CORRUPT, MAIL_FIELD } from './strings.ts'

export type Mail = { v: typeof MAIL_VERSION; id: string; from: string; to: string; sentAt: number; text: string }

/** A mail file's JSON: exactly these fields. */
const MAIL_SHAPE: Shape = {
  v: is((n) => n === MAIL_VERSION, MAIL_FIELD.version),
  id: is((id) => isString(id) && MAIL_ID_PATTERN.test(id), MAIL_FIELD.id),
  from: STRING,
  to: STRING,
  sentAt: is((n) => Number.isSafeInteger(n) && n >= 0, MAIL_FIELD.sentAt),
  text: STRING,
}

/** The file's text: one JSON line. */
export const mailFileText = (mail: Mail) => `${JSON.stringify(mail)}\n`

export const baseOf = (sentAt: number, id: string) => `${String(sentAt).padStart(SENT_AT_DIGITS, '0')}-${id}`
export const mailName = (mail: Pick<Mail, 'sentAt' | 'id'>) => `${baseOf(mail.sentAt, mail.id)}.json`
/** The owner part of a claim name: the session id, escaped as a folder name is. */
export const ownerOf = (sessionId: string) => escapeName(sessionId)
export const claimName = (base: string, owner: string, at: number) => `${base}.claimed-${owner}-${at}`
/** `B.json`, `B.done`, `B.dropped` or `B.corrupt`. */
export const fileName = (base: string, kind: 'json' | 'done' | 'dropped' | 'corrupt') => `${base}.${kind}`

export type Name =
  | { base: string; sentAt: number; id: string; kind: 'json' | 'done' | 'dropped' | 'corrupt' }
  | { base: string; sentAt: number; id: string; kind: 'claimed'; owner: string; at: number }

const NAME = new RegExp(`^((\\d{${SENT_AT_DIGITS}})-([a-z2-7]{${MAIL_ID_CHARS}}))\\.(json|done|dropped|corrupt|claimed-([A-Za-z0-9_%-]+)-(\\d+))$`)

export function parseName(name: string): Name | undefined {
  const m = NAME.exec(name)
  if (!m) return
  const common = { base: m[1]!, sentAt: Number(m[2]), id: m[3]! }
  if (m[5] !== undefined) return { ...common, kind: 'claimed', owner: m[5], at: Number(m[6]) }
  return { ...common, kind: m[4] as 'json' | 'done' | 'dropped' | 'corrupt' }
}

/** One row of `$.fs.list`. */
export type ListEntry = { name: string; kind: 'file' | 'dir' | 'other'; size: number; mtimeMs: number; isLink: boolean }

export type Claim = { name: string; owner: string; at: number; size: number; mtimeMs: number }

/** Every name of one mail in a folder. */
export type MailFiles = {
  base: string
  id: string
  sentAt: number
  json?: ListEntry
  /** Oldest first. */
  claims: Claim[]
  done?: string
  dropped?: string
  corrupt?: string
}

export type MailState = 'corrupt' | 'done' | 'dropped' | 'claimed' | 'waiting' | 'empty'

/** `empty`: only claim markers are left, with no text to deliver (cleaned up after the retention period). */
export function stateOf(f: MailFiles): MailState {
  if (f.corrupt) return 'corrupt'
  if (f.done) return 'done'
  if (f.dropped) return 'dropped'
  if (bodyOf(f) === undefined) return 'empty'
  return f.claims.length ? 'claimed' : 'waiting'
}

/** Where the mail's text is: B.json while it is there, else the newest claim that is not an empty marker. */
export const bodyOf = (f: MailFiles): { name: string; size: number; mtimeMs: number } | undefined => f.json ?? f.claims.findLast((c) => c.size > 0)

/** Oldest first by `sentAt`, then by id. */
export const oldestFirst = (a: Pick<Mail, 'sentAt' | 'id'>, b: Pick<Mail, 'sentAt' | 'id'>) => a.sentAt - b.sentAt || (a.id < b.id ? -1 : 1)

export type Listing = {
  /** Oldest first. */
  mails: MailFiles[]
  /** The safe writer's temporary files (a publish in progress, or a crash's leftover). */
  temps: ListEntry[]
  /** Never read: links, folders and stray names, with why. */
  aside: { name: string; why: string }[]
}

/** Sorts a folder's listing into mails, temporary files and what is never read. */
export function readListing(entries: readonly ListEntry[]): Listing {
  const byBase = new Map<string, MailFiles>()
  const temps: ListEntry[] = []
  const aside: { name: string; why: string }[] = []
  for (const e of entries) {
    if (!e.isLink && TEMP_PATTERN.test(e.name)) {
      if (e.kind === 'file') temps.push(e)
      continue
    }
    const n = !e.isLink && e.kind === 'file' ? parseName(e.name) : undefined
    if (!n) {
      aside.push({ name: e.name, why: e.isLink ? CORRUPT.link : CORRUPT.stray })
      continue
    }
    let f = byBase.get(n.base)
    if (!f) byBase.set(n.base, (f = { base: n.base, id: n.id, sentAt: n.sentAt, claims: [] }))
    if (n.kind === 'json') f.json = e
    else if (n.kind === 'claimed') f.claims.push({ ...e, owner: n.owner, at: n.at })
    else f[n.kind] = e.name
  }
  const mails = [...byBase.values()].sort(oldestFirst)
  for (const f of mails) f.claims.sort((a, b) => a.at - b.at)
  return { mails, temps, aside }
}

export type Body = { mail: Mail } | { notYet: true } | { corrupt: string }

/**
 * A spool file's text as a mail. JSON that does not parse is "not yet" (a writer without rename is
 * still at it, B1) until the file is older than the grace period; then it is corrupt. JSON that
 * parses but is not this folder's mail is corrupt at once.
 */
export function parseBody(text: string, at: { key: string; base: string; mtimeMs: number; now: number }): Body {
  const json = parseJson(text)
  if (json === undefined) return at.now - at.mtimeMs > HALF_WRITTEN_GRACE_MS ? { corrupt: CORRUPT.unparsable } : { notYet: true }
  const problem = problemsOf(json, MAIL_SHAPE)[0]
  if (problem !== undefined) return { corrupt: CORRUPT.notMail(problem) }
  const mail = json as Mail
  if (baseOf(mail.sentAt, mail.id) !== at.base) return { corrupt: CORRUPT.misnamed }
  if (!sameKey(mail.to, at.key)) return { corrupt: CORRUPT.misfiled(mail.to, at.key) }
  const from = checkKey(mail.from)
  if (!from.ok || from.key !== mail.from) return { corrupt: CORRUPT.badFrom(from.ok ? 'has spaces around it' : from.why) }
  const bytes = byteLength(mail.text)
  if (bytes > MAIL_TEXT_MAX_BYTES) return { corrupt: CORRUPT.tooLarge(bytes) }
  return { mail }
}

export type Candidate = {
  files: MailFiles
  /** The name to read the text from, and to rename when claiming where the host renames. */
  body: string
  /** Its size (a file larger than any mail is set aside unread) and time (a half-written file turns corrupt with age). */
  size: number
  mtimeMs: number
  /** Claimed before and never marked done: the model may have read it already. */
  redelivered: boolean
}

export type Holdings = {
  /** The owner names of this session: its id now and those it had before a /clear in this load. */
  owners: ReadonlySet<string>
  /** Mail ids this load has delivered, holds claims for, or is taking: never candidates. */
  held: ReadonlySet<string>
  /** Ids this load released at a session end: claimed by it, never shown to a model. */
  released: ReadonlySet<string>
  now: number
}

/**
 * What a scan may take, oldest first: a waiting mail; a mail this session claimed in an earlier
 * life (a crash, a reload, a resume) and never marked done; a mail another session claimed and
 * left for longer than the claim's stale time. A claim of another live session is left alone.
 */
export function candidatesOf(listing: Listing, h: Holdings): Candidate[] {
  const out: Candidate[] = []
  for (const files of listing.mails) {
    const state = stateOf(files)
    if ((state !== 'waiting' && state !== 'claimed') || h.held.has(files.id)) continue
    const { name: body, size, mtimeMs } = bodyOf(files)!
    const last = files.claims.at(-1)
    const ours = last !== undefined && h.owners.has(last.owner)
    if (last && !ours && h.now - last.at <= CLAIM_STALE_MS) continue
    // Claimed before: redelivered, unless this load released it unshown.
    out.push({ files, body, size, mtimeMs, redelivered: last !== undefined && !(ours && h.released.has(files.id)) })
  }
  return out
}

/** Every name a mail has in the folder. */
export const namesOf = (f: MailFiles) => [f.json?.name, ...f.claims.map((c) => c.name), f.done, f.dropped, f.corrupt].filter((n): n is string => n !== undefined)

export type PruneAction =
  | { op: 'remove'; names: string[] }
  /** Never taken within the retention period: the text goes to B.dropped (renamed, or a marker where nothing renames). */
  | { op: 'drop'; files: MailFiles; body: string }

/**
 * Clean-up by age (`sentAt` from the name): a delivered or corrupt mail goes after the retention
 * period, a dropped one after twice that, and a mail nobody took within it is dropped. Where the host
 * runs no commands nothing can be removed, so only drops (markers) are planned. A crashed writer's
 * temporary file goes after its stale time. Mail this load holds, or another session has freshly
 * claimed, is never touched.
 */
export function prunePlan(listing: Listing, p: { now: number; retentionMs: number; commands: boolean; held: ReadonlySet<string> }): PruneAction[] {
  const out: PruneAction[] = []
  if (p.commands) {
    const stale = listing.temps.filter((t) => p.now - t.mtimeMs > TEMP_STALE_MS).map((t) => t.name)
    if (stale.length) out.push({ op: 'remove', names: stale })
  }
  for (const f of listing.mails) {
    const age = p.now - f.sentAt
    if (age <= p.retentionMs || p.held.has(f.id)) continue
    const state = stateOf(f)
    // A fresh claim is a live delivery: dropping the file would pull it from under its holder.
    if (state === 'claimed' && p.now - f.claims.at(-1)!.at <= CLAIM_STALE_MS) continue
    if (state === 'waiting' || state === 'claimed') out.push({ op: 'drop', files: f, body: bodyOf(f)!.name })
    // Done, corrupt or empty: gone after the retention period; dropped, after twice that.
    else if (p.commands && (state !== 'dropped' || age > DROPPED_KEPT_FACTOR * p.retentionMs)) out.push({ op: 'remove', names: namesOf(f) })
  }
  return out
}
