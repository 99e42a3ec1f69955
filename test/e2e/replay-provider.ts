// The replay provider (issue 18): one local server playing each provider people route to, in its own
// dialect, and ENFORCING the rule that provider enforces on what a client sends back, with the
// provider's own error body (test/fixtures/providers, each naming its source), so a test fails exactly
// where the real provider would. Each dialect lives under its own path prefix (`<url>/<dialect>`), the
// base URL a preset entry spells in place of the provider's own.
//
// Every dialect plays the same scripted tool loop, picked by the last message: a prompt gets a Bash
// call `echo <dialect>-one`; that call's result gets `echo <dialect>-two`; its result gets the text
// `<dialect> loop done`. A prompt holding "again" gets `echo <dialect>-three`, whose result gets
// `<dialect> again done`. What a step must be sent back (reasoning, signatures, encrypted items) is made
// per step, remembered by the call's arguments, and checked on every later request.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import * as deepseek from '../fixtures/providers/deepseek.ts'
import * as gemini from '../fixtures/providers/gemini.ts'
import * as groq from '../fixtures/providers/groq.ts'
import * as cerebras from '../fixtures/providers/cerebras.ts'
import * as mistral from '../fixtures/providers/mistral.ts'
import * as openrouter from '../fixtures/providers/openrouter.ts'
import * as responses from '../fixtures/providers/openai-responses.ts'

export const DIALECTS = ['deepseek', 'gemini', 'openrouter', 'mistral', 'groq', 'cerebras', 'responses', 'deepseek-anthropic'] as const
export type Dialect = (typeof DIALECTS)[number]

export type Refusal = { status: number; body: string }
export type ReplayRequest = { dialect: Dialect; path: string; body: any; refused?: Refusal; step?: string }

export interface ReplayProvider {
  url: string
  requests: ReplayRequest[]
  close(): Promise<void>
}

type Step = { command?: string; text?: string; name: string }

/** The loop's next step for a request, by its last message. */
function stepFor(dialect: string, lastText: string, lastIsResult: boolean): Step {
  const call = (n: string) => ({ command: `echo ${dialect}-${n}`, name: n })
  if (!lastIsResult) return /again/.test(lastText) ? call('three') : call('one')
  if (lastText.includes(`${dialect}-one`)) return call('two')
  if (lastText.includes(`${dialect}-three`)) return { text: `${dialect} again done`, name: 'again-done' }
  return { text: `${dialect} loop done`, name: 'done' }
}

const ALNUM9 = () => Math.random().toString(36).slice(2, 11).padEnd(9, 'x')
const sse = (events: readonly object[]) => events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('') + 'data: [DONE]\n\n'
const named = (events: readonly { type: string }[]) => events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join('')
const refusal = (r: { status: number; body: string }): Refusal => ({ status: r.status, body: r.body })
const chunk = (delta: object, finish: string | null = null, extra: object = {}) => ({ object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })
const usage = { prompt_tokens: 120, completion_tokens: 12, total_tokens: 132 }

/** Gemini's schema refusals (RULES.md G4, G5): a refused keyword anywhere but as a parameter's name, an array without items. */
function schemaProblem(schema: unknown): Refusal | undefined {
  const refused = ['$schema', 'additionalProperties', 'exclusiveMinimum', 'exclusiveMaximum', 'const', 'propertyNames', '$comment', '$ref', '$defs']
  if (Array.isArray(schema)) return schema.map(schemaProblem).find(Boolean)
  if (!schema || typeof schema !== 'object') return undefined
  const s = schema as Record<string, unknown>
  if (Object.keys(s).some((k) => refused.includes(k)) || Array.isArray(s.type)) return refusal(gemini.GEMINI_UNKNOWN_SCHEMA_KEYWORDS)
  if (s.type === 'array' && s.items === undefined) return refusal(gemini.GEMINI_ARRAY_WITHOUT_ITEMS)
  for (const [key, value] of Object.entries(s)) {
    const inner = key === 'properties' && value && typeof value === 'object' ? schemaProblem(Object.values(value)) : schemaProblem(value)
    if (inner) return inner
  }
  return undefined
}

function geminiToolsProblem(tools: any[] | undefined): Refusal | undefined {
  for (const t of tools ?? []) {
    if (!/^[A-Za-z_][A-Za-z0-9_.:-]{0,63}$/.test(t.function.name)) return refusal(gemini.GEMINI_INVALID_FUNCTION_NAME)
    const problem = schemaProblem(t.function.parameters)
    if (problem) return problem
  }
  return undefined
}

export async function startReplayProvider(): Promise<ReplayProvider> {
  const requests: ReplayRequest[] = []
  /** What each step issued that must come back, by the call's command. */
  const issued = new Map<string, { reasoning: string; signature: string; details: unknown[]; callId: string; added: string; done: string; thinking: string; sig: string }>()
  const issue = (dialect: string, step: Step) => {
    const key = step.command ?? ''
    const tag = `${dialect}-${step.name}-${Math.random().toString(36).slice(2, 8)}`
    const made = { reasoning: `I will run ${key}.`, signature: `SIG-${tag}`, details: [] as unknown[], callId: `call_${tag}`.replace(/-/g, '_'), added: `ENC-ADDED-${tag}`, done: `ENC-DONE-${tag}`, thinking: `Plan: ${key}.`, sig: `ANTHROPIC-SIG-${tag}` }
    if (key) issued.set(key, made)
    return made
  }
  const commandOf = (argumentsText: unknown) => {
    try {
      return String(JSON.parse(String(argumentsText)).command ?? '')
    } catch {
      return ''
    }
  }

  /** The chat dialects: their check of the request, then their stream of the step. */
  function chat(dialect: Dialect, body: any): { refused?: Refusal; stream?: string; step?: Step } {
    const messages: any[] = body.messages ?? []
    const assistants = messages.filter((m) => m.role === 'assistant')
    if (dialect === 'deepseek') {
      // V4: every assistant message carries reasoning_content; a call's own, exactly (RULES.md D1, D2).
      for (const m of assistants) {
        const made = issued.get(commandOf(m.tool_calls?.[0]?.function?.arguments))
        if (typeof m.reasoning_content !== 'string' || (made && m.reasoning_content !== made.reasoning)) return { refused: refusal(deepseek.DEEPSEEK_REASONING_CONTENT_MUST_BE_PASSED_BACK) }
      }
    }
    if (dialect === 'gemini' || dialect === 'openrouter') {
      const problem = geminiToolsProblem(body.tools)
      if (problem) return { refused: dialect === 'gemini' ? problem : { status: problem.status, body: JSON.stringify({ error: { code: 400, message: 'Provider returned error', metadata: { raw: problem.body, provider_name: 'Google AI Studio' } } }) } }
      if (dialect === 'gemini' && Object.keys(body).some((k) => !['model', 'messages', 'tools', 'max_tokens', 'reasoning_effort', 'response_format', 'stream', 'stream_options', 'tool_choice', 'temperature'].includes(k))) return { refused: refusal(gemini.GEMINI_UNKNOWN_FIELD) }
    }
    if (dialect === 'gemini') {
      // The first call of every step carries its signature, exactly, or the placeholder for a call made elsewhere (G1-G3).
      for (const m of assistants) {
        const first = m.tool_calls?.[0]
        if (!first) continue
        const sent = first.extra_content?.google?.thought_signature
        const made = issued.get(commandOf(first.function?.arguments))
        if (sent === undefined) return { refused: refusal(gemini.GEMINI_MISSING_THOUGHT_SIGNATURE) }
        if (made ? sent !== made.signature : sent !== 'skip_thought_signature_validator') return { refused: refusal(gemini.GEMINI_CORRUPTED_THOUGHT_SIGNATURE) }
      }
    }
    if (dialect === 'openrouter') {
      // Gemini through OpenRouter: the step's reasoning_details go back unmodified, the signature among them (O1).
      for (const m of assistants) {
        const made = issued.get(commandOf(m.tool_calls?.[0]?.function?.arguments))
        if (made && JSON.stringify(m.reasoning_details) !== JSON.stringify(made.details)) return { refused: refusal(openrouter.OPENROUTER_PROVIDER_RETURNED_ERROR) }
      }
    }
    if (dialect === 'mistral') {
      if ('stream_options' in body) return { refused: refusal(mistral.MISTRAL_EXTRA_FORBIDDEN_STREAM_OPTIONS) }
      if ('max_completion_tokens' in body) return { refused: refusal(mistral.MISTRAL_EXTRA_FORBIDDEN_MAX_COMPLETION_TOKENS) }
      for (const [i, m] of messages.entries()) {
        const ids = [...(m.tool_calls ?? []).map((c: any) => c.id), ...(m.role === 'tool' ? [m.tool_call_id] : [])]
        if (ids.some((id) => !/^[a-zA-Z0-9]{9}$/.test(id))) return { refused: refusal(mistral.MISTRAL_TOOL_CALL_ID) }
        if (m.role === 'user' && messages[i - 1]?.role === 'tool') return { refused: refusal(mistral.MISTRAL_USER_AFTER_TOOL) }
        if (m.role === 'assistant' && 'reasoning_content' in m) return { refused: refusal(mistral.MISTRAL_EXTRA_FORBIDDEN_REASONING_CONTENT) }
      }
    }
    if (dialect === 'groq' || dialect === 'cerebras') {
      // An assistant message's keys are checked: no reasoning field, nothing unknown (Q1, C1).
      for (const m of assistants) {
        if (Object.keys(m).some((k) => !['role', 'content', 'tool_calls', 'name'].includes(k))) return { refused: refusal(dialect === 'groq' ? groq.GROQ_ASSISTANT_REASONING_CONTENT : cerebras.CEREBRAS_ASSISTANT_REASONING_CONTENT) }
        if ((m.tool_calls ?? []).some((c: any) => Object.keys(c).some((k) => !['id', 'type', 'function'].includes(k)))) return { refused: refusal(groq.GROQ_UNKNOWN_FIELD) }
      }
    }
    const last = messages.at(-1)
    const step = stepFor(dialect, last?.role === 'tool' ? String(last.content) : typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content ?? ''), last?.role === 'tool')
    if (step.text) return { step, stream: sse([chunk({ role: 'assistant', content: step.text }), chunk({}, 'stop', { usage })]) }
    const made = issue(dialect, step)
    const args = JSON.stringify({ command: step.command, description: 'replay step' })
    const streams: Record<string, () => object[]> = {
      // DeepSeek: reasoning_content pieces, then the call in pieces at index 0, then the finish with usage (recorded shape).
      deepseek: () => [chunk({ role: 'assistant', content: null, reasoning_content: made.reasoning.slice(0, 6) }), chunk({ content: null, reasoning_content: made.reasoning.slice(6) }), chunk({ tool_calls: [{ index: 0, id: `call_00_${ALNUM9()}`, type: 'function', function: { name: 'Bash', arguments: '' } }] }), chunk({ tool_calls: [{ index: 0, function: { arguments: args } }] }), chunk({}, 'tool_calls', { usage })],
      // Gemini: the call whole, no index, its signature on it; finish "stop" (G1; the stream shape of its fixtures).
      gemini: () => [chunk({ role: 'assistant', tool_calls: [{ extra_content: { google: { thought_signature: made.signature } }, function: { arguments: args, name: 'Bash' }, id: ALNUM9().slice(0, 8), type: 'function' }] }), chunk({}, 'stop', { usage })],
      openrouter: () => {
        const id = `tool_Bash_${ALNUM9()}`
        made.details = [{ type: 'reasoning.text', text: made.reasoning, format: 'google-gemini-v1', index: 0 }, { type: 'reasoning.encrypted', data: made.signature, id, format: 'google-gemini-v1', index: 1 }]
        return [chunk({ role: 'assistant', content: '', reasoning: made.reasoning, reasoning_details: [made.details[0]] }), chunk({ content: '', tool_calls: [{ index: 0, id, type: 'function', function: { name: 'Bash', arguments: args } }], reasoning_details: [made.details[1]] }), chunk({}, 'tool_calls'), { choices: [], usage }]
      },
      // Mistral: the call whole in the finishing chunk, no index, a 9-character id (recorded shape).
      mistral: () => [chunk({ role: 'assistant', content: '' }), chunk({ tool_calls: [{ id: ALNUM9(), function: { name: 'Bash', arguments: args } }] }, 'tool_calls', { usage })],
      groq: () => [chunk({ role: 'assistant', reasoning: made.reasoning }), chunk({ tool_calls: [{ index: 0, id: ALNUM9(), type: 'function', function: { name: 'Bash', arguments: args } }] }), chunk({}, 'tool_calls', { usage })],
      cerebras: () => [chunk({ role: 'assistant', reasoning: made.reasoning }), chunk({ tool_calls: [{ index: 0, id: ALNUM9(), type: 'function', function: { name: 'Bash', arguments: args } }] }), chunk({}, 'tool_calls', { usage })],
    }
    return { step, stream: sse(streams[dialect]!()) }
  }

  /** The Responses API: no item ids under store: false, outputs after their calls, reasoning blobs from `.done` only (RESPONSES.md §3). */
  function responsesStep(body: any): { refused?: Refusal; stream?: string; step?: Step } {
    const input: any[] = body.input ?? []
    if (input.some((item) => 'id' in item)) return { refused: refusal(responses.RESPONSES_HTTP_404_ITEM_NOT_PERSISTED) }
    if ((body.tools ?? []).some((t: any) => t.strict !== false)) return { refused: { status: 400, body: '{"error":{"message":"Invalid schema for function: In context=(), \'required\' is required to be supplied and to be an array including every key in properties.","type":"invalid_request_error","param":"tools[0].parameters","code":"invalid_function_parameters"}}' } }
    const calls = new Set<string>()
    for (const item of input) {
      if (item.type === 'function_call') calls.add(item.call_id)
      if (item.type === 'function_call_output' && !calls.has(item.call_id)) return { refused: refusal(responses.RESPONSES_HTTP_400_OUTPUT_WITHOUT_CALL) }
      if (item.type === 'reasoning' && ![...issued.values()].some((m) => m.done === item.encrypted_content)) return { refused: refusal(responses.RESPONSES_HTTP_400_INVALID_ENCRYPTED_CONTENT) }
    }
    const last = input.at(-1)
    const step = stepFor('responses', last?.type === 'function_call_output' ? String(last.output) : JSON.stringify(last?.content ?? ''), last?.type === 'function_call_output')
    const done = { type: 'response.completed', response: { status: 'completed', usage: { input_tokens: 120, output_tokens: 12, input_tokens_details: { cached_tokens: 0 } } } }
    if (step.text) return { step, stream: named([{ type: 'response.created' }, { type: 'response.output_text.delta', output_index: 0, delta: step.text }, done] as any) }
    const made = issue('responses', step)
    const args = JSON.stringify({ command: step.command, description: 'replay step' })
    const reasoning = { type: 'reasoning', summary: [], encrypted_content: made.added }
    return {
      step,
      stream: named([
        { type: 'response.created' },
        { type: 'response.output_item.added', output_index: 0, item: { id: `rs_${ALNUM9()}`, ...reasoning } },
        { type: 'response.output_item.done', output_index: 0, item: { id: `rs_${ALNUM9()}`, ...reasoning, encrypted_content: made.done } },
        { type: 'response.output_item.added', output_index: 1, item: { type: 'function_call', id: `fc_${ALNUM9()}`, call_id: made.callId, name: 'Bash', arguments: '' } },
        { type: 'response.function_call_arguments.delta', output_index: 1, delta: args },
        { type: 'response.function_call_arguments.done', output_index: 1, arguments: args },
        done,
      ] as any),
    }
  }

  /** DeepSeek's Anthropic endpoint: a step with tool_use carries its own signed thinking first (RULES.md D11). */
  function anthropicStep(body: any): { refused?: Refusal; stream?: string; step?: Step } {
    for (const m of body.messages ?? []) {
      if (m.role !== 'assistant' || !Array.isArray(m.content)) continue
      const use = m.content.find((b: any) => b.type === 'tool_use')
      const made = use && issued.get(String(use.input?.command ?? ''))
      if (made && !(m.content[0]?.type === 'thinking' && m.content[0].signature === made.sig)) return { refused: refusal(deepseek.DEEPSEEK_ANTHROPIC_THINKING_MUST_BE_PASSED_BACK) }
    }
    const last = body.messages?.at(-1)
    const result = Array.isArray(last?.content) ? last.content.find((b: any) => b.type === 'tool_result') : undefined
    const text = result ? (typeof result.content === 'string' ? result.content : JSON.stringify(result.content)) : typeof last?.content === 'string' ? last.content : JSON.stringify(last?.content)
    const step = stepFor('deepseek-anthropic', text, result !== undefined)
    const ev = (type: string, data: object) => ({ type, ...data })
    const start = ev('message_start', { message: { id: 'msg_replay', type: 'message', role: 'assistant', model: body.model, content: [], usage: { input_tokens: 120, output_tokens: 1 } } })
    const end = (stop: string) => [ev('message_delta', { delta: { stop_reason: stop }, usage: { output_tokens: 12 } }), ev('message_stop', {})]
    if (step.text) return { step, stream: named([start, ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }), ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: step.text } }), ev('content_block_stop', { index: 0 }), ...end('end_turn')] as any) }
    const made = issue('deepseek-anthropic', step)
    return {
      step,
      stream: named([
        start,
        ev('content_block_start', { index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
        ev('content_block_delta', { index: 0, delta: { type: 'thinking_delta', thinking: made.thinking } }),
        ev('content_block_delta', { index: 0, delta: { type: 'signature_delta', signature: made.sig } }),
        ev('content_block_stop', { index: 0 }),
        ev('content_block_start', { index: 1, content_block: { type: 'tool_use', id: `toolu_${ALNUM9()}`, name: 'Bash', input: {} } }),
        ev('content_block_delta', { index: 1, delta: { type: 'input_json_delta', partial_json: JSON.stringify({ command: step.command, description: 'replay step' }) } }),
        ev('content_block_stop', { index: 1 }),
        ...end('tool_use'),
      ] as any),
    }
  }

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const path = req.url ?? ''
    const dialect = DIALECTS.find((d) => path.startsWith(`/${d}/`))
    let body: any
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    } catch {
      body = undefined
    }
    const record: ReplayRequest = { dialect: dialect!, path, body }
    requests.push(record)
    if (!dialect || !body) {
      res.writeHead(404).end('{"error":{"message":"no such dialect"}}')
      return
    }
    const answer = dialect === 'responses' ? responsesStep(body) : dialect === 'deepseek-anthropic' ? anthropicStep(body) : chat(dialect, body)
    record.refused = answer.refused
    record.step = answer.step?.name
    if (answer.refused) {
      res.writeHead(answer.refused.status, { 'content-type': 'application/json' }).end(answer.refused.body)
      return
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' }).end(answer.stream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
