// The options a package receives, checked against the userConfig fields that declare them.
// The fields live in plugin.json (the one home); each value is checked against its field's rule,
// so a bound or a picker changes in one place.

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

/** What is wrong with a value given for a field, or undefined when it fits. */
function problemOf(field: FieldDef, given: unknown): string | undefined {
  if (field.type === 'switch') return given === SWITCH_ON || given === SWITCH_OFF ? undefined : `is not ${SWITCH_ON} or ${SWITCH_OFF}`
  if (field.type === 'boolean') return typeof given === 'boolean' ? undefined : 'is not true or false'
  if (field.type === 'string') {
    if (field.options) return field.options.includes(given as string) ? undefined : `is not one of ${field.options.join(', ')}`
    return typeof given === 'string' ? undefined : 'is not a text'
  }
  if (typeof given !== 'number' || !Number.isFinite(given)) return 'is not a number'
  // Every number option counts something whole: tokens, seconds, days.
  if (!Number.isInteger(given)) return 'is not a whole number'
  if (field.min !== undefined && given < field.min) return `is below ${field.min}`
  if (field.max !== undefined && given > field.max) return `is above ${field.max}`
  return undefined
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
    const problem = problemOf(field, given)
    if (problem === undefined) {
      values[key] = field.type === 'switch' ? given === SWITCH_ON : (given as OptionValue)
    } else {
      values[key] = fallbackOf(field)
      problems.push(`option ${key}: ${JSON.stringify(given)} ${problem}; the default ${JSON.stringify(values[key])} applies`)
    }
  }
  return { values, problems }
}
