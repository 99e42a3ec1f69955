// The claims the packages of the bundle publish for the session: which session-acting features
// each runs. They travel in environment variables of the engine's process, one per package:
// `$.state` cannot carry them (a bundle shared by several packages may not name another package's
// state, even in a branch it never takes), while the process environment is one for every plugin
// the process loads, and a package writing only its own variable needs no read-modify-write.
// Each value names the session it belongs to, so a `claude` started from a Bash tool, which inherits
// the variables, does not take its parent's claims for its own. The variables are set and read in
// runtime/bind.ts (names must be literals, the loader's rule: each package has its branch there).
import { parseJson, isString } from '../lib/shape.ts'

export type Claims = Record<string, readonly string[] | undefined>

/** The packages with a claims variable of their own (runtime/bind.ts). */
export const CLAIMING_PACKAGES = ['keel', 'superheroes', 'ws', 'klyth'] as const

type Published = { session: string; features: readonly string[] }

/** Reads one published value; anything unreadable or of another session reads as no claim. */
export function parseClaim(raw: string | undefined, session: string): readonly string[] | undefined {
  const parsed = parseJson(raw ?? '') as Partial<Published> | null | undefined
  if (parsed?.session !== session || !Array.isArray(parsed.features)) return
  return parsed.features.filter((f): f is string => isString(f))
}

export function claimText(session: string, features: readonly string[]): string {
  return JSON.stringify({ session, features } satisfies Published)
}

/** What setting a claims variable answered (runtime/bind.ts): the environment's refusal rejects. */
export function claimSettled(result: { deny?: string } | undefined): void {
  if (result?.deny) throw new Error(`the environment refused the claims variable: ${result.deny}`)
}

/** The claims of the named packages in `session`; a package not loaded in this session reads as none. */
export function parseClaims(session: string, pkgs: readonly string[], raws: readonly (string | undefined)[]): Claims {
  return Object.fromEntries(pkgs.map((pkg, i) => [pkg, parseClaim(raws[i], session)]))
}
