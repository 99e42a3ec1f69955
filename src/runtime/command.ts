// The package command `/<pkg> <verb> <args>`: parsing and the status text. Pure.
import type { Activation } from './activation.ts'

export const STATUS_VERB = 'status'

/** The first word, in lower case (none: the status), and the rest, trimmed. */
export function parseCommandArgs(args: string): { verb: string; rest: string } {
  const [, verb = '', rest = ''] = /^(\S*)\s*([\s\S]*)$/.exec(args.trim())!
  return { verb: verb.toLowerCase() || STATUS_VERB, rest }
}

export function unknownVerb(pkg: string, verb: string, usages: readonly string[]): string {
  return `/${pkg}: unknown verb "${verb}". Usage:\n${usages.map((u) => `  /${pkg} ${u}`).join('\n')}`
}

export type FeatureRow = Activation & {
  /** The package that runs this session-acting feature instead of this one, when another does. */
  yieldsTo?: string
  options: Readonly<Record<string, unknown>>
  skips: number
  lines: readonly string[]
}

/** A carried feature's state. */
function stateOf(row: FeatureRow): string {
  if (!row.on) return `off (${row.why})`
  if (row.yieldsTo) return `on (${row.why}), yields to ${row.yieldsTo}, which runs it in this session`
  return `runs (${row.why})`
}

export function formatStatus(pkg: string, version: string, rows: readonly FeatureRow[], problems: readonly string[]): string {
  const out = [`${pkg} ${version}`]
  const carried = rows.filter((r) => r.carried)
  if (!carried.length) out.push('No features are carried by this package.')
  for (const row of carried) {
    out.push(`${row.feature}: ${stateOf(row)}`)
    const options = Object.entries(row.options).map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    if (options.length) out.push(`  options: ${options.join(', ')}`)
    if (row.skips) out.push(`  skipped hooks: ${row.skips}`)
    for (const line of row.lines) out.push(`  ${line}`)
  }
  const skipped = rows.filter((r) => r.skips).map((r) => `${r.feature} ${r.skips}`)
  out.push(`Skipped hooks: ${skipped.join(', ') || 'none'}`)
  for (const problem of problems) out.push(`Problem: ${problem}`)
  return out.join('\n')
}
