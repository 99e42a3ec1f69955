// The captions state machine. Rows ask for captions as they are drawn (never waiting on the model);
// a clock edge sends the queue in batches over the mirror; replies are stored by tool_use_id and
// a redraw lets the rows draw them. Driven through edges only: no port, no `$`.
import type { ModelCompleteRequest, ModelCompleteResult } from 'claude-code'
import {
  BATCH_CALLS, CAPTURED_LIMIT, CONTEXT_TOKENS_OPTION, FIELD_CAP, FLUSH_MS, LANGUAGE_OPTION, MODEL_OPTION,
  RUN_FIELD_CAP, STYLE_OPTION, TIMEOUT_MS, TOKENS_PER_CALL, TOKENS_PER_UNIT,
} from './constants.ts'
import { clip, fileChange, inputSubtitle, nonBlank, parseReply, stringify, transcriptCalls, type ApiMessageLike, type SeenCall } from './digest.ts'
import { absorb, emptyMirror, measuredTokensPerChar, movePivot, promptBlocks, resetMirror, type Mirror } from './mirror.ts'
import { answerPrompt, LOG_BAD_OPTION, LOG_FAILED, LOG_NOT_ANSWERED, LOG_ON, NOT_AVAILABLE, rulesPrompt, taskText } from './strings.ts'
import { isRun, type Unit } from './units.ts'
import { isString } from '../../lib/shape.ts'

export type CaptionEdges = {
  messages(): Promise<readonly ApiMessageLike[]>
  complete(req: ModelCompleteRequest): Promise<ModelCompleteResult>
  redraw(): void
  every(ms: number, fn: () => void): () => void
  log(line: string): void
}

export type CaptionSettings = { model: string; style: string; contextTokens: number; lang: string | undefined }
export type ToolCaption = { subtitle: string; intention: string; result: string; bytes: number }
export type RunCaption = { subtitles: string[]; summary: string; bytes: number }

/**
 * The settings from the package's options; a blank model or style, or a context size below 1,
 * takes the field's declared default (plugin.json, its one home), and a bad size is named in
 * `problems`. The runtime hands every field checked against its type (a number option a whole
 * number: a fraction or a text took the default there), so only the size's bound is checked here:
 * the field declares no `min` (NOTES).
 */
export function settingsOf(options: Readonly<Record<string, unknown>>, defaults: Readonly<Record<string, unknown>>): { settings: CaptionSettings; problems: string[] } {
  const tokens = options[CONTEXT_TOKENS_OPTION] as number
  const isPositive = tokens > 0
  const fallbackTokens = defaults[CONTEXT_TOKENS_OPTION] as number
  return {
    settings: {
      model: (options[MODEL_OPTION] as string).trim() || (defaults[MODEL_OPTION] as string),
      style: nonBlank(options[STYLE_OPTION]) ?? (defaults[STYLE_OPTION] as string),
      contextTokens: isPositive ? tokens : fallbackTokens,
      lang: (options[LANGUAGE_OPTION] as string).trim() || undefined,
    },
    problems: isPositive ? [] : [LOG_BAD_OPTION(tokens, fallbackTokens)],
  }
}

/** A tool.call's result as far as captions read it: the stored record, the text the lead read, a refusal. */
export type CallResult = { result?: unknown; text?: unknown; deny?: unknown }

export function createCaptions() {
  let edges: CaptionEdges | undefined
  let settings: CaptionSettings | undefined
  // Keyed by the session's own tool_use_ids (a lone unit's key is its call's id), so they survive compactions, /clear and resume.
  const toolCaptions = new Map<string, ToolCaption>()
  const runCaptions = new Map<string, RunCaption>()
  const seenCalls = new Map<string, SeenCall>()
  const queue: Unit[] = []
  /** Units already asked for: a unit is asked once per load, whatever its reply (a render loop must not retry). */
  const requested = new Set<string>()
  let isFlushing = false
  let stopTicking: (() => void) | undefined
  let mirror: Mirror = emptyMirror()
  let modelCalls = 0
  let unanswered = 0

  function start(bound: CaptionEdges, chosen: CaptionSettings): void {
    stopTicking?.()
    stopTicking = undefined
    edges = bound
    settings = chosen
    queue.length = 0
    requested.clear()
    mirror = resetMirror(mirror)
    bound.log(LOG_ON(chosen))
    // Rows drawn before the session started (a resumed transcript) answered raw: draw them again.
    bound.redraw()
  }

  function capture(call: Readonly<Record<string, unknown>>, res: CallResult): void {
    // The envelope's reserved fields are no part of the call's input.
    const { tool, tool_use_id: id, agentId, requestMeta, consent, ...args } = call
    if (!edges || agentId !== undefined || res.deny !== undefined || typeof id !== 'string') return
    const input = stringify(args)
    const output = fileChange(res.result) ?? stringify(res.result)
    // The size the lead's context holds (the text it read), not the record: an Edit's record holds the whole file.
    const bytes = input.length + (isString(res.text) ? res.text.length : output.length)
    seenCalls.delete(id)
    seenCalls.set(id, { input, output, bytes })
    if (seenCalls.size > CAPTURED_LIMIT) seenCalls.delete(seenCalls.keys().next().value as string)
  }

  function request(unit: Unit): void {
    if (!edges || requested.has(unit.key)) return
    requested.add(unit.key)
    queue.push(unit)
    stopTicking ??= edges.every(FLUSH_MS, () => void tick())
  }

  /** Sends the head of the queue up to BATCH_CALLS calls; the first unit always goes, and none is skipped over. */
  async function tick(): Promise<void> {
    // A queued unit was asked for after start: the edges and the settings are there.
    if (isFlushing || !queue.length) return
    let calls = 0
    let n = 0
    for (const unit of queue) {
      if (n > 0 && calls + unit.calls.length > BATCH_CALLS) break
      calls += unit.calls.length
      n++
    }
    isFlushing = true
    try {
      await flush(edges!, settings!, queue.splice(0, n))
    } catch (err) {
      edges!.log(LOG_FAILED(err))
    } finally {
      isFlushing = false
    }
  }

  /** One caption request over the mirror, its reply stored; a batch read across a compaction goes back to the queue's head. */
  async function flush(bound: CaptionEdges, chosen: CaptionSettings, batch: Unit[]): Promise<void> {
    // A call captured before a reload is read from the transcript.
    const transcript = batch.some((u) => u.calls.some((c) => !seenCalls.has(c.id))) ? transcriptCalls(await bound.messages()) : new Map<string, SeenCall>()
    const seenOf = (id: string) => seenCalls.get(id) ?? transcript.get(id)
    // Each unit's id and call count, as the closing lines name them.
    const shapes = batch.map((unit, i) => ({ id: `u${i + 1}`, calls: unit.calls.length }))
    const unitsJson = JSON.stringify(batch.map((unit, i) => {
      const cap = isRun(unit) ? RUN_FIELD_CAP : FIELD_CAP
      return {
        id: shapes[i]!.id,
        calls: unit.calls.map((c) => {
          const seen = seenOf(c.id)
          return { tool: c.tool, input: clip(seen?.input ?? stringify(c.input), cap), output: seen ? clip(seen.output, cap) : NOT_AVAILABLE, failed: c.isErrored }
        }),
      }
    }))
    const task = taskText(unitsJson, answerPrompt(shapes))
    const generation = mirror.generation
    const api = await bound.messages()
    // A compaction reset the mirror during the read: the read is stale, and the batch is asked again.
    if (mirror.generation !== generation) {
      queue.unshift(...batch)
      return
    }
    const { mirror: taken, latest } = absorb(mirror, api)
    mirror = { ...taken, start: movePivot(taken.blocks.map((b) => b.length), taken.start, taken.tokensPerChar, chosen.contextTokens) }
    const prompt = promptBlocks(mirror, rulesPrompt(chosen.style, chosen.lang), latest, task)
    const maxTokens = shapes.reduce((n, shape) => n + TOKENS_PER_UNIT + TOKENS_PER_CALL * shape.calls, 0)
    modelCalls++
    const reply = await bound.complete({ model: chosen.model, prompt, maxTokens, effort: 'low', timeoutMs: TIMEOUT_MS })
    if (!reply.isAnswered) {
      unanswered++
      return bound.log(LOG_NOT_ANSWERED(reply.reason))
    }
    const measured = measuredTokensPerChar(reply.usage, prompt)
    if (measured) mirror = { ...mirror, tokensPerChar: measured }
    let stored = false
    for (const item of parseReply(reply.text)) {
      const unit = batch[shapes.findIndex((shape) => shape.id === item.id)]
      if (!unit) continue
      const bytes = unit.calls.reduce((n, c) => n + (seenOf(c.id)?.bytes ?? 0), 0)
      // A subtitle a call (a lone call's one): a blank or missing one is cut from the call's input.
      const given = isRun(unit) ? (Array.isArray(item.subtitles) ? item.subtitles : []) : [item.subtitle]
      const subtitles = unit.calls.map((c, i) => nonBlank(given[i]) ?? inputSubtitle(c.input))
      if (isRun(unit)) {
        if (typeof item.summary !== 'string') continue
        runCaptions.set(unit.key, { subtitles, summary: item.summary, bytes })
      } else {
        if (typeof item.intention !== 'string' || typeof item.result !== 'string') continue
        toolCaptions.set(unit.key, { subtitle: subtitles[0]!, intention: item.intention, result: item.result, bytes })
      }
      stored = true
    }
    if (stored) bound.redraw()
  }

  return {
    start,
    captured: capture,
    request,
    /** Runs one tick now (the clock edge calls it; tests and the bench too). */
    tick,
    toolCaption: (id: string): ToolCaption | undefined => toolCaptions.get(id),
    runCaption: (key: string): RunCaption | undefined => runCaptions.get(key),
    /** A main-thread compaction that installed messages: the mirror starts over; captions stay. */
    compacted(trigger: string, agentId: string | undefined, res: { messages?: unknown }): void {
      if (agentId === undefined && trigger !== 'precompute' && res.messages) mirror = resetMirror(mirror)
    },
    end(): void {
      mirror = resetMirror(mirror)
    },
    stats: () => ({ lone: toolCaptions.size, runs: runCaptions.size, queued: queue.length, unanswered, calls: modelCalls }),
    /** For tests: the mirror as the next request would open it. */
    mirror: (): Mirror => mirror,
  }
}

export type Captions = ReturnType<typeof createCaptions>
