// A package's runtime: which features run here, the registry that dispatches them, the claims that
// keep two packages of the bundle from both acting on a session, and the package command.
// main.ts binds each event to `dispatcher(event)`; everything here fails open.
import type { Args, CommandRunResult, EventResult, Next, SessionCompactResult } from 'claude-code'
import { activationOf, allFields, ownerOf, type Template } from './activation.ts'
import { CLAIMING_PACKAGES, type Claims } from './claims.ts'
import { formatStatus, parseCommandArgs, STATUS_VERB, unknownVerb, type FeatureRow } from './command.ts'
import { messageOf } from './message.ts'
import { parseOptions } from './options.ts'
import { Registry, type Feature, type FeatureContext, type HookedEvent } from '../registry.ts'
import type { Port } from './port.ts'

export const COMMAND_DESCRIPTION = 'What this package runs and why; its verbs.'

export type Runtime = {
  readonly registry: Registry
  /** Whether some active feature hooks `event` (session.start is always hooked, for the runtime itself). */
  hooks(event: HookedEvent): boolean
  dispatch<E extends HookedEvent>(event: E, port: Port, e: Args<E>, next: Next<E>): Promise<EventResult<E>>
  /**
   * A compaction a feature asks for (from a timer, a tool, a verb), run through this package's own
   * session.compact chain before the engine's: measured on 2.1.328, the engine does not raise a
   * plugin's own hooks for a compaction its timer asked for ("skipped: re-entry"), so without this
   * the other features would neither steer nor hear it.
   */
  compact(port: Port, instructions: string | undefined, engineCompact: Port['compactSession']): Promise<SessionCompactResult>
  command(port: Port, e: Args<'command.run'>, next: Next<'command.run'>): Promise<CommandRunResult>
}

export function createRuntime(features: readonly Feature[], template: Template, raw: Readonly<Record<string, unknown>>): Runtime {
  const { values: options, problems } = parseOptions(allFields(template), raw)
  const isOn = (f: Feature) => f.name in raw && options[f.name] === true
  const registry = new Registry(features.filter(isOn))
  /** The session-acting features this package would run with its options: the ones it claims. */
  const actingOn = registry.features.filter((f) => f.sessionActing && (f.actsWith?.(options) ?? true)).map((f) => f.name)
  /** feature -> the package that runs it instead; undefined until read for this session. */
  let yields: ReadonlyMap<string, string> | undefined
  /** What this package claims, and whether a /clear left that claim stamped with the old session id. */
  let owned: readonly string[] = []
  let restamp = false
  /** Why this package's claims could not be published, for the status. */
  let claimProblem: string | undefined
  let problemsLogged = false

  const contextOf = (port: Port): FeatureContext => ({ pkg: port.pkg, options })

  async function guarded<T>(port: Port, what: string, fallback: T, work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (err) {
      port.log(`keel: ${what} failed (${messageOf(err)})`)
      return fallback
    }
  }

  /** The session's id, read once per session (each read is a trip to the host). */
  let session: Promise<string> | undefined
  function sessionOf(port: Port): Promise<string> {
    if (!session) {
      session = port.sessionId()
      session.catch(() => (session = undefined)) // a failed read is tried again next time
    }
    return session
  }

  /** Every package's claims in this session, this one's included (to tell a stale claim of its own). */
  async function readAllClaims(port: Port): Promise<Claims> {
    if (!actingOn.length) return {}
    return guarded(port, 'reading the packages\' claims', {}, async () => port.readClaims(await sessionOf(port), CLAIMING_PACKAGES))
  }

  function yieldsFrom(port: Port, claims: Claims): ReadonlyMap<string, string> {
    const others = Object.fromEntries(Object.entries(claims).filter(([pkg]) => pkg !== port.pkg))
    const found = new Map<string, string>()
    for (const feature of actingOn) {
      const owner = ownerOf(feature, others)
      if (owner === undefined) continue
      found.set(feature, owner)
      port.log(`${feature}: yields to ${owner}, which runs it in this session`)
    }
    return found
  }

  /** Which features another package runs, read once per session (at its start, or at the first event). */
  async function yieldsOf(port: Port): Promise<ReadonlyMap<string, string>> {
    yields ??= yieldsFrom(port, await readAllClaims(port))
    return yields
  }

  async function publish(port: Port): Promise<void> {
    try {
      await port.publishClaims(await sessionOf(port), owned)
      claimProblem = undefined
    } catch (err) {
      claimProblem = `claims not published (${messageOf(err)}): another keel package in this session may run the same features`
      port.log(`keel: ${claimProblem}`)
    }
  }

  /**
   * The runtime's own start. The rule that keeps two packages of the bundle from both running a
   * session-acting feature is "the first to claim it owns it": this package reads the claims
   * already published in this session, yields what another package claimed, and claims the rest,
   * before any feature's session-start work (a tool registered, a file written) runs. The engine
   * raises session.start as one dispatch through every plugin, outermost first, so the outer
   * package has claimed before the inner one reads, and both copies agree on the owner. A package
   * whose claim changed (a reload with other options) publishes again, and one that claims nothing
   * clears its variable, so a feature it gave up is not left claimed by a package that does not run it.
   */
  async function claimAtStart(port: Port): Promise<ReadonlyMap<string, string>> {
    if (!problemsLogged) {
      problemsLogged = true
      for (const problem of problems) port.log(`keel: ${problem}`)
    }
    session = undefined
    restamp = false
    if (!actingOn.length) {
      // Nothing to claim: clear what an earlier load of this package may have claimed (one write, no read).
      await guarded(port, 'clearing claims', undefined, () => port.clearClaims())
      yields = new Map()
      return yields
    }
    const claims = await readAllClaims(port)
    yields = yieldsFrom(port, claims)
    owned = actingOn.filter((feature) => !yields!.has(feature))
    const published = claims[port.pkg] ?? []
    if (owned.length !== published.length || owned.some((f) => !published.includes(f))) await publish(port)
    return yields
  }

  async function registerCommand(port: Port): Promise<void> {
    await guarded(port, 'registering the package command', undefined, async () => {
      await port.registerCommand({ name: port.pkg, description: COMMAND_DESCRIPTION, argumentHint: usages().join(' | ') })
    })
  }

  /** The compaction a feature asked for, while it runs: a second request joins it (compact, below). */
  let compacting: Promise<SessionCompactResult> | undefined
  /** The instructions that compaction reached the engine with: how its own re-raise is told apart. */
  let compactingWith: { instructions: string | undefined } | undefined

  function compact(port: Port, instructions: string | undefined, engineCompact: Port['compactSession']): Promise<SessionCompactResult> {
    // Two features asking at once (the lever during the checkpoint's turn) get one compaction, not two.
    compacting ??= (async () => {
      const e = { trigger: 'plugin', messages: [], ...(instructions === undefined ? {} : { instructions }) } as unknown as Args<'session.compact'>
      const engine = ((steered: Args<'session.compact'>) => {
        compactingWith = { instructions: steered.instructions }
        return engineCompact(steered.instructions)
      }) as unknown as Next<'session.compact'>
      try {
        return (await registry.dispatch('session.compact', port, e, engine, contextOf(port), yields ?? (await yieldsOf(port)))) as SessionCompactResult
      } finally {
        compacting = undefined
        compactingWith = undefined
      }
    })()
    return compacting
  }

  /** The engine raising this plugin's hook for the compaction compact() is running (a call made inside a hook). */
  function isOwnReRaise(e: Args<'session.compact'>): boolean {
    return compactingWith !== undefined && e.trigger === 'plugin' && e.agentId === undefined && e.instructions === compactingWith.instructions
  }

  async function dispatch<E extends HookedEvent>(event: E, port: Port, e: Args<E>, next: Next<E>): Promise<EventResult<E>> {
    // Where the engine does raise this plugin's hooks for its own compaction (a call made inside a
    // hook), the chain has already run around it in compact(): pass that one through untouched. Any
    // other compaction meanwhile (auto, a precompute, a subagent's) goes through the chain as ever.
    if (event === 'session.compact' && isOwnReRaise(e as Args<'session.compact'>)) return next(e) as Promise<EventResult<E>>
    const ctx = contextOf(port)
    if (event === 'session.start') {
      const startFeatures = async () => registry.dispatch(event, port, e, next, ctx, await claimAtStart(port))
      const [, result] = await Promise.all([registerCommand(port), startFeatures()])
      return result
    }
    const ending = event === 'session.end' ? (e as Args<'session.end'>).reason : undefined
    if (ending === 'clear' || ending === 'resume') {
      // The process goes on under a new session id, with no session.start: the claims follow it at the
      // next event, off that event's path (publish logs its own failure).
      session = undefined
      restamp = owned.length > 0
    } else if (restamp) {
      restamp = false
      void publish(port)
    }
    const yielded = yields ?? (await yieldsOf(port))
    return registry.dispatch(event, port, e, next, ctx, yielded)
  }

  function usages(): string[] {
    const verbs = registry.features.flatMap((f) => Object.values(f.verbs ?? {}).map((v) => v.usage))
    return [STATUS_VERB, ...verbs]
  }

  async function statusText(port: Port): Promise<string> {
    const ctx = contextOf(port)
    const yielded = await yieldsOf(port)
    const rows: FeatureRow[] = []
    for (const f of features) {
      const fieldKeys = Object.keys(template.features[f.name]?.userConfig ?? {})
      const lines = isOn(f) && f.status ? await guarded(port, `${f.name} status`, ['(status unavailable: see the debug log)'], async () => f.status!(port, ctx)) : []
      rows.push({
        ...activationOf(template, raw, ctx.pkg, f.name, isOn(f)),
        yieldsTo: yielded.get(f.name),
        options: Object.fromEntries(fieldKeys.filter((k) => k in raw).map((k) => [k, options[k]])),
        skips: registry.skips.get(f.name) ?? 0,
        lines,
      })
    }
    return formatStatus(ctx.pkg, template.version, rows, claimProblem ? [...problems, claimProblem] : problems)
  }

  async function command(port: Port, e: Args<'command.run'>, next: Next<'command.run'>): Promise<CommandRunResult> {
    if (e.command !== port.pkg) return next(e)
    const ctx = contextOf(port)
    const { verb, rest } = parseCommandArgs(e.args)
    if (verb === STATUS_VERB) return { text: await statusText(port) }
    const owner = registry.features.find((f) => f.verbs?.[verb])
    const handler = owner?.verbs?.[verb]
    if (!owner || !handler) return { text: unknownVerb(port.pkg, verb, usages()) }
    const text = await guarded(port, `/${port.pkg} ${verb}`, `/${port.pkg} ${verb} failed; the debug log says why.`, async () => handler.run(port, rest, ctx))
    return { text }
  }

  return {
    registry,
    // session.end too where the package claims something: a /clear moves its claims to the new session.
    hooks: (event) => event === 'session.start' || registry.hooks(event) || (event === 'session.end' && actingOn.length > 0),
    dispatch,
    compact,
    command,
  }
}

