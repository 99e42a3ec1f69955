// The reconnect lever's state machine, driven through edges (no `$`).
//
//   Idle --lever--> Requested --main turn ends (not aborted)--> Scheduled --after--> Running
//   Running --> Idle, submitting: the failure text always; the success text only when the call set
//   `continue` and no turn started meanwhile; nothing when the session ended during the step.
//
// `/mcp reconnect` is refused from a hook the turn waits on, so the tool only records the request
// and the step runs once the turn-ending hook has returned.
import { TOOLS_POLL_MS, TOOLS_WAIT_MS } from './constants.ts'
import {
  ENDED_DURING_STEP, endDropped, failureText, listReadFailed, notReconnectedLine, notScheduled, promptNotSubmitted,
  reasonCommandAnswered, reasonCommandFailed, REASON_TOOLS_ABSENT, reconnectedLine, reconnectResult, requestedLine,
  RESCHEDULED, stepFailed, successText, TURN_STARTED_DURING_STEP, type Failure,
} from './strings.ts'
import { scheduleStep } from '../../lib/step.ts'

export type ReconnectEdges = {
  /** Runs `/mcp reconnect <server>`; resolves the command's answer. */
  reconnect(server: string): Promise<{ text?: string } | undefined>
  /** Whether the session lists any of the server's tools now. */
  toolsListed(server: string): Promise<boolean>
  /** Queues a prompt; `drop` set means it was dropped. */
  submit(text: string): Promise<{ drop?: string } | undefined>
  /** A transcript row the model never reads. */
  notice(text: string): void
  /** Runs `fn` once the calling hook has returned. */
  after(fn: () => void): void
  sleep(ms: number): Promise<void>
  now(): Promise<number>
  /** A debug-log line (the caller prefixes it). */
  log(text: string): void
}

type Request = { servers: string[]; resume: boolean; scheduled?: number }

type Outcome = { ok: true } | { ok: false; reason: string }

/**
 * A command answer that says the reconnect did not happen. An interactive reconnect answers with no
 * text (its success line is the transcript's own); a headless session answers in text why it cannot,
 * while the server's tools stay listed, so the tool list alone would misread that as a success.
 */
export function commandRefusal(answer: { text?: string } | undefined): string | undefined {
  const text = answer?.text?.trim()
  if (!text || /\breconnected\b/i.test(text)) return undefined
  return text
}

export function createReconnect(pkg: string) {
  let edges: ReconnectEdges | undefined
  let request: Request | undefined
  let generation = 0
  let turns = 0
  let last: string | undefined

  function reset(): void {
    generation++
    request = undefined
  }

  /** Never throws: every failure is an outcome. */
  async function attempt(e: ReconnectEdges, server: string): Promise<Outcome> {
    let answer: { text?: string } | undefined
    try {
      answer = await e.reconnect(server)
    } catch (err) {
      return { ok: false, reason: reasonCommandFailed(err) }
    }
    const refused = commandRefusal(answer)
    if (refused !== undefined) return { ok: false, reason: reasonCommandAnswered(refused) }
    // The step reconnects even when the tools are still listed (a listed server may be failing), then
    // waits for them: the command settles before the server's tools are back.
    for (let waited = 0; ; waited += TOOLS_POLL_MS) {
      let listed = false
      try {
        listed = await e.toolsListed(server)
      } catch (err) {
        e.log(listReadFailed(err))
      }
      if (listed) return { ok: true }
      if (waited >= TOOLS_WAIT_MS) return { ok: false, reason: REASON_TOOLS_ABSENT }
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
    const startedAt = turns
    const failures: Failure[] = []
    const reconnected: string[] = []
    const lines: string[] = []
    for (const server of r.servers) {
      const started = await now(e)
      const outcome = await attempt(e, server)
      const ms = Math.round((await now(e)) - started)
      if (outcome.ok) {
        reconnected.push(server)
        lines.push(reconnectedLine(server, ms))
      } else {
        failures.push({ server, reason: outcome.reason })
        lines.push(notReconnectedLine(server, outcome.reason, ms))
      }
    }
    if (gen !== generation) return e.log(ENDED_DURING_STEP)
    for (const line of lines) e.log(line)
    last = lines.join('; ')
    if (failures.length === 0) {
      if (!r.resume) return
      if (turns !== startedAt) return e.log(TURN_STARTED_DURING_STEP)
    }
    // A failure is always reported, whatever turn is running.
    const text = failures.length ? failureText(pkg, failures, reconnected, r.resume) : successText(pkg, reconnected)
    Promise.resolve().then(() => e.submit(text)).then(
      (res) => { if (res?.drop) e.notice(promptNotSubmitted(pkg, `dropped: ${res.drop}`, text)) },
      (err) => e.notice(promptNotSubmitted(pkg, String(err), text)),
    )
  }

  return {
    /** Binds the edges for a new session; a pending request of the previous one is gone. */
    start(bound: ReconnectEdges): void {
      edges = bound
      reset()
    },

    /** Records a checked call; the latest call's `continue` wins, servers add up. */
    lever(server: string, resume: boolean): { result: string } {
      if (request) {
        request.resume = resume
        if (!request.servers.includes(server)) request.servers.push(server)
      } else {
        request = { servers: [server], resume }
      }
      edges?.log(requestedLine(request.servers, resume))
      return { result: reconnectResult(resume) }
    },

    turnStarted(agentId: string | undefined): void {
      if (agentId === undefined) turns++
    },

    /** A main turn that ended other than aborted schedules the step; otherwise the request waits. */
    turnComplete(agentId: string | undefined, reason: string): void {
      const e = edges
      const r = request
      if (agentId !== undefined || reason === 'aborted' || !r || !e) return
      scheduleStep(
        r,
        (fn) => e.after(fn),
        () => void run(r).catch((err) => e.log(stepFailed(err))),
        () => e.log(RESCHEDULED),
        (err) => e.log(notScheduled(err)),
      )
    },

    /** A session end drops a pending request, so nothing acts in the next conversation. */
    end(reason: string): void {
      if (request) edges?.log(endDropped(reason))
      reset()
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
