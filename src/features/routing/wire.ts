// The engine's Anthropic Messages request as captured (§2.2), read loosely: the codecs need its
// shape, and a field the engine adds later must pass through the redirect untouched.
import * as v from 'valibot'

export type Block = { readonly type: string; readonly [field: string]: unknown }
export type AnthropicMessage = { readonly role: string; readonly content: string | readonly Block[] }
export type AnthropicTool = { readonly name: string; readonly description?: string; readonly input_schema?: unknown; readonly [field: string]: unknown }
export type AnthropicRequest = {
  readonly model: string
  readonly system?: string | readonly Block[]
  readonly messages: readonly AnthropicMessage[]
  readonly tools?: readonly AnthropicTool[]
  readonly max_tokens?: number
  readonly stream?: boolean
  readonly output_config?: { readonly effort?: unknown; readonly format?: { readonly type?: unknown; readonly schema?: unknown } }
  readonly [field: string]: unknown
}

const BlockSchema = v.looseObject({ type: v.string() })
const RequestSchema = v.looseObject({
  model: v.string(),
  system: v.optional(v.union([v.string(), v.array(BlockSchema)])),
  messages: v.array(v.looseObject({ role: v.string(), content: v.union([v.string(), v.array(BlockSchema)]) })),
  tools: v.optional(v.array(v.looseObject({ name: v.string() }))),
  max_tokens: v.optional(v.number()),
})

/** The request a body text holds, or undefined when it is no Messages request. */
export function parseAnthropicRequest(text: string): AnthropicRequest | undefined {
  let raw: unknown
  try {
    raw = JSON.parse(text)
  } catch {
    return undefined
  }
  const parsed = v.safeParse(RequestSchema, raw)
  return parsed.success ? (parsed.output as AnthropicRequest) : undefined
}

export const blocksOf = (content: string | readonly Block[]): readonly Block[] => (typeof content === 'string' ? [{ type: 'text', text: content }] : content)
export const textOf = (block: Block): string => (typeof block.text === 'string' ? block.text : '')
export const isThinking = (block: Block) => block.type === 'thinking' || block.type === 'redacted_thinking'

// ---- Reading a provider's JSON, which no schema vouches for ----
export type Json = Record<string, unknown>
export const asRecord = (value: unknown): Json | undefined => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : undefined)
export const asText = (value: unknown): string => (typeof value === 'string' ? value : '')
export const asCount = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined)
