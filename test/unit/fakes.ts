// Fakes of the engine's edges for unit tests: a port that records, a feature context as the
// runtime builds it, and a `next` standing for the engine.
import { CLAIMING_PACKAGES, claimText, type Claims } from '../../src/runtime/claims.ts'
import type { RuntimePort } from '../../src/runtime/bind.ts'
import { createFacts, type Facts } from '../../src/runtime/facts.ts'
import type { Feature, FeatureContext, HookedEvent } from '../../src/registry.ts'

export type FakePort = {
  /** A port for the runtime and, with overrides, for any feature: each feature reads only its own capabilities. */
  port: RuntimePort & Record<string, any> & any
  lines: string[]
  commands: string[]
  claims: Claims
  /** The session facts the runtime would keep, bound to this port's session id. */
  facts: Facts
  /** The context the runtime hands `feature`: its debug lines land in `lines`, prefixed as the runtime does. */
  ctx(feature: Pick<Feature<any>, 'name' | 'logPrefix'>, options?: FeatureContext['options'], over?: Partial<FeatureContext>): FeatureContext
}

/** A port that records debug lines and registered commands, over an in-memory claims table. */
export function fakePort(pkg = 'keel', overrides: Partial<RuntimePort> & Record<string, any> = {}): FakePort {
  const lines: string[] = []
  const commands: string[] = []
  const claims: Claims = {}
  const port = {
    pkg,
    log: (line: string) => void lines.push(line),
    registerCommand: async (spec: { name: string }) => void commands.push(spec.name),
    sessionId: async () => 'session-1',
    publishClaims: async (_session: string, features: readonly string[]) => void (claims[pkg] = features),
    // Published under the session the port reads now, as the variables would be.
    readClaims: async () => {
      const session = await port.sessionId()
      return CLAIMING_PACKAGES.map((p) => (claims[p] ? claimText(session, claims[p]!) : undefined))
    },
    clearClaims: async () => void delete claims[pkg],
    compactSession: async () => ({ messages: [] }),
    ownServer: async () => undefined,
    // The runtime's summary read: over the test's own fake usage (read when called: a test may swap it), where it gives one.
    summary: async () => ('usage' in overrides ? (port as unknown as { usage(): Promise<never> }).usage() : ({ context: { window: 200_000 } } as never)),
    ...overrides,
  } as FakePort['port']
  const facts = createFacts()
  facts.bind({ sessionId: () => port.sessionId(), ownServer: () => port.ownServer(), summary: () => port.summary() })
  const ctx: FakePort['ctx'] = (feature, options = {}, over = {}) => {
    const prefix = feature.logPrefix ? feature.logPrefix(pkg) : `${feature.name}: `
    return { pkg, options, defaults: {}, facts, log: (line) => void lines.push(prefix + line), compact: (i) => port.compactSession(i), ...over }
  }
  return { port, lines, commands, claims, facts, ctx }
}

/** A feature's hook as the registry runs it: the function itself, or a spec's `run`. */
export function hookOf(feature: Feature<any>, event: HookedEvent): (...args: any[]) => any {
  const spec = feature.hooks[event] as unknown
  if (spec === undefined) throw new Error(`${feature.name} does not hook ${event}`)
  return typeof spec === 'function' ? (spec as (...args: any[]) => any) : (spec as { run: (...args: any[]) => any }).run
}

/** The engine beneath the features: `answer` is what core settles to for the input it is given. */
export function fakeNext<R>(answer: (e: never) => R, facts: { signal?: AbortSignal } = {}): never {
  const next = async (e: never) => answer(e)
  return Object.assign(next, { signal: facts.signal ?? new AbortController().signal, budget: { ms: 10_000, remainingMs: 10_000 } }) as never
}

/** Lets work a hook started without awaiting it (fake edges resolve at once) run to its end. */
export async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve()
}

/** Waits for work that needs a macrotask (`crypto.subtle`'s digest): the unit layer is typed without Node's timers. */
export const macrotask = () => new Promise<void>((resolve) => (globalThis as unknown as { setTimeout(fn: () => void, ms: number): void }).setTimeout(resolve, 1))

/** Every hook of a feature, by event, as the registry runs it (`hooks['tool.call'](port, e, next, ctx)`). */
export function hooksOf(feature: Feature<any>): Partial<Record<HookedEvent, (...args: any[]) => any>> {
  return Object.fromEntries(Object.keys(feature.hooks).map((event) => [event, hookOf(feature, event as HookedEvent)]))
}
