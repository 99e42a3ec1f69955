// The claims the packages of the bundle publish for the session: which session-acting features
// each runs. They travel in one environment variable of the engine's process: `$.state` cannot carry
// them (a bundle shared by several packages may not name another package's state, even in a branch
// it never takes), while the process environment is one for every plugin the process loads.
// The value names the session it belongs to, so a `claude` started from a Bash tool, which inherits
// the variable, does not take its parent's claims for its own.
import type { EngineInterface } from 'claude-code'

export type Claims = Record<string, readonly string[] | undefined>

type Published = { session: string; claims: Claims }

/** Reads a published value; anything unreadable or of another session reads as no claims. */
export function parseClaims(raw: string | undefined, session: string): Claims {
  if (!raw) return {}
  try {
    const parsed = JSON.parse(raw) as Partial<Published>
    if (parsed.session !== session || typeof parsed.claims !== 'object' || parsed.claims === null) return {}
    const claims: Claims = {}
    for (const [pkg, features] of Object.entries(parsed.claims)) {
      if (Array.isArray(features)) claims[pkg] = features.filter((f): f is string => typeof f === 'string')
    }
    return claims
  } catch {
    return {}
  }
}

export function withClaim(claims: Claims, session: string, pkg: string, features: readonly string[]): string {
  return JSON.stringify({ session, claims: { ...claims, [pkg]: features } } satisfies Published)
}

export async function readClaims($: EngineInterface): Promise<Claims> {
  return parseClaims(await $.env.get('KEEL_CLAIMS'), await $.session.id())
}

/** Adds this package's claims to the others'. */
export async function publishClaims($: EngineInterface, features: readonly string[]): Promise<void> {
  const session = await $.session.id()
  const claims = parseClaims(await $.env.get('KEEL_CLAIMS'), session)
  await $.env.set('KEEL_CLAIMS', withClaim(claims, session, $.plugin.name, features))
}
