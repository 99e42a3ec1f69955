// The options a package receives, checked against the userConfig fields that declare them.
// The fields live in plugin.json (the one home); the valibot schema is derived from each field,
// so a bound or a picker changes in one place.
import * as v from 'valibot'

export type OptionValue = string | number | boolean
export type Options = Readonly<Record<string, OptionValue>>

/** A userConfig field as the bundle reads it: its rule, without the texts the manifest shows. */
export type FieldDef = {
  type: 'string' | 'number' | 'boolean'
  default?: OptionValue
  min?: number
  max?: number
  options?: readonly string[]
}

export type ParsedOptions = { values: Options; problems: string[] }

function schemaOf(field: FieldDef): v.GenericSchema<unknown, OptionValue> {
  switch (field.type) {
    case 'boolean':
      return v.boolean()
    case 'number': {
      const checks: v.PipeItem<number, number, v.BaseIssue<unknown>>[] = [v.finite()]
      if (field.min !== undefined) checks.push(v.minValue(field.min))
      if (field.max !== undefined) checks.push(v.maxValue(field.max))
      return v.pipe(v.number(), ...checks)
    }
    case 'string':
      return field.options ? v.picklist(field.options as string[]) : v.string()
  }
}

/** What a field holds when nothing valid was given: its default, else the type's empty value. */
export function fallbackOf(field: FieldDef): OptionValue {
  if (field.default !== undefined) return field.default
  return field.type === 'boolean' ? false : field.type === 'number' ? 0 : ''
}

/**
 * Checks every field the package declares. A missing or bad value falls back to the field's default,
 * and a bad one is named in `problems` (the caller writes those to the debug log and the status).
 */
export function parseOptions(fields: Readonly<Record<string, FieldDef>>, raw: Readonly<Record<string, unknown>>): ParsedOptions {
  const values: Record<string, OptionValue> = {}
  const problems: string[] = []
  for (const [key, field] of Object.entries(fields)) {
    const given = raw[key]
    if (given === undefined) {
      values[key] = fallbackOf(field)
      continue
    }
    const checked = v.safeParse(schemaOf(field), given)
    if (checked.success) {
      values[key] = checked.output
    } else {
      values[key] = fallbackOf(field)
      problems.push(`option ${key}: ${JSON.stringify(given)} is not valid (${checked.issues[0]?.message}); using ${JSON.stringify(values[key])}`)
    }
  }
  return { values, problems }
}
