// The reconnect lever's state machine, driven through edges (no `$`).
//
//   Idle --lever--> Requested --main turn ends (not aborted)--> Scheduled --after--> Running
//   Running --> Idle, submitting: the failure text always; the success text only when the call set
//   `continue` and no turn started meanwhile; nothing when the session ended during the step.
//
// `/mcp reconnect` is refused from a hook the turn waits on, so the tool only records the request
// and the step runs once the turn-ending hook has returned.
//
// A report is never submitted while a main turn runs: the engine would queue it behind anything typed
// during that turn, a /clear included, and it would then enter the conversation the /clear began
// (measured). It is held to that turn's end and submitted from its hook, so the package's own
// `prompt.submit` hook hears it when it enters (a submit from a timer reaches none of the package's
// hooks) and drops it there when the session ended first (wsflow §4.3: a request never acts in the
// conversation after /clear or /resume).
import { NOT_CONNECTED_READS, TOOLS_POLL_MS, TOOLS_WAIT_MS, UNLISTED } from './constants.ts'
import {
  ENDED_BEFORE_REPORT, ENDED_DURING_STEP, endDropped, failureText, notReconnectedLine, notScheduled, pollLine, promptNotSubmitted, readFailed,
  reasonCommandAnswered, reasonCommandFailed, reasonNotConnected, reasonUnlisted, REASON_TOOLS_ABSENT, reconnectedLine, reconnectResult, requestedLine,
  RESCHEDULED, stepFailed, successText, TURN_STARTED_DURING_STEP, type Failure,
} from './strings.ts'
import { scheduleStep } from '../../lib/step.ts'

export type ReconnectEdges = {
  /** Runs `/mcp reconnect <server>`; resolves the command's answer. */
  reconnect(server: string): Promise<{ text?: string } | undefined>
  /** Whether the session lists any of the server's tools now (a list that may lag the connection). */
  toolsListed(server: string): Promise<boolean>
  /** The server's connection as the engine holds it now (`$.mcp.connect`, which never dials a listed server). */
  connection(server: string): Promise<Connection>
  /** Queues a prompt; `drop` set means it was dropped. */
  submit(text: string): Promise<{ drop?: string } | undefined>
  /** A transcript row the model never reads. */
  notice(text: string): void
  /** Runs `fn` once the calling hook has returned. */
  after(fn: () => void): void
  sleep(ms: number): Promise<void>
  now(): Promise<number>
  /** Main-thread turns started so far (the session's facts): a turn that starts during the step cancels the resume. */
  mainTurns(): number
  /** Whether a main-thread turn runs now (the session's facts): a report then waits for its end. */
  busy(): boolean
  /** A debug-log line (the caller prefixes it). */
  log(text: string): void
}

type Request = { servers: string[]; resume: boolean; scheduled?: number }

export type Connection = { isConnected: true } | { isConnected: false; reason: string; message?: string }

/** How a connection (and, connected, whether its tools are `listed`) reads in the debug log and in a failure reason. */
const describeConnection = (c: Connection | void, listed: unknown) =>
  !c ? 'unread' : c.isConnected ? `connected, tools ${listed ? 'listed' : 'not listed'}` : `${c.reason}${c.message ? `: ${c.message}` : ''}`

/**
 * A command answer that says the reconnect did not happen. An interactive reconnect answers with no
 * text (its success line is the transcript's own); a headless session answers in text why it cannot,
 * while the server's tools stay listed, so the tool list alone would misread that as a success.
 */
export function commandRefusal(answer: { text?: string } | undefined): string | undefined {
  const text = answer?.text?.trim()
  if (!text || /\breconnected\b/i.test(text)) return
  return text
}

export function createReconnect(pkg: string) {
  let edges: ReconnectEdges | undefined
  let request: Request | undefined
  let generation = 0
  let last: string | undefined
  /** A report waiting for the running main turn's end. */
  let held: string | undefined
  /** The last report submitted, and the generation it was made in: one entering after an end is dropped. */
  let sent: { text: string; gen: number } | undefined

  function reset(): void {
    generation++
    request = undefined
    held = undefined
  }

  /**
   * Submits a report (never awaited); a drop or failure is told, unless the session ended meanwhile.
   * The call is made at once, not from a later microtask: from a turn end's hook it must reach the
   * engine before that hook settles, or it counts as a timer's (measured: then no hook of the package
   * hears it).
   */
  function submit(e: ReconnectEdges, text: string): void {
    const gen = generation
    sent = { text, gen }
    new Promise<{ drop?: string } | undefined>((resolve) => resolve(e.submit(text))).then(
      (res) => { if (res?.drop && gen === generation) e.notice(promptNotSubmitted(pkg, `dropped: ${res.drop}`, text)) },
      (err) => e.notice(promptNotSubmitted(pkg, String(err), text)),
    )
  }

  /** Why the server did not come back; undefined when it did. Never throws. */
  async function attempt(e: ReconnectEdges, server: string): Promise<string | undefined> {
    let answer: { text?: string } | undefined
    try {
      answer = await e.reconnect(server)
    } catch (err) {
      return reasonCommandFailed(err)
    }
    const refused = commandRefusal(answer)
    if (refused) return reasonCommandAnswered(refused)
    // Success is proven, never inferred: the command resolves `{}` whether or not the server came
    // back, and right after a failed reconnect the tool list still shows the dead server's tools for
    // about a second (measured). So the step waits until the engine holds the server connected
    // and its tools are listed; a name /mcp does not know fails at once, and a server the engine
    // holds unconnected for NOT_CONNECTED_READS reads in a row (measured: from the first read after
    // a failed reconnect, and connected from the first read after a good one) fails then.
    let last: string | undefined
    let unconnected = 0
    for (let waited = 0; ; waited += TOOLS_POLL_MS) {
      // A read that fails is logged and reads as nothing known.
      const state = await e.connection(server).catch((err) => e.log(readFailed('connection', err)))
      const listed = state?.isConnected && (await e.toolsListed(server).catch((err) => e.log(readFailed('tool list', err))))
      const seen = describeConnection(state, listed)
      const down = state?.isConnected === false
      unconnected = down ? (seen === last ? unconnected + 1 : 1) : 0
      if (seen !== last) e.log(pollLine(server, waited, seen))
      last = seen
      if (listed) return
      if (down && state.reason === UNLISTED) return reasonUnlisted(server)
      if (unconnected >= NOT_CONNECTED_READS || waited >= TOOLS_WAIT_MS) return state?.isConnected ? REASON_TOOLS_ABSENT : reasonNotConnected(seen, waited)
      await e.sleep(TOOLS_POLL_MS)
    }
  }

  /** The clock only times the step for the log: a clock that fails must not cost the report. */
  async function now(e: ReconnectEdges): Promise<number> {
    try {
      return await e.now()
    } catch {
      return NaN
    }
  }

  async function run(r: Request): Promise<void> {
    const e = edges
    if (!e || request !== r) return
    // The step takes the request as it starts: a call made meanwhile is a new request for a later turn end.
    request = undefined
    const gen = generation
    const startedAt = e.mainTurns()
    const failures: Failure[] = []
    const reconnected: string[] = []
    const lines: string[] = []
    for (const server of r.servers) {
      const started = await now(e)
      const reason = await attempt(e, server)
      const ms = Math.round((await now(e)) - started)
      // A failure always has its reason.
      if (!reason) reconnected.push(server)
      else failures.push({ server, reason })
      lines.push(reason ? notReconnectedLine(server, reason, ms) : reconnectedLine(server, ms))
    }
    if (gen !== generation) return e.log(ENDED_DURING_STEP)
    for (const line of lines) e.log(line)
    last = lines.join('; ')
    if (failures.length === 0) {
      if (!r.resume) return
      if (e.mainTurns() !== startedAt) return e.log(TURN_STARTED_DURING_STEP)
    }
    // A failure is always reported: now, or at the end of the main turn that runs.
    const text = failures.length ? failureText(pkg, failures, reconnected, r.resume) : successText(pkg, reconnected)
    if (e.busy()) held = text
    else submit(e, text)
  }

  return {
    /** Binds the edges for a new session; a pending request of the previous one is gone. */
    start(bound: ReconnectEdges): void {
      edges = bound
      reset()
    },

    /** Records a checked call; the latest call's `continue` wins, servers add up. */
    lever(server: string, resume: boolean): { result: string } {
      request ??= { servers: [], resume }
      request.resume = resume
      if (!request.servers.includes(server)) request.servers.push(server)
      edges?.log(requestedLine(request.servers, resume))
      return { result: reconnectResult(resume) }
    },

    /**
     * A main turn's end (called inside its hook) submits a held report (answers whether it did); one
     * that ended other than aborted schedules the step; otherwise the request waits.
     */
    turnComplete(agentId: string | undefined, reason: string): boolean {
      const e = edges
      if (agentId !== undefined || !e) return false
      const report = held
      held = undefined
      if (report) submit(e, report)
      const r = request
      if (reason !== 'aborted' && r) {
        scheduleStep(r, e.after, () => void run(r).catch((err) => e.log(stepFailed(err))), () => e.log(RESCHEDULED), (err) => e.log(notScheduled(err)))
      }
      return report !== undefined
    },

    /** A session end drops a pending request and a held report, so nothing acts in the next conversation. */
    end(reason: string): void {
      if (request) edges?.log(endDropped(reason))
      if (held) edges?.log(ENDED_BEFORE_REPORT)
      reset()
    },

    /**
     * A prompt entering (`prompt.submit`): whether it is a report submitted before the session ended,
     * which is dropped (the caller answers `{ drop }`); the debug log says so.
     */
    stale(text: string): boolean {
      const isStale = sent?.text === text && sent.gen !== generation
      if (isStale) edges?.log(ENDED_BEFORE_REPORT)
      return isStale
    },

    pending(): { servers: readonly string[]; resume: boolean } | undefined {
      return request && { servers: [...request.servers], resume: request.resume }
    },

    /** The last step's outcome, for the status command. */
    lastOutcome(): string | undefined {
      return last
    },
  }
}

export type Reconnect = ReturnType<typeof createReconnect>
