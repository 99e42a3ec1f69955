// What the main conversation's system prompt carries of the manual (design §3.2, wsflow §5.4).
// The engine sends only the first compose answer after a reset (design C2, C3) and replays the
// recorded prompt on --resume (C4), so the machine takes one copy per reset, answers it unchanged
// until the next, and records it per session for a resume. Driven through edges; never throws.
import {
  ANALYSIS_TRAIT, CLEAR_REASON, COMPOSE_WAIT_MS, REFRESHING_TRIGGERS, SNAPSHOT_RETENTION_MS, SNAPSHOT_STORE_PREFIX,
  TEAMMATE_TRAIT, snapshotKeyOf,
} from './constants.ts'
import { inspectManual, type Inspection, type ManualFs } from './file.ts'
import type { StoreEdges } from '../../lib/bind.ts'
import { messageOf } from '../../lib/message.ts'
import { folderOf } from './paths.ts'
import { sectionText, type SectionExtras } from './section.ts'
import * as s from './strings.ts'

/** Which reset the copy follows. */
export type Reason = 'start' | 'compaction' | 'clear'
const REASONS: readonly string[] = ['start', 'compaction', 'clear'] satisfies Reason[]

/**
 * What a session's prompt carries, kept in `$.store` under `manual-snapshot:<sessionId>`: the
 * content hash of the manual it carries (null: none), when and after which reset the copy was
 * taken, and the manual's size then.
 */
export type SnapshotRecord = { readonly hash: string | null; readonly at: number; readonly reason: Reason; readonly bytes: number }

/** A stored value read back: a record this feature wrote, or undefined. */
export function parseRecord(value: unknown): SnapshotRecord | undefined {
  // A value of another kind has none of the fields; the number tests are false for anything but a number.
  const { hash, at, reason, bytes } = (value ?? {}) as Record<string, unknown>
  if (hash !== null && (typeof hash !== 'string' || !/^[0-9a-f]{64}$/.test(hash))) return
  if (!Number.isFinite(at) || !REASONS.includes(reason as string) || !Number.isInteger(bytes) || (bytes as number) < 0) return
  return { hash, at: at as number, reason: reason as Reason, bytes: bytes as number }
}

/** The snapshot keys to delete: older than the retention or not a record, never `keep`'s own. */
export function recordsToPrune(entries: readonly (readonly [string, unknown])[], now: number, keep: string): string[] {
  return entries
    .filter(([key, value]) => {
      if (!key.startsWith(SNAPSHOT_STORE_PREFIX) || key === keep) return false
      const at = parseRecord(value)?.at
      return at === undefined || now - at > SNAPSHOT_RETENTION_MS
    })
    .map(([key]) => key)
}

/** The plugin's store (`$.store`, lib/bind.ts's edges), and what else the record needs. */
export type Edges = StoreEdges & {
  readonly fs: ManualFs
  /** The mailbox's key and whether the mailbox runs; absent: neither line. */
  extras?(): Promise<SectionExtras>
  /** `$.session.id()`: after a /clear, the new conversation's. */
  sessionId(): Promise<string>
  now(): Promise<number>
  /** Calls `fn` once after `ms` (`$.clock.after`). */
  after(ms: number, fn: () => void): void
  /** A debug-log line. */
  log(text: string): void
}

/** Where the manual is, for the reads: its real path and the folder whose repeat reads collapse. */
export type Located = { readonly realPath: string; readonly folder: string }

/** What a copy of the prompt carries, as its record keeps it: `at` once the clock answered. */
type Copy = { readonly reason: Reason; readonly hash: string | null; readonly bytes: number; at?: number }

/**
 * Where the prompt is: not started, a copy to take after a reset (`outcome` while it is taken), the
 * copy (taken here, with the section it answers (none: no section); or recorded by the process a
 * resume replays), a record being read, unknown, or ended.
 */
type Phase =
  | { readonly name: 'not-started' | 'loading' | 'unknown' }
  | { readonly name: 'pending'; readonly reason: Reason; readonly outcome?: Promise<string | undefined> }
  | { readonly name: 'copy'; readonly copy: Copy; readonly resumed: boolean; readonly section?: string; readonly located?: Located }
  | { readonly name: 'ended'; readonly reason: string }
type CopyPhase = Extract<Phase, { name: 'copy' }>

/** What the reads need: what the prompt carries now, and counters that tell a reset or a new session. */
export type Carried = {
  /** Bumped at every reset: an examination that straddles one is dropped. */
  readonly generation: number
  /** Bumped at every start and /clear: the counts are per conversation. */
  readonly session: number
  /** Where the manual is and the hash of what the prompt carries (null: none); undefined: collapse nothing. */
  readonly manual?: Located & { readonly hash: string | null }
}

/** What the prompt carries, for the status. */
export type PromptView =
  | { readonly state: 'not-started' | 'loading' | 'unknown' }
  | { readonly state: 'pending'; readonly reason: Reason }
  | { readonly state: 'ended'; readonly reason: string }
  | { readonly state: 'copy'; readonly resumed: boolean; readonly reason: Reason; readonly hash: string | null; readonly bytes: number; readonly at?: number }

export type Snapshot = ReturnType<typeof createSnapshot>

const locatedOf = (inspection: Inspection): Located | undefined =>
  inspection.found ? { realPath: inspection.realPath, folder: folderOf(inspection.realPath) } : undefined

/** The prompt after `reason` carries no section and nothing of a manual. */
const noCopy = (reason: Reason): CopyPhase => ({ name: 'copy', copy: { reason, hash: null, bytes: 0 }, resumed: false })

export function createSnapshot(config: { readonly pkg: string; readonly file: string }) {
  let edges: Edges | undefined
  let phase: Phase = { name: 'not-started' }
  let generation = 0
  let session = 0
  let composedEarly = false

  const log = (text: string) => {
    try {
      edges?.log(text)
    } catch {
      // a log line is never worth a failed hook
    }
  }

  /** Records the copy once the clock and the session id answer; only for the conversation it belongs to. */
  async function persist(e: Edges, gen: number, copy: Copy): Promise<void> {
    try {
      const at = await e.now()
      const id = await e.sessionId()
      if (gen !== generation) return
      copy.at = at
      // The copy, now with its time, is the record (`{ hash, at, reason, bytes }`).
      await e.storeSet(snapshotKeyOf(id), copy)
    } catch (err) {
      log(s.recordNotWritten(messageOf(err)))
    }
  }

  async function readExtras(e: Edges): Promise<SectionExtras> {
    if (!e.extras) return {}
    try {
      return await e.extras()
    } catch (err) {
      log(s.extrasFailed(messageOf(err)))
      return {}
    }
  }

  /** The copy the prompt after `reason` carries: the file and the extras, built into the section. */
  function build(reason: Reason, inspection: Inspection, extras: SectionExtras): CopyPhase {
    if (!inspection.found) {
      log(s.notCarried(reason, s.problemText(inspection.problem)))
      return noCopy(reason)
    }
    const { content } = inspection
    log(s.carried(config.file, content.kind, content.bytes, reason))
    return { name: 'copy', copy: { reason, hash: inspection.hash, bytes: content.bytes }, resumed: false, section: sectionText(config.file, content, extras), located: locatedOf(inspection) }
  }

  /**
   * The first main compose after a reset: the copy, bounded by COMPOSE_WAIT_MS. Whatever decides
   * first (the copy, a failure, the bound) is the prompt's for good; a copy that lands after the
   * bound or after another reset fills nothing. The file and the extras are read side by side; at
   * the bound a manual already read goes without extras still missing: a late key never costs the manual.
   */
  function take(e: Edges, reason: Reason): Promise<string | undefined> {
    const gen = generation
    return new Promise((resolve) => {
      let decided = false
      let inspection: Inspection | undefined
      let extras: SectionExtras | undefined
      /** The prompt's copy from here to the next reset: built from the file as read (none: no section). */
      const decide = (found?: Inspection) => {
        if (decided) return
        decided = true
        const taken = found ? build(reason, found, extras ?? {}) : noCopy(reason)
        if (gen !== generation) return resolve(undefined)
        phase = taken
        // A missing manual writes no record: no cost outside manual projects.
        if (found?.found !== false || found.problem.kind !== 'missing') void persist(e, gen, taken.copy)
        resolve(taken.section)
      }
      const whenBoth = () => {
        if (inspection && extras) decide(inspection)
      }
      try {
        e.after(COMPOSE_WAIT_MS, () => {
          if (decided) return
          log(inspection ? s.EXTRAS_LATE : s.noManualInTime(reason))
          decide(inspection)
        })
      } catch (err) {
        log(s.timerFailed(messageOf(err)))
        return decide()
      }
      inspectManual(e.fs).then(
        (found) => {
          inspection = found
          whenBoth()
        },
        (err: unknown) => {
          if (!decided) log(s.takeFailed(messageOf(err)))
          decide()
        },
      )
      void readExtras(e).then((read) => {
        extras = read
        whenBoth()
      })
    })
  }

  /** A resume: the replayed prompt is the recorded one (C4); where the manual is comes from a look now. */
  async function load(e: Edges, gen: number): Promise<void> {
    try {
      const raw = await e.storeGet(snapshotKeyOf(await e.sessionId()))
      if (gen !== generation) return
      const record = parseRecord(raw)
      if (!record) {
        phase = { name: 'unknown' }
        return log(raw === undefined ? s.RESUMED_UNKNOWN : s.RECORD_INVALID)
      }
      const located = locatedOf(await inspectManual(e.fs))
      if (gen !== generation) return
      phase = { name: 'copy', copy: record, resumed: true, located }
      log(s.resumedRecorded(record.reason, record.bytes))
    } catch (err) {
      if (gen !== generation) return
      phase = { name: 'unknown' }
      log(s.recordUnread(messageOf(err)))
    }
  }

  async function prune(e: Edges): Promise<void> {
    try {
      const keys = (await e.storeKeys()).filter((key) => key.startsWith(SNAPSHOT_STORE_PREFIX))
      if (!keys.length) return
      const [id, now] = await Promise.all([e.sessionId(), e.now()])
      const entries = await Promise.all(keys.map(async (key) => [key, await e.storeGet(key)] as const))
      const stale = recordsToPrune(entries, now, snapshotKeyOf(id))
      for (const key of stale) await e.storeDelete(key)
      if (stale.length) log(s.pruned(stale.length))
    } catch (err) {
      log(s.pruneFailed(messageOf(err)))
    }
  }

  function reset(next: Phase): void {
    generation++
    phase = next
  }

  return {
    /** Every hook dispatch has its own `$`: the edges of the latest one are used from here on. */
    bind(current: Edges): void {
      edges = current
    },

    /**
     * A session start. `resumed`: the conversation has history (--resume, --continue), so the engine
     * replays its recorded prompt and no compose of this process is sent until a refresh.
     */
    start(bound: Edges, { resumed }: { readonly resumed: boolean }): void {
      edges = bound
      session++
      const early = composedEarly
      composedEarly = false
      if (resumed) {
        reset({ name: 'loading' })
        void load(bound, generation)
      } else if (early) {
        // The first prompt went out before this start, without the section (wsflow §5.4
        // composedEarly). No record: whether this is a manual project was never looked at.
        reset(noCopy('start'))
        log(s.COMPOSED_EARLY)
      } else {
        reset({ name: 'pending', reason: 'start' })
      }
      void prune(bound)
    },

    /** A compaction's outcome (after its `next`): a landed main one of a refreshing trigger resets. */
    compacted({ trigger, agentId, skipped }: { readonly trigger: string; readonly agentId?: string | undefined; readonly skipped: boolean }): void {
      if (!edges || agentId !== undefined || skipped || !REFRESHING_TRIGGERS.includes(trigger)) return
      reset({ name: 'pending', reason: 'compaction' })
    },

    /** `session.end`: a /clear resets under the new session id; any other end forgets the copy. */
    ended(reason: string): void {
      log(s.ended(reason))
      if (reason === CLEAR_REASON) {
        session++
        reset({ name: 'pending', reason: 'clear' })
      } else {
        reset({ name: 'ended', reason })
      }
    },

    /**
     * A `prompt.compose`: the section's text, or undefined for none. Only the first main compose
     * after a reset reads anything; every later one answers that copy, with no `$` call.
     */
    async compose(traits: readonly string[]): Promise<string | undefined> {
      if (traits.includes(TEAMMATE_TRAIT)) return
      const current = phase
      // An analysis render answers the copy once there is one, and never takes it.
      if (current.name === 'copy') return current.section
      if (traits.includes(ANALYSIS_TRAIT)) return
      if (current.name === 'not-started' || current.name === 'ended') {
        composedEarly = true
        return
      }
      if (current.name !== 'pending' || !edges) return
      // Another compose while this one waits answers what this one will: the prompt is one.
      if (current.outcome) return current.outcome
      const outcome = take(edges, current.reason)
      if (phase === current) phase = { ...current, outcome }
      return outcome
    },

    carried(): Carried {
      const manual = phase.name === 'copy' && phase.located ? { ...phase.located, hash: phase.copy.hash } : undefined
      return { generation, session, ...(manual && { manual }) }
    },

    view(): PromptView {
      switch (phase.name) {
        case 'copy':
          return { state: 'copy', resumed: phase.resumed, ...phase.copy }
        case 'pending':
          return { state: 'pending', reason: phase.reason }
        case 'ended':
          return { state: 'ended', reason: phase.reason }
        default:
          return { state: phase.name }
      }
    },
  }
}
