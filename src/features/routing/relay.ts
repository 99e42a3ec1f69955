// The pieces of a routed answer on their way from the `http.fetch` hook that answers a captured
// request (it runs the provider's request) to the step that yields them, in order as they come,
// then how the answer ended (NOTES §11.1). Read like an async iterator: `next()` waits for a piece.
import type { StepChunk, StepResult } from './step.ts'

export function createRelay<T, R>() {
  const items: T[] = []
  let ended: { readonly value: R } | undefined
  let wake = () => {}
  return {
    push(item: T) {
      items.push(item)
      wake()
    },
    /** The first end counts. */
    end(value: R) {
      ended ??= { value }
      wake()
    },
    async next(): Promise<IteratorResult<T, R>> {
      while (!items.length && !ended) await new Promise<void>((resolve) => (wake = resolve))
      return items.length ? { done: false, value: items.shift()! } : { done: true, value: ended!.value }
    },
  }
}

/** A step's relay: the provider's chunks, then the step's result, or undefined when the answer failed (the engine's own error then stands). */
export type StepRelay = ReturnType<typeof createRelay<StepChunk, StepResult | undefined>>
