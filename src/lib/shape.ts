// One validation path for what keel reads that no type vouches for: routing.json, records kept in
// files or the store, the engine's captured requests. A shape is data (an object of fields, or a
// check), read by one function that names every problem by its path. (valibot did this before; it
// was ~3,500 syntax-tree nodes of a bundle the engine's loader checks at every start.)
import { toUndefined } from './message.ts'

/**
 * A check, or the fields of an object. A field whose name ends in `?` may be absent; `'*'` is the
 * shape of every field not named (without one, another field is an unknown key).
 */
export type Shape = Check | Fields
export type Fields = { readonly [field: string]: Shape }
/**
 * A leaf: the problem with a value (`key` is its field's name), undefined when it fits, or the
 * fields to check it against (a shape that depends on the value: which form of several it takes).
 */
export type Check = (value: unknown, key: string) => string | undefined | Fields

export const UNKNOWN_KEY = 'unknown key'
export const MISSING = 'missing'
export const NOT_AN_OBJECT = 'must be an object'

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

/** JSON text's value; undefined where the text is no JSON (JSON itself never gives undefined). */
export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return
  }
}

/** Every problem of `value` against `shape`, each `<path>: <problem>` (the path alone is `''` at the top). */
export function problemsOf(value: unknown, shape: Shape, path = '', key = ''): string[] {
  const at = (field: string) => (path ? `${path}.${field}` : field)
  if (typeof shape === 'function') {
    const problem = shape(value, key)
    if (isRecord(problem)) return problemsOf(value, problem, path, key)
    return problem === undefined ? [] : [path ? `${path}: ${problem}` : problem]
  }
  if (!isRecord(value)) return [path ? `${path}: ${NOT_AN_OBJECT}` : NOT_AN_OBJECT]
  const problems: string[] = []
  for (const [field, inner] of Object.entries(shape)) {
    const name = field.replace(/\?$/, '')
    if (name === '*') continue
    if (value[name] !== undefined) problems.push(...problemsOf(value[name], inner, at(name), name))
    else if (name === field) problems.push(`${at(name)}: ${MISSING}`)
  }
  const rest = shape['*']
  for (const name of Object.keys(value)) {
    if (name in shape || `${name}?` in shape) continue
    problems.push(...(rest ? problemsOf(value[name], rest, at(name), name) : [`${at(name)}: ${UNKNOWN_KEY}`]))
  }
  return problems
}

export const fits = (value: unknown, shape: Shape): boolean => !problemsOf(value, shape).length

/** A check from a test and the problem it names. */
export const is = (test: (value: any, key: string) => boolean, problem: string): Check => (value, key) => (test(value, key) ? undefined : problem)
/** One of several shapes; otherwise `problem`. */
export const either = (problem: string, ...shapes: readonly Shape[]): Check => is((value) => shapes.some((s) => fits(value, s)), problem)
/** A non-empty list whose every item fits. */
export const listOf = (item: Shape, problem: string): Check => is((value) => Array.isArray(value) && value.length > 0 && value.every((x) => fits(x, item)), problem)
export const isString = (value: unknown): value is string => typeof value === 'string'
export const NOT_A_STRING = 'must be a string'
/** Any string. */
export const STRING: Check = is(isString, NOT_A_STRING)
/** Anything (a loose object's other fields). */
export const ANY: Check = toUndefined
