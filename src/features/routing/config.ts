// routing.json (§3.5): providers and the aliases that route to them, checked with valibot. Every
// problem is named by its JSON path; a bad provider or alias is dropped with its error while the
// valid rest still routes.
import * as v from 'valibot'
import {
  ALIAS_PATTERN, CLAUDE_ALIASES, CLAUDE_ID_PREFIX, FRAMING_HEADERS, HEADER_NAME_PATTERN, LOOPBACK_HOSTS, LOOPBACK_V4_PATTERN,
  PROVIDER_ID_PATTERN,
} from './constants.ts'
import {
  API_VALUES, AUTH_FORMS, BAD_ALIAS, BAD_PROVIDER_ID, BASE_URL_EXTRAS, BASE_URL_FORM, BOOLEAN, BROKEN_PROVIDER, CLAUDE_ALIAS, CONFIG_EMPTY,
  CONFIG_NOT_OBJECT, configError, configNotJson, EFFORT_MAP, ENV_NAME, HEADER_FRAMING, HEADER_NAME, HEADER_VALUE, jsonAt, MISSING_KEY, NON_EMPTY_TEXT,
  NOT_AN_OBJECT, PLAIN_HTTP, POSITIVE_TOKENS, UNKNOWN_KEY, UNKNOWN_PROVIDER, UNKNOWN_TOP_KEY,
} from './strings.ts'

export type Api = 'openai-chat' | 'anthropic-messages'
export type Auth = 'none' | { readonly helper: readonly string[] } | { readonly env: string } | { readonly file: string }
export type EffortLevel = 'low' | 'medium' | 'high' | 'xhigh' | 'max'

export type Provider = {
  readonly id: string
  readonly api: Api
  /** Without a trailing slash: paths are appended to it. */
  readonly baseUrl: string
  readonly auth: Auth
  readonly headers: Readonly<Record<string, string>>
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
}

export type RoutingConfig = { readonly providers: Readonly<Record<string, Provider>>; readonly models: Readonly<Record<string, ModelEntry>> }

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

const CONTROL = /[\u0000-\u001f\u007f]/

const Text = v.pipe(v.string(NON_EMPTY_TEXT), v.nonEmpty(NON_EMPTY_TEXT), v.check((s) => !CONTROL.test(s), NON_EMPTY_TEXT))
const Tokens = v.pipe(v.number(POSITIVE_TOKENS), v.integer(POSITIVE_TOKENS), v.minValue(1, POSITIVE_TOKENS))

function isHttpUrl(s: string): boolean {
  if (!URL.canParse(s)) return false
  const { protocol } = new URL(s)
  return protocol === 'http:' || protocol === 'https:'
}

function hasNoExtras(s: string): boolean {
  if (!URL.canParse(s)) return true
  const u = new URL(s)
  return !u.username && !u.password && !u.search && !u.hash && !s.includes('?') && !s.includes('#')
}

const BaseUrl = v.pipe(v.string(BASE_URL_FORM), v.check(isHttpUrl, BASE_URL_FORM), v.check(hasNoExtras, BASE_URL_EXTRAS))

const Argv = v.pipe(v.array(Text, AUTH_FORMS), v.nonEmpty(AUTH_FORMS))
const AuthSchema = v.union(
  [
    v.literal('none'),
    v.strictObject({ helper: Argv }),
    v.strictObject({ env: v.pipe(v.string(ENV_NAME), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/, ENV_NAME)) }),
    v.strictObject({ file: Text }),
  ],
  AUTH_FORMS,
)

const HeaderValue = v.pipe(v.string(HEADER_VALUE), v.check((s) => !CONTROL.test(s), HEADER_VALUE))
const HeaderName = v.pipe(v.string(), v.regex(HEADER_NAME_PATTERN, HEADER_NAME), v.check((name) => !FRAMING_HEADERS.includes(name.toLowerCase()), HEADER_FRAMING))
// valibot's record takes an array as well; a list of headers is a mistake worth naming.
const Headers = v.pipe(v.custom<object>((h) => !Array.isArray(h), NOT_AN_OBJECT), v.record(HeaderName, HeaderValue, NOT_AN_OBJECT))

const ProviderSchema = v.strictObject(
  { api: v.picklist(['openai-chat', 'anthropic-messages'], API_VALUES), baseUrl: BaseUrl, auth: AuthSchema, headers: v.optional(Headers) },
  NOT_AN_OBJECT,
)

const EffortSchema = v.strictObject(
  { low: v.optional(Text), medium: v.optional(Text), high: v.optional(Text), xhigh: v.optional(Text), max: v.optional(Text) },
  EFFORT_MAP,
)

const ModelSchema = v.strictObject(
  {
    provider: Text,
    model: Text,
    context: Tokens,
    label: v.optional(Text),
    maxOutput: v.optional(Tokens),
    effort: v.optional(EffortSchema),
    vision: v.optional(v.boolean(BOOLEAN)),
  },
  NOT_AN_OBJECT,
)

/** valibot's issues as `path: message`; a strict object says both "missing" and "unknown" in its own message, so tell them apart. */
function issueTexts(prefix: string, issues: readonly v.BaseIssue<unknown>[]): string[] {
  return issues.map((issue) => {
    const keys = (issue.path ?? []).map((item) => String(item.key))
    const path = [prefix, ...keys].join('.')
    if (issue.type === 'strict_object' && issue.expected === 'never') return configError(path, UNKNOWN_KEY)
    if (issue.type === 'strict_object' && issue.received === 'undefined') return configError(path, MISSING_KEY)
    return configError(path, issue.message)
  })
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isLoopback(hostname: string): boolean {
  return LOOPBACK_HOSTS.includes(hostname) || LOOPBACK_V4_PATTERN.test(hostname)
}

/** `JSON.parse`'s message, with the line and column where it names a position (V8 does; other engines may not). */
function jsonProblem(text: string, err: unknown): string {
  const message = err instanceof Error ? err.message : String(err)
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
  for (const key of Object.keys(raw)) if (key !== 'providers' && key !== 'models') errors.push(configError(key, UNKNOWN_TOP_KEY))
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
    const parsed = v.safeParse(ProviderSchema, entry)
    const problems = [...(PROVIDER_ID_PATTERN.test(id) ? [] : [configError(path, BAD_PROVIDER_ID)]), ...(parsed.success ? [] : issueTexts(path, parsed.issues))]
    if (!parsed.success || problems.length) {
      errors.push(...problems)
      brokenProviders.add(id)
      continue
    }
    const { api, baseUrl, auth, headers } = parsed.output
    const url = new URL(baseUrl)
    if (url.protocol === 'http:' && !isLoopback(url.hostname)) warnings.push(configError(`${path}.baseUrl`, PLAIN_HTTP))
    providers[id] = { id, api, baseUrl: baseUrl.replace(/\/+$/, ''), auth, headers: headers ?? {} }
  }

  const models: Record<string, ModelEntry> = {}
  const claimed: string[] = []
  for (const [alias, entry] of Object.entries(section('models'))) {
    if (ALIAS_PATTERN.test(alias) && !isClaudeName(alias)) claimed.push(alias)
    const path = `models.${alias}`
    const parsed = v.safeParse(ModelSchema, entry)
    const problems = [
      ...(ALIAS_PATTERN.test(alias) ? [] : [configError(path, BAD_ALIAS)]),
      ...(isClaudeName(alias) ? [configError(path, CLAUDE_ALIAS(alias))] : []),
      ...(parsed.success ? [] : issueTexts(path, parsed.issues)),
    ]
    if (parsed.success && !providers[parsed.output.provider]) {
      const id = parsed.output.provider
      problems.push(configError(`${path}.provider`, brokenProviders.has(id) ? BROKEN_PROVIDER(id) : UNKNOWN_PROVIDER(id)))
    }
    if (!parsed.success || problems.length) {
      errors.push(...problems)
      continue
    }
    const { provider, model, context, label, maxOutput, effort, vision } = parsed.output
    models[alias] = {
      alias, providerId: provider, model, context, label: label ?? alias, vision: vision ?? false,
      ...(maxOutput !== undefined ? { maxOutput } : {}),
      ...(effort !== undefined ? { effort } : {}),
    }
  }
  return { state: 'loaded', config: { providers, models }, errors, warnings, claimed }
}

/** The route an engine model name takes, or undefined when it is no configured alias. */
export function routeFor(config: RoutingConfig, alias: string): Route | undefined {
  if (!Object.hasOwn(config.models, alias)) return undefined
  const { providerId, ...entry } = config.models[alias]!
  const provider = config.providers[providerId]
  return provider && { ...entry, provider }
}
