// The feature registry: one engine hook per event, composed over the features active for this
// package, koa-compose style, with the engine's own failure rule applied to each feature alone.
// Two shapes: a promise chain (most events) and a stream chain (`turn.step`, whose hooks are
// `async function*` and yield the model's response in pieces). A feature declares, beside each
// hook, what its failure means (`onFailure`): by default the hook is skipped as the engine skips
// one; a guard refuses; a stream answers its own failure. The registry applies it: no feature wraps
// its own body in a try/catch to get it.
import type { Args, Chunk, EventResult, Next, RenderComponent, SessionCompactResult, SessionUsage, StreamNext } from 'claude-code'
import { toUndefined } from './lib/message.ts'
import { isString } from './lib/shape.ts'
import type { Options } from './runtime/options.ts'

/** The events answered by a promise. main.ts spells each one as a literal `on()`. */
export type PromiseEvent =
  | 'session.start'
  | 'session.end'
  | 'session.compact'
  | 'session.measure'
  | 'session.append'
  | 'session.receive'
  | 'session.send'
  | 'turn.start'
  | 'turn.complete'
  | 'prompt.submit'
  | 'prompt.compose'
  | 'tool.call'
  | 'tool.check'
  | 'tool.judge'
  | 'tool.describe'
  | 'command.run'
  | 'ui.render'
  | 'http.fetch'
  | 'agent.spawn'

/** The events whose hooks stream (`async function*`). */
export type StreamEvent = 'turn.step'

export type HookedEvent = PromiseEvent | StreamEvent

/** Facts of the session every feature shares, read once by the runtime (runtime/facts.ts). */
export type SessionFacts = {
  /** The session's id, cached; a `/clear` or `/resume` (a new id in the same process) reads it afresh. */
  sessionId(): Promise<string>
  /** A main-thread turn runs now (from its `turn.start` to its `turn.complete`). */
  isMainTurnRunning(): boolean
  /** Main-thread turns started in this process: a step can tell whether one started meanwhile. */
  mainTurns(): number
  /** The package's own MCP server as /mcp lists it (`plugin:<pkg>:<server>`), when it ships one. */
  ownServer(): Promise<string | undefined>
  /**
   * The summary usage read (`$.session.usage({ breakdown: 'summary' })`), made once per main turn and
   * shared: each read is host work the next hook waits behind (checkpoint's harness figures and
   * reconnect's servers, both at the turn's measurement). A main turn's start reads afresh.
   */
  summary(): Promise<SessionUsage>
  /**
   * Who asked for the compaction a `session.compact` hook is hearing: the feature whose
   * `ctx.compact()` asked (the runtime stamps its own requests, as the engine stamps `next.origin`),
   * or undefined for any other (the person's, the harness's, another plugin's).
   */
  compactionAskedBy(e: Args<'session.compact'>): string | undefined
}

/** What every feature hook is handed besides its port and the engine's arguments. */
export type FeatureContext = {
  /** The package this copy of the bundle runs in (`$.plugin.name`). */
  readonly pkg: string
  /** The package's options, checked against their fields (bad values already replaced by defaults). */
  readonly options: Options
  /** Each field's declared default (plugin.json, its one home): what a blank or bad value falls back to. */
  readonly defaults: Options
  readonly facts: SessionFacts
  /** A debug-log line, prefixed with the feature's name: one convention for every feature. */
  log(line: string): void
  /**
   * A compaction this feature asks for: through the package's own session.compact chain (the
   * engine runs none of the plugin's hooks for a compaction its timer asks for), stamped with the
   * feature's name, so `facts.compactionAskedBy` tells it apart.
   */
  compact(instructions?: string): Promise<SessionCompactResult>
}

/** A feature's hook on a promise event: the engine's `($, e, next)` with the feature's port in place of `$`. */
export type PromiseHook<P, E extends PromiseEvent> = (port: P, e: Args<E>, next: Next<E>, ctx: FeatureContext) => EventResult<E> | Promise<EventResult<E>>

/** A feature's hook on a streaming event: an `async function*` yielding chunks; returning nothing lets its `next`'s result stand. */
export type StreamHook<P, E extends StreamEvent> = (port: P, e: Args<E>, next: StreamNext<E>, ctx: FeatureContext) => AsyncGenerator<Chunk<E>, EventResult<E> | void>

/** How a failed hook's turn ends (a throw, `undefined`, or a result the engine would refuse). */
export type Failure = { readonly message: string; readonly calledNext: boolean }

/**
 * What a hook's failure means. `open` (the default): skipped, as the engine skips a hook (before
 * its `next`, the chain goes on beneath as if it were absent; after, what that `next` settled to
 * stands). A guard's `deny`: before its `next`, the call is refused with this reason instead.
 */
export type PromisePolicy<E extends PromiseEvent = PromiseEvent> =
  | 'open'
  /** The reason, or one worked out from the call (undefined: this call fails open, as a non-guard's would). */
  | { readonly deny: string | ((e: Args<E>, ctx: FeatureContext) => string | undefined) }

/**
 * A stream's failure. `open`: a chunk already yielded stays; before its `next` the chain goes on
 * beneath, after it the rest of the stream beneath is passed on. `answer`: the feature answers its
 * own failure (a routed step must never fall back to what is beneath, even after it called `next`):
 * what beneath still streams is closed unread, and the answer's chunks and result end the step.
 */
export type StreamPolicy<E extends StreamEvent> = 'open' | {
  readonly answer: (failure: Failure, e: Args<E>, ctx: FeatureContext) => AsyncGenerator<Chunk<E>, EventResult<E>>
  /**
   * The steps this feature answers for even when keel's hook as a whole fails at the engine (a
   * chunk the engine refuses, the budget): the engine would then pass what is beneath, native
   * Claude, so main.ts's `.catch` asks the feature to answer instead (a routed step: its model).
   */
  readonly owns?: (e: Args<E>) => boolean
}

export type HookSpec<P, E extends HookedEvent> = E extends StreamEvent
  ? StreamHook<P, E> | { readonly run: StreamHook<P, E>; readonly onFailure: StreamPolicy<E> }
  : E extends PromiseEvent ? PromiseHook<P, E> | { readonly run: PromiseHook<P, E>; readonly onFailure: PromisePolicy<E> } : never

/** A verb of the package command, `/<pkg> <verb> <args>`. */
export type Verb<P = unknown> = {
  readonly usage: string
  run(port: P, args: string, ctx: FeatureContext): string | Promise<string>
}

export type Feature<P = unknown> = {
  readonly name: string
  /** Acts on the session (compacts, submits, rewrites): at most one package of the bundle runs it per session. */
  readonly sessionActing: boolean
  /**
   * Whether the feature would act at all with these options (a lever with nothing to reach would
   * not): only then does the package claim it, so another package that would act can. Absent: it
   * acts whenever it is on.
   */
  actsWith?(options: Options): boolean
  readonly hooks: { readonly [E in HookedEvent]?: HookSpec<P, E> }
  /** How its debug lines open (`ctx.log`); default `<name>: `. */
  logPrefix?(pkg: string): string
  /** The engine commands (`model`, `rename`) its `command.run` hook hears, beside the package's own command. */
  readonly commands?: readonly string[]
  /**
   * Its `prompt.submit` hook needs only the prompts a plugin submits (`origin.kind` 'plugin', the
   * package's own among them): where every active feature hooking the event says so, main.ts
   * matches it to those, and a person's prompt makes no trip to the hooks worker (measured: an
   * object matcher is tested on the host, test/bench/probe-submit.ts).
   */
  readonly pluginPromptsOnly?: boolean
  /** The components its `ui.render` hook draws: main.ts matches the event to the active features' own, so any other drawing makes no trip to the hooks worker. */
  readonly draws?: readonly RenderComponent[]
  readonly verbs?: Readonly<Record<string, Verb<P>>>
  /** Lines for `/<pkg> status`, under the feature's name. */
  status?(port: P, ctx: FeatureContext): string[] | Promise<string[]>
}

/** A feature, created fresh for each registration: its state lives in the factory's closure, never at module scope. */
export type FeatureFactory = () => Feature<any>

const isPlainObject = (r: unknown): r is Record<string, unknown> => typeof r === 'object' && r !== null

/**
 * A result the engine would refuse, per event (its declarations). A feature that answers one is
 * skipped like one that throws, so the refusal never reaches the engine: for `http.fetch`, a
 * local answer the engine cannot read would send the request on to the network (measured).
 */
const RESULT_CHECKS: { readonly [E in HookedEvent]?: (r: Record<string, unknown>) => boolean } = {
  'session.compact': (r) => Array.isArray(r.messages) || isString(r.skip),
  'tool.call': (r) => 'result' in r || isString(r.deny) || 'ref' in r,
  'prompt.compose': (r) => Array.isArray(r.sections),
  'http.fetch': (r) => isString(r.deny) || (isPlainObject(r.value) && typeof r.value.status === 'number' && isPlainObject(r.value.headers) && isString(r.value.text)),
  'agent.spawn': (r) => isString(r.model) || isString(r.deny),
  'session.receive': (r) => isString(r.text) || isString(r.consumed),
  'session.send': (r) => typeof r.isDelivered === 'boolean',
  'session.append': (r) => isPlainObject(r.message) || isString(r.deny),
  'turn.step': (r) => isString(r.turnId) && typeof r.index === 'number',
}

function isSettledShape<R>(event: HookedEvent, result: R): result is NonNullable<R> {
  // An object, and one the event's check passes where it has one.
  return isPlainObject(result) && (RESULT_CHECKS[event]?.(result) ?? true)
}

/** The features a dispatch leaves out, by name (a Set, or a Map keyed by name). */
export type LeftOut = { has(name: string): boolean }

const NEXT_TWICE = 'next() called twice'
const NO_ERROR = Symbol('no error')

type Entry = { feature: Feature<any>; run: (...args: never[]) => unknown; onFailure: PromisePolicy | StreamPolicy<StreamEvent> }

export function createRegistry(
  /** Every feature active in this package, outermost first. */
  features: readonly Feature<any>[],
  /** Where a skip is said: the debug log. */
  say: (line: string) => void,
) {
  /** Skips per feature, for the status command. */
  const skips = new Map<string, number>()
  /** Feature and event pairs whose last run was skipped: logged once until the feature succeeds again. */
  const failing = new Set<string>()
  /** Each feature's port, bound at the first dispatch of a load (`$` is one object per load). */
  let ports: Readonly<Record<string, unknown>> = {}
  let contexts: Readonly<Record<string, FeatureContext>> = {}
  /** The chain of each event for one set of left-out features, built once and reused. */
  const chains = new Map<string, readonly Entry[]>()
  let chainsLeavingOut: LeftOut | undefined

  function chainOf(event: HookedEvent, leftOut: LeftOut | undefined): readonly Entry[] {
    if (leftOut !== chainsLeavingOut) {
      chains.clear()
      chainsLeavingOut = leftOut
    }
    let chain = chains.get(event)
    if (!chain) {
      chain = features.flatMap((feature): Entry[] => {
        const spec = feature.hooks[event] as unknown
        if (spec === undefined || leftOut?.has(feature.name)) return []
        return [{ feature, onFailure: 'open', ...(typeof spec === 'function' ? { run: spec as Entry['run'] } : (spec as Pick<Entry, 'run' | 'onFailure'>)) }]
      })
      chains.set(event, chain)
    }
    return chain
  }

  /** The refusal a promise hook's policy gives for `e`; undefined where it fails open. */
  function denyOf<E extends PromiseEvent>(entry: Entry, e: Args<E>): string | undefined {
    const policy = entry.onFailure as PromisePolicy<E>
    if (policy === 'open') return
    return isString(policy.deny) ? policy.deny : policy.deny(e, contexts[entry.feature.name]!)
  }

  /** Counts a skip and says it in the debug log, once per feature and event until it succeeds again. */
  function noteSkip(feature: string, event: string, why: string): void {
    skips.set(feature, (skips.get(feature) ?? 0) + 1)
    const key = `${feature} ${event}`
    if (failing.has(key)) return
    failing.add(key)
    say(`${feature}: ${event} hook skipped (${why})`)
  }

  return {
    features,
    skips,
    /** Binds the features' ports and contexts for this load. */
    bind(boundPorts: Readonly<Record<string, unknown>>, boundContexts: Readonly<Record<string, FeatureContext>>): void {
      ports = boundPorts
      contexts = boundContexts
    },

    /** The events some active feature hooks: main.ts registers only these. */
    hooks(event: HookedEvent): boolean {
      return features.some((f) => f.hooks[event] !== undefined)
    },

    /**
     * Runs a promise `event` through each active feature's hook in turn, each `next` running the
     * features beneath it and then the engine. Features named in `leftOut` take no part.
     */
    dispatch<E extends PromiseEvent>(event: E, e: Args<E>, next: Next<E>, leftOut?: LeftOut): Promise<EventResult<E>> {
      const chain = chainOf(event, leftOut)
      /**
       * The failures that came up from the engine's `next` in this dispatch. A feature's own failure is
       * answered where it happened (skipped, or its guard's refusal) and never rejects a step, so a
       * rejection a step passes up is always one of these: a feature that fails with one passes it on
       * unchanged. Kept per dispatch, not per feature: one watch at the bottom instead of one per link.
       */
      let fromEngine: unknown[] | undefined
      const step = (i: number, input: Args<E>): Promise<EventResult<E>> => {
        const entry = chain[i]
        if (entry === undefined) {
          return (next(input) as Promise<EventResult<E>>).then(undefined, (err: unknown) => {
            ;(fromEngine ??= []).push(err)
            throw err
          })
        }
        const { name } = entry.feature
        let beneath: Promise<EventResult<E>> | undefined
        const featureNext = withFacts(next, (rewritten: Args<E>) => {
          if (beneath !== undefined) return Promise.reject(new Error(NEXT_TWICE))
          beneath = step(i + 1, rewritten)
          return beneath
        })
        const fail = (why: string): Promise<EventResult<E>> => {
          noteSkip(name, event, why)
          // A guard refuses in its place, where it had not let the call through.
          const deny = beneath === undefined ? denyOf(entry, input) : undefined
          if (deny !== undefined) return Promise.resolve({ deny } as EventResult<E>)
          // Before its next: as if absent. After: what its next settled to stands, nothing runs twice.
          return beneath ?? step(i + 1, input)
        }
        let answer: EventResult<E> | Promise<EventResult<E>>
        try {
          answer = (entry.run as PromiseHook<unknown, E>)(ports[name], input, featureNext, contexts[name]!)
        } catch (err) {
          return fail(describe(err))
        }
        return Promise.resolve(answer).then(
          (result) => {
            if (!isSettledShape(event, result)) return fail(wrongAnswer(result))
            if (failing.size) failing.delete(`${name} ${event}`)
            return result
          },
          // A failure that came up from beneath is not this feature's: it goes on up unchanged.
          (err) => (beneath !== undefined && fromEngine?.includes(err) ? Promise.reject(err) : fail(describe(err))),
        )
      }
      return step(0, e)
    },

    /**
     * Runs a streaming `event` through each active feature's `async function*` in turn, each `next`
     * the stream of the features beneath it and then the engine's. The failure rule, per feature: a
     * chunk already yielded stays; `open` goes on beneath (before its `next`) or passes on the rest
     * of the stream beneath (after it); `answer` ends the step with the feature's own answer and
     * never runs or reads what is beneath again. A failure from beneath passes through unchanged.
     */
    stream<E extends StreamEvent>(event: E, e: Args<E>, next: StreamNext<E>, leftOut?: LeftOut): AsyncGenerator<Chunk<E>, EventResult<E>> {
      const chain = chainOf(event, leftOut)
      async function* step(i: number, input: Args<E>): AsyncGenerator<Chunk<E>, EventResult<E>> {
        const entry = chain[i]
        if (entry === undefined) return yield* next(input)
        const { name } = entry.feature
        const policy = entry.onFailure as StreamPolicy<E>
        const ctx = contexts[name]!
        /** The stream beneath, once the feature asked for it, and what it returned once read to its end. */
        let beneath: AsyncGenerator<Chunk<E>, EventResult<E>> | undefined
        let beneathResult: { value: EventResult<E> } | undefined
        let beneathError: unknown = NO_ERROR
        const featureNext = withFacts(next, (rewritten: Args<E>) => {
          if (beneath !== undefined) throw new Error(NEXT_TWICE)
          const inner = step(i + 1, rewritten)
          beneath = inner
          // The hand-over notes what beneath returned or threw as it passes (no generator of its own: one
          // hop less per chunk and per feature).
          return handOver(inner, () => beneathResult, (value) => { beneathResult = { value } }, (err) => { beneathError = err })
        })
        let body: AsyncGenerator<Chunk<E>, EventResult<E> | void> | undefined
        let bodyDone = false
        let failure: string
        try {
          body = (entry.run as StreamHook<unknown, E>)(ports[name], input, featureNext, ctx)
          for (;;) {
            const r = await body.next()
            if (!r.done) {
              yield r.value
              continue
            }
            bodyDone = true
            const result = r.value ?? beneathResult?.value
            if (isSettledShape(event, result)) {
              if (failing.size) failing.delete(`${name} ${event}`)
              // A stream beneath the feature left unread would hold the engine's request open.
              if (beneath !== undefined && beneathResult === undefined && beneathError === NO_ERROR) await closeQuietly(beneath)
              return result
            }
            failure = wrongAnswer(result)
            break
          }
        } catch (err) {
          bodyDone = true
          if (err === beneathError && policy === 'open') throw err
          failure = describe(err)
        } finally {
          // The engine closed this stream (an Esc, an abort): the feature's body closes, and the stream beneath.
          if (!bodyDone) {
            await closeQuietly(body)
            if (beneath !== undefined && beneathResult === undefined) await closeQuietly(beneath)
          }
        }
        noteSkip(name, event, failure)
        if (policy !== 'open') {
          // Answered in its place: what beneath still streams is closed unread.
          await closeQuietly(beneath)
          return yield* policy.answer({ message: failure, calledNext: beneath !== undefined }, input, ctx)
        }
        if (beneath === undefined) return yield* step(i + 1, input)
        if (beneathResult !== undefined) return beneathResult.value
        // After its next, mid-stream: the rest beneath is passed on as it comes.
        return yield* beneath
      }
      return step(0, e)
    },

    /**
     * The answer for a step keel's hook failed at the engine level (main.ts's `.catch`), when a
     * feature with an answering policy owns it; undefined for any other step, which may go on beneath.
     */
    answerFor<E extends StreamEvent>(event: E, e: Args<E>, failure: Failure, leftOut?: LeftOut): AsyncGenerator<Chunk<E>, EventResult<E>> | undefined {
      for (const entry of chainOf(event, leftOut)) {
        const policy = entry.onFailure as StreamPolicy<E>
        if (policy !== 'open' && policy.owns?.(e)) return policy.answer(failure, e, contexts[entry.feature.name]!)
      }
      return
    },

    /** The refusal a guard's policy gives for a call when keel's hook failed at the engine; undefined: no feature refuses it. */
    denyFor<E extends PromiseEvent>(event: E, e: Args<E>, leftOut?: LeftOut): string | undefined {
      for (const entry of chainOf(event, leftOut)) {
        const deny = denyOf(entry, e)
        if (deny !== undefined) return deny
      }
      return
    },

    noteSkip,
  }
}

/** The hook chains of one package (createRegistry). */
export type Registry = ReturnType<typeof createRegistry>

/**
 * The stream beneath as a feature holds it: reading it reads the real one, but the feature leaving
 * its loop (a `for await` closes what it iterates, even on a throw) does not close the real one: the
 * registry decides, so a feature that fails mid-stream can leave the rest of the stream passed on.
 * `result` settles with what beneath returned once read to its end (the engine's HookStream shape).
 */
function handOver<C, R>(
  inner: AsyncGenerator<C, R>,
  settled: () => { value: R } | undefined,
  onDone: (value: R) => void,
  onError: (err: unknown) => void,
): AsyncGenerator<C, R> & { readonly result: Promise<R> } {
  let resolve!: (r: R) => void
  let reject!: (err: unknown) => void
  const result = new Promise<R>((res, rej) => ((resolve = res), (reject = rej)))
  result.catch(toUndefined)
  const watch = (p: Promise<IteratorResult<C, R>>) =>
    p.then(
      (r) => {
        if (r.done) {
          onDone(r.value)
          resolve(r.value)
        }
        return r
      },
      (err) => {
        onError(err)
        reject(err)
        throw err
      },
    )
  const held: AsyncGenerator<C, R> & { readonly result: Promise<R> } = {
    result,
    next: (...args: [] | [unknown]) => watch(inner.next(...(args as []))),
    throw: (err: unknown) => watch(inner.throw(err)),
    // Released, not closed: what beneath has not yet sent is the registry's to pass on or close.
    return: async (value?: R | PromiseLike<R>) => {
      const done = settled()
      if (!done) reject(new Error('the stream was left before its end'))
      return { done: true, value: (done ? done.value : await value) as R }
    },
    [Symbol.asyncIterator]() {
      return held
    },
  } as AsyncGenerator<C, R> & { readonly result: Promise<R> }
  return held
}

/**
 * A feature's `next`: `call`, carrying the engine's facts about the dispatch a feature may need (its
 * abort signal, budget and origin).
 */
function withFacts<N extends { signal: unknown; budget: unknown; origin: unknown }>(next: N, call: (...args: never[]) => unknown): N {
  return Object.assign(call, { signal: next.signal, budget: next.budget, origin: next.origin }) as unknown as N
}

/** Closes a stream (the body of a feature, or the stream beneath), its own failure to close ignored; nothing where there is none. */
const closeQuietly = (stream: AsyncGenerator<unknown, unknown> | undefined) => stream?.return(undefined).catch(toUndefined)

const wrongAnswer = (result: unknown) => (result === undefined ? 'answered undefined' : `answered a wrong shape: ${preview(result)}`)

function describe(err: unknown): string {
  return err instanceof Error ? `${err.name}: ${err.message}` : `threw ${preview(err)}`
}

function preview(value: unknown): string {
  const text = isString(value) ? value : JSON.stringify(value) ?? String(value)
  return text.length > 80 ? `${text.slice(0, 79)}…` : text
}
