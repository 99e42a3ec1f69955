// The session facts every feature shares, measured once here instead of in each feature: the
// session id (one host trip, read again only when a /clear or /resume gives the process a new one),
// whether a main-thread turn runs, the package's own MCP server, who asked for a compaction, and the
// main turn's summary usage read.
import type { Args, SessionUsage } from 'claude-code'
import { toUndefined } from '../lib/message.ts'
import type { SessionFacts } from '../registry.ts'

export type FactsEdges = {
  sessionId(): Promise<string>
  ownServer(): Promise<string | undefined>
  summary(): Promise<SessionUsage>
}

export type Facts = SessionFacts & {
  /** A main-thread turn started (before the features hear it) or ended (after they did). */
  turnStarted(agentId: string | undefined): void
  turnEnded(agentId: string | undefined): void
  /** A session ended; whether it goes on in this process under a new id (a `/clear` or `/resume`). */
  sessionEnded(reason: string): boolean
  /** The feature whose compaction the relay runs now; undefined once it settled. */
  asking(feature: string | undefined): void
  bind(edges: FactsEdges): void
}

export function createFacts(): Facts {
  let edges: FactsEdges | undefined
  let id: Promise<string> | undefined
  let own: Promise<string | undefined> | undefined
  let summary: Promise<SessionUsage> | undefined
  let running = false
  let turns = 0
  let askedBy: string | undefined
  const unbound = () => Promise.reject(new Error('the session facts are read before the first dispatch'))

  return {
    bind: (bound) => {
      edges = bound
    },
    // A failed read is not kept (the id's, the turn's summary): the next call asks again.
    sessionId: () => (id ??= (edges ? edges.sessionId() : unbound()).catch((err) => {
      id = undefined
      throw err
    })),
    ownServer: () => (own ??= (edges ? edges.ownServer() : unbound()).catch(toUndefined)),
    summary: () => (summary ??= (edges ? edges.summary() : unbound()).catch((err) => {
      summary = undefined
      throw err
    })),
    isMainTurnRunning: () => running,
    mainTurns: () => turns,
    compactionAskedBy(e: Args<'session.compact'>) {
      // While the relay runs a feature's compaction, the chain hears it as the main thread's `plugin`
      // compaction; anything else meanwhile (an auto one, a precompute, a subagent's) is not it.
      return e.trigger === 'plugin' && e.agentId === undefined ? askedBy : undefined
    },
    turnStarted(agentId) {
      if (agentId !== undefined) return
      running = true
      summary = undefined
      turns++
    },
    turnEnded(agentId) {
      if (agentId === undefined) running = false
    },
    sessionEnded(reason) {
      running = false
      const goesOn = reason === 'clear' || reason === 'resume'
      if (goesOn) id = undefined
      return goesOn
    },
    asking(feature) {
      askedBy = feature
    },
  }
}
