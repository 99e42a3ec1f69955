// The feature registry: one engine hook per event, composed over the features active for this
// package, koa-compose style, with the engine's own failure rule applied to each feature alone.
import type { Args, EventResult, Next } from 'claude-code'
import type { Options } from './lib/options.ts'
import type { Port } from './lib/port.ts'

/** The events a feature may hook. main.ts spells each one as a literal `on()`. */
export type HookedEvent =
  | 'session.start'
  | 'session.end'
  | 'session.compact'
  | 'session.measure'
  | 'turn.start'
  | 'turn.complete'
  | 'prompt.submit'
  | 'tool.call'
  | 'command.run'
  | 'ui.render'
  | 'tool.describe'

/** What every feature hook is handed besides the engine's three arguments. */
export type FeatureContext = {
  /** The package this copy of the bundle runs in (`$.plugin.name`). */
  readonly pkg: string
  /** The package's options, checked against their fields (bad values already replaced by defaults). */
  readonly options: Options
}

/** A feature's hook: the engine's `($, e, next)` with the port in place of `$` (see lib/port.ts). */
export type FeatureHook<E extends HookedEvent = HookedEvent> = (
  port: Port,
  e: Args<E>,
  next: Next<E>,
  ctx: FeatureContext,
) => EventResult<E> | Promise<EventResult<E>>

/** A verb of the package command, `/<pkg> <verb> <args>`. */
export type Verb = {
  readonly usage: string
  run(port: Port, args: string, ctx: FeatureContext): string | Promise<string>
}

export type Feature = {
  readonly name: string
  /** Acts on the session (compacts, submits, rewrites): at most one package of the bundle runs it per session. */
  readonly sessionActing: boolean
  /**
   * Whether the feature would act at all with these options (a lever with nothing to reach would
   * not): only then does the package claim it, so another package that would act can. Absent: it
   * acts whenever it is on.
   */
  actsWith?(options: Options): boolean
  readonly hooks: { readonly [E in HookedEvent]?: FeatureHook<E> }
  readonly verbs?: Readonly<Record<string, Verb>>
  /** Lines for `/<pkg> status`, under the feature's name. */
  status?(port: Port, ctx: FeatureContext): string[] | Promise<string[]>
}

/**
 * A result the engine would refuse, per event. A feature that answers one is skipped like one that
 * throws, so the refusal never reaches the engine and costs the other features their turn.
 */
const RESULT_CHECKS: { readonly [E in HookedEvent]?: (r: EventResult<E>) => boolean } = {
  'session.compact': (r) => Array.isArray((r as { messages?: unknown }).messages) || typeof (r as { skip?: unknown }).skip === 'string',
}

function isSettledShape(event: HookedEvent, result: unknown): boolean {
  if (result === null || typeof result !== 'object') return false
  const check = RESULT_CHECKS[event] as ((r: unknown) => boolean) | undefined
  return check ? check(result) : true
}

/** The features a dispatch leaves out, by name (a Set, or a Map keyed by name). */
export type LeftOut = { has(name: string): boolean }

const NEXT_TWICE = 'next() called twice'
const NO_ERROR = Symbol('no error')

export class Registry {
  /** Skips per feature, for the status command. */
  readonly skips = new Map<string, number>()
  /** Feature and event pairs whose last run was skipped: logged once until the feature succeeds again. */
  private readonly failing = new Set<string>()

  constructor(
    /** Every feature active in this package, outermost first. */
    readonly features: readonly Feature[],
  ) {}

  /** The events some active feature hooks: main.ts registers only these. */
  hooks(event: HookedEvent): boolean {
    return this.features.some((f) => f.hooks[event] !== undefined)
  }

  /** The chain of each event for one set of left-out features, built once and reused. */
  private chains = new Map<string, readonly Feature[]>()
  private chainsLeavingOut: LeftOut | undefined

  private chainOf(event: HookedEvent, leftOut: LeftOut | undefined): readonly Feature[] {
    if (leftOut !== this.chainsLeavingOut) {
      this.chains.clear()
      this.chainsLeavingOut = leftOut
    }
    let chain = this.chains.get(event)
    if (!chain) {
      chain = this.features.filter((f) => f.hooks[event] !== undefined && !leftOut?.has(f.name))
      this.chains.set(event, chain)
    }
    return chain
  }

  /**
   * Runs `event` through each active feature's hook in turn, each `next` running the features
   * beneath it and then the engine. Features named in `leftOut` take no part.
   */
  dispatch<E extends HookedEvent>(
    event: E,
    port: Port,
    e: Args<E>,
    next: Next<E>,
    ctx: FeatureContext,
    leftOut?: LeftOut,
  ): Promise<EventResult<E>> {
    const chain = this.chainOf(event, leftOut)
    const step = (i: number, input: Args<E>): Promise<EventResult<E>> => {
      const feature = chain[i]
      if (feature === undefined) return next(input) as Promise<EventResult<E>>
      const hook = feature.hooks[event] as FeatureHook<E>
      let beneath: Promise<EventResult<E>> | undefined
      let beneathError: unknown = NO_ERROR
      const featureNext = ((rewritten: Args<E>) => {
        if (beneath !== undefined) return Promise.reject(new Error(NEXT_TWICE))
        beneath = step(i + 1, rewritten)
        beneath.catch((err) => (beneathError = err))
        return beneath
      }) as unknown as { -readonly [K in keyof Next<E>]: Next<E>[K] }
      // The engine's facts about this dispatch a feature may need: its abort signal and budget.
      featureNext.signal = next.signal
      featureNext.budget = next.budget
      const skip = (why: string): Promise<EventResult<E>> => {
        this.noteSkip(feature.name, event, why, port)
        // Before its next: as if absent. After: what its next settled to stands, nothing runs twice.
        return beneath ?? step(i + 1, input)
      }
      let answer: EventResult<E> | Promise<EventResult<E>>
      try {
        answer = hook(port, input, featureNext as unknown as Next<E>, ctx)
      } catch (err) {
        return skip(describe(err))
      }
      return Promise.resolve(answer).then(
        (result) => {
          if (!isSettledShape(event, result)) return skip(result === undefined ? 'answered undefined' : `answered a wrong shape: ${preview(result)}`)
          if (this.failing.size) this.failing.delete(`${feature.name} ${event}`)
          return result
        },
        // A failure that came up from beneath is not this feature's: it goes on up unchanged.
        (err) => (err === beneathError ? Promise.reject(err) : skip(describe(err))),
      )
    }
    return step(0, e)
  }

  private noteSkip(feature: string, event: string, why: string, port: Port): void {
    this.skips.set(feature, (this.skips.get(feature) ?? 0) + 1)
    const key = `${feature} ${event}`
    if (this.failing.has(key)) return
    this.failing.add(key)
    port.log(`${feature}: ${event} hook skipped (${why})`)
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : `threw ${preview(err)}`
}

function preview(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value)
  return text.length > 80 ? `${text.slice(0, 79)}…` : text
}
