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
  let edges: Edges | undefined
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

  function reset(): void {
    generation++
    cached = undefined
    latch = undefined
    crossing = undefined
    request = undefined
    held = undefined
  }

  /** After a landing the next crossing delivers without a baseline step: the latch is 0, not undefined. */
  function landed(): void {
    generation++
    cached = undefined
    latch = 0
    crossing = undefined
  }

  /**
   * Not awaited: a lost resume is written to the transcript, a lost threshold message to the debug
   * log; `onLost` runs for either, so a message the engine did not take can be sent again.
   */
  function submit(text: string, record: boolean, onLost?: () => void): void {
    if (!edges) return
    const e = edges
    const lost = (why: string) => {
      if (record) e.notice(`${s.NOT_SUBMITTED(why)}:\n${text}`)
      else e.log(s.NOT_SUBMITTED(why))
      onLost?.()
    }
    e.submit(text).then(
      (r) => {
        const drop = (r as { drop?: unknown } | undefined)?.drop
        if (drop !== undefined) lost(`dropped: ${String(drop)}`)
      },
      (err: unknown) => lost(messageOf(err)),
    )
  }

  async function deliver(): Promise<void> {
    if (!edges || !crossing || delivering || !cached?.thresholds || request || held) return
    const e = edges
    const gen = generation
    const seen = cached
    const t = cached.thresholds
    const crossed = crossing
    delivering = true
    let fresh: Usage
    try {
      fresh = await e.readUsage()
    } catch (err) {
      e.log(s.USAGE_NOT_READ(messageOf(err)))
      return
    } finally {
      delivering = false
    }
    if (gen !== generation || cached !== seen || crossing !== crossed || request || held || e.turnRunning()) return
    // Another compaction window since the observation: the thresholds are stale, the next observation re-reads them.
    if (fresh.key !== seen.key) return
    const tokens = fresh.tokens ?? crossed.tokens
    const before = latch
    const step = observe(latch, levelAt(t, tokens), true)
    latch = step.latch
    crossing = undefined
    if (!step.deliver) return
    e.log(s.DELIVERED(step.deliver, crossed.tokens, fresh.tokens, t, fresh.window))
    // Measured: right after a turn the person stopped (Esc), the engine drops a submitted prompt. A
    // message the model never got must not count as delivered: the latch goes back and the
    // crossing stands, so the next main turn end delivers it (unless the state moved on meanwhile).
    submit(s.deliveryText(label, step.deliver, t, tokens), false, () => {
      if (gen !== generation || latch !== step.latch || crossing !== undefined) return
      latch = before
      crossing = crossed
      e.log(s.DELIVERY_RETRY)
    })
  }

  function finish(r: Request): void {
    if (request === r) request = undefined
    if (r.resume) submit(s.resumeText(label), true)
  }

  function hold(r: Request, text: string): void {
    if (!edges) return
    if (request === r) request = undefined
    const h = { text }
    held = h
    try {
      edges.delay(s.CONTINUATION_WINDOW_MS, () => {
        if (held !== h) return
        held = undefined
        submit(h.text, true)
      })
    } catch (err) {
      edges.log(s.WINDOW_NOT_STARTED(messageOf(err)))
      held = undefined
      submit(h.text, true)
    }
  }

  async function runLever(r: Request): Promise<void> {
    if (!edges || request !== r) return
    if (!r.compact) return finish(r)
    const e = edges
    let res: { skip?: string }
    leverCompacting = true
    try {
      res = await e.compact()
    } catch (err) {
      const line = s.REJECTED(messageOf(err))
      if (r.rejectionNoted) e.log(line)
      else e.notice(line)
      r.rejectionNoted = true
      return
    } finally {
      leverCompacting = false
    }
    if (res.skip === undefined) landed()
    if (request !== r) return
    if (!r.resume) {
      request = undefined
      if (res.skip !== undefined) e.notice(s.VETOED_NO_RESUME(res.skip))
    } else if (res.skip !== undefined) {
      e.notice(s.VETOED_RESUME(res.skip))
      hold(r, s.vetoedResumeText(label, res.skip))
    } else {
      hold(r, s.resumeText(label))
    }
  }

  return {
    /** Every hook dispatch has its own `$`: the edges of the latest one are used from here on. */
    bind(current: Edges): void {
      edges = current
    },

    /** A session start: bind the edges, start the conversation state over, take the advisory point in force. */
    start(bound: Edges, spec: AdvisorySpec): void {
      edges = bound
      reset()
      advisory = spec
    },

    end(reason: string): void {
      if (request) edges?.log(s.END_DROPPED_REQUEST(reason))
      if (held) edges?.notice(`${s.NOT_SUBMITTED(`session.end ${reason}`)}:\n${held.text}`)
      reset()
    },

    /** Every session.measure: baseline or re-arm the latch, record a crossing, deliver when idle. */
    async measure(usage: Usage, readBreakdown: () => Promise<HarnessWindow | undefined>): Promise<void> {
      if (usage.tokens === undefined || !edges) return
      const tokens = usage.tokens
      const gen = generation
      if (!cached || cached.key !== usage.key) {
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
      edges?.log(s.REQUESTED(checked.resume))
      return { result: s.leverResult(checked.resume) }
    },

    /** A main-thread turn that starts within the continuation window cancels the held resume. */
    turnStarted(agentId: string | undefined): void {
      if (agentId !== undefined || !held) return
      held = undefined
      edges?.log(s.RESUME_CANCELLED)
    },

    turnComplete(agentId: string | undefined, reason: string): void {
      if (!edges) return
      const e = edges
      const main = agentId === undefined
      if (main && reason !== 'aborted' && crossing) {
        try {
          e.after(() => void deliver().catch((err: unknown) => e.log(s.DELIVERY_FAILED(messageOf(err)))))
        } catch (err) {
          e.log(s.DELIVERY_NOT_SCHEDULED(messageOf(err)))
        }
      }
      // An interrupted turn leaves the request pending: the person is taking over.
      if (!main || reason === 'aborted' || !request || leverCompacting) return
      const r = request
      if (!r.compact) return finish(r)
      scheduleStep(
        r,
        (fn) => e.after(fn),
        () => void runLever(r),
        () => e.log(s.STEP_NOT_RUN),
        (err) => e.log(s.STEP_NOT_SCHEDULED(messageOf(err))),
      )
    },

    /** Every compaction but the lever's own: a landing re-arms the track and drops a pending request's compaction. */
    compacted(trigger: string, agentId: string | undefined, res: { skip?: string }): void {
      if (agentId !== undefined || trigger === 'precompute' || res.skip !== undefined || leverCompacting) return
      landed()
      if (request?.compact) {
        request.compact = false
        edges?.notice(s.LANDED_FIRST(trigger, request.resume))
      }
    },

    /** For the status lines and tests. */
    inspect() {
      return { advisory, thresholds: cached?.thresholds, latch, crossing: crossing?.tokens, requested: request !== undefined, held: held !== undefined }
    },
  }
}

export type Timing = ReturnType<typeof createTiming>
