// One routed response as the engine takes it (§2.1): the chunks to yield and the step's result.
// Both decoders feed this builder, so block numbering, the tool-argument check and the stop are
// one rule whatever the provider's format.
//
// Blocks: text is block 0, as measured; thinking (shown, never recorded) is block 1 when any came;
// tool call i follows them (1+i, or 2+i after thinking). Tool calls are held back until the
// response ends: a call's arguments are whole only then (calls interleave by index), and one whose
// JSON does not parse must yield no chunk at all (rule 5), so the check needs the whole text first.
import type { ModelUsage, TurnStepChunk, TurnStepResult, TurnUsage } from 'claude-code'
import type { RouteFailure } from './failure.ts'
import type { Replay } from './replay.ts'
import type { Counted } from './usage.ts'
import { CUT_OFF, textToolCall, UNNAMED_TOOL, unreadableArguments } from './strings.ts'
import { asRecord, type Json } from './wire.ts'
import { isRecord, parseJson } from '../../lib/shape.ts'

export type StepChunk = Exclude<TurnStepChunk, { kind: 'engine' }>
export type StopReason = TurnStepResult['stopReason']
/** The step result without the fields the caller copies from the step's input (turnId, index). */
export type StepResult = Pick<TurnStepResult, 'answer' | 'toolUses' | 'stopReason' | 'usage'>
/** What a step must send back with its calls (replay.ts), by the ids the engine got; its origin is the caller's to add. */
export type Kept = Omit<Replay, 'origin'> & { readonly ids: readonly string[] }
/** The step's chunks and result; what it must send back; the provider's own usage, where it sent one (usage.ts). */
export type StepEnd = { readonly chunks: StepChunk[]; readonly result: StepResult; readonly kept?: Kept; readonly counted?: Counted }
/** Usage as a decoder reads it: the engine's names, and the reasoning tokens inside the output. */
export type ProviderUsage = Partial<ModelUsage> & { reasoning_tokens?: number }
/** What one stream event gives: the chunks to yield now, and a failure that ends the stream. */
export type Decoded = { readonly chunks: StepChunk[]; readonly failure?: RouteFailure }
/** Both formats' decoders, fed each SSE event's `data`; `finish()` is undefined for a stream that never said it was finished. */
export type StreamDecoder = { push(data: string): Decoded; finish(): StepEnd | undefined }

export type StepContext = {
  readonly pkg: string
  readonly label: string
  /** The engine's model name for the route: the usage names it, so the turn reads as routed. */
  readonly alias: string
  /** Mints the tool-use id each call gets (ids.ts). */
  readonly mintId: () => string
  /**
   * The request's size in tokens, estimated (estimate.ts): the input count when the provider sends
   * none, so the engine's context fill never drops to 0 on a failed or uncounted step.
   */
  readonly estimatedInput?: number
  /** The engine's name for a tool by the name it was sent under (dialect.ts `sentToolName`); absent: the same. */
  readonly toolName?: (sent: string) => string
}

const TEXT_INDEX = 0
const THINKING_INDEX = 1

type Call = { name?: string; readonly args: string[]; kept?: Json }

/** A JSON object, or undefined: a tool's input is an object, so anything else is as unreadable as broken text. */
export const parseObject = (json: string): object | undefined => asRecord(parseJson(json))

/** A tool call printed as the whole answer: a JSON `{name, arguments}`, bare or in `<tool_call>` / `[TOOL_REQUEST]` tags; its name. */
function printedCall(answer: string): string | undefined {
  const body = answer.trim().replace(/^(<tool_call>|\[TOOL_REQUEST\])([\s\S]*)(<\/tool_call>|\[END_TOOL_REQUEST\])$/, '$2').trim()
  const call = (body.startsWith('{') && parseObject(body)) as Json | undefined
  return call && typeof call.name === 'string' && isRecord(call.arguments ?? call.parameters) ? call.name : undefined
}

/** The separator a notice needs after the text so far: a blank line, unless the text is empty or ends a line. */
const noticeGap = (answer: string) => (answer === '' || answer.endsWith('\n\n') ? '' : answer.endsWith('\n') ? '\n' : '\n\n')

export function createStep(ctx: StepContext) {
  let answer = ''
  let thought = false
  /** Undefined until the provider said the answer was finished (a finish reason, or its end marker). */
  let reason: StopReason | undefined
  let usage: ProviderUsage = {}
  const calls = new Map<string, Call>()
  let keptFields: Json | undefined
  let keptItems: unknown[] | undefined

  const textChunk = (text: string): StepChunk => {
    answer += text
    return { kind: 'text', index: TEXT_INDEX, text }
  }
  const notice = (text: string) => textChunk(noticeGap(answer) + text)
  const callAt = (key: string) => {
    const call = calls.get(key) ?? { args: [] }
    calls.set(key, call)
    return call
  }
  const usageOut = (): TurnUsage => ({
    input_tokens: usage.input_tokens ?? ctx.estimatedInput ?? 0,
    output_tokens: usage.output_tokens ?? 0,
    cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
    cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
    model: ctx.alias,
  })
  const end = (chunks: StepChunk[], toolUses: TurnStepResult['toolUses'], stopReason: StopReason): StepEnd => {
    const { input_tokens: input, output_tokens: output } = usage
    return {
      chunks: [...chunks, { kind: 'stop', stopReason, usage: usageOut() }],
      result: { answer, toolUses, stopReason, usage: usageOut() },
      ...((input !== undefined || output !== undefined) && { counted: { input: input ?? 0, output: output ?? 0, cacheRead: usage.cache_read_input_tokens ?? 0, cacheWrite: usage.cache_creation_input_tokens ?? 0, reasoning: usage.reasoning_tokens ?? 0 } }),
    }
  }

  return {
    text: (piece: string): StepChunk[] => (piece ? [textChunk(piece)] : []),
    thinking(piece: string): StepChunk[] {
      if (!piece) return []
      thought = true
      return [{ kind: 'thinking', index: THINKING_INDEX, text: piece }]
    },
    /** A tool call's name, keyed by the provider's own slot for it; a later name does not replace the first. */
    toolStart(key: string, name: string | undefined) {
      callAt(key).name ??= name || undefined
    },
    toolArgs(key: string, piece: string) {
      if (piece) callAt(key).args.push(piece)
    },
    /** What the step must send back: fields of its message, items ahead of its content, fields of one call. */
    keep(fields: Json | undefined, items?: readonly unknown[]) {
      if (fields && Object.keys(fields).length) keptFields = { ...keptFields, ...fields }
      if (items?.length) keptItems = [...(keptItems ?? []), ...items]
    },
    keepCall(key: string, fields: Json) {
      const call = callAt(key)
      call.kept = { ...call.kept, ...fields }
    },
    usage(update: ProviderUsage) {
      usage = { ...usage, ...update }
    },
    stopReason(stop: StopReason) {
      reason = stop
    },
    /** The provider's end marker (`[DONE]`, `message_stop`): finished, whether or not a reason came. */
    ended() {
      reason ??= null
    },
    /**
     * The response is whole: each checked tool call, a notice for each unreadable one, a notice for an
     * answer the provider cut (its output limit, its filter), and the stop; undefined when the stream
     * ended without saying it was finished, which is a cut, not an answer.
     */
    finish(): StepEnd | undefined {
      if (reason === undefined) return
      const chunks: StepChunk[] = []
      const toolUses: { name: string; input: unknown }[] = []
      /** The ids minted for the calls the engine gets, and what any of them sends back. */
      const ids: string[] = []
      let keptCalls: Record<string, Json> | undefined
      const base = thought ? THINKING_INDEX + 1 : TEXT_INDEX + 1
      for (const call of calls.values()) {
        const json = call.args.join('').trim() || '{}'
        const input = parseObject(json)
        const name = call.name && (ctx.toolName?.(call.name) ?? call.name)
        if (!name || !input) {
          chunks.push(notice(unreadableArguments(ctx.pkg, ctx.label, name || UNNAMED_TOOL)))
          continue
        }
        const index = base + ids.length
        const id = ctx.mintId()
        if (call.kept) (keptCalls ??= {})[id] = call.kept
        chunks.push({ kind: 'tool', index, id, name }, { kind: 'input', index, json })
        toolUses.push({ name, input })
        ids.push(id)
      }
      // A model that printed a call as its answer (a weak local model): said, never run (RULES.md, text tool calls).
      const printed = !toolUses.length && printedCall(answer)
      if (printed) chunks.push(notice(textToolCall(ctx.pkg, ctx.label, printed)))
      // Only a call the engine received makes it run tools; a call that failed the check leaves plain text.
      const stopReason: StopReason = toolUses.length ? 'tool_use' : reason === 'tool_use' || reason === null ? 'end_turn' : reason
      const cut = CUT_OFF[String(stopReason)]
      if (cut) chunks.push(notice(cut(ctx.pkg, ctx.label)))
      const kept = ids.length > 0 && (keptFields || keptItems || keptCalls) && { ids, ...(keptFields && { fields: keptFields }), ...(keptCalls && { calls: keptCalls }), ...(keptItems && { items: keptItems }) }
      return { ...end(chunks, toolUses, stopReason), ...(kept && { kept }) }
    },
    /** A step answered with a line alone (keel's own failure, before any answer): the text so far, the line, and no held-back tool call. */
    fail(text: string): StepEnd {
      return end([notice(text)], [], 'end_turn')
    },
  }
}

export type Step = ReturnType<typeof createStep>
