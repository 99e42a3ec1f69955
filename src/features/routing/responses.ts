// The `openai-responses` codec (issue 18 item 7; facts and sources: test/fixtures/providers/RESPONSES.md):
// OpenAI's Responses API, where its newest models are served, used statelessly (`store: false`, the whole
// conversation every time). The engine's request becomes `instructions` and `input` items; the answer's
// events become the engine's chunks. A step's reasoning comes back encrypted, and goes back with its
// calls to the provider and model that made it (replay.ts); no item carries an `id`, which under
// `store: false` the API would look up and refuse.
import { STRUCTURED_OUTPUT_NAME } from './constants.ts'
import { sentSchema, sentToolName } from './dialect.ts'
import { messageIn } from './failure.ts'
import { effortOf, outputCap, schemaOf, sentTools, systemTextOf, toolResultText, userContent, type Outbound } from './openai.ts'
import { createRenamer, splitSystemMessages } from './prompt.ts'
import { createStep, type Decoded, type ProviderUsage, type StepContext } from './step.ts'
import { asRecord, asText, countOf, blocksOf, NOTHING, readEvent, streamFailed, textOf, toolUsesOf, type AnthropicRequest, type Json } from './wire.ts'

/** The request for a captured engine request, and the engine's name of each tool by the name it was sent under. */
export function toResponsesRequest(body: AnthropicRequest, out: Outbound): { request: Json; toolName: (sent: string) => string } {
  const { route } = out
  const renamer = createRenamer(route, out.pkg)
  const { system, conversation } = splitSystemMessages(body.messages)
  // A call goes back under the provider's own id for it, where its step kept one.
  const callId = (id: string) => asText(out.replay([id])?.calls?.[id]?.call_id) || id
  const input: Json[] = []
  for (const message of conversation) {
    const blocks = blocksOf(message.content)
    if (message.role === 'assistant') {
      const uses = toolUsesOf(blocks)
      input.push(...((out.replay(uses.map((b) => b.id))?.items ?? []) as Json[]))
      const text = blocks.filter((b) => b.type === 'text').map(textOf).join('')
      if (text) input.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text }] })
      for (const b of uses) input.push({ type: 'function_call', call_id: callId(b.id), name: sentToolName(b.name), arguments: JSON.stringify(b.input) })
      continue
    }
    const parts: Json[] = []
    for (const b of blocks) {
      if (b.type === 'tool_result') {
        input.push({ type: 'function_call_output', call_id: callId(b.tool_use_id as string), output: toolResultText(b) })
        continue
      }
      const part = userContent(b, route, renamer.rename)
      if (part) parts.push('url' in part ? { type: 'input_image', image_url: part.url } : { type: 'input_text', text: part.text })
    }
    if (parts.some((p) => p.type !== 'input_text' || p.text)) input.push({ type: 'message', role: 'user', content: parts })
  }
  // Left out, `strict` is true, and every optional parameter of the engine's tools turns required.
  const { tools, toolName } = sentTools(body, (name, t) => ({ type: 'function', name, description: t.description ?? '', parameters: sentSchema(t.input_schema, false), strict: false }))
  const effort = effortOf(body, out)
  const maxOutput = outputCap(route, body)
  const schema = schemaOf(body)
  const request: Json = {
    model: route.model,
    instructions: systemTextOf(body, system, renamer),
    input,
    ...(tools.length && { tools }),
    // A reasoning model (the alias names its effort) sends its reasoning back encrypted, for the next request.
    ...(effort !== undefined && { reasoning: { effort }, include: ['reasoning.encrypted_content'] }),
    ...(maxOutput !== undefined && { max_output_tokens: Math.max(16, maxOutput) }),
    ...(schema !== undefined && { text: { format: { type: 'json_schema', name: STRUCTURED_OUTPUT_NAME, schema, strict: false } } }),
    store: false,
    stream: true,
  }
  return { request, toolName }
}

/** Usage in the engine's names: OpenAI's `input_tokens` holds the cached and the written ones. */
function usageOf(usage: Json | undefined): ProviderUsage {
  const details = asRecord(usage?.input_tokens_details)
  const cached = countOf(details?.cached_tokens)
  const written = countOf(details?.cache_write_tokens)
  const reasoning = countOf(asRecord(usage?.output_tokens_details)?.reasoning_tokens)
  return { input_tokens: Math.max(0, countOf(usage?.input_tokens) - cached - written), cache_read_input_tokens: cached, cache_creation_input_tokens: written, output_tokens: countOf(usage?.output_tokens), reasoning_tokens: reasoning }
}

/** Fed each SSE event's `data`; items are told apart by `output_index` (a gateway changes their ids between `.added` and `.done`). */
export function createResponsesDecoder(ctx: StepContext) {
  const step = createStep(ctx)
  /** The calls whose arguments came in pieces: a `.done` repeats them whole, for a server that sent none before. */
  const pieced = new Set<string>()
  let refused = false
  let summaries = 0

  function apply(event: Json): Decoded {
    const key = String(countOf(event.output_index))
    const item = asRecord(event.item) ?? {}
    const response = asRecord(event.response)
    switch (event.type) {
      case 'response.refusal.delta':
        refused = true
      // falls through: a refusal is shown as the answer's text
      case 'response.output_text.delta':
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
        break
      case 'response.function_call_arguments.delta':
        pieced.add(key)
        step.toolArgs(key, asText(event.delta))
        break
      case 'response.function_call_arguments.done':
      case 'response.output_item.done': {
        const args = asText(event.arguments) || (item.type === 'function_call' ? asText(item.arguments) : '')
        if (args && !pieced.has(key)) {
          pieced.add(key)
          step.toolArgs(key, args)
        }
        // Only `.done` holds the whole encrypted reasoning; sent back without an id (RESPONSES.md §1.4).
        if (item.type === 'reasoning' && item.encrypted_content) step.keep(undefined, [{ type: 'reasoning', summary: item.summary ?? [], encrypted_content: item.encrypted_content }])
        break
      }
      case 'response.completed':
      case 'response.incomplete': {
        step.usage(usageOf(asRecord(response?.usage)))
        const cut = asText(asRecord(response?.incomplete_details)?.reason)
        step.stopReason(refused || cut === 'content_filter' ? 'refusal' : event.type === 'response.incomplete' ? 'max_tokens' : 'end_turn')
        break
      }
      case 'response.failed':
      case 'error':
        return streamFailed(messageIn(response?.error) ?? messageIn(event) ?? JSON.stringify(event))
    }
    return NOTHING
  }

  return {
    push: (data: string): Decoded => readEvent(data, apply),
    finish: () => step.finish(),
  }
}
