// Provider dialects (issue 18; facts and sources: test/fixtures/providers/RULES.md). A provider entry may
// name a preset, a small table row (its API, its documented base URL); the preset's name is its family,
// and each family bends the wire format in a few named behaviours, each one rule in the codec, tested
// alone. An entry without a preset is recognised by its base URL's host (the presets' own), and a model
// behind a gateway by its id. What is harmless to every provider is no behaviour: it applies everywhere
// (reasoning goes back only to the provider and model that sent it, a `$schema` is never sent, tool names
// keep to every provider's charset).
import type { Api, EffortLevel } from './config.ts'
import { isRecord, parseJson } from '../../lib/shape.ts'
import { asList } from './wire.ts'

export type Behaviour =
  /** DeepSeek: every assistant message carries `reasoning_content`, `""` where the model made none (V4). */
  | 'emptyReasoning'
  /** Gemini: an assistant message's first tool call carries a thought signature, its own or the documented placeholder. */
  | 'skipSignature'
  /** Gemini: tool schemas in its OpenAPI subset (no `additionalProperties`, `const`, type unions…; arrays with `items`). */
  | 'schemaSubset'
  /** Mistral: tool-call ids of exactly 9 letters and digits. */
  | 'shortToolIds'
  /** Mistral: no `user` message right after `tool` ones: a user message's text joins its last tool result. */
  | 'toolTextFolded'
  /** Mistral: `stream_options` is refused (422); usage comes on the last chunk unasked. */
  | 'noStreamOptions'
  /** OpenAI's reasoning models refuse `max_tokens`: the cap goes as `max_completion_tokens`. */
  | 'maxCompletionTokens'
  /** xAI: `completion_tokens` leaves the reasoning tokens out; the output counts them. */
  | 'reasoningInOutput'

export type Preset = {
  readonly api: Api
  readonly baseUrl: string
  /** Absent: none. */
  readonly behaviours?: readonly Behaviour[]
  /** The effort names the engine's levels map to when the alias gives none. */
  readonly effort?: Readonly<Partial<Record<EffortLevel, string>>>
}

/** The presets: each provider's documented base URL, its API, and what its dialect does. */
/** A preset's row: its API, its documented base URL, and what its family bends. */
const preset = (api: Api, baseUrl: string, behaviours?: readonly Behaviour[], effort?: Preset['effort']): Preset => ({ api, baseUrl, behaviours, effort })

export const PRESETS: Readonly<Record<string, Preset>> = {
  openai: preset('openai-chat', 'https://api.openai.com/v1', ['maxCompletionTokens']),
  'openai-responses': preset('openai-responses', 'https://api.openai.com/v1'),
  openrouter: preset('openai-chat', 'https://openrouter.ai/api/v1'),
  // DeepSeek takes low, high and max (older models high and max only): RULES.md D6.
  deepseek: preset('openai-chat', 'https://api.deepseek.com', ['emptyReasoning'], { low: 'high', medium: 'high', high: 'high', xhigh: 'max', max: 'max' }),
  gemini: preset('openai-chat', 'https://generativelanguage.googleapis.com/v1beta/openai', ['skipSignature', 'schemaSubset']),
  mistral: preset('openai-chat', 'https://api.mistral.ai/v1', ['shortToolIds', 'toolTextFolded', 'noStreamOptions']),
  groq: preset('openai-chat', 'https://api.groq.com/openai/v1'),
  cerebras: preset('openai-chat', 'https://api.cerebras.ai/v1'),
  xai: preset('openai-chat', 'https://api.x.ai/v1', ['reasoningInOutput']),
  ollama: preset('openai-chat', 'http://localhost:11434/v1'),
  lmstudio: preset('openai-chat', 'http://localhost:1234/v1'),
  vllm: preset('openai-chat', 'http://localhost:8000/v1'),
  'deepseek-anthropic': preset('anthropic-messages', 'https://api.deepseek.com/anthropic'),
  kimi: preset('anthropic-messages', 'https://api.moonshot.ai/anthropic'),
  glm: preset('anthropic-messages', 'https://api.z.ai/api/anthropic'),
  minimax: preset('anthropic-messages', 'https://api.minimax.io/anthropic'),
  qwen: preset('anthropic-messages', 'https://dashscope-intl.aliyuncs.com/apps/anthropic'),
}

/**
 * Where a local server says how much context a model has (its default may be far below the model's,
 * RULES.md L3): the listing's path under the server's origin, the list in it, and each entry's context
 * field; an entry is the model's by its `id`, `name` or `model` (L4, S3, V5).
 */
export const CONTEXT_REPORTS: Readonly<Record<string, readonly [path: string, list: string, field: string]>> = {
  ollama: ['/api/ps', 'models', 'context_length'],
  lmstudio: ['/api/v0/models', 'data', 'max_context_length'],
  vllm: ['/v1/models', 'data', 'max_model_len'],
}

/** The context a local server's listing reports for a model, where it lists the model with one. */
export function reportedContext(family: string, listing: string, model: string): number | undefined {
  const [, list, field] = CONTEXT_REPORTS[family] ?? []
  const entries = (parseJson(listing) as Record<string, unknown> | null | undefined)?.[list ?? '']
  const entry = asList(entries).find((e) => isRecord(e) && [e.id, e.name, e.model].includes(model)) as Record<string, unknown> | undefined
  const context = entry?.[field ?? '']
  return typeof context === 'number' && context > 0 ? context : undefined
}

/** A gateway's model by its id: the rules its maker enforces through any gateway (RULES.md O8). */
const MODEL_BEHAVIOURS: readonly [RegExp, readonly Behaviour[]][] = [
  [/gemini/i, ['schemaSubset']],
  [/(^|\/)(mistral|magistral|devstral|codestral|ministral|pixtral)/i, ['shortToolIds', 'toolTextFolded']],
]

/** Where a base URL is served from: a cloud provider's host, or a local server's port (`localhost:11434`). */
const placeOf = (url: string) => {
  const { hostname, port } = new URL(url)
  return /^(localhost|127\.|\[::1\])/.test(hostname) ? `local:${port}` : hostname
}

/** The family of a provider: the preset it names, else the preset whose base URL it is served from. */
export function familyOf(provider: { readonly preset?: string; readonly baseUrl: string }): string | undefined {
  if (provider.preset) return provider.preset
  const place = placeOf(provider.baseUrl)
  return Object.keys(PRESETS).find((name) => placeOf(PRESETS[name]!.baseUrl) === place && PRESETS[name]!.api !== 'openai-responses')
}

/** The dialect of a request to this provider and model: its family's behaviours and effort names, and its model maker's behaviours. */
export function dialectOf(provider: { readonly preset?: string; readonly baseUrl: string }, model: string): { behaviours: ReadonlySet<Behaviour>; effort?: Preset['effort'] } {
  const preset = PRESETS[familyOf(provider) ?? '']
  const behaviours = new Set([...(preset?.behaviours ?? []), ...MODEL_BEHAVIOURS.flatMap(([pattern, more]) => (pattern.test(model) ? more : []))])
  return preset?.effort ? { behaviours, effort: preset.effort } : { behaviours }
}

// ---- Rules every provider gets (harmless where they change nothing) ----

/** Tool names every provider takes (OpenAI's `^[a-zA-Z0-9_-]{1,64}$` within Gemini's rule: a letter or `_` first). */
const SAFE_NAME = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/

const ALNUM = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'

/** A short hash of a text in letters and digits (FNV-1a, five characters a round): the same every time, so both ends of a conversation agree. */
export function shortHash(text: string, length: number): string {
  let out = ''
  for (let round = 0; out.length < length; round++) {
    let h = (0x811c9dc5 ^ round) >>> 0
    for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0
    for (let k = 0; k < 5 && out.length < length; k++, h = Math.floor(h / 62)) out += ALNUM[h % 62]
  }
  return out
}

/** The name a tool is sent under: its own where every provider takes it, else its characters made safe and, past 64, cut with a hash. */
export function sentToolName(name: string): string {
  if (SAFE_NAME.test(name)) return name
  const safe = name.replace(/[^A-Za-z0-9_-]/g, '_').replace(/^(?=[^A-Za-z_])/, '_')
  return safe.length <= 64 ? safe : `${safe.slice(0, 55)}_${shortHash(name, 8)}`
}

/** Mistral's tool-call id for an engine id: 9 letters and digits, the same every time. */
export const shortToolId = (id: string) => shortHash(id, 9)

/** Schema keywords no provider needs: the engine sends `$schema` on 11 tools (measured), Gemini refuses it. */
const NEVER_SENT = ['$schema']
/** What Gemini's schema subset refuses (RULES.md G4). */
const GEMINI_REFUSES = 'additionalProperties exclusiveMinimum exclusiveMaximum propertyNames $comment $defs $ref examples title default'.split(' ')

/** A tool's schema as a provider takes it: `$schema` gone; in Gemini's subset, its refused keywords gone, `const` as an `enum`, a type union as its first type, every array with `items`. */
export function sentSchema(schema: unknown, subset: boolean): unknown {
  if (Array.isArray(schema)) return schema.map((item) => sentSchema(item, subset))
  if (!isRecord(schema)) return schema
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(schema)) {
    if (NEVER_SENT.includes(key) || (subset && GEMINI_REFUSES.includes(key))) continue
    // Under `properties` every key is a parameter's name, not a keyword.
    out[key] = key === 'properties' && isRecord(value) ? Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, sentSchema(inner, subset)])) : sentSchema(value, subset)
  }
  if (!subset) return out
  if ('const' in out) {
    out.enum = [out.const]
    delete out.const
  }
  if (Array.isArray(out.type)) {
    const types = out.type.filter((t) => t !== 'null')
    if (types.length < out.type.length) out.nullable = true
    out.type = types[0] ?? 'string'
  }
  if (out.type === 'array' && out.items === undefined) out.items = {}
  return out
}
