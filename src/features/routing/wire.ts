// The engine's Anthropic Messages request as captured (§2.2), read loosely: the codecs need its
// shape, and a field the engine adds later must pass through the redirect untouched.
import { isRecord, isString, parseJson } from '../../lib/shape.ts'
import { sampleOf } from './failure.ts'
import type { Decoded } from './step.ts'

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

const isContent = (c: unknown) => isString(c) || (Array.isArray(c) && c.every((b) => isRecord(b) && isString(b.type)))
const isListOf = (list: unknown, fits: (item: Record<string, unknown>) => boolean) => Array.isArray(list) && list.every((x) => isRecord(x) && fits(x))

/** The fields the codecs read, each of the type they read it as; any other field passes as it came. */
const isRequest = (r: Record<string, unknown>) =>
  isString(r.model) &&
  (r.system === undefined || isContent(r.system)) &&
  isListOf(r.messages, (m) => isString(m.role) && isContent(m.content)) &&
  (r.tools === undefined || isListOf(r.tools, (t) => isString(t.name))) &&
  (r.max_tokens === undefined || typeof r.max_tokens === 'number')

/** The request a body text holds, or undefined when it is no Messages request. */
export function parseAnthropicRequest(text: string): AnthropicRequest | undefined {
  const raw = parseJson(text)
  return isRecord(raw) && isRequest(raw) ? (raw as AnthropicRequest) : undefined
}

export const blocksOf = (content: string | readonly Block[]): readonly Block[] => (typeof content === 'string' ? [{ type: 'text', text: content }] : content)
export const textOf = (block: Block): string => (typeof block.text === 'string' ? block.text : '')
export const isThinking = (block: Block) => block.type === 'thinking' || block.type === 'redacted_thinking'
/** A `tool_use` block as the engine writes it (its declared type: a string id and name, an input). */
export type ToolUse = Block & { readonly type: 'tool_use'; readonly id: string; readonly name: string; readonly input: unknown }
export const toolUsesOf = (blocks: readonly Block[]) => blocks.filter((b): b is ToolUse => b.type === 'tool_use')

// ---- Reading a provider's JSON, which no schema vouches for ----
export type Json = Record<string, unknown>
export const asRecord = (value: unknown): Json | undefined => (isRecord(value) ? value : undefined)
export const asText = (value: unknown): string => (typeof value === 'string' ? value : '')
export const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : [])
export const asCount = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined)
/** A count, 0 where the value is none. */
export const countOf = (value: unknown): number => asCount(value) ?? 0

/** A stream event's JSON object, handed to `read`; an event that is no JSON object ends the stream as unreadable. */
export function readEvent(data: string, read: (event: Json) => Decoded): Decoded {
  const event = asRecord(parseJson(data))
  return event ? read(event) : { chunks: [], failure: { kind: 'unreadable', sample: sampleOf(data) } }
}

/** What an event gives that has nothing to yield now. */
export const NOTHING: Decoded = { chunks: [] }

/** An error event: nothing to yield, and the failure that ends the stream. */
export const streamFailed = (message: string): Decoded => ({ chunks: [], failure: { kind: 'stream-error', message } })
