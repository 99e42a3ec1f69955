// Which features a package runs, and why: pure rules over the template manifest and the options.
import type { FieldDef } from './options.ts'

/**
 * A feature as the bundle reads it from plugin.json: build.mjs leaves out the texts and
 * `sessionActing` (the feature's own flag is the one read).
 */
export type FeatureDef = {
  userConfig?: Readonly<Record<string, FieldDef>>
}

/** A package's profile as the bundle reads it (its option defaults are the manifest's: build.mjs leaves them out). */
export type PackageProfile = {
  /** feature name -> on by default; a feature absent here is not carried by the package. */
  features: Readonly<Record<string, boolean>>
}

export type Template = {
  version: string
  packages: Readonly<Record<string, PackageProfile>>
  features: Readonly<Record<string, FeatureDef>>
}

/**
 * Every option field a copy of the bundle may receive: each feature's switch (named after the
 * feature) and its own fields. Which of them a package carries is read off the options it is given.
 */
export function allFields(template: Template): Record<string, FieldDef> {
  const fields: Record<string, FieldDef> = {}
  for (const [name, def] of Object.entries(template.features)) {
    fields[name] = { type: 'switch', default: false }
    Object.assign(fields, def.userConfig)
  }
  return fields
}

export type Activation = {
  feature: string
  /** The package's manifest declares the feature's switch. */
  carried: boolean
  on: boolean
  /** `profile` when the switch holds the package's default, `option` when the person changed it. */
  why: 'profile' | 'option' | 'not carried'
}

/**
 * A feature runs where the package's options carry its switch and it is on. The switch arrives with
 * the package's default filled in by the engine, so the options alone decide at register time; the
 * profile (known once `$.plugin.name` is) only explains why.
 */
export function activationOf(template: Template, raw: Readonly<Record<string, unknown>>, pkg: string, feature: string, on: boolean): Activation {
  if (!(feature in raw)) return { feature, carried: false, on: false, why: 'not carried' }
  const profileDefault = template.packages[pkg]?.features[feature]
  return { feature, carried: true, on, why: profileDefault === on ? 'profile' : 'option' }
}

/**
 * The package that already runs a session-acting feature in this session, from the claims the
 * others published (the first to claim a feature owns it: lib/runtime.ts). Should two claims ever
 * stand together, the first by name wins, so every copy names the same owner.
 */
export function ownerOf(feature: string, claims: Readonly<Record<string, readonly string[] | undefined>>): string | undefined {
  return Object.keys(claims).sort().find((pkg) => claims[pkg]?.includes(feature))
}
