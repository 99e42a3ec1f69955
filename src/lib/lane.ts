// Work a hook moves off its own path. Each `$` call a hook awaits is a round trip to the host, and
// the event waits for it; on an event whose result the work does not change (a measurement, a turn
// start, a turn end whose text stays), the hook calls `next(e)` and returns at once, and the work
// runs from a clock timer: the engine's way for work that outlives a dispatch. A feature's deferred
// tasks run one at a time, in the order deferred, so each sees what the one before it wrote. A hook
// that reads what pending work writes drains the lane first: the pending tasks run at once, not at
// their timer. A task that fails is logged under its name, never lost.
import { messageOf } from './message.ts'

/** What a lane needs of the world: the engine's clock (a feature's port), and a debug line for a task that failed (its context). */
export type LaneClock = { after(ms: number, fn: () => void): void }
export type LaneLog = { log(line: string): void }

export type Lane = {
  /** Queues `task` behind the lane's pending tasks, to run from a timer; a failure is logged as `<what>: <message>`. */
  defer(port: LaneClock, ctx: LaneLog, what: string, task: () => unknown): void
  /** Runs what is pending now, in order; resolves once the lane is empty. */
  drain(): Promise<void>
  /** Nothing queued or running: a hook may act on the state at once, in order. */
  idle(): boolean
}

type Task = { what: string; task: () => unknown; ctx: LaneLog }

export function createLane(): Lane {
  const queue: Task[] = []
  let running: Promise<void> | undefined

  async function runQueue(): Promise<void> {
    for (let next = queue.shift(); next; next = queue.shift()) {
      try {
        await next.task()
      } catch (err) {
        next.ctx.log(`${next.what}: ${messageOf(err)}`)
      }
    }
  }

  /** One runner at a time: a timer or a drain joins the run under way, which takes what was queued meanwhile too. */
  function run(): Promise<void> {
    return (running ??= runQueue().finally(() => (running = undefined)))
  }

  return {
    defer(port, ctx, what, task) {
      queue.push({ what, task, ctx })
      try {
        port.after(0, () => void run())
      } catch (err) {
        // No clock to wait on: run it now, still off the hook's path (not awaited).
        ctx.log(`${what}: no timer (${messageOf(err)}); run at once`)
        void run()
      }
    },
    async drain() {
      while (running || queue.length) await run()
    },
    idle: () => !running && !queue.length,
  }
}
