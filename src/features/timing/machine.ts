// The timing feature's state machine (wsflow §3.4): the threshold track (baseline, latch, crossing,
// delivery with fresh usage) and the lever track (request, compact at the turn end, resume held for
// the continuation window). Driven through edges; it never vetoes or preempts a compaction.
import { checkLeverCall, DEFAULT_ADVISORY, levelAt, observe, thresholdsFor, type AdvisorySpec, type HarnessWindow, type Level, type Thresholds } from './core.ts'
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

type Request = { resume: boolean; compact: boolean; scheduled?: number; rejectionNoted: boolean }

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
   * Not awaited: a lost resume is written to the transcript, a lost threshold message to the debug
   * log; `onLost` runs for either, so a message the engine did not take can be sent again.
   */
  function submit(text: string, record: boolean, onLost?: () => void): void {
    const lost = (why: string) => {
      if (record) edges.notice(`${s.NOT_SUBMITTED(why)}:\n${text}`)
      else edges.log(s.NOT_SUBMITTED(why))
      onLost?.()
    }
    edges.submit(text).then(
      (r) => {
        const drop = (r as { drop?: unknown } | undefined)?.drop
        if (drop !== undefined) lost(`dropped: ${String(drop)}`)
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
    // The state moved on meanwhile; or another compaction window since the observation: the thresholds
    // are stale, and the next observation re-reads them.
    if (gen !== generation || cached !== seen || crossing !== crossed || request || held || edges.turnRunning() || fresh.key !== seen.key) return
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
    submit(s.deliveryText(label, step.deliver, t, tokens), false, () => {
      if (gen !== generation || latch !== step.latch || crossing !== undefined) return
      latch = before
      crossing = crossed
      edges.log(s.DELIVERY_RETRY)
    })
  }

  /** The pending request is done without a compaction of its own (another one landed first): only its resume is left. */
  function finish(r: Request): void {
    request = undefined
    if (r.resume) submit(s.resumeText(label), true)
  }

  /** Holds the resume prompt for the continuation window: a turn that starts within it wins. */
  function hold(text: string): void {
    const h = { text }
    held = h
    const release = () => {
      if (held !== h) return
      held = undefined
      submit(text, true)
    }
    try {
      edges.delay(s.CONTINUATION_WINDOW_MS, release)
    } catch (err) {
      edges.log(s.WINDOW_NOT_STARTED(messageOf(err)))
      release()
    }
  }

  async function runLever(r: Request): Promise<void> {
    if (request !== r) return
    if (!r.compact) return finish(r)
    let res: { skip?: string }
    leverCompacting = true
    try {
      res = await edges.compact()
    } catch (err) {
      const line = s.REJECTED(messageOf(err))
      if (r.rejectionNoted) edges.log(line)
      else edges.notice(line)
      r.rejectionNoted = true
      return
    } finally {
      leverCompacting = false
    }
    const { skip } = res
    if (skip === undefined) landed()
    if (request !== r) return
    request = undefined
    if (skip !== undefined) edges.notice(s.VETOED(skip, r.resume))
    if (r.resume) hold(skip === undefined ? s.resumeText(label) : s.vetoedResumeText(label, skip))
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

    lever(agentId: string | undefined, flag: unknown): { deny: string } | { result: string } {
      const checked = checkLeverCall(agentId, flag)
      if ('deny' in checked) return checked
      // The latest call wins: an unset flag clears an earlier true; the compact step is kept.
      if (request) request.resume = checked.resume
      else request = { resume: checked.resume, compact: true, rejectionNoted: false }
      edges.log(s.REQUESTED(checked.resume))
      return { result: s.leverResult(checked.resume) }
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
      return { advisory, thresholds: cached?.thresholds, latch, crossing: crossing?.tokens, requested: request !== undefined, held: held !== undefined }
    },
  }
}

export type Timing = ReturnType<typeof createTiming>
