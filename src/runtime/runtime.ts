// A package's runtime: which features run here (activation.ts), the registry that dispatches them,
// the claims that keep two packages of the bundle from both acting on a session (claims.ts), the
// session facts every feature shares (facts.ts), the compaction relay (compaction.ts) and the
// package command (command.ts). main.ts hands every event to `dispatch`/`stream`; everything here
// fails open, but a stream a feature answers the failure of (routing's).
import type { Args, Caught, Chunk, CommandRunResult, EventResult, Next, RenderComponent, SessionCompactResult, StreamNext } from 'claude-code'
import { activationOf, allFields, ownerOf, type Template } from './activation.ts'
import { CLAIMING_PACKAGES, parseClaims, type Claims } from './claims.ts'
import { formatStatus, parseCommandArgs, STATUS_VERB, unknownVerb, type FeatureRow } from './command.ts'
import { createRelay } from './compaction.ts'
import { createFacts } from './facts.ts'
import { parseOptions } from './options.ts'
import type { RuntimePort } from './bind.ts'
import { messageOf } from '../lib/message.ts'
import { createRegistry, type Feature, type Registry, type FeatureContext, type FeatureFactory, type PromiseEvent, type StreamEvent } from '../registry.ts'

/** The events the runtime keeps the shared facts on (noteBefore, dispatch). */
const FACT_EVENTS: readonly string[] = ['session.end', 'turn.start', 'turn.complete']

export const COMMAND_DESCRIPTION = 'What this package runs and why; its verbs.'

export type Runtime = {
  readonly registry: Registry
  /** Whether some active feature hooks `event` (session.start is always hooked, for the runtime itself). */
  hooks(event: PromiseEvent | StreamEvent): boolean
  /** The engine commands some active feature hears at `command.run`. */
  readonly engineCommands: readonly string[]
  /** Every active feature that hooks `prompt.submit` needs only the prompts plugins submit (Feature.pluginPromptsOnly). */
  readonly pluginPromptsOnly: boolean
  /** The components the active features draw at `ui.render` (Feature.draws). */
  readonly drawn: readonly RenderComponent[]
  /** Binds this load's ports: the runtime's and each feature's (`$` is one object per load). */
  bind(port: RuntimePort, featurePorts: Readonly<Record<string, unknown>>): void
  readonly isBound: boolean
  dispatch<E extends PromiseEvent>(event: E, e: Args<E>, next: Next<E>): Promise<EventResult<E>>
  /**
   * A stream event through the features; or, where keel's stream hook failed at the engine (its
   * `.catch`, whose next carries the `error`), a step an answering feature owns answered by it and
   * any other gone on beneath, as the engine would have done.
   */
  stream<E extends StreamEvent>(event: E, e: Args<E>, next: StreamNext<E> & Partial<Caught>): AsyncGenerator<Chunk<E>, EventResult<E>>
  /**
   * keel's guard hook failed at the engine (its `.catch`: the budget, a throw past the registry): a
   * feature whose policy refuses this call refuses it; any other call goes on (`next` replays what
   * the hook's own call settled to, so nothing runs twice).
   */
  guardFailed<E extends PromiseEvent>(event: E, e: Args<E>, next: Next<E> & Caught): Promise<EventResult<E>>
  /** The package's own command, `/<pkg> <verb> <args>`. */
  command(e: Args<'command.run'>, next: Next<'command.run'>): Promise<CommandRunResult>
}

export function createRuntime(factories: readonly FeatureFactory[], template: Template, raw: Readonly<Record<string, unknown>>): Runtime {
  const fields = allFields(template)
  const { values: options, problems, defaults } = parseOptions(fields, raw)
  // Each registration makes its features afresh: a reload, or a second register in one process, starts clean.
  const all = factories.map((make) => make())
  // A switch the options do not carry reads as its default, off: so a feature runs only where its package carries it.
  const isOn = (f: Feature<any>) => options[f.name] === true
  let port: RuntimePort | undefined
  /** The package's name (`port.pkg`), once bound. */
  let pkg = ''
  const log = (line: string) => port?.log(line)
  const registry = createRegistry(all.filter(isOn), log)
  const facts = createFacts()
  const relay = createRelay(facts)
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

  const bound = (): RuntimePort => {
    if (!port) throw new Error('the runtime is used before its first dispatch bound it')
    return port
  }

  async function guarded<T>(what: string, fallback: T, work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (err) {
      log(`keel: ${what} failed (${messageOf(err)})`)
      return fallback
    }
  }

  const contextOf = (feature: Feature<any>): FeatureContext => {
    const prefix = feature.logPrefix ? feature.logPrefix(pkg) : `${feature.name}: `
    return {
      pkg,
      options,
      defaults,
      facts,
      log: (line) => log(prefix + line),
      // A feature's compaction: the package's own chain around the engine's, stamped with the feature.
      compact: (instructions) => relay.compact(feature.name, instructions, async (e, engine) => (await registry.dispatch('session.compact', e, engine, yields ?? (await yieldsOf()))) as SessionCompactResult, bound().compactSession),
    }
  }

  /** Every package's claims in this session, this one's included (to tell a stale claim of its own). */
  async function readAllClaims(): Promise<Claims> {
    if (!actingOn.length) return {}
    return guarded('reading the packages\' claims', {}, async () => {
      // Read beside the session id (one host trip less on the start's path), parsed against it.
      const [session, raws] = await Promise.all([facts.sessionId(), bound().readClaims()])
      return parseClaims(session, CLAIMING_PACKAGES, raws)
    })
  }

  function yieldsFrom(claims: Claims): ReadonlyMap<string, string> {
    // This package's own claim names no owner other than itself.
    const others = { ...claims, [pkg]: undefined }
    const found = new Map<string, string>()
    for (const feature of actingOn) {
      const owner = ownerOf(feature, others)
      if (owner === undefined) continue
      found.set(feature, owner)
      log(`${feature}: yields to ${owner}, which runs it in this session`)
    }
    return found
  }

  /** Which features another package runs, read once per session (at its start, or at the first event). */
  async function yieldsOf(): Promise<ReadonlyMap<string, string>> {
    return (yields ??= yieldsFrom(await readAllClaims()))
  }

  async function publish(): Promise<void> {
    try {
      await bound().publishClaims(await facts.sessionId(), owned)
      claimProblem = undefined
    } catch (err) {
      claimProblem = `claims not published (${messageOf(err)}): another keel package in this session may run the same features`
      log(`keel: ${claimProblem}`)
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
  async function claimAtStart(): Promise<ReadonlyMap<string, string>> {
    if (!problemsLogged) {
      problemsLogged = true
      for (const problem of problems) log(`keel: ${problem}`)
    }
    restamp = false
    if (!actingOn.length) {
      // Nothing to claim: clear what an earlier load of this package may have claimed (one write, no read).
      await guarded('clearing claims', undefined, () => bound().clearClaims())
      return (yields = new Map())
    }
    const claims = await readAllClaims()
    yields = yieldsFrom(claims)
    owned = actingOn.filter((feature) => !yields!.has(feature))
    const published = claims[pkg] ?? []
    if (owned.length !== published.length || owned.some((f) => !published.includes(f))) await publish()
    return yields
  }

  function usages(): string[] {
    return [STATUS_VERB, ...registry.features.flatMap((f) => Object.values(f.verbs ?? {}).map((v) => v.usage))]
  }

  async function registerCommand(): Promise<void> {
    const p = bound()
    await guarded('registering the package command', undefined, async () => {
      await p.registerCommand({ name: pkg, description: COMMAND_DESCRIPTION, argumentHint: usages().join(' | ') })
    })
  }

  /** Keeps the shared facts current, before the features hear the event (and after, for an end). */
  function noteBefore<E extends PromiseEvent>(event: E, e: Args<E>): void {
    if (event === 'turn.start') facts.turnStarted((e as Args<'turn.start'>).agentId)
    else if (event === 'session.end') {
      // A process that goes on under a new session id, with no session.start: the claims follow it at
      // the next event, off that event's path (publish logs its own failure).
      if (facts.sessionEnded((e as Args<'session.end'>).reason)) restamp = owned.length > 0
    } else if (restamp) {
      restamp = false
      void publish()
    }
  }

  async function dispatch<E extends PromiseEvent>(event: E, e: Args<E>, next: Next<E>): Promise<EventResult<E>> {
    // Where the engine does raise this plugin's hooks for its own compaction (a call made inside a
    // hook), the chain has already run around it in the relay: pass that one through untouched.
    if (event === 'session.compact' && relay.isOwnReRaise(e as Args<'session.compact'>)) return next(e) as Promise<EventResult<E>>
    if (event === 'session.start') {
      const startFeatures = async () => registry.dispatch(event, e, next, await claimAtStart())
      const [, result] = await Promise.all([registerCommand(), startFeatures()])
      return result
    }
    noteBefore(event, e)
    try {
      return await registry.dispatch(event, e, next, yields ?? (await yieldsOf()))
    } finally {
      if (event === 'turn.complete') facts.turnEnded((e as Args<'turn.complete'>).agentId)
    }
  }

  async function* stream<E extends StreamEvent>(event: E, e: Args<E>, next: StreamNext<E> & Partial<Caught>): AsyncGenerator<Chunk<E>, EventResult<E>> {
    if (next.error) {
      // keel's `.catch`: the feature that owns the step answers it, or the step goes on beneath.
      const answer = registry.answerFor(event, e, { message: failedAtEngine(event, next), calledNext: true }, yields)
      return yield* answer ?? next(e)
    }
    return yield* registry.stream(event, e, next, yields ?? (await yieldsOf()))
  }

  /** Says in the debug log that keel's hook failed at the engine (its `.catch` runs); the failure's message. */
  function failedAtEngine(event: string, next: Partial<Caught>): string {
    const message = String(next.error?.message ?? 'failed')
    log(`keel: ${event} failed at the engine (${message})`)
    return message
  }

  async function guardFailed<E extends PromiseEvent>(event: E, e: Args<E>, next: Next<E> & Caught): Promise<EventResult<E>> {
    failedAtEngine(event, next)
    const deny = registry.denyFor(event, e, yields)
    return deny === undefined ? (next(e) as Promise<EventResult<E>>) : ({ deny } as EventResult<E>)
  }

  async function statusText(): Promise<string> {
    const yielded = await yieldsOf()
    const rows: FeatureRow[] = []
    for (const f of all) {
      const { name } = f
      const fieldKeys = Object.keys(template.features[name]?.userConfig ?? {})
      const lines = isOn(f) && f.status ? await guarded(`${name} status`, ['(status unavailable: see the debug log)'], async () => f.status!(featurePorts[name], contextOf(f))) : []
      rows.push({
        ...activationOf(template, raw, pkg, name, isOn(f)),
        yieldsTo: yielded.get(name),
        options: Object.fromEntries(fieldKeys.filter((k) => k in raw).map((k) => [k, options[k]])),
        skips: registry.skips.get(name) ?? 0,
        lines,
      })
    }
    return formatStatus(pkg, template.version, rows, claimProblem ? [...problems, claimProblem] : problems)
  }

  async function command(e: Args<'command.run'>, next: Next<'command.run'>): Promise<CommandRunResult> {
    if (e.command !== pkg) return next(e)
    const { verb, rest } = parseCommandArgs(e.args)
    if (verb === STATUS_VERB) return { text: await statusText() }
    const owner = registry.features.find((f) => f.verbs?.[verb])
    const handler = owner?.verbs?.[verb]
    if (!handler) return { text: unknownVerb(pkg, verb, usages()) }
    const text = await guarded(`/${pkg} ${verb}`, `/${pkg} ${verb} failed; the debug log says why.`, async () => handler.run(featurePorts[owner!.name], rest, contextOf(owner!)))
    return { text }
  }

  let featurePorts: Readonly<Record<string, unknown>> = {}
  const engineCommands = [...new Set(registry.features.flatMap((f) => f.commands ?? []))]

  return {
    registry,
    // The facts' events too wherever a feature is on: whether a main turn runs, the turns so far and the
    // turn's summary read are kept here for every feature (reconnect holds its report on them without
    // hooking turn.start), and a /clear moves the claims.
    hooks: (event) => event === 'session.start' || registry.hooks(event) || (FACT_EVENTS.includes(event) && registry.features.length > 0),
    engineCommands,
    pluginPromptsOnly: registry.features.every((f) => !f.hooks['prompt.submit'] || f.pluginPromptsOnly),
    drawn: registry.features.flatMap((f) => f.draws ?? []),
    bind(runtimePort, ports) {
      port = runtimePort
      pkg = runtimePort.pkg
      featurePorts = ports
      facts.bind(runtimePort)
      registry.bind(ports, Object.fromEntries(registry.features.map((f) => [f.name, contextOf(f)])))
    },
    get isBound() {
      return port !== undefined
    },
    dispatch,
    stream,
    guardFailed,
    command,
  }
}
