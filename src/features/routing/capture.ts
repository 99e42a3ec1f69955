// Capture (§2.2 source 2, the mutex variant, measured in NOTES §7 and §11.1): a routed step calls the
// engine's `next`, so the engine builds its exact request (the loop's own system prompt, tools and
// schemas); routing's `http.fetch` hook takes that request, runs the provider's request for it, hands
// the answer's pieces to the step through the step's relay, and answers the engine's request once
// the provider's has ended. This pairs each waiting step with the request the engine sends for it.
// Several loops can wait at once (main and its background agents): a request goes to the waiter of
// its own loop, told by the `x-claude-code-agent-id` header a subagent's request carries.
import { toUndefined } from '../../lib/message.ts'
import type { StepRelay } from './relay.ts'

type Waiter = {
  readonly model: string
  readonly agentId: string | undefined
  readonly relay: StepRelay
  readonly resolve: () => void
  readonly reject: (err: Error) => void
}

/** The header the engine puts on a subagent's model request (measured), naming its agent. */
export const AGENT_HEADER = 'x-claude-code-agent-id'

export function createCaptures() {
  /** In the order they began to wait. */
  const waiters = new Set<Waiter>()

  return {
    /** A step waits for the engine's request: `captured` settles when `take` hands its relay over, or rejects on `cancel`. */
    expect(model: string, agentId: string | undefined, relay: StepRelay): { readonly captured: Promise<void>; cancel(why: Error): void } {
      let waiter!: Waiter
      const captured = new Promise<void>((resolve, reject) => {
        waiter = { model, agentId, relay, resolve, reject }
      })
      captured.catch(toUndefined)
      waiters.add(waiter)
      return {
        captured,
        cancel: (why) => {
          waiters.delete(waiter)
          waiter.reject(why)
        },
      }
    },
    /**
     * An engine request naming `model`: the relay of the waiting step of its loop, if one waits.
     * Its loop: the agent its header names; a request without one is main's. A header the engine
     * redacted or spelled otherwise falls back to any waiter of the same kind, then of the model.
     */
    take(model: string, headers: Readonly<Record<string, string>>): StepRelay | undefined {
      const agent = headerOf(headers, AGENT_HEADER)
      const ofModel = [...waiters].filter((w) => w.model === model)
      const waiter =
        ofModel.find((w) => w.agentId === agent) ??
        ofModel.find((w) => (agent === undefined) === (w.agentId === undefined)) ??
        ofModel[0]
      if (!waiter) return
      waiters.delete(waiter)
      waiter.resolve()
      return waiter.relay
    },
    get waiting(): number {
      return waiters.size
    },
  }
}

export type Captures = ReturnType<typeof createCaptures>

/** A header's value by its name in any case. */
export function headerOf(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value
}
