// A package's runtime: which features run here, the registry that dispatches them, the claims that
// keep two packages of the bundle from both acting on a session, and the package command.
// main.ts binds each event to `dispatcher(event)`; everything here fails open.
import type { Args, CommandRunResult, EventResult, Next } from 'claude-code'
import { activationOf, allFields, ownerOf, ranksAbove, type Template } from './activation.ts'
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

  async function yieldsOf(port: Port): Promise<ReadonlyMap<string, string>> {
    if (yields) return yields
    const found = new Map<string, string>()
    const above = ranksAbove(template.precedence, port.pkg)
    if (actingOn.length && above.length) {
      const claims = await guarded(port, 'reading the other packages\' claims', {}, async () => port.readClaims(await sessionOf(port), above))
      for (const feature of actingOn) {
        const owner = ownerOf(feature, template.precedence, port.pkg, claims)
        if (owner !== port.pkg) {
          found.set(feature, owner)
          port.log(`${feature}: yields to ${owner}, which runs it in this session`)
        }
      }
    }
    yields = found
    return found
  }

  /** The runtime's own start: claims and the package command. It runs beside the features' chain. */
  async function startSession(port: Port): Promise<void> {
    if (!problemsLogged) {
      problemsLogged = true
      for (const problem of problems) port.log(`keel: ${problem}`)
    }
    // A (re)start may follow a change of options in another package: read the claims afresh.
    yields = undefined
    session = undefined
    await Promise.all([
      actingOn.length && guarded(port, 'publishing claims', undefined, async () => port.publishClaims(await sessionOf(port), actingOn)),
      guarded(port, 'registering the package command', undefined, async () => {
        await port.registerCommand({ name: port.pkg, description: COMMAND_DESCRIPTION, argumentHint: usages().join(' | ') })
      }),
    ])
  }

  async function dispatch<E extends HookedEvent>(event: E, port: Port, e: Args<E>, next: Next<E>): Promise<EventResult<E>> {
    const ctx = contextOf(port)
    if (event === 'session.start') {
      const [, result] = await Promise.all([startSession(port), registry.dispatch(event, port, e, next, ctx)])
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

