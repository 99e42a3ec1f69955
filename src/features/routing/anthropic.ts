// The `anthropic-messages` side (§3.4): the redirect of the engine's own request to an
// Anthropic-compatible provider; the encoder that answers an engine request in Anthropic's format
// from a decoded step (an OpenAI provider answering compaction or a side call, buffered); and an
// Anthropic SSE decoder into the same chunks, so both directions are tested against each other.
import type { ModelUsage, TurnUsage } from 'claude-code'
import { requestHeaders } from './auth.ts'
import type { Route } from './config.ts'
import { NO_REPLAY, type ReplayLookup } from './replay.ts'
import { ANTHROPIC_MESSAGES_PATH, ANTHROPIC_VERSION, REDIRECT_DROPPED_FIELDS, REDIRECT_KEPT_HEADERS } from './constants.ts'
import { errorMessage } from './failure.ts'
import { outputCap } from './openai.ts'
import { createRenamer, providerSystemBlocks, splitSystemMessages } from './prompt.ts'
import { createStep, type Decoded, type StepChunk, type StepContext, type StopReason } from './step.ts'
import { asCount, asRecord, asText, countOf, isThinking, NOTHING, parseAnthropicRequest, readEvent, streamFailed, textOf, toolUsesOf, type AnthropicMessage, type Block, type Json } from './wire.ts'

/** A request as `http.fetch` carries it. */
export type EngineRequest = { readonly url: string; readonly headers: Readonly<Record<string, string>>; readonly body: string }

/**
 * The engine's request rewritten for the provider, or undefined when its body is no Messages
 * request. The query string is dropped: `?beta=true` goes with the `anthropic-beta` header, which is
 * dropped too. Only the version and framing headers are kept, so no engine header (`x-claude-code-*`,
 * `x-stainless-*`, the redacted credentials) reaches the provider.
 */
export function redirectRequest(request: EngineRequest, route: Route, key: string | undefined, pkg: string, replay: ReplayLookup = NO_REPLAY): EngineRequest | undefined {
  const body = parseAnthropicRequest(request.body)
  if (!body) return
  const renamer = createRenamer(route, pkg)
  const { rename } = renamer
  const renameBlock = (block: Block): Block => (block.type === 'text' ? { ...block, text: rename(textOf(block)) } : block)
  const { system: systemMessages, conversation } = splitSystemMessages(body.messages)
  const messages = conversation.flatMap((m): AnthropicMessage[] => {
    if (m.role !== 'assistant') return [{ ...m, content: typeof m.content === 'string' ? rename(m.content) : m.content.map(renameBlock) }]
    if (typeof m.content === 'string') return [m]
    // Foreign thinking carries no signature the provider can check; replayed, it is refused (§1.1).
    // The provider's own, kept when it made the step, goes back ahead of the step's content.
    const own = replay(toolUsesOf(m.content).map((b) => b.id))?.items ?? []
    const content = [...(own as Block[]), ...m.content.filter((b) => !isThinking(b))]
    return content.length ? [{ ...m, content }] : []
  })
  const system = [...providerSystemBlocks(body.system), ...systemMessages].map(renameBlock)
  const rewritten: Json = {
    ...Object.fromEntries(Object.entries(body).filter(([field]) => !REDIRECT_DROPPED_FIELDS.includes(field))),
    model: route.model,
    system: renamer.named ? system : [{ type: 'text', text: renamer.identity }, ...system],
    messages,
    // Where the alias gives none, the engine's own (a field it left out stays out of the JSON).
    max_tokens: outputCap(route, body) ?? body.max_tokens,
  }
  const kept: Record<string, string> = { 'anthropic-version': ANTHROPIC_VERSION }
  for (const [name, value] of Object.entries(request.headers)) if (REDIRECT_KEPT_HEADERS.includes(name.toLowerCase())) kept[name.toLowerCase()] = value
  return { url: route.provider.baseUrl + ANTHROPIC_MESSAGES_PATH, headers: requestHeaders(route.provider, kept, key), body: JSON.stringify(rewritten) }
}

// ---- The encoder: a decoded step as Anthropic's answer ----

export type AnswerToolCall = { readonly id: string; readonly name: string; readonly input: unknown }
export type Answer = { readonly text: string; readonly toolCalls: readonly AnswerToolCall[]; readonly stopReason: StopReason; readonly usage: TurnUsage | null }

/** The step's chunks folded back into one answer; thinking is left out, since a provider's thinking has no signature to replay. */
export function collectAnswer(chunks: readonly StepChunk[]): Answer {
  let text = ''
  let stopReason: StopReason = null
  let usage: TurnUsage | null = null
  const calls = new Map<number, { id: string; name: string; json: string }>()
  for (const chunk of chunks) {
    if (chunk.kind === 'text') text += chunk.text
    else if (chunk.kind === 'tool') calls.set(chunk.index, { id: chunk.id, name: chunk.name, json: '' })
    else if (chunk.kind === 'input') {
      const call = calls.get(chunk.index)
      if (call) call.json += chunk.json
    } else if (chunk.kind === 'stop') {
      stopReason = chunk.stopReason
      usage = chunk.usage
    }
  }
  // The step builder yields a call only once its JSON parsed, so each parses here.
  const toolCalls = [...calls.values()].map(({ id, name, json }) => ({ id, name, input: JSON.parse(json || '{}') as unknown }))
  return { text, toolCalls, stopReason, usage }
}

type Meta = { readonly id: string; readonly model: string }

/** Anthropic's usage counts, in the order its API sends them. */
const USAGE_FIELDS = ['input_tokens', 'output_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens'] as const
type UsageFields = Record<(typeof USAGE_FIELDS)[number], number>

const usageFields = (usage: TurnUsage | null) => Object.fromEntries(USAGE_FIELDS.map((field) => [field, usage?.[field] ?? 0])) as UsageFields

const contentOf = (answer: Answer): Json[] => [
  ...(answer.text ? [{ type: 'text', text: answer.text }] : []),
  ...answer.toolCalls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.input })),
]

/** The `message` object: the whole answer, or (opening a stream) with no content and no stop yet. */
const messageOf = (meta: Meta, content: Json[], stopReason: string | null, usage: UsageFields) =>
  ({ id: meta.id, type: 'message', role: 'assistant', model: meta.model, content, stop_reason: stopReason, stop_sequence: null, usage })

/** The non-streaming `message` JSON. */
export function encodeAnthropicMessage(answer: Answer, meta: Meta): string {
  return JSON.stringify(messageOf(meta, contentOf(answer), answer.stopReason ?? 'end_turn', usageFields(answer.usage)))
}

/** The same answer as a whole Anthropic SSE stream, `message_start` to `message_stop`; usage goes in both ends, as the API sends it. */
export function encodeAnthropicSse(answer: Answer, meta: Meta): string {
  const event = (type: string, data: Json) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
  const usage = usageFields(answer.usage)
  const message = messageOf(meta, [], null, usage)
  const blocks = contentOf(answer).map((block, index) => {
    const { text, input, ...start } = block
    const delta = block.type === 'text' ? { type: 'text_delta', text } : { type: 'input_json_delta', partial_json: JSON.stringify(input) }
    return (
      event('content_block_start', { index, content_block: block.type === 'text' ? { type: 'text', text: '' } : { ...start, input: {} } }) +
      event('content_block_delta', { index, delta }) +
      event('content_block_stop', { index })
    )
  })
  return [
    event('message_start', { message }),
    ...blocks,
    event('message_delta', { delta: { stop_reason: answer.stopReason ?? 'end_turn', stop_sequence: null }, usage }),
    event('message_stop', {}),
  ].join('')
}

// ---- The decoder: an Anthropic SSE stream as the engine's chunks ----

/** The stop reasons the engine's chunk takes; any other ends the turn. */
const ENGINE_STOP_REASONS: readonly string[] = 'end_turn max_tokens stop_sequence tool_use pause_turn compaction refusal model_context_window_exceeded'.split(' ')

/** Only the counts an event carries: `message_delta` often holds output alone, and input must not fall back to 0. */
function usageUpdate(usage: Json | undefined): Partial<ModelUsage> {
  return Object.fromEntries(USAGE_FIELDS.flatMap((field) => (asCount(usage?.[field]) === undefined ? [] : [[field, asCount(usage?.[field])]])))
}

/** Fed each SSE event's `data`, like the OpenAI decoder, and numbered by the same step rules. */
export function createAnthropicDecoder(ctx: StepContext) {
  const step = createStep(ctx)
  /** The provider's own thinking blocks, by index: sent back, signed, to it alone (RULES.md D11, replay.ts). */
  const thinking = new Map<string, { type: string; thinking: string; signature: string }>()
  const thought = (key: string, text: string, signature: string) => {
    const block = thinking.get(key) ?? { type: 'thinking', thinking: '', signature: '' }
    thinking.set(key, { ...block, thinking: block.thinking + text, signature: block.signature + signature })
  }
  return {
    push: (data: string): Decoded =>
      readEvent(data, (event) => {
        const key = String(countOf(event.index))
        switch (event.type) {
          case 'message_start':
            step.usage(usageUpdate(asRecord(asRecord(event.message)?.usage)))
            break
          case 'content_block_start': {
            const block = asRecord(event.content_block) ?? {}
            if (block.type === 'thinking') thought(key, asText(block.thinking), asText(block.signature))
            if (block.type !== 'tool_use') return { chunks: [...step.text(asText(block.text)), ...step.thinking(asText(block.thinking))] }
            step.toolStart(key, asText(block.name))
            // A few compatible servers put the whole input here and send no deltas.
            const input = asRecord(block.input)
            if (input && Object.keys(input).length) step.toolArgs(key, JSON.stringify(input))
            break
          }
          case 'content_block_delta': {
            const delta = asRecord(event.delta) ?? {}
            if (delta.type === 'input_json_delta') step.toolArgs(key, asText(delta.partial_json))
            if (delta.type === 'thinking_delta' || delta.type === 'signature_delta') thought(key, asText(delta.thinking), asText(delta.signature))
            return { chunks: [...step.text(asText(delta.type === 'text_delta' ? delta.text : '')), ...step.thinking(asText(delta.thinking))] }
          }
          case 'message_delta': {
            const stop = asText(asRecord(event.delta)?.stop_reason)
            if (stop) step.stopReason((ENGINE_STOP_REASONS.includes(stop) ? stop : 'end_turn') as StopReason)
            step.usage(usageUpdate(asRecord(event.usage)))
            break
          }
          case 'message_stop':
            step.ended()
            break
          case 'error':
            return streamFailed(errorMessage(event.error))
        }
        // ping, content_block_stop, and event types added later: nothing to yield
        return NOTHING
      }),
    finish() {
      step.keep(undefined, [...thinking.values()].filter((b) => b.signature))
      return step.finish()
    },
  }
}
