// The sender's outbox: the mail this session sent, so its status can say what still waits for its
// recipient and what the retention period dropped untaken. `$.store` `mailbox-outbox:<sessionId>`
// holds the records; each mail's state is read from the recipient's folder, never stored.
import { isRecord, isString } from '../../lib/shape.ts'
import { DROPPED_KEPT_FACTOR, KEY_STORE_TTL_MS, OUTBOX_MAX_RECORDS, OUTBOX_STORE_PREFIX } from './constants.ts'
import { MAIL_ID_PATTERN } from './ids.ts'
import { stateOf, type Listing, type MailState } from './spool.ts'

export type OutboxRecord = { id: string; to: string; sentAt: number }

export const outboxStoreName = (sessionId: string) => `${OUTBOX_STORE_PREFIX}${sessionId}`

/** The stored records; a damaged entry is skipped, a damaged value reads as empty. */
export function parseOutbox(value: unknown): OutboxRecord[] {
  if (!Array.isArray(value)) return []
  return value.flatMap((r) =>
    isRecord(r) && isString(r.id) && MAIL_ID_PATTERN.test(r.id) && isString(r.to) && typeof r.sentAt === 'number' ? [{ id: r.id, to: r.to, sentAt: r.sentAt }] : [])
}

/** One more record; the oldest go past the cap. */
export const addToOutbox = (records: readonly OutboxRecord[], record: OutboxRecord) => [...records, record].slice(-OUTBOX_MAX_RECORDS)

/**
 * `waiting` (not yet taken, or taken and not yet stored), `delivered`, `dropped` (never taken within
 * the retention period), `aside` (its recipient found it corrupt), `missing` (gone before its time:
 * removed by hand), `gone` (gone after the retention period: a delivered mail's clean-up).
 */
export type SentState = 'waiting' | 'delivered' | 'dropped' | 'aside' | 'missing' | 'gone'

/** A record's state from its recipient folder's listing (undefined: the folder is not there). */
export function sentStateOf(record: OutboxRecord, listing: Listing | undefined, now: number, retentionMs: number): SentState {
  const files = listing?.mails.find((f) => f.id === record.id)
  if (!files) return now - record.sentAt > retentionMs ? 'gone' : 'missing'
  return SENT_STATE[stateOf(files)] ?? 'waiting'
}

/** A mail's state in its recipient's folder as its sender reads it; any other is still waiting. */
const SENT_STATE: Partial<Record<MailState, SentState>> = { done: 'delivered', dropped: 'dropped', corrupt: 'aside' }

export type SettledOutbox = {
  /** What to store back: only what still waits. A drop, an aside or a missing mail is reported once. */
  keep: OutboxRecord[]
  /** Waiting mail per recipient key, in first-sent order. */
  waiting: [string, number][]
  dropped: OutboxRecord[]
  aside: OutboxRecord[]
  missing: OutboxRecord[]
}

export function settleOutbox(records: readonly OutboxRecord[], state: (r: OutboxRecord) => SentState): SettledOutbox {
  const states = records.map(state)
  const those = (wanted: SentState) => records.filter((_, i) => states[i] === wanted)
  const keep = those('waiting')
  const byKey = new Map<string, number>()
  for (const r of keep) byKey.set(r.to, (byKey.get(r.to) ?? 0) + 1)
  return { keep, waiting: [...byKey], dropped: those('dropped'), aside: those('aside'), missing: those('missing') }
}

/** An outbox entry (`mailbox-outbox:…`) to delete: damaged, empty, or with nothing sent for longer than a dropped mail is kept, and 30 days. */
export function isStaleOutbox(value: unknown, now: number, retentionMs: number): boolean {
  const records = parseOutbox(value)
  return records.length === 0 || now - Math.max(...records.map((r) => r.sentAt)) > Math.max(KEY_STORE_TTL_MS, DROPPED_KEPT_FACTOR * retentionMs)
}
