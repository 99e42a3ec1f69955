// The timing feature's state machine (wsflow §3.4): the threshold track (baseline, latch, crossing,
// delivery with fresh usage) and the lever track (request, compact at the turn end, resume held for
// the continuation window). Driven through edges; it never vetoes or preempts a compaction.
import { DEFAULT_ADVISORY, levelAt, observe, thresholdsFor, type AdvisorySpec, type HarnessWindow, type Level, type Thresholds } from './core.ts'
import { messageOf } from '../../lib/message.ts'
import * as s from './strings.ts'
import { scheduleStep } from '../../lib/step.ts'

/** The context fill as a plain usage read gives it; `key` names the compaction window it is measured under. */
export type Usage = { readonly tokens?: number; readonly window: number; readonly key: string }

export type Edges = {
  /** Queues a prompt as its own turn; resolves `{ drop }` when it did not enter. */
  submit(text: string): Promise<unknown>
  /** Compacts the main conversation now; `{ skip }` when vetoed; rejects while a turn runs. */
  compact(): Promise<{ skip?: string }>
  /** Runs `fn` after the calling hook has returned. */
  after(fn: () => void): void
  delay(ms: number, fn: () => void): void
  /** A debug-log line. */
  log(text: string): void
  /** A transcript notice, never sent to the model. */
  notice(text: string): void
  /** Whether a main-thread turn is running. */
  turnRunning(): boolean
  readUsage(): Promise<Usage>
}

/** `rejectionNoted`: a rejected compaction of this request was said in the transcript already. */
type Request = { resume: boolean; compact: boolean; scheduled?: number; rejectionNoted?: boolean }

export function createTiming(pkg: string) {
  const label = s.labelOf(pkg)
  /** Bound by `start`, which comes first: the feature makes the machine at session.start and starts it there. */
  let edges!: Edges
  let cached: { key: string; thresholds: Thresholds | undefined } | undefined
  let latch: Level | undefined
  let crossing: { tokens: number } | undefined
  let delivering = false
  let request: Request | undefined
  let held: { text: string } | undefined
  let leverCompacting = false
  let advisory: AdvisorySpec = DEFAULT_ADVISORY
  /** Bumped at start, end and every main landing: an observation that straddles one is dropped. */
  let generation = 0

  /** After a landing the next crossing delivers without a baseline step: the latch is 0, not undefined. */
  function landed(): void {
    generation++
    cached = undefined
    latch = 0
    crossing = undefined
  }

  /** A session starts or ends: the conversation's state starts over. */
  function reset(): void {
    landed()
    latch = undefined
    request = undefined
    held = undefined
  }

  /**
   * Not awaited. A threshold message comes with `onLost`: lost, it is said in the debug log and
   * `onLost` runs, so a message the engine did not take can be sent again; a lost resume prompt
   * (no `onLost`) is written to the transcript, text and all.
   */
  function submit(text: string, onLost?: () => void): void {
    const lost = (why: string) => {
      if (onLost) {
        edges.log(s.NOT_SUBMITTED(why))
        onLost()
      } else edges.notice(`${s.NOT_SUBMITTED(why)}:\n${text}`)
    }
    edges.submit(text).then(
      (r) => {
        const drop = (r as { drop?: unknown } | undefined)?.drop
        if (drop !== undefined) lost(`dropped: ${drop}`)
      },
      (err: unknown) => lost(messageOf(err)),
    )
  }

  async function deliver(): Promise<void> {
    if (!crossing || delivering || !cached?.thresholds || request || held) return
    const gen = generation
    const seen = cached
    const t = cached.thresholds
    const crossed = crossing
    delivering = true
    let fresh: Usage
    try {
      fresh = await edges.readUsage()
    } catch (err) {
      edges.log(s.USAGE_NOT_READ(messageOf(err)))
      return
    } finally {
      delivering = false
    }
    // The state moved on meanwhile (a landing or an end clears the cache, so `seen` is gone); or another
    // compaction window since the observation: the thresholds are stale, the next observation re-reads them.
    if (cached !== seen || crossing !== crossed || request || held || edges.turnRunning() || fresh.key !== seen.key) return
    const tokens = fresh.tokens ?? crossed.tokens
    const before = latch
    const step = observe(latch, levelAt(t, tokens), true)
    latch = step.latch
    crossing = undefined
    if (!step.deliver) return
    edges.log(s.DELIVERED(step.deliver, crossed.tokens, fresh.tokens, t, fresh.window))
    // Measured: right after a turn the person stopped (Esc), the engine drops a submitted prompt. A
    // message the model never got must not count as delivered: the latch goes back and the
    // crossing stands, so the next main turn end delivers it (unless the state moved on meanwhile).
    const text = step.deliver.kind === 'advisory' ? s.advisoryText(label, t, tokens) : s.milestoneText(label, step.deliver.which, t, tokens)
    submit(text, () => {
      if (gen !== generation || latch !== step.latch || crossing) return
      latch = before
      crossing = crossed
      edges.log(s.DELIVERY_RETRY)
    })
  }

  /** The pending request is done without a compaction of its own (another one landed first): only its resume is left. */
  function finish(r: Request): void {
    request = undefined
    if (r.resume) submit(s.resumeText(label))
  }

  async function runLever(r: Request): Promise<void> {
    if (request !== r) return
    if (!r.compact) return finish(r)
    let skip: string | undefined
    leverCompacting = true
    try {
      skip = (await edges.compact()).skip
    } catch (err) {
      // The first rejection is said in the transcript, a repeat in the debug log.
      ;(r.rejectionNoted ? edges.log : edges.notice)(s.REJECTED(messageOf(err)))
      r.rejectionNoted = true
      return
    } finally {
      leverCompacting = false
    }
    if (skip === undefined) landed()
    if (request !== r) return
    request = undefined
    if (skip !== undefined) edges.notice(s.VETOED(skip, r.resume))
    if (!r.resume) return
    // The resume prompt is held for the continuation window: a turn that starts within it wins.
    const h = { text: skip === undefined ? s.resumeText(label) : s.vetoedResumeText(label, skip) }
    held = h
    const release = () => {
      if (held !== h) return
      held = undefined
      submit(h.text)
    }
    try {
      edges.delay(s.CONTINUATION_WINDOW_MS, release)
    } catch (err) {
      edges.log(s.WINDOW_NOT_STARTED(messageOf(err)))
      release()
    }
  }

  return {
    /** A session start: bind the edges, start the conversation state over, take the advisory point in force. */
    start(bound: Edges, spec: AdvisorySpec): void {
      edges = bound
      reset()
      advisory = spec
    },

    end(reason: string): void {
      if (request) edges.log(s.END_DROPPED_REQUEST(reason))
      if (held) edges.notice(`${s.NOT_SUBMITTED(`session.end ${reason}`)}:\n${held.text}`)
      reset()
    },

    /** Every session.measure: baseline or re-arm the latch, record a crossing, deliver when idle. */
    async measure(usage: Usage, readBreakdown: () => Promise<HarnessWindow | undefined>): Promise<void> {
      const tokens = usage.tokens
      if (tokens === undefined) return
      const gen = generation
      if (cached?.key !== usage.key) {
        const breakdown = await readBreakdown()
        if (gen !== generation || !breakdown) return
        cached = { key: usage.key, thresholds: thresholdsFor(breakdown, advisory) }
        edges.log(cached.thresholds ? s.THRESHOLDS_LINE(cached.thresholds) : s.THRESHOLDS_OFF)
      }
      const t = cached.thresholds
      if (!t) return
      const level = levelAt(t, tokens)
      latch = observe(latch, level, false).latch
      if (level <= latch) crossing = undefined
      else crossing ??= { tokens }
      if (crossing && !edges.turnRunning()) await deliver()
    },

    /** The lever's call: the main session only, and only a literal `true` asks for the resume. */
    lever(agentId: string | undefined, flag: unknown): { deny: string } | { result: string } {
      if (agentId !== undefined) return { deny: s.LEVER_SUBAGENT(agentId) }
      const resume = flag === true
      // The latest call wins: an unset flag clears an earlier true; the compact step is kept.
      request ??= { resume, compact: true }
      request.resume = resume
      edges.log(s.REQUESTED(resume))
      return { result: resume ? s.LEVER_RESULT : s.LEVER_RESULT_NO_RESUME }
    },

    /** A main-thread turn that starts within the continuation window cancels the held resume. */
    turnStarted(agentId: string | undefined): void {
      if (agentId !== undefined || !held) return
      held = undefined
      edges.log(s.RESUME_CANCELLED)
    },

    turnComplete(agentId: string | undefined, reason: string): void {
      // A main turn that ended by itself: an interrupted one leaves the request pending (the person is taking over).
      if (agentId !== undefined || reason === 'aborted') return
      if (crossing) {
        try {
          edges.after(() => void deliver().catch((err: unknown) => edges.log(s.DELIVERY_FAILED(messageOf(err)))))
        } catch (err) {
          edges.log(s.DELIVERY_NOT_SCHEDULED(messageOf(err)))
        }
      }
      const r = request
      if (!r || leverCompacting) return
      if (!r.compact) return finish(r)
      scheduleStep(
        r,
        edges.after,
        () => void runLever(r),
        () => edges.log(s.STEP_NOT_RUN),
        (err) => edges.log(s.STEP_NOT_SCHEDULED(messageOf(err))),
      )
    },

    /** Every compaction but the lever's own: a landing re-arms the track and drops a pending request's compaction. */
    compacted(trigger: string, agentId: string | undefined, res: { skip?: string }): void {
      if (agentId !== undefined || trigger === 'precompute' || res.skip !== undefined || leverCompacting) return
      landed()
      if (request?.compact) {
        request.compact = false
        edges.notice(s.LANDED_FIRST(trigger, request.resume))
      }
    },

    /** For the status lines and tests. */
    inspect() {
      return { advisory, thresholds: cached?.thresholds, latch, crossing: crossing?.tokens, requested: !!request, held: !!held }
    },
  }
}

export type Timing = ReturnType<typeof createTiming>
