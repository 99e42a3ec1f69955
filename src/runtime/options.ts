// The options a package receives, checked against the userConfig fields that declare them.
// The fields live in plugin.json (the one home); each value is checked against its field's rule,
// so a bound or a picker changes in one place.
import { isString } from '../lib/shape.ts'

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

export type ParsedOptions = {
  values: Options
  problems: string[]
  /** Each field's fallback: what a blank or bad value becomes (`fallbackOf`). */
  defaults: Options
}

/** The values a switch is stored as. */
export const SWITCH_ON = 'on'
export const SWITCH_OFF = 'off'

/** What is wrong with a value given for a field, or undefined when it fits. */
function problemOf(field: FieldDef, given: unknown): string | undefined {
  switch (field.type) {
    case 'switch':
      return given === SWITCH_ON || given === SWITCH_OFF ? undefined : `is not ${SWITCH_ON} or ${SWITCH_OFF}`
    case 'boolean':
      return typeof given === 'boolean' ? undefined : 'is not true or false'
    case 'string':
      if (field.options) return field.options.includes(given as string) ? undefined : `is not one of ${field.options.join(', ')}`
      return isString(given) ? undefined : 'is not a text'
  }
  if (typeof given !== 'number' || !Number.isFinite(given)) return 'is not a number'
  // Every number option counts something whole: tokens, seconds, days.
  if (!Number.isInteger(given)) return 'is not a whole number'
  if (field.min !== undefined && given < field.min) return `is below ${field.min}`
  if (field.max !== undefined && given > field.max) return `is above ${field.max}`
  return
}

/** The empty value of each type but a text's (`''`): what a field without a default holds when nothing valid was given. */
const EMPTY: Readonly<Partial<Record<FieldDef['type'], OptionValue>>> = { number: 0, boolean: false, switch: false }

/** What a field holds when nothing valid was given: its default, else the type's empty value. */
export function fallbackOf(field: FieldDef): OptionValue {
  return field.default ?? EMPTY[field.type] ?? ''
}

/**
 * Checks every field the package declares. A missing or bad value falls back to the field's default,
 * and a bad one is named in `problems` (the caller writes those to the debug log and the status).
 */
export function parseOptions(fields: Readonly<Record<string, FieldDef>>, raw: Readonly<Record<string, unknown>>): ParsedOptions {
  const values: Record<string, OptionValue> = {}
  const defaults: Record<string, OptionValue> = {}
  const problems: string[] = []
  for (const [key, field] of Object.entries(fields)) {
    const given = raw[key]
    const problem = given === undefined ? undefined : problemOf(field, given)
    defaults[key] = fallbackOf(field)
    values[key] = given === undefined || problem !== undefined ? defaults[key] : field.type === 'switch' ? given === SWITCH_ON : (given as OptionValue)
    if (problem !== undefined) problems.push(`option ${key}: ${JSON.stringify(given)} ${problem}; the default ${JSON.stringify(values[key])} applies`)
  }
  return { values, problems, defaults }
}
