// A package's runtime: which features run here, the registry that dispatches them, the claims that
// keep two packages of the bundle from both acting on a session, and the package command.
// main.ts binds each event to `dispatcher(event)`; everything here fails open.
import type { Args, CommandRunResult, EventResult, Next } from 'claude-code'
import { activationOf, allFields, ownerOf, type Template } from './activation.ts'
import { CLAIMING_PACKAGES } from './claims.ts'
import { formatStatus, parseCommandArgs, STATUS_VERB, unknownVerb, type FeatureRow } from './command.ts'
import { parseOptions, type Options } from './options.ts'
import { Registry, type Feature, type FeatureContext, type HookedEvent } from '../registry.ts'
import type { Port } from './port.ts'

export const COMMAND_DESCRIPTION = 'What this package runs and why; its verbs.'

export type Runtime = {
  readonly registry: Registry
  /** Whether some active feature hooks `event` (session.start is always hooked, for the runtime itself). */
  hooks(event: HookedEvent): boolean
  dispatch<E extends HookedEvent>(event: E, port: Port, e: Args<E>, next: Next<E>): Promise<EventResult<E>>
  command(port: Port, e: Args<'command.run'>, next: Next<'command.run'>): Promise<CommandRunResult>
}

export function createRuntime(features: readonly Feature[], template: Template, raw: Readonly<Record<string, unknown>>): Runtime {
  const { values: options, problems } = parseOptions(allFields(template), raw)
  const isOn = (f: Feature) => f.name in raw && options[f.name] === true
  const registry = new Registry(features.filter(isOn))
  const actingOn = registry.features.filter((f) => f.sessionActing).map((f) => f.name)
  /** feature -> the package that runs it instead; undefined until read for this session. */
  let yields: ReadonlyMap<string, string> | undefined
  let problemsLogged = false

  const contextOf = (port: Port): FeatureContext => ({ pkg: port.pkg, options })

  async function guarded<T>(port: Port, what: string, fallback: T, work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (err) {
      port.log(`keel: ${what} failed (${err instanceof Error ? err.message : String(err)})`)
      return fallback
    }
  }

  /** The session's id, read once per load (each read is a trip to the host). */
  let session: Promise<string> | undefined
  function sessionOf(port: Port): Promise<string> {
    if (!session) {
      session = port.sessionId()
      session.catch(() => (session = undefined)) // a failed read is tried again next time
    }
    return session
  }

  /**
   * Which of this package's session-acting features another package of the bundle already runs in
   * this session, read from the claims the others published. Read once per session: at session
   * start (claimsAtStart), or at the first event where no session start was seen.
   */
  async function yieldsOf(port: Port): Promise<ReadonlyMap<string, string>> {
    if (yields) return yields
    const found = new Map<string, string>()
    const others = CLAIMING_PACKAGES.filter((pkg) => pkg !== port.pkg)
    if (actingOn.length) {
      const claims = await guarded(port, 'reading the other packages\' claims', {}, async () => port.readClaims(await sessionOf(port), others))
      for (const feature of actingOn) {
        const owner = ownerOf(feature, claims)
        if (owner !== undefined) {
          found.set(feature, owner)
          port.log(`${feature}: yields to ${owner}, which runs it in this session`)
        }
      }
    }
    yields = found
    return found
  }

  /**
   * The runtime's own start. The rule that keeps two packages of the bundle from both running a
   * session-acting feature is "the first to claim it owns it": this package reads the claims
   * already published in this session, yields what another package claimed, and claims the rest,
   * before any feature's session-start work (a tool registered, a file written) runs. The engine
   * raises session.start as one dispatch through every plugin, outermost first, so the outer
   * package has claimed before the inner one reads, and both copies agree on the owner.
   */
  async function claimAtStart(port: Port): Promise<ReadonlyMap<string, string>> {
    if (!problemsLogged) {
      problemsLogged = true
      for (const problem of problems) port.log(`keel: ${problem}`)
    }
    // A (re)start may follow a change of options in another package: read the claims afresh.
    yields = undefined
    session = undefined
    const yielded = await yieldsOf(port)
    const owned = actingOn.filter((feature) => !yielded.has(feature))
    if (owned.length) await guarded(port, 'publishing claims', undefined, async () => port.publishClaims(await sessionOf(port), owned))
    return yielded
  }

  async function registerCommand(port: Port): Promise<void> {
    await guarded(port, 'registering the package command', undefined, async () => {
      await port.registerCommand({ name: port.pkg, description: COMMAND_DESCRIPTION, argumentHint: usages().join(' | ') })
    })
  }

  async function dispatch<E extends HookedEvent>(event: E, port: Port, e: Args<E>, next: Next<E>): Promise<EventResult<E>> {
    const ctx = contextOf(port)
    if (event === 'session.start') {
      const startFeatures = async () => registry.dispatch(event, port, e, next, ctx, await claimAtStart(port))
      const [, result] = await Promise.all([registerCommand(port), startFeatures()])
      return result
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
    return formatStatus(ctx.pkg, template.version, rows, problems)
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
    hooks: (event) => event === 'session.start' || registry.hooks(event),
    dispatch,
    command,
  }
}

