// The options a package receives, checked against the userConfig fields that declare them.
// The fields live in plugin.json (the one home); the valibot schema is derived from each field,
// so a bound or a picker changes in one place.
import * as v from 'valibot'

export type OptionValue = string | number | boolean
export type Options = Readonly<Record<string, OptionValue>>

/**
 * A userConfig field as the bundle reads it: its rule, without the texts the manifest shows. A
 * `switch` is a feature's on/off (declared to the engine as an `on`/`off` picker, build.mjs: a
 * picker is the one declaration that takes every stored value), read here as a boolean.
 */
export type FieldDef = {
  type: 'string' | 'number' | 'boolean' | 'switch'
  default?: OptionValue
  min?: number
  max?: number
  options?: readonly string[]
}

export type ParsedOptions = { values: Options; problems: string[] }

/** The values a switch is stored as. */
export const SWITCH_ON = 'on'
export const SWITCH_OFF = 'off'

function schemaOf(field: FieldDef): v.GenericSchema<unknown, OptionValue> {
  switch (field.type) {
    case 'switch':
      return v.pipe(v.picklist([SWITCH_ON, SWITCH_OFF], `is not ${SWITCH_ON} or ${SWITCH_OFF}`), v.transform((s) => s === SWITCH_ON))
    case 'boolean':
      return v.boolean('is not true or false')
    case 'number': {
      const checks: v.PipeItem<number, number, v.BaseIssue<unknown>>[] = [v.finite('is not a finite number')]
      if (field.min !== undefined) checks.push(v.minValue(field.min, `is below ${field.min}`))
      if (field.max !== undefined) checks.push(v.maxValue(field.max, `is above ${field.max}`))
      return v.pipe(v.number('is not a number'), ...checks)
    }
    case 'string':
      return field.options ? v.picklist(field.options as string[], `is not one of ${field.options.join(', ')}`) : v.string('is not a text')
  }
}

/** What a field holds when nothing valid was given: its default, else the type's empty value. */
export function fallbackOf(field: FieldDef): OptionValue {
  if (field.default !== undefined) return field.default
  return field.type === 'boolean' || field.type === 'switch' ? false : field.type === 'number' ? 0 : ''
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
      problems.push(`option ${key}: ${JSON.stringify(given)} ${checked.issues[0]?.message ?? 'is not valid'}; the default ${JSON.stringify(values[key])} applies`)
    }
  }
  return { values, problems }
}
