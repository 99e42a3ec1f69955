// The `openai-chat` codec (§3.4): the engine's captured Anthropic request as a Chat Completions
// request, and the provider's answer (an SSE stream, or one JSON completion) as the engine's chunks.
import { requestHeaders } from './auth.ts'
import type { EffortLevel, Provider, Route } from './config.ts'
import { sentSchema, sentToolName, shortToolId, type Behaviour } from './dialect.ts'
import type { ReplayLookup } from './replay.ts'
import { BLOCK_SEPARATOR, DEFERRED_PLACEHOLDER_TOOL, OPENAI_CHAT_PATH, SKIP_SIGNATURE, STRUCTURED_OUTPUT_NAME } from './constants.ts'
import { errorMessage, type RouteFailure } from './failure.ts'
import { createRenamer, providerSystemBlocks, splitSystemMessages } from './prompt.ts'
import { createStep, type Decoded, type ProviderUsage, type StepContext, type StepEnd, type StopReason } from './step.ts'
import { blockOmitted, imageOmitted, TOOL_ERROR_PREFIX, TOOL_IMAGE_OMITTED } from './strings.ts'
import { asCount, asList, asRecord, countOf, asText, blocksOf, isThinking, textOf, toolUsesOf, NOTHING, readEvent, streamFailed, type AnthropicMessage, type AnthropicRequest, type AnthropicTool, type Block, type Json } from './wire.ts'

export type OpenAiPart = { readonly type: 'text'; readonly text: string } | { readonly type: 'image_url'; readonly image_url: { readonly url: string } }
export type OpenAiToolCall = { readonly id: string; readonly type: 'function'; readonly function: { readonly name: string; readonly arguments: string } }
export type OpenAiMessage =
  | { readonly role: 'system'; readonly content: string }
  | { readonly role: 'user'; readonly content: string | readonly OpenAiPart[] }
  | { readonly role: 'assistant'; readonly content: string | null; readonly tool_calls?: readonly OpenAiToolCall[]; readonly [kept: string]: unknown }
  | { readonly role: 'tool'; readonly tool_call_id: string; readonly content: string }
export type OpenAiTool = { readonly type: 'function'; readonly function: { readonly name: string; readonly description?: string; readonly parameters: unknown } }
export type OpenAiRequest = {
  readonly model: string
  readonly messages: readonly OpenAiMessage[]
  readonly tools?: readonly OpenAiTool[]
  readonly max_tokens?: number
  readonly max_completion_tokens?: number
  readonly reasoning_effort?: string
  /** The engine's structured output (`output_config.format`, its title call): OpenAI's JSON-schema form. */
  readonly response_format?: { readonly type: 'json_schema'; readonly json_schema: { readonly name: string; readonly schema: unknown } }
  readonly stream: true
  readonly stream_options?: { readonly include_usage: true }
}

/** What a request is built for besides the engine's body: the route, its dialect, and what its earlier steps send back. */
export type Outbound = {
  readonly route: Route
  readonly pkg: string
  readonly behaviours: ReadonlySet<Behaviour>
  /** The alias's effort names, else its family's (a preset's `effort`). */
  readonly effort?: Readonly<Partial<Record<EffortLevel, string>>>
  readonly replay: ReplayLookup
}

const joinText = (texts: readonly string[]) => texts.filter(Boolean).join(BLOCK_SEPARATOR)

function imageUrl(block: Block): string | undefined {
  const source = block.source as { type?: unknown; media_type?: unknown; data?: unknown; url?: unknown } | undefined
  if (source?.type === 'base64' && typeof source.media_type === 'string' && typeof source.data === 'string') return `data:${source.media_type};base64,${source.data}`
  if (source?.type === 'url' && typeof source.url === 'string') return source.url
}

/**
 * A user block other than a tool result, as a provider reads it (both OpenAI codecs): its text
 * renamed, an image's URL where the alias reads images, else a placeholder; thinking is nothing.
 */
export function userContent(block: Block, route: Route, rename: (text: string) => string): { readonly text: string } | { readonly url: string } | undefined {
  if (block.type === 'text') return { text: rename(textOf(block)) }
  if (block.type !== 'image') return isThinking(block) ? undefined : { text: blockOmitted(block.type) }
  const url = route.vision && imageUrl(block)
  return url ? { url } : { text: route.vision ? blockOmitted('image') : imageOmitted(route.label) }
}

/** A tool result's text: a tool message carries text only, so an image in it becomes a placeholder. */
export function toolResultText(block: Block): string {
  const content = block.content
  const text =
    typeof content === 'string'
      ? content
      : joinText(((content ?? []) as Block[]).map((b) => (b.type === 'text' ? textOf(b) : b.type === 'image' ? TOOL_IMAGE_OMITTED : blockOmitted(b.type))))
  return block.is_error === true ? TOOL_ERROR_PREFIX + text : text
}

/** The system prompt as one text (the engine's blocks and system messages, cleaned and renamed); with the engine's Claude identity gone, a prompt that never named the model still says who answers. */
export function systemTextOf(body: AnthropicRequest, systemMessages: readonly Block[], renamer: ReturnType<typeof createRenamer>): string {
  const text = renamer.rename(joinText([...providerSystemBlocks(body.system), ...systemMessages].map(textOf)))
  return renamer.named ? text : joinText([renamer.identity, text])
}

/**
 * The engine's tools a provider can call (not its placeholder; only those with a schema), each as
 * `make` builds it under the name it is sent as, and the engine's name of each by that name.
 */
export function sentTools<T>(body: AnthropicRequest, make: (name: string, tool: AnthropicTool) => T): { tools: T[]; toolName: (sent: string) => string } {
  const names = new Map<string, string>()
  const tools = (body.tools ?? [])
    .filter((t) => t.name !== DEFERRED_PLACEHOLDER_TOOL && t.input_schema !== undefined)
    .map((t) => {
      const name = sentToolName(t.name)
      names.set(name, t.name)
      return make(name, t)
    })
  return { tools, toolName: (sent) => names.get(sent) ?? sent }
}

/** The provider's name for the engine's effort level: the alias's names, else its family's; undefined where neither names the level (or the engine sent none). */
export const effortOf = (body: AnthropicRequest, out: Outbound): string | undefined => (out.route.effort ?? out.effort)?.[body.output_config?.effort as EffortLevel]

/**
 * The output cap a request carries: the alias's `maxOutput`, within the engine's own; undefined
 * without one, since the engine asks for Claude's output size, which most other models refuse.
 */
export const outputCap = (route: Route, body: AnthropicRequest): number | undefined => route.maxOutput && Math.min(route.maxOutput, body.max_tokens ?? route.maxOutput)

/** The schema of the engine's structured output (`output_config.format`, its title call), where it asks for one. */
export const schemaOf = (body: AnthropicRequest): unknown => (body.output_config?.format?.type === 'json_schema' ? body.output_config.format.schema : undefined)

/** The id a call is sent under: the engine's, or Mistral's 9 characters made from it. */
const callId = (id: string, out: Outbound) => (out.behaviours.has('shortToolIds') ? shortToolId(id) : id)

/**
 * A user message: its tool results first, as `tool` messages, so each follows the assistant call it
 * answers; then its own text and images (where no user message may follow a tool one, its text joins
 * the last tool result).
 */
function userMessages(message: AnthropicMessage, out: Outbound, rename: (text: string) => string): OpenAiMessage[] {
  const tools: { role: 'tool'; tool_call_id: string; content: string }[] = []
  const parts: OpenAiPart[] = []
  for (const block of blocksOf(message.content)) {
    if (block.type === 'tool_result') {
      tools.push({ role: 'tool', tool_call_id: callId(block.tool_use_id as string, out), content: toolResultText(block) })
      continue
    }
    const part = userContent(block, out.route, rename)
    if (part) parts.push('url' in part ? { type: 'image_url', image_url: { url: part.url } } : { type: 'text', text: part.text })
  }
  const kept = parts.filter((p) => p.type !== 'text' || p.text)
  if (!kept.length) return tools
  // Text alone stays a string: some compatible servers take no content parts.
  const texts = kept.flatMap((p) => (p.type === 'text' ? [p.text] : [blockOmitted('image')]))
  const last = tools.at(-1)
  if (last && out.behaviours.has('toolTextFolded')) {
    last.content = joinText([last.content, ...texts])
    return tools
  }
  const content = kept.every((p) => p.type === 'text') ? joinText(texts) : kept
  return [...tools, { role: 'user', content }]
}

/**
 * An assistant message: its text and its tool calls (ids kept), with what its step must send back when
 * the same provider and model made it (replay.ts); thinking and server-tool blocks are the engine's own record.
 */
function assistantMessages(message: AnthropicMessage, out: Outbound): OpenAiMessage[] {
  const blocks = blocksOf(message.content)
  const text = joinText(blocks.filter((b) => b.type === 'text').map(textOf))
  const uses = toolUsesOf(blocks)
  const replay = out.replay(uses.map((b) => b.id))
  const calls: OpenAiToolCall[] = uses.map((b, i) => ({
    id: callId(b.id, out),
    type: 'function',
    function: { name: sentToolName(b.name), arguments: JSON.stringify(b.input) },
    // Gemini's first call of a step needs a signature: one made elsewhere (another model's call) gets the placeholder.
    ...(i === 0 && out.behaviours.has('skipSignature') && SKIP_SIGNATURE),
    ...replay?.calls?.[b.id],
  }))
  if (!text && !calls.length) return []
  return [{ role: 'assistant', content: text || null, ...(calls.length && { tool_calls: calls }), ...(out.behaviours.has('emptyReasoning') && { reasoning_content: '' }), ...replay?.fields }]
}

/** The Chat Completions request for a captured engine request, and the engine's name of each tool by the name it was sent under. */
export function toOpenAiRequest(body: AnthropicRequest, out: Outbound): { request: OpenAiRequest; toolName: (sent: string) => string } {
  const { route, behaviours } = out
  const renamer = createRenamer(route, out.pkg)
  const { system: systemMessages, conversation } = splitSystemMessages(body.messages)
  const messages = conversation.flatMap((m) => (m.role === 'assistant' ? assistantMessages(m, out) : userMessages(m, out, renamer.rename)))
  const { tools, toolName } = sentTools(body, (name, t): OpenAiTool => ({
    type: 'function',
    function: { name, ...(typeof t.description === 'string' && { description: t.description }), parameters: sentSchema(t.input_schema, behaviours.has('schemaSubset')) },
  }))
  const effort = effortOf(body, out)
  const maxTokens = outputCap(route, body)
  const schema = schemaOf(body)
  const request: OpenAiRequest = {
    model: route.model,
    messages: [{ role: 'system', content: systemTextOf(body, systemMessages, renamer) }, ...messages],
    ...(tools.length && { tools }),
    // A field left undefined is left out of the JSON sent.
    [behaviours.has('maxCompletionTokens') ? 'max_completion_tokens' : 'max_tokens']: maxTokens,
    reasoning_effort: effort,
    ...(schema !== undefined && { response_format: { type: 'json_schema', json_schema: { name: STRUCTURED_OUTPUT_NAME, schema } } }),
    stream: true,
    ...(behaviours.has('noStreamOptions') ? {} : { stream_options: { include_usage: true } }),
  }
  return { request, toolName }
}

/** Where a request goes (the Chat Completions path, or another under the same base URL) and its headers (curl adds `Expect:`). */
export function openAiTarget(provider: Provider, key: string | undefined, path = OPENAI_CHAT_PATH): { url: string; headers: Record<string, string> } {
  return {
    url: provider.baseUrl + path,
    headers: requestHeaders(provider, { 'Content-Type': 'application/json', Accept: 'text/event-stream' }, key),
  }
}

// ---- The answer ----

/** `finish_reason` as the engine's stop reason; `function_call` is the legacy name of `tool_calls`; an unknown one ends the turn. */
const FINISH_REASONS: Readonly<Record<string, StopReason>> = {
  stop: 'end_turn',
  tool_calls: 'tool_use',
  function_call: 'tool_use',
  length: 'max_tokens',
  content_filter: 'refusal',
}

/**
 * Usage in the engine's names; cached tokens come as `prompt_tokens_details.cached_tokens` (OpenAI) or
 * `prompt_cache_hit_tokens` (DeepSeek); where `completion_tokens` leaves the reasoning out (xAI), it is added.
 */
function usageOf(usage: Json, reasoningApart: boolean): ProviderUsage {
  const prompt = countOf(usage.prompt_tokens)
  const cached = asCount(asRecord(usage.prompt_tokens_details)?.cached_tokens) ?? countOf(usage.prompt_cache_hit_tokens)
  const reasoning = countOf(asRecord(usage.completion_tokens_details)?.reasoning_tokens)
  const output = countOf(usage.completion_tokens) + (reasoningApart ? reasoning : 0)
  return { input_tokens: Math.max(0, prompt - cached), cache_read_input_tokens: cached, output_tokens: output, reasoning_tokens: reasoning }
}

/**
 * OpenRouter's `reasoning_details` from stream deltas: a detail continuing one of the same `index`
 * extends its text fields; any other is a new one. Sent back unmodified and in order (RULES.md O1).
 */
function mergeDetails(details: Json[], more: unknown): void {
  for (const raw of asList(more)) {
    const detail = asRecord(raw)
    if (!detail) continue
    const same = details.find((d) => d.index !== undefined && d.index === detail.index && d.type === detail.type)
    if (!same) details.push({ ...detail })
    else for (const field of ['text', 'summary', 'data']) if (typeof detail[field] === 'string') same[field] = asText(same[field]) + detail[field]
  }
}

/** Content as parts (Magistral): its text parts as text, its thinking parts as thinking. */
const partsOf = (content: unknown, kind: 'text' | 'thinking'): string =>
  typeof content === 'string'
    ? kind === 'text' ? content : ''
    : asList(content).map((part) => {
        const p = asRecord(part)
        return p?.type !== kind ? '' : kind === 'text' ? asText(p.text) : partsOf(p.thinking, 'text')
      }).join('')

/**
 * The streaming decoder: fed each SSE event's `data` (`[DONE]` included), it returns the chunks to
 * yield now; `finish()` gives the held-back tool calls and the stop (undefined: the stream never finished).
 */
export function createOpenAiDecoder(ctx: StepContext, behaviours: ReadonlySet<Behaviour> = new Set()) {
  const step = createStep(ctx)
  /** What the step sends back to the provider that made it (replay.ts): DeepSeek's reasoning text, OpenRouter's details. */
  let reasoningContent = ''
  const details: Json[] = []
  // A call's slot: the provider's index, unless a new id comes at an index already taken (Ollama
  // numbers every parallel call 0, telling them apart by id alone), or, with no index at all, a new
  // name comes where a call was named already (gateways in front of Gemini send one whole call per
  // chunk with neither index nor id: the array position is 0 for each).
  const slots = new Map<number, { readonly key: string; id: string; named: boolean }>()
  let slotCount = 0
  let done = false

  const slotFor = (index: number | undefined, position: number, id: string, name: string): string => {
    const slot = slots.get(index ?? position)
    if (slot && (id && slot.id ? slot.id === id : !(index === undefined && name && slot.named))) {
      slot.id ||= id
      slot.named ||= name !== ''
      return slot.key
    }
    const fresh = { key: String(slotCount++), id, named: name !== '' }
    slots.set(index ?? position, fresh)
    return fresh.key
  }

  /** One chunk (`delta`) or a whole completion (`message`): both carry the same fields. */
  const apply = (field: 'delta' | 'message') => (chunk: Json): Decoded => {
    // An older vLLM's error mid-stream has no `error` key: `{"object": "error", "message": …}`.
    const error = chunk.error ?? (chunk.object === 'error' ? chunk : null)
    if (error !== null) return streamFailed(errorMessage(error))
    const usage = asRecord(chunk.usage)
    if (usage) step.usage(usageOf(usage, behaviours.has('reasoningInOutput')))
    const choices = asList(chunk.choices).map(asRecord)
    const choice = choices.find((c) => c && countOf(c.index) === 0)
    if (!choice) return NOTHING
    const delta = asRecord(choice[field]) ?? {}
    reasoningContent += asText(delta.reasoning_content)
    mergeDetails(details, delta.reasoning_details)
    const chunks = [
      ...step.thinking(asText(delta.reasoning_content) || asText(delta.reasoning) || partsOf(delta.content, 'thinking')),
      ...step.text(partsOf(delta.content, 'text')),
      ...step.text(asText(delta.refusal)),
    ]
    const calls = asList(delta.tool_calls)
    calls.forEach((raw, position) => {
      const call = asRecord(raw) ?? {}
      const fn = asRecord(call.function) ?? {}
      const name = asText(fn.name)
      const key = slotFor(asCount(call.index), position, asText(call.id), name)
      step.toolStart(key, name)
      // Gemini's thought signature rides on the call it belongs to, and goes back on it.
      if (call.extra_content !== undefined) step.keepCall(key, { extra_content: call.extra_content })
      // A few servers send the arguments as an object rather than JSON text.
      step.toolArgs(key, typeof fn.arguments === 'string' ? fn.arguments : fn.arguments == null ? '' : JSON.stringify(fn.arguments))
    })
    const finish = asText(choice.finish_reason)
    // A whole completion is finished whatever it says; a stream only once a reason or [DONE] came.
    if (finish || field === 'message') step.stopReason(FINISH_REASONS[finish] ?? 'end_turn')
    return { chunks }
  }

  return {
    push(data: string): Decoded {
      if (done) return NOTHING
      if (data.trim() !== '[DONE]') return readEvent(data, apply('delta'))
      done = true
      step.ended()
      return NOTHING
    },
    /** A whole `chat.completion` JSON: a provider that answers without streaming. */
    pushCompletion: (json: string): Decoded => readEvent(json, apply('message')),
    finish() {
      step.keep({ ...(reasoningContent && { reasoning_content: reasoningContent }), ...(details.length && { reasoning_details: details }) })
      return step.finish()
    },
  }
}

/** A non-streaming answer decoded at once: the chunks a stream of it would have given, or its failure. */
export function decodeOpenAiCompletion(json: string, ctx: StepContext, behaviours?: ReadonlySet<Behaviour>): StepEnd | { readonly failure: RouteFailure } {
  const decoder = createOpenAiDecoder(ctx, behaviours)
  const { chunks, failure } = decoder.pushCompletion(json)
  if (failure) return { failure }
  const end = decoder.finish()!
  return { ...end, chunks: [...chunks, ...end.chunks] }
}
