// Why the automatic checkpoint did not run (spec B.4.5): one record per change of reason and side
// of the trigger, in `<session>.skip` beside the notes, read back by a process that resumes the session.
import { messageOf } from '../../lib/message.ts'
import { skipKey, type Decision } from './decide.ts'
import { Notes, type NotesEdges } from './notes.ts'

export type SkipRecord = {
  at: string
  reason: Decision['reason']
  tokens: number
  trigger: number
  isInteractive: boolean
  isDesktopStarted: boolean
  surfaces: readonly string[] | null
}

export type SkipEdges = NotesEdges & { log(line: string): void }

/** A skip record as `record` writes it, or null for anything else (none, emptied, torn). */
export function recordOf(text: string | undefined): SkipRecord | null {
  try {
    const r = JSON.parse(text ?? '') as Partial<SkipRecord> | null
    return r && typeof r.at === 'string' && typeof r.reason === 'string' && typeof r.tokens === 'number' && typeof r.trigger === 'number' ? (r as SkipRecord) : null
  } catch {
    return null
  }
}

export class SkipRecords {
  /** The key of the record in force: a new one is written only when it changes. */
  lastKey: string | null = null
  /** The last record written, kept for the status after `lastKey` clears. */
  lastWritten: { key: string; at: string } | null = null

  constructor(private readonly sessionId: string) {}

  /** One record per change of reason and side; advanced only once written, so a failed write is retried. */
  async record(io: SkipEdges, decision: Decision, tokens: number, trigger: number, facts: Pick<SkipRecord, 'isInteractive' | 'isDesktopStarted' | 'surfaces'>): Promise<void> {
    const key = skipKey(decision, tokens, trigger)
    if (key === null) {
      this.lastKey = null
      return
    }
    if (key === this.lastKey) return
    try {
      const at = new Date(await io.now()).toISOString()
      const record: SkipRecord = { at, reason: decision.reason, tokens, trigger, ...facts }
      await io.write(await new Notes(io).skipPath(this.sessionId), JSON.stringify(record) + '\n')
      this.lastKey = key
      this.lastWritten = { key, at }
      io.log(`skip record ${key} (fill ${tokens}, trigger ${trigger})`)
    } catch (err) {
      io.log(`skip record: ${messageOf(err)}`)
    }
  }

  /** The last record written for this session, by this process or an earlier one (a --resume): null when none. */
  async last(io: SkipEdges): Promise<{ key: string; at: string } | null> {
    if (this.lastWritten) return this.lastWritten
    const text = await io.read(await new Notes(io).skipPath(this.sessionId)).catch(() => undefined)
    const record = recordOf(text)
    return record && { key: `${record.reason}:${record.tokens >= record.trigger ? 'past' : 'near'}`, at: record.at }
  }
}
