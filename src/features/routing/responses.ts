// The `openai-responses` codec (issue 18 item 7; facts and sources: test/fixtures/providers/RESPONSES.md):
// OpenAI's Responses API, where its newest models are served, used statelessly (`store: false`, the whole
// conversation every time). The engine's request becomes `instructions` and `input` items; the answer's
// events become the engine's chunks. A step's reasoning comes back encrypted, and goes back with its
// calls to the provider and model that made it (replay.ts); no item carries an `id`, which under
// `store: false` the API would look up and refuse.
import type { ModelUsage } from 'claude-code'
import { requestHeaders } from './auth.ts'
import type { EffortLevel, Provider } from './config.ts'
import { DEFERRED_PLACEHOLDER_TOOL, RESPONSES_PATH, STRUCTURED_OUTPUT_NAME } from './constants.ts'
import { sentSchema, sentToolName } from './dialect.ts'
import { messageIn, sampleOf } from './failure.ts'
import { imageUrl, systemTextOf, toolResultText, type Outbound } from './openai.ts'
import { createRenamer, splitSystemMessages } from './prompt.ts'
import { createStep, type Decoded, type StepContext } from './step.ts'
import { blockOmitted, imageOmitted } from './strings.ts'
import { asCount, asRecord, asText, blocksOf, textOf, type AnthropicRequest, type Block, type Json } from './wire.ts'

/** The request for a captured engine request, and the engine's name of each tool by the name it was sent under. */
export function toResponsesRequest(body: AnthropicRequest, out: Outbound): { request: Json; toolName: (sent: string) => string } {
  const { route } = out
  const renamer = createRenamer(route, out.pkg)
  const { system, conversation } = splitSystemMessages(body.messages)
  // A call goes back under the provider's own id for it, where its step kept one.
  const callId = (id: unknown) => asText(out.replay([String(id)])?.calls?.[String(id)]?.call_id) || String(id)
  const input: Json[] = []
  for (const message of conversation) {
    const blocks = blocksOf(message.content)
    if (message.role === 'assistant') {
      const uses = blocks.filter((b) => b.type === 'tool_use')
      input.push(...((out.replay(uses.map((b) => String(b.id)))?.items ?? []) as Json[]))
      const text = blocks.filter((b) => b.type === 'text').map(textOf).join('')
      if (text) input.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] })
      for (const b of uses) input.push({ type: 'function_call', call_id: callId(b.id), name: sentToolName(String(b.name)), arguments: JSON.stringify(b.input ?? {}) })
      continue
    }
    const parts: Json[] = []
    for (const b of blocks) {
      if (b.type === 'tool_result') input.push({ type: 'function_call_output', call_id: callId(b.tool_use_id), output: toolResultText(b) })
      else if (b.type === 'text') parts.push({ type: 'input_text', text: renamer.rename(textOf(b)) })
      else if (b.type === 'image') {
        const url = route.vision ? imageUrl(b) : undefined
        parts.push(url ? { type: 'input_image', image_url: url } : { type: 'input_text', text: route.vision ? blockOmitted('image') : imageOmitted(route.label) })
      } else if (b.type !== 'thinking' && b.type !== 'redacted_thinking') parts.push({ type: 'input_text', text: blockOmitted(b.type) })
    }
    if (parts.some((p) => p.type !== 'input_text' || p.text)) input.push({ type: 'message', role: 'user', content: parts })
  }
  const names = new Map<string, string>()
  const tools = (body.tools ?? [])
    .filter((t) => t.name !== DEFERRED_PLACEHOLDER_TOOL && t.input_schema !== undefined)
    .map((t) => {
      const name = sentToolName(t.name)
      names.set(name, t.name)
      // Left out, `strict` is true, and every optional parameter of the engine's tools turns required.
      return { type: 'function', name, description: t.description ?? '', parameters: sentSchema(t.input_schema, false), strict: false }
    })
  const level = body.output_config?.effort
  const effort = typeof level === 'string' ? (route.effort ?? out.effort)?.[level as EffortLevel] : undefined
  const format = body.output_config?.format
  const request: Json = {
    model: route.model,
    instructions: systemTextOf(body, system as Block[], renamer),
    input,
    ...(tools.length ? { tools } : {}),
    // A reasoning model (the alias names its effort) sends its reasoning back encrypted, for the next request.
    ...(effort !== undefined ? { reasoning: { effort }, include: ['reasoning.encrypted_content'] } : {}),
    ...(route.maxOutput !== undefined ? { max_output_tokens: Math.max(16, Math.min(route.maxOutput, body.max_tokens ?? route.maxOutput)) } : {}),
    ...(format?.type === 'json_schema' && format.schema !== undefined ? { text: { format: { type: 'json_schema', name: STRUCTURED_OUTPUT_NAME, schema: format.schema, strict: false } } } : {}),
    store: false,
    stream: true,
  }
  return { request, toolName: (sent) => names.get(sent) ?? sent }
}

export function responsesTarget(provider: Provider, key: string | undefined): { url: string; headers: Record<string, string> } {
  return { url: provider.baseUrl + RESPONSES_PATH, headers: requestHeaders(provider, { 'Content-Type': 'application/json', Accept: 'text/event-stream' }, key) }
}

/** Usage in the engine's names: OpenAI's `input_tokens` holds the cached and the written ones. */
function usageOf(usage: Json | undefined): Partial<ModelUsage> {
  const details = asRecord(usage?.input_tokens_details)
  const cached = asCount(details?.cached_tokens) ?? 0
  const written = asCount(details?.cache_write_tokens) ?? 0
  return { input_tokens: Math.max(0, (asCount(usage?.input_tokens) ?? 0) - cached - written), cache_read_input_tokens: cached, cache_creation_input_tokens: written, output_tokens: asCount(usage?.output_tokens) ?? 0 }
}

/** Fed each SSE event's `data`; items are told apart by `output_index` (a gateway changes their ids between `.added` and `.done`). */
export function createResponsesDecoder(ctx: StepContext) {
  const step = createStep(ctx)
  /** The calls whose arguments came in pieces: a `.done` repeats them whole, for a server that sent none before. */
  const pieced = new Set<string>()
  let refused = false
  let summaries = 0

  function apply(event: Json): Decoded {
    const key = String(asCount(event.output_index) ?? 0)
    const item = asRecord(event.item) ?? {}
    const response = asRecord(event.response)
    switch (event.type) {
      case 'response.output_text.delta':
        return { chunks: step.text(asText(event.delta)) }
      case 'response.refusal.delta':
        refused = true
        return { chunks: step.text(asText(event.delta)) }
      case 'response.reasoning_summary_part.added':
        // Parts of a summary read as paragraphs.
        return { chunks: summaries++ ? step.thinking('\n\n') : [] }
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        return { chunks: step.thinking(asText(event.delta)) }
      case 'response.output_item.added':
        if (item.type === 'function_call') {
          step.toolStart(key, asText(item.name))
          step.keepCall(key, { call_id: item.call_id })
        }
        return { chunks: [] }
      case 'response.function_call_arguments.delta':
        pieced.add(key)
        step.toolArgs(key, asText(event.delta))
        return { chunks: [] }
      case 'response.function_call_arguments.done':
      case 'response.output_item.done': {
        const args = asText(event.arguments) || (item.type === 'function_call' ? asText(item.arguments) : '')
        if (args && !pieced.has(key)) {
          pieced.add(key)
          step.toolArgs(key, args)
        }
        // Only `.done` holds the whole encrypted reasoning; sent back without an id (RESPONSES.md §1.4).
        if (item.type === 'reasoning' && item.encrypted_content) step.keep(undefined, [{ type: 'reasoning', summary: item.summary ?? [], encrypted_content: item.encrypted_content }])
        return { chunks: [] }
      }
      case 'response.completed':
      case 'response.incomplete': {
        step.usage(usageOf(asRecord(response?.usage)))
        const cut = asText(asRecord(response?.incomplete_details)?.reason)
        step.stopReason(refused || cut === 'content_filter' ? 'refusal' : event.type === 'response.incomplete' ? 'max_tokens' : 'end_turn')
        return { chunks: [] }
      }
      case 'response.failed':
      case 'error':
        return { chunks: [], failure: { kind: 'stream-error', message: messageIn(response?.error) ?? messageIn(event) ?? JSON.stringify(event) } }
      default:
        return { chunks: [] }
    }
  }

  return {
    push(data: string): Decoded {
      let event: Json | undefined
      try {
        event = asRecord(JSON.parse(data))
      } catch {
        event = undefined
      }
      return event ? apply(event) : { chunks: [], failure: { kind: 'unreadable', sample: sampleOf(data) } }
    },
    finish: () => step.finish(),
  }
}
