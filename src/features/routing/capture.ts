// Capture (§2.2 source 2, the mutex variant, measured in NOTES §7): a routed step calls the engine's
// `next`, so the engine builds its exact request (the loop's own system prompt, tools and schemas);
// routing's `http.fetch` hook takes that request's body and answers the engine with a fake one-block
// response the step drains unread. This pairs each waiting step with the request the engine sends
// for it. Several loops can wait at once (main and its background agents): a request goes to the
// waiter of its own loop, told by the `x-claude-code-agent-id` header a subagent's request carries.

export type Captured = { readonly body: string; readonly headers: Readonly<Record<string, string>> }

type Waiter = {
  readonly model: string
  readonly agentId: string | undefined
  readonly resolve: (captured: Captured) => void
  readonly reject: (err: Error) => void
}

/** The header the engine puts on a subagent's model request (measured), naming its agent. */
export const AGENT_HEADER = 'x-claude-code-agent-id'

export function createCaptures() {
  const waiters: Waiter[] = []
  const remove = (w: Waiter) => {
    const at = waiters.indexOf(w)
    if (at >= 0) waiters.splice(at, 1)
  }

  return {
    /** A step waits for the engine's request: `body` settles when `take` hands it over, or rejects on `cancel`. */
    expect(model: string, agentId: string | undefined): { readonly captured: Promise<Captured>; cancel(why: Error): void } {
      let waiter!: Waiter
      const captured = new Promise<Captured>((resolve, reject) => {
        waiter = { model, agentId, resolve, reject }
      })
      captured.catch(() => undefined)
      waiters.push(waiter)
      return {
        captured,
        cancel: (why) => {
          remove(waiter)
          waiter.reject(why)
        },
      }
    },
    /**
     * An engine request naming `model`: handed to the waiting step of its loop, if one waits.
     * Its loop: the agent its header names; a request without one is main's. A header the engine
     * redacted or spelled otherwise falls back to any waiter of the same kind, then of the model.
     */
    take(model: string, headers: Readonly<Record<string, string>>, body: string): boolean {
      const agent = headerOf(headers, AGENT_HEADER)
      const ofModel = waiters.filter((w) => w.model === model)
      const waiter =
        ofModel.find((w) => (agent === undefined ? w.agentId === undefined : w.agentId === agent)) ??
        ofModel.find((w) => (agent === undefined) === (w.agentId === undefined)) ??
        ofModel[0]
      if (!waiter) return false
      remove(waiter)
      waiter.resolve({ body, headers })
      return true
    },
    get waiting(): number {
      return waiters.length
    },
  }
}

export type Captures = ReturnType<typeof createCaptures>

/** A header's value by its name in any case. */
export function headerOf(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === name) return value
  return undefined
}
