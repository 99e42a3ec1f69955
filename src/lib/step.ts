// A request's step, set going when a main turn ends and run from a clock timer. Scheduling it again
// replaces the step that still waits, which then does not run; a clock that refuses the timer leaves
// nothing scheduled, so the next turn end tries again. Pure: the clock comes in as `after`.

/** What a step is scheduled for: its `scheduled` token while the step waits on the clock. */
export type Schedulable = { scheduled?: number }

let lastToken = 0

export function scheduleStep(
  target: Schedulable,
  after: (fn: () => void) => void,
  step: () => void,
  onReplaced: () => void,
  onNotScheduled: (err: unknown) => void,
): void {
  if (target.scheduled !== undefined) onReplaced()
  const token = ++lastToken
  target.scheduled = token
  try {
    after(() => {
      if (target.scheduled !== token) return
      target.scheduled = undefined
      step()
    })
  } catch (err) {
    if (target.scheduled === token) target.scheduled = undefined
    onNotScheduled(err)
  }
}
