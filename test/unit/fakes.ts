// Fakes of the engine's edges for unit tests: a port that records, and a `next` standing for the engine.
import type { Claims } from '../../src/lib/claims.ts'
import type { Port } from '../../src/lib/port.ts'

export type FakePort = { port: Port; lines: string[]; commands: string[]; claims: Claims }

/** A port that records debug lines and registered commands, over an in-memory claims table. */
export function fakePort(pkg = 'keel', overrides: Partial<Port> = {}): FakePort {
  const lines: string[] = []
  const commands: string[] = []
  const claims: Claims = {}
  const port = {
    pkg,
    log: (line: string) => void lines.push(line),
    registerCommand: async (spec: { name: string }) => void commands.push(spec.name),
    sessionId: async () => 'session-1',
    publishClaims: async (_session: string, features: readonly string[]) => void (claims[pkg] = features),
    readClaims: async (_session: string, pkgs: readonly string[]) => Object.fromEntries(pkgs.map((p) => [p, claims[p]])),
    clearClaims: async () => void delete claims[pkg],
    ...overrides,
  } as Port
  return { port, lines, commands, claims }
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
