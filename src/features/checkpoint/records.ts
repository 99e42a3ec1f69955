// The session's records: its charter and the mark of use that keeps a live session's notes and
// charter from eviction, in the store (spec B.18.4), written one step at a time, so a touch never
// writes an entry back over one a save just replaced; and why the automatic checkpoint did not run
// (spec B.4.5), one record per change of reason and side of the trigger, in `<session>.skip` beside
// the notes, read back by a process that resumes the session.
import { logFailure, toUndefined } from '../../lib/message.ts'
import { CHARTER_CAP_CHARS, CHARTER_KEY_PREFIX, NOTES_KEY_PREFIX, SESSIONS_KEPT, SKIP_ENDING } from './constants.ts'
import { sideKey, skipKey, type Decision } from './decide.ts'
import { createNotes, staleKeys, type NotesEdges } from './notes.ts'
import { isString } from '../../lib/shape.ts'

export type Charter = { text: string; source: 'verb' | 'first prompt' }

export type SkipRecord = {
  at: string
  reason: Decision['reason']
  tokens: number
  trigger: number
  isInteractive: boolean
  isDesktopStarted: boolean
  surfaces: readonly string[] | null
}

/** What the records need: the notes' edges (the store, the files, the clock) and a debug line. */
export type RecordsEdges = NotesEdges & { log(line: string): void }

/** A stored charter, or null for anything else (none, or not one). */
function charterOf(value: unknown): Charter | null {
  const c = value as Partial<Charter> | null | undefined
  return isString(c?.text) && (c.source === 'verb' || c.source === 'first prompt') ? (c as Charter) : null
}

/** A skip record as `recordSkip` writes it, or null for anything else (none, emptied, torn). */
export function recordOf(text: string | undefined): SkipRecord | null {
  try {
    const r = JSON.parse(text ?? '') as Partial<SkipRecord> | null
    return isString(r?.at) && isString(r.reason) && typeof r.tokens === 'number' && typeof r.trigger === 'number' ? (r as SkipRecord) : null
  } catch {
    return null
  }
}

/**
 * A session's records; the object a session's checkpoint spreads into its own (session.ts): its
 * methods read and write the fields of the object they are called on, and keep the rest here.
 */
export function sessionRecords(sessionId: string) {
  /** The charter as last written or read here; undefined until known. */
  let charterKnown: Charter | null | undefined
  /** The session's store entries (notes pointer, charter), rewritten one step at a time. */
  let storeWork: Promise<unknown> = Promise.resolve()
  return {
    sessionId,
    /** Whether `touch` ran for this session: its start and its first turn both touch, once. */
    isTouched: false,
    /** The key of the skip record in force: a new one is written only when it changes. */
    lastSkip: null as string | null,
    /** The last skip record written, kept for the status after `lastSkip` clears. */
    lastRecorded: null as { key: string; at: string } | null,

    async charter(io: RecordsEdges): Promise<Charter | null> {
      if (charterKnown === undefined) charterKnown = charterOf(await io.storeGet(CHARTER_KEY_PREFIX + sessionId))
      return charterKnown
    },

    async setCharter(io: RecordsEdges, text: string, source: Charter['source']): Promise<Charter> {
      const charter: Charter = { text: text.slice(0, CHARTER_CAP_CHARS), source }
      // Stored with the time it was set: eviction keeps the charters used last.
      await this.serial(async () => {
        await io.storeSet(CHARTER_KEY_PREFIX + sessionId, { ...charter, savedAt: await io.now() })
        charterKnown = charter
      })
      for (const key of await staleKeys(io, CHARTER_KEY_PREFIX, SESSIONS_KEPT, sessionId)) await io.storeDelete(key)
      return charter
    },

    /**
     * The session is in use (it starts, its first turn runs, it is steered): its notes pointer and
     * charter are stamped now, so eviction goes by last use, not last save, and a live session that
     * has not saved lately (in another process, or after a long pause) keeps them. Fails open.
     */
    async touch(io: RecordsEdges): Promise<void> {
      this.isTouched = true
      await this.serial(async () => {
        const now = await io.now()
        // The committed notes' pointer, its `savedAt` alone changed; nothing when none are.
        const pointer = await createNotes(io).pointer(sessionId)
        if (pointer) await io.storeSet(NOTES_KEY_PREFIX + sessionId, { ...pointer, savedAt: now })
        const charter = await this.charter(io)
        if (charter) await io.storeSet(CHARTER_KEY_PREFIX + sessionId, { ...charter, savedAt: now })
      }).catch((err) => logFailure(io, 'touch', err))
    },

    /** Runs `work` after the store work before it: a notes save goes through here too. */
    serial<T>(work: () => Promise<T>): Promise<T> {
      const run = storeWork.then(work)
      storeWork = run.catch(toUndefined)
      return run
    },

    /** One skip record per change of reason and side; advanced only once written, so a failed write is retried. */
    async recordSkip(io: RecordsEdges, decision: Decision, tokens: number, trigger: number, facts: Pick<SkipRecord, 'isInteractive' | 'isDesktopStarted' | 'surfaces'>): Promise<void> {
      const key = skipKey(decision, tokens, trigger)
      // Below the band's reach, the record in force ends, and the next change is written again.
      if (!key || key === this.lastSkip) {
        this.lastSkip = key
        return
      }
      try {
        const at = new Date(await io.now()).toISOString()
        const record: SkipRecord = { at, reason: decision.reason, tokens, trigger, ...facts }
        await io.write(await createNotes(io).fileOf(sessionId, SKIP_ENDING), JSON.stringify(record) + '\n')
        this.lastSkip = key
        this.lastRecorded = { key, at }
        io.log(`skip record ${key} (fill ${tokens}, trigger ${trigger})`)
      } catch (err) {
        logFailure(io, 'skip record', err)
      }
    },

    /** The last skip record written for this session, by this process or an earlier one (a --resume): null when none. */
    async lastSkipRecord(io: RecordsEdges): Promise<{ key: string; at: string } | null> {
      if (this.lastRecorded) return this.lastRecorded
      const record = recordOf(await io.read(await createNotes(io).fileOf(sessionId, SKIP_ENDING)).catch(toUndefined))
      return record && { key: sideKey(record.reason, record.tokens, record.trigger), at: record.at }
    },
  }
}
