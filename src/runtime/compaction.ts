// The compaction relay: a compaction a feature asks for (from a timer, a tool, a verb) runs through
// this package's own session.compact chain before the engine's. Measured on 2.1.328: the engine
// does not raise a plugin's own hooks for a compaction its timer asked for ("skipped: re-entry"),
// so without the relay the other features would neither steer nor hear it. Two features asking at
// once get one compaction. Where the engine does raise this plugin's hook for it (a call made
// inside a hook), that one dispatch passes through: the chain has already run around it.
import type { Args, Next, SessionCompactResult } from 'claude-code'
import type { Facts } from './facts.ts'

export type Relay = {
  /** `feature` asks: the chain runs (stamped with its name in the facts), then `engineCompact`. */
  compact(feature: string, instructions: string | undefined, chain: (e: Args<'session.compact'>, engine: Next<'session.compact'>) => Promise<SessionCompactResult>, engineCompact: (instructions?: string) => Promise<SessionCompactResult>): Promise<SessionCompactResult>
  /** The engine raising this plugin's hook for the compaction the relay is running. */
  isOwnReRaise(e: Args<'session.compact'>): boolean
}

export function createRelay(facts: Facts): Relay {
  let running: Promise<SessionCompactResult> | undefined
  /** The instructions that compaction reached the engine with: how its own re-raise is told apart. */
  let reached: { instructions: string | undefined } | undefined

  return {
    compact(feature, instructions, chain, engineCompact) {
      return (running ??= (async () => {
        const e = { trigger: 'plugin', messages: [], ...(instructions !== undefined && { instructions }) } as unknown as Args<'session.compact'>
        const engine = ((steered: Args<'session.compact'>) => {
          reached = { instructions: steered.instructions }
          return engineCompact(steered.instructions)
        }) as unknown as Next<'session.compact'>
        facts.asking(feature)
        try {
          return await chain(e, engine)
        } finally {
          running = undefined
          reached = undefined
          facts.asking(undefined)
        }
      })())
    },
    isOwnReRaise(e) {
      return reached !== undefined && e.trigger === 'plugin' && e.agentId === undefined && e.instructions === reached.instructions
    },
  }
}
