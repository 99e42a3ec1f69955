// The session's records in the store (spec B.18.4): its charter, and the mark of use that keeps a
// live session's notes and charter from eviction. Written one step at a time, so a touch never
// writes an entry back over one a save just replaced.
import { messageOf } from '../../lib/message.ts'
import { CHARTER_CAP_CHARS, CHARTER_KEY_PREFIX, SESSIONS_KEPT } from './constants.ts'
import { Notes, staleKeys, type NotesEdges } from './notes.ts'

export type Charter = { text: string; source: 'verb' | 'first prompt' }

/** What the records need: the notes' edges (the store, the files, the clock) and a debug line. */
export type RecordsEdges = NotesEdges & { log(line: string): void }

export function isCharter(value: unknown): value is Charter {
  const c = value as Partial<Charter> | null
  return typeof c === 'object' && c !== null && typeof c.text === 'string' && (c.source === 'verb' || c.source === 'first prompt')
}

export class SessionRecords {
  /** Whether `touch` ran for this session: its start and its first turn both touch, once. */
  isTouched = false
  /** The charter as last written or read here; undefined until known. */
  private charterKnown: Charter | null | undefined
  /** The session's store entries (notes pointer, charter), rewritten one step at a time. */
  private storeWork: Promise<unknown> = Promise.resolve()

  constructor(private readonly sessionId: string) {}

  async charter(io: RecordsEdges): Promise<Charter | null> {
    if (this.charterKnown !== undefined) return this.charterKnown
    const value = await io.storeGet(CHARTER_KEY_PREFIX + this.sessionId)
    this.charterKnown = isCharter(value) ? value : null
    return this.charterKnown
  }

  async setCharter(io: RecordsEdges, text: string, source: Charter['source']): Promise<Charter> {
    const charter: Charter = { text: text.slice(0, CHARTER_CAP_CHARS), source }
    // Stored with the time it was set: eviction keeps the charters used last.
    await this.serial(async () => {
      await io.storeSet(CHARTER_KEY_PREFIX + this.sessionId, { ...charter, savedAt: await io.now() })
      this.charterKnown = charter
    })
    for (const key of await staleKeys(io, CHARTER_KEY_PREFIX, SESSIONS_KEPT, this.sessionId)) await io.storeDelete(key)
    return charter
  }

  /**
   * The session is in use (it starts, its first turn runs, it is steered): its notes pointer and
   * charter are stamped now, so eviction goes by last use, not last save, and a live session that
   * has not saved lately (in another process, or after a long pause) keeps them. Fails open.
   */
  async touch(io: RecordsEdges): Promise<void> {
    this.isTouched = true
    await this.serial(async () => {
      const now = await io.now()
      await new Notes(io).touch(this.sessionId, now)
      const charter = await this.charter(io)
      if (charter !== null) await io.storeSet(CHARTER_KEY_PREFIX + this.sessionId, { ...charter, savedAt: now })
    }).catch((err) => io.log(`touch: ${messageOf(err)}`))
  }

  /** Runs `work` after the store work before it: a notes save goes through here too. */
  serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.storeWork.then(work)
    this.storeWork = run.catch(() => undefined)
    return run
  }
}
