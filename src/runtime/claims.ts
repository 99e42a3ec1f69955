// The claims the packages of the bundle publish for the session: which session-acting features
// each runs. They travel in environment variables of the engine's process, one per package:
// `$.state` cannot carry them (a bundle shared by several packages may not name another package's
// state, even in a branch it never takes), while the process environment is one for every plugin
// the process loads, and a package writing only its own variable needs no read-modify-write.
// Each value names the session it belongs to, so a `claude` started from a Bash tool, which inherits
// the variables, does not take its parent's claims for its own. Names must be literals (the loader's
// rule), so each package has its branch; a package this table does not know publishes nothing.
import type { EngineInterface } from 'claude-code'

export type Claims = Record<string, readonly string[] | undefined>

/** The packages with a claims variable of their own (below). */
export const CLAIMING_PACKAGES = ['keel', 'superheroes', 'ws', 'klyth'] as const

type Published = { session: string; features: readonly string[] }

/** Reads one published value; anything unreadable or of another session reads as no claim. */
export function parseClaim(raw: string | undefined, session: string): readonly string[] | undefined {
  if (!raw) return undefined
  try {
    const parsed = JSON.parse(raw) as Partial<Published>
    if (parsed.session !== session || !Array.isArray(parsed.features)) return undefined
    return parsed.features.filter((f): f is string => typeof f === 'string')
  } catch {
    return undefined
  }
}

export function claimText(session: string, features: readonly string[]): string {
  return JSON.stringify({ session, features } satisfies Published)
}

/** Sets (undefined: unsets) this package's claims variable; rejects when the environment refuses it. */
async function setClaimVariable($: EngineInterface, pkg: string, value: string | undefined): Promise<void> {
  let result: { deny?: string } | undefined
  switch (pkg) {
    case 'keel':
      result = await $.env.set('KEEL_CLAIMS_KEEL', value)
      break
    case 'superheroes':
      result = await $.env.set('KEEL_CLAIMS_SUPERHEROES', value)
      break
    case 'ws':
      result = await $.env.set('KEEL_CLAIMS_WS', value)
      break
    case 'klyth':
      result = await $.env.set('KEEL_CLAIMS_KLYTH', value)
      break
  }
  if (result?.deny) throw new Error(`the environment refused the claims variable: ${result.deny}`)
}

export function publishClaims($: EngineInterface, pkg: string, session: string, features: readonly string[]): Promise<void> {
  return setClaimVariable($, pkg, claimText(session, features))
}

/** Removes this package's claims: a package that claims nothing leaves no stale claim behind. */
export function clearClaims($: EngineInterface, pkg: string): Promise<void> {
  return setClaimVariable($, pkg, undefined)
}

async function rawClaim($: EngineInterface, pkg: string): Promise<string | undefined> {
  switch (pkg) {
    case 'keel':
      return $.env.get('KEEL_CLAIMS_KEEL')
    case 'superheroes':
      return $.env.get('KEEL_CLAIMS_SUPERHEROES')
    case 'ws':
      return $.env.get('KEEL_CLAIMS_WS')
    case 'klyth':
      return $.env.get('KEEL_CLAIMS_KLYTH')
    default:
      return undefined
  }
}

/** The claims variables of the named packages as published, read at once (beside the session id they are parsed against). */
export function readRawClaims($: EngineInterface, pkgs: readonly string[]): Promise<(string | undefined)[]> {
  return Promise.all(pkgs.map((pkg) => rawClaim($, pkg)))
}

/** The claims of the named packages in `session`; a package not loaded in this session reads as none. */
export function parseClaims(session: string, pkgs: readonly string[], raws: readonly (string | undefined)[]): Claims {
  return Object.fromEntries(pkgs.map((pkg, i) => [pkg, parseClaim(raws[i], session)]))
}
