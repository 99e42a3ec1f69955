// The captions state machine. Rows ask for captions as they are drawn (never waiting on the model);
// a clock edge sends the queue in batches over the mirror; replies are stored by tool_use_id and
// a redraw lets the rows draw them. Driven through edges only: no port, no `$`.
import type { ModelCompleteRequest, ModelCompleteResult } from 'claude-code'
import {
  BATCH_CALLS, CAPTURED_LIMIT, ENVELOPE_FIELDS, FIELD_CAP, FLUSH_MS, OPTION,
  RUN_FIELD_CAP, TIMEOUT_MS, TOKENS_PER_CALL, TOKENS_PER_UNIT,
} from './constants.ts'
import { clip, fileChange, inputSubtitle, nonBlank, parseReply, stringify, transcriptCalls, type ApiMessageLike, type SeenCall } from './digest.ts'
import { absorb, emptyMirror, measuredTokensPerChar, movePivot, promptBlocks, resetMirror, type Mirror } from './mirror.ts'
import { answerPrompt, LOG, NOT_AVAILABLE, rulesPrompt, taskText } from './strings.ts'
import { isRun, type Unit } from './units.ts'

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
 * The settings from the package's options; a blank model or style, or a context size that is no
 * positive integer, takes the field's declared default (plugin.json, its one home), and a bad size
 * is named in `problems`.
 */
export function settingsOf(options: Readonly<Record<string, unknown>>, defaults: Readonly<Record<string, unknown>>): { settings: CaptionSettings; problems: string[] } {
  const tokens = options[OPTION.contextTokens]
  const isPositiveInteger = typeof tokens === 'number' && Number.isInteger(tokens) && tokens > 0
  const fallbackTokens = Number(defaults[OPTION.contextTokens])
  return {
    settings: {
      model: nonBlank(options[OPTION.model])?.trim() ?? String(defaults[OPTION.model]),
      style: nonBlank(options[OPTION.style]) ?? String(defaults[OPTION.style]),
      contextTokens: isPositiveInteger ? tokens : fallbackTokens,
      lang: nonBlank(options[OPTION.language])?.trim(),
    },
    problems: isPositiveInteger || tokens === undefined ? [] : [LOG.badOption(OPTION.contextTokens, tokens, fallbackTokens)],
  }
}

/** A tool.call's result as far as captions read it: the stored record, the text the lead read, a refusal. */
export type CallResult = { result?: unknown; text?: unknown; deny?: unknown }

export function createCaptions() {
  let edges: CaptionEdges | undefined
  let settings: CaptionSettings | undefined
  // Keyed by the session's own tool_use_ids, so they survive compactions, /clear and resume.
  const toolCaptions = new Map<string, ToolCaption>()
  const runCaptions = new Map<string, RunCaption>()
  const seenCalls = new Map<string, SeenCall>()
  let queue: Unit[] = []
  /** Units already asked for: a unit is asked once per load, whatever its reply (a render loop must not retry). */
  const requested = new Set<string>()
  let isFlushing = false
  let stopTicking: (() => void) | undefined
  let mirror: Mirror = emptyMirror()
  const counts = { calls: 0, unanswered: 0 }

  function start(bound: CaptionEdges, chosen: CaptionSettings): void {
    stopTicking?.()
    stopTicking = undefined
    edges = bound
    settings = chosen
    queue = []
    requested.clear()
    mirror = resetMirror(mirror)
    bound.log(LOG.on(chosen.model, chosen.contextTokens, chosen.lang))
    // Rows drawn before the session started (a resumed transcript) answered raw: draw them again.
    bound.redraw()
  }

  function capture(call: Readonly<Record<string, unknown>>, res: CallResult): void {
    if (!edges || call.agentId !== undefined || res.deny !== undefined) return
    const id = call.tool_use_id
    if (typeof id !== 'string') return
    const args = Object.fromEntries(Object.entries(call).filter(([k]) => !(ENVELOPE_FIELDS as readonly string[]).includes(k)))
    const input = stringify(args)
    const output = fileChange(res.result) ?? stringify(res.result)
    // The size the lead's context holds (the text it read), not the record: an Edit's record holds the whole file.
    const bytes = input.length + (typeof res.text === 'string' ? res.text.length : output.length)
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

  /** The head of the queue up to BATCH_CALLS calls; the first unit always goes, and none is skipped over. */
  function takeBatch(): Unit[] {
    let calls = 0
    let n = 0
    for (const unit of queue) {
      if (n > 0 && calls + unit.calls.length > BATCH_CALLS) break
      calls += unit.calls.length
      n++
    }
    const batch = queue.slice(0, n)
    queue = queue.slice(n)
    return batch
  }

  async function tick(): Promise<void> {
    if (!edges || !settings || isFlushing || queue.length === 0) return
    const batch = takeBatch()
    isFlushing = true
    try {
      await flush(edges, settings, batch)
    } catch (err) {
      edges.log(LOG.failed(err))
    } finally {
      isFlushing = false
    }
  }

  async function flush(bound: CaptionEdges, chosen: CaptionSettings, batch: Unit[]): Promise<void> {
    const missing = batch.some((u) => u.calls.some((c) => !seenCalls.has(c.id)))
    const transcript = missing ? transcriptCalls(await bound.messages()) : new Map<string, SeenCall>()
    const seenOf = (id: string) => seenCalls.get(id) ?? transcript.get(id)
    const labelled = batch.map((unit, i) => ({ id: `u${i + 1}`, unit }))
    const unitsJson = JSON.stringify(labelled.map(({ id, unit }) => {
      const cap = isRun(unit) ? RUN_FIELD_CAP : FIELD_CAP
      return {
        id,
        calls: unit.calls.map((c) => {
          const seen = seenOf(c.id)
          return { tool: c.tool, input: clip(seen?.input ?? stringify(c.input), cap), output: seen ? clip(seen.output, cap) : NOT_AVAILABLE, failed: c.isErrored }
        }),
      }
    }))
    const callCount = batch.reduce((n, u) => n + u.calls.length, 0)
    const task = taskText(unitsJson, answerPrompt(labelled.map(({ id, unit }) => ({ id, calls: unit.calls.length }))))
    const text = await ask(bound, chosen, task, TOKENS_PER_UNIT * batch.length + TOKENS_PER_CALL * callCount)
    if (text === 'stale') {
      queue = [...batch, ...queue]
      return
    }
    if (text === undefined) return
    const byId = new Map(labelled.map(({ id, unit }) => [id, unit]))
    let stored = false
    for (const item of parseReply(text)) {
      const unit = typeof item.id === 'string' ? byId.get(item.id) : undefined
      if (!unit) continue
      const bytesOf = (id: string) => seenOf(id)?.bytes ?? 0
      if (!isRun(unit)) {
        const call = unit.calls[0]!
        if (typeof item.intention !== 'string' || typeof item.result !== 'string') continue
        toolCaptions.set(call.id, { subtitle: nonBlank(item.subtitle) ?? inputSubtitle(call.input), intention: item.intention, result: item.result, bytes: bytesOf(call.id) })
      } else {
        if (typeof item.summary !== 'string') continue
        const subtitles = Array.isArray(item.subtitles) ? item.subtitles : []
        runCaptions.set(unit.key, {
          subtitles: unit.calls.map((c, i) => nonBlank(subtitles[i]) ?? inputSubtitle(c.input)),
          summary: item.summary,
          bytes: unit.calls.reduce((n, c) => n + bytesOf(c.id), 0),
        })
      }
      stored = true
    }
    if (stored) bound.redraw()
  }

  /** One caption request over the mirror: 'stale' when a compaction reset the mirror during the read. */
  async function ask(bound: CaptionEdges, chosen: CaptionSettings, task: string, maxTokens: number): Promise<string | 'stale' | undefined> {
    const generation = mirror.generation
    const api = await bound.messages()
    if (mirror.generation !== generation) return 'stale'
    const absorbed = absorb(mirror, api)
    const taken = absorbed.mirror
    mirror = { ...taken, start: movePivot(taken.blocks.map((b) => b.length), taken.start, taken.tokensPerChar, chosen.contextTokens) }
    const prompt = promptBlocks(mirror, rulesPrompt(chosen.style, chosen.lang), absorbed.latest, task)
    counts.calls++
    const reply = await bound.complete({ model: chosen.model, prompt, maxTokens, effort: 'low', timeoutMs: TIMEOUT_MS })
    if (!reply.isAnswered) {
      counts.unanswered++
      bound.log(LOG.notAnswered(reply.reason))
      return undefined
    }
    const measured = measuredTokensPerChar(reply.usage, prompt)
    if (measured !== undefined) mirror = { ...mirror, tokensPerChar: measured }
    return reply.text
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
      if (agentId === undefined && trigger !== 'precompute' && res.messages !== undefined) mirror = resetMirror(mirror)
    },
    end(): void {
      mirror = resetMirror(mirror)
    },
    stats: () => ({ lone: toolCaptions.size, runs: runCaptions.size, queued: queue.length, unanswered: counts.unanswered, calls: counts.calls }),
    /** For tests: the mirror as the next request would open it. */
    mirror: (): Mirror => mirror,
  }
}

export type Captions = ReturnType<typeof createCaptions>
