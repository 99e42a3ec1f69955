// routing.json (§3.5): providers and the aliases that route to them, checked with valibot. Every
// problem is named by its JSON path; a bad provider or alias is dropped with its error while the
// valid rest still routes.
import { is, isRecord, isString, listOf, NOT_AN_OBJECT, problemsOf, type Shape } from '../../lib/shape.ts'
import { messageOf } from '../../lib/message.ts'
import { PRESETS } from './dialect.ts'
import type { Pricing } from './usage.ts'
import {
  ALIAS_PATTERN, CLAUDE_ALIASES, CLAUDE_ID_PREFIX, FRAMING_HEADERS, HEADER_NAME_PATTERN, LOOPBACK_HOSTS, LOOPBACK_V4_PATTERN,
  PROVIDER_ID_PATTERN,
} from './constants.ts'
import {
  API_VALUES, AUTH_FORMS, BAD_ALIAS, BAD_PROVIDER_ID, BASE_URL_EXTRAS, BASE_URL_FORM, BOOLEAN, BROKEN_PROVIDER, CLAUDE_ALIAS, CONFIG_EMPTY,
  CONFIG_NOT_OBJECT, configError, configNotJson, EFFORT_MAP, ENV_NAME, PRESET_VALUES, PRICE, HEADER_FRAMING, HEADER_NAME, HEADER_VALUE, jsonAt, NON_EMPTY_TEXT,
  PLAIN_HTTP, POSITIVE_TOKENS, UNKNOWN_CLASSIFIER, UNKNOWN_PROVIDER, UNKNOWN_TOP_KEY,
} from './strings.ts'

export type Api = 'openai-chat' | 'openai-responses' | 'anthropic-messages'
const APIS: readonly Api[] = ['openai-chat', 'openai-responses', 'anthropic-messages']
export type Auth = 'none' | { readonly helper: readonly string[] } | { readonly env: string } | { readonly file: string }
export type EffortLevel = 'low' | 'medium' | 'high' | 'xhigh' | 'max'

export type Provider = {
  readonly id: string
  readonly api: Api
  /** Without a trailing slash: paths are appended to it. */
  readonly baseUrl: string
  readonly auth: Auth
  readonly headers: Readonly<Record<string, string>>
  /** The preset the entry names (dialect.ts): its defaults filled in, its family's dialect followed. */
  readonly preset?: string
}

export type ModelEntry = {
  readonly alias: string
  readonly providerId: string
  /** The provider's own model id. */
  readonly model: string
  /** The model's window in tokens: the engine compacts on it. */
  readonly context: number
  /** How texts name the model; the alias when the file gives none. */
  readonly label: string
  readonly maxOutput?: number
  readonly effort?: Readonly<Partial<Record<EffortLevel, string>>>
  readonly vision: boolean
  /** USD per million tokens (usage.ts); absent: its usage is shown in tokens only. */
  readonly pricing?: Pricing
  /** What the person says the model is for: shown where Claude picks a model to hand a task to. */
  readonly use?: string
}

export type RoutingConfig = {
  readonly providers: Readonly<Record<string, Provider>>
  readonly models: Readonly<Record<string, ModelEntry>>
  /** The alias auto mode's classifier runs on (auto.ts); absent: off. */
  readonly classifier?: string
}

/** An alias resolved with its provider: what the codecs and the transport need. */
export type Route = Omit<ModelEntry, 'providerId'> & { readonly provider: Provider }

/** The file's state: `missing` is no error (routing is simply unconfigured); `unreadable` has no usable part. */
export type ConfigRead =
  | { readonly state: 'missing' }
  | { readonly state: 'unreadable'; readonly error: string }
  | {
      readonly state: 'loaded'
      readonly config: RoutingConfig
      readonly errors: readonly string[]
      readonly warnings: readonly string[]
      /** Every alias the file names in a valid form, its entry sound or not: a request naming one is the file's, never Claude's. */
      readonly claimed: readonly string[]
    }

const TOP_KEYS = ['providers', 'models', 'classifier']
const CONTROL = /[\u0000-\u001f\u007f]/

const Text = is((s) => isString(s) && s !== '' && !CONTROL.test(s), NON_EMPTY_TEXT)
const Tokens = is((n) => Number.isSafeInteger(n) && n >= 1, POSITIVE_TOKENS)
const Price = is((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0, PRICE)

const isHttpUrl = (s: unknown): boolean => isString(s) && URL.canParse(s) && ['http:', 'https:'].includes(new URL(s).protocol)

function hasNoExtras(s: string): boolean {
  const u = new URL(s)
  return !u.username && !u.password && !u.search && !u.hash && !s.includes('?') && !s.includes('#')
}

const BaseUrl = (s: unknown) => (!isHttpUrl(s) ? BASE_URL_FORM : hasNoExtras(s as string) ? undefined : BASE_URL_EXTRAS)

/** The key sources besides `"none"`: an object of exactly one of these fields. */
const AUTH_FIELDS: Readonly<Record<string, Shape>> = {
  helper: listOf(Text, AUTH_FORMS),
  env: is((s) => isString(s) && /^[A-Za-z_][A-Za-z0-9_]*$/.test(s), ENV_NAME),
  file: Text,
}
/** `"none"`, or an object of one key source: checked as that field, so a problem names it. */
function authShape(auth: unknown) {
  const fields = isRecord(auth) ? Object.keys(auth) : []
  const only = fields.length === 1 && AUTH_FIELDS[fields[0]!]
  return auth === 'none' ? undefined : only ? { [fields[0]!]: only } : AUTH_FORMS
}

const header = (value: unknown, name: string) =>
  !HEADER_NAME_PATTERN.test(name) ? HEADER_NAME : FRAMING_HEADERS.includes(name.toLowerCase()) ? HEADER_FRAMING : isString(value) && !CONTROL.test(value) ? undefined : HEADER_VALUE

const PROVIDER_FIELDS = {
  'preset?': is((p) => isString(p) && Object.hasOwn(PRESETS, p), PRESET_VALUES(Object.keys(PRESETS))),
  api: is((a) => APIS.includes(a), API_VALUES),
  baseUrl: BaseUrl,
  auth: authShape,
  'headers?': { '*': header },
}
const { api: API_FIELD, baseUrl: BASE_URL_FIELD, ...OTHER_PROVIDER_FIELDS } = PROVIDER_FIELDS
/** A provider's fields; with a preset, its `api` and `baseUrl` may be left to the preset. */
const providerShape = (entry: unknown) =>
  isRecord(entry) && isString(entry.preset) && Object.hasOwn(PRESETS, entry.preset) ? { ...OTHER_PROVIDER_FIELDS, 'api?': API_FIELD, 'baseUrl?': BASE_URL_FIELD } : PROVIDER_FIELDS

const EFFORT_SHAPE: Shape = { 'low?': Text, 'medium?': Text, 'high?': Text, 'xhigh?': Text, 'max?': Text }

/** A model entry as the file spells it, once it fits MODEL_SHAPE. */
type ModelFields = Pick<ModelEntry, 'model' | 'context' | 'maxOutput' | 'effort' | 'pricing' | 'use'> & { provider: string; label?: string; vision?: boolean }

const MODEL_SHAPE: Shape = {
  provider: Text,
  model: Text,
  context: Tokens,
  'label?': Text,
  'maxOutput?': Tokens,
  'effort?': (e) => (isRecord(e) ? EFFORT_SHAPE : EFFORT_MAP),
  'vision?': is((b) => typeof b === 'boolean', BOOLEAN),
  'pricing?': { input: Price, output: Price, 'cacheRead?': Price, 'cacheWrite?': Price },
  'use?': Text,
}

function isLoopback(hostname: string): boolean {
  return LOOPBACK_HOSTS.includes(hostname) || LOOPBACK_V4_PATTERN.test(hostname)
}

/** `JSON.parse`'s message, with the line and column where it names a position (V8 does; other engines may not). */
function jsonProblem(text: string, err: unknown): string {
  const message = messageOf(err)
  const at = /at position (\d+)/.exec(message)
  if (!at) return message
  const before = text.slice(0, Number(at[1])).split('\n')
  return jsonAt(message, before.length, (before.at(-1)?.length ?? 0) + 1)
}

export function isClaudeName(alias: string): boolean {
  return CLAUDE_ALIASES.includes(alias) || alias.startsWith(CLAUDE_ID_PREFIX)
}

/** Reads routing.json's text; `undefined` is a file that does not exist. */
export function readConfig(text: string | undefined): ConfigRead {
  if (text === undefined) return { state: 'missing' }
  if (!text.trim()) return { state: 'unreadable', error: CONFIG_EMPTY }
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch (err) {
    return { state: 'unreadable', error: configNotJson(jsonProblem(text, err)) }
  }
  if (!isRecord(raw)) return { state: 'unreadable', error: CONFIG_NOT_OBJECT }

  const errors: string[] = []
  const warnings: string[] = []
  for (const key of Object.keys(raw)) if (!TOP_KEYS.includes(key)) errors.push(configError(key, UNKNOWN_TOP_KEY))
  const section = (name: 'providers' | 'models'): Record<string, unknown> => {
    const value = raw[name] ?? {}
    if (isRecord(value)) return value
    errors.push(configError(name, NOT_AN_OBJECT))
    return {}
  }

  const providers: Record<string, Provider> = {}
  const brokenProviders = new Set<string>()
  for (const [id, entry] of Object.entries(section('providers'))) {
    const path = `providers.${id}`
    const problems = [...(PROVIDER_ID_PATTERN.test(id) ? [] : [configError(path, BAD_PROVIDER_ID)]), ...problemsOf(entry, providerShape, path)]
    if (problems.length) {
      errors.push(...problems)
      brokenProviders.add(id)
      continue
    }
    // A field the entry spells wins over its preset's.
    const given = entry as Omit<Provider, 'id'>
    const { api, baseUrl, auth, headers, preset } = { ...(given.preset && PRESETS[given.preset]), ...given }
    const url = new URL(baseUrl)
    if (url.protocol === 'http:' && !isLoopback(url.hostname)) warnings.push(configError(`${path}.baseUrl`, PLAIN_HTTP))
    providers[id] = { id, api, baseUrl: baseUrl.replace(/\/+$/, ''), auth, headers: headers ?? {}, ...(preset && { preset }) }
  }

  const models: Record<string, ModelEntry> = {}
  const claimed: string[] = []
  for (const [alias, entry] of Object.entries(section('models'))) {
    if (ALIAS_PATTERN.test(alias) && !isClaudeName(alias)) claimed.push(alias)
    const path = `models.${alias}`
    const shapeProblems = problemsOf(entry, MODEL_SHAPE, path)
    const problems = [
      ...(ALIAS_PATTERN.test(alias) ? [] : [configError(path, BAD_ALIAS)]),
      ...(isClaudeName(alias) ? [configError(path, CLAUDE_ALIAS(alias))] : []),
      ...shapeProblems,
    ]
    const { provider, ...fields } = entry as ModelFields
    if (!shapeProblems.length && !providers[provider]) {
      problems.push(configError(`${path}.provider`, brokenProviders.has(provider) ? BROKEN_PROVIDER(provider) : UNKNOWN_PROVIDER(provider)))
    }
    if (problems.length) {
      errors.push(...problems)
      continue
    }
    models[alias] = { ...fields, alias, providerId: provider, label: fields.label ?? alias, vision: fields.vision ?? false }
  }
  // The classifier must be a loaded alias: any other leaves auto mode off, said as an error.
  const classifier = raw.classifier as { model: string } | undefined
  const classifierProblems = classifier === undefined ? [] : problemsOf(classifier, { model: is((m) => isString(m) && Object.hasOwn(models, m), UNKNOWN_CLASSIFIER) }, 'classifier')
  errors.push(...classifierProblems)
  return { state: 'loaded', config: { providers, models, ...(classifier && !classifierProblems.length && { classifier: classifier.model }) }, errors, warnings, claimed }
}

/** The route an engine model name takes, or undefined when it is no configured alias. */
export function routeFor(config: RoutingConfig, alias: string): Route | undefined {
  if (!Object.hasOwn(config.models, alias)) return
  const { providerId, ...entry } = config.models[alias]!
  const provider = config.providers[providerId]
  return provider && { ...entry, provider }
}
