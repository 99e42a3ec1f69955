// A mock model provider for routing (routing.md §5.1), on 127.0.0.1 at a free port:
//   POST /v1/chat/completions      OpenAI Chat Completions: SSE when `stream: true`, else one JSON completion
//   POST /v1/messages              Anthropic Messages: SSE when `stream: true`, else one JSON message
//   POST /v1/messages/count_tokens `{input_tokens}`, characters / 4
// Replies are picked by rules tried against the last message's text (a user's text or a tool
// result's content), first match wins, else the default reply. A reply can carry faults: a status
// (with an error body in the provider's format), retry-after, delays, a stall, a dropped socket,
// a line that is not JSON, and failing only the first n times. Every request is recorded.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import { createServer as createNetServer, type AddressInfo } from 'node:net'

export type ProviderToolCall = { name: string; arguments: string | string[]; id?: string }

export interface ProviderReply {
  /** The answer's text, whole or as the pieces it streams in. */
  text?: string | string[]
  toolCalls?: ProviderToolCall[]
  /** Reasoning pieces: `reasoning_content` (OpenAI-compatible) or a thinking block (Anthropic). */
  reasoning?: string[]
  /** Uncached input, cached input and output tokens; OpenAI's prompt_tokens is input + cached. */
  usage?: { input?: number; cached?: number; output?: number }
  /** The finish reason in the provider's own words; by default stop/tool_calls (end_turn/tool_use). */
  finish?: string
  /** OpenAI: each tool call whole in one chunk with no `index` and an empty `id`, as some gateways in front of Gemini send them. */
  unindexed?: boolean
  /** The stream ends cleanly without saying it is finished: no finish reason and no `[DONE]` (OpenAI), no `message_delta` and no `message_stop` (Anthropic). */
  unfinished?: boolean
  // ---- Faults ----
  /** Answer this status with an error body in the provider's format (with `failTimes`, only the first n times). */
  status?: number
  errorMessage?: string
  /** The `retry-after` header sent with `status`. */
  retryAfter?: number | string
  /** Answer `status` (500 unless given) the first n times this rule matches, then the reply. */
  failTimes?: number
  /** Wait before the first byte (the head). */
  firstByteMs?: number
  /** Wait between stream pieces. */
  pieceMs?: number
  /** After `stallAfter` pieces (1 unless given), send nothing for this long and keep the socket open. */
  stallMs?: number
  stallAfter?: number
  /** Destroy the socket after this many stream pieces. */
  dropAfter?: number
  /** Send a data line that is not JSON after the text. */
  badJson?: boolean
  /** After the text, an error object with this message in the provider's format (OpenAI's `{error}` chunk, Anthropic's `error` event). */
  errorObject?: string
}

export interface ProviderRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  /** The body's bytes exactly as they arrived. */
  raw: Buffer
  body: any
  /** The text the rules were tried against. */
  lastText: string
  /** Which rule answered: its index, or 'default'; 'none' for count_tokens and unknown paths. */
  rule: number | 'default' | 'none'
  /** When the whole request had been read (a body streamed after an early head counts from its end). */
  arrivedAt: number
  /** The client's port: requests that share one came over one connection. */
  remotePort?: number
  firstByteAt?: number
  /** Every stream piece written, with when (Date.now()): a bench reads when the first and last text left. */
  writes: { at: number; text: string }[]
  closedAt?: number
  /** The client hung up before the answer's end (a socket the mock dropped itself is not counted). */
  aborted: boolean
}

export type Match = RegExp | ((req: ProviderRequest) => boolean)
export interface Rule {
  match: Match
  reply: ProviderReply
}

export interface MockProvider {
  /** `http://127.0.0.1:<port>`; an openai-chat baseUrl is this plus `/v1`. */
  url: string
  requests: ProviderRequest[]
  /** Connections whose request was never whole: the client hung up before its body ended. */
  readonly hungUp: number
  setRules(rules: Rule[], fallback?: ProviderReply): void
  /** Resolves once the request has closed (finished, dropped or aborted). */
  closed(req: ProviderRequest): Promise<void>
  close(): Promise<void>
}

export const DEFAULT_REPLY: ProviderReply = { text: ['mock ', 'provider ', 'answer'], usage: { input: 100, cached: 0, output: 5 } }

const pieces = (value: string | string[] | undefined): string[] => (value === undefined ? [] : typeof value === 'string' ? [value] : value)
const joined = (value: string | string[] | undefined) => pieces(value).join('')
// Unref'd: a long stall must not keep a finished test process alive.
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref())

/** The last message's text: a user message's text, or a tool result's content, in either format. */
export function lastMessageText(body: any): string {
  const last = Array.isArray(body?.messages) ? body.messages.at(-1) : undefined
  const textOf = (content: any): string =>
    typeof content === 'string'
      ? content
      : Array.isArray(content)
        ? content.map((b: any) => (typeof b?.text === 'string' ? b.text : b?.type === 'tool_result' ? textOf(b.content) : '')).filter(Boolean).join('\n')
        : ''
  return textOf(last?.content)
}

function errorBody(openai: boolean, status: number, message: string): string {
  return JSON.stringify(openai
    ? { error: { message, type: status === 429 ? 'rate_limit_error' : 'server_error', code: status } }
    : { type: 'error', error: { type: status === 429 ? 'rate_limit_error' : 'api_error', message } })
}

const toolId = (call: ProviderToolCall, i: number, openai: boolean) => call.id ?? (openai ? `call_mock_${i}` : `toolu_mock_${i}`)
const usageOf = (reply: ProviderReply) => ({ input: reply.usage?.input ?? 100, cached: reply.usage?.cached ?? 0, output: reply.usage?.output ?? 5 })
const parsedArguments = (call: ProviderToolCall) => {
  try {
    return JSON.parse(joined(call.arguments) || '{}')
  } catch {
    return {}
  }
}

/** The OpenAI SSE events of a reply, one written piece each. */
function openAiEvents(reply: ProviderReply, body: any): string[] {
  const base = { id: 'chatcmpl-mock', object: 'chat.completion.chunk', created: 1767225600, model: body?.model ?? 'mock' }
  const chunk = (delta: object, finish: string | null = null) => `data: ${JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
  const calls = reply.toolCalls ?? []
  const u = usageOf(reply)
  return [
    chunk({ role: 'assistant', content: '' }),
    ...(reply.reasoning ?? []).map((r) => chunk({ reasoning_content: r })),
    ...pieces(reply.text).map((t) => chunk({ content: t })),
    ...(reply.badJson ? ['data: {"choices": [oops\n\n'] : []),
    ...(reply.errorObject ? [`data: ${JSON.stringify({ error: { message: reply.errorObject, type: 'server_error' } })}\n\n`] : []),
    ...calls.flatMap((call, index) => reply.unindexed
      ? [chunk({ tool_calls: [{ id: '', type: 'function', function: { name: call.name, arguments: joined(call.arguments) } }] })]
      : [
          chunk({ tool_calls: [{ index, id: toolId(call, index, true), type: 'function', function: { name: call.name, arguments: '' } }] }),
          ...pieces(call.arguments).map((a) => chunk({ tool_calls: [{ index, function: { arguments: a } }] })),
        ]),
    ...(reply.unfinished ? [] : [chunk({}, reply.finish ?? (calls.length ? 'tool_calls' : 'stop'))]),
    ...(body?.stream_options?.include_usage
      ? [`data: ${JSON.stringify({ ...base, choices: [], usage: { prompt_tokens: u.input + u.cached, completion_tokens: u.output, total_tokens: u.input + u.cached + u.output, prompt_tokens_details: { cached_tokens: u.cached } } })}\n\n`]
      : []),
    ...(reply.unfinished ? [] : ['data: [DONE]\n\n']),
  ]
}

function openAiCompletion(reply: ProviderReply, body: any): string {
  const calls = reply.toolCalls ?? []
  const u = usageOf(reply)
  return JSON.stringify({
    id: 'chatcmpl-mock', object: 'chat.completion', created: 1767225600, model: body?.model ?? 'mock',
    choices: [{
      index: 0,
      message: {
        role: 'assistant',
        content: reply.text === undefined ? null : joined(reply.text),
        ...(reply.reasoning ? { reasoning_content: reply.reasoning.join('') } : {}),
        ...(calls.length ? { tool_calls: calls.map((call, i) => ({ id: toolId(call, i, true), type: 'function', function: { name: call.name, arguments: joined(call.arguments) } })) } : {}),
      },
      finish_reason: reply.finish ?? (calls.length ? 'tool_calls' : 'stop'),
    }],
    usage: { prompt_tokens: u.input + u.cached, completion_tokens: u.output, total_tokens: u.input + u.cached + u.output, prompt_tokens_details: { cached_tokens: u.cached } },
  })
}

/** The Anthropic SSE events of a reply, one written piece each. */
function anthropicEvents(reply: ProviderReply, body: any): string[] {
  const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`
  const calls = reply.toolCalls ?? []
  const u = usageOf(reply)
  const usage = { input_tokens: u.input, cache_read_input_tokens: u.cached, cache_creation_input_tokens: 0, output_tokens: u.output }
  const blocks: string[][] = []
  if (reply.reasoning) {
    blocks.push([
      event('content_block_start', { index: blocks.length, content_block: { type: 'thinking', thinking: '', signature: '' } }),
      ...reply.reasoning.map((r) => event('content_block_delta', { index: blocks.length, delta: { type: 'thinking_delta', thinking: r } })),
      event('content_block_delta', { index: blocks.length, delta: { type: 'signature_delta', signature: 'bW9jaw==' } }),
      event('content_block_stop', { index: blocks.length }),
    ])
  }
  if (reply.text !== undefined) {
    blocks.push([
      event('content_block_start', { index: blocks.length, content_block: { type: 'text', text: '' } }),
      ...pieces(reply.text).map((t) => event('content_block_delta', { index: blocks.length, delta: { type: 'text_delta', text: t } })),
      ...(reply.badJson ? ['event: content_block_delta\ndata: {oops\n\n'] : []),
      ...(reply.errorObject ? [event('error', { error: { type: 'overloaded_error', message: reply.errorObject } })] : []),
      event('content_block_stop', { index: blocks.length }),
    ])
  }
  calls.forEach((call, i) => {
    blocks.push([
      event('content_block_start', { index: blocks.length, content_block: { type: 'tool_use', id: toolId(call, i, false), name: call.name, input: {} } }),
      ...pieces(call.arguments).map((a) => event('content_block_delta', { index: blocks.length, delta: { type: 'input_json_delta', partial_json: a } })),
      event('content_block_stop', { index: blocks.length }),
    ])
  })
  return [
    event('message_start', { message: { id: 'msg_mock', type: 'message', role: 'assistant', model: body?.model ?? 'mock', content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }),
    event('ping', {}),
    ...blocks.flat(),
    ...(reply.unfinished ? [] : [
      event('message_delta', { delta: { stop_reason: reply.finish ?? (calls.length ? 'tool_use' : 'end_turn'), stop_sequence: null }, usage }),
      event('message_stop', {}),
    ]),
  ]
}

function anthropicMessage(reply: ProviderReply, body: any): string {
  const calls = reply.toolCalls ?? []
  const u = usageOf(reply)
  return JSON.stringify({
    id: 'msg_mock', type: 'message', role: 'assistant', model: body?.model ?? 'mock',
    content: [
      ...(reply.reasoning ? [{ type: 'thinking', thinking: reply.reasoning.join(''), signature: 'bW9jaw==' }] : []),
      ...(reply.text !== undefined ? [{ type: 'text', text: joined(reply.text) }] : []),
      ...calls.map((call, i) => ({ type: 'tool_use', id: toolId(call, i, false), name: call.name, input: parsedArguments(call) })),
    ],
    stop_reason: reply.finish ?? (calls.length ? 'tool_use' : 'end_turn'), stop_sequence: null,
    usage: { input_tokens: u.input, cache_read_input_tokens: u.cached, cache_creation_input_tokens: 0, output_tokens: u.output },
  })
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks)))
    req.on('error', reject)
  })
}

/** What a network costs the provider's client: each new connection waits `connectMs` before it is read (a TLS handshake over a slow link); a reused one, nothing. */
export type ProviderNetwork = { connectMs?: number; keepAliveMs?: number }

export async function startMockProvider(initialRules: Rule[] = [], initialFallback: ProviderReply = DEFAULT_REPLY, network: ProviderNetwork = {}): Promise<MockProvider> {
  const requests: ProviderRequest[] = []
  const closedWaiters = new Map<ProviderRequest, Promise<void>>()
  let rules = initialRules
  let fallback = initialFallback
  const failures = new Map<Rule | ProviderReply, number>()
  let shutDown = false
  let hungUp = 0

  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    // A client that hangs up before its body is whole (an early curl let go unsent) is no request.
    const raw = await readBody(req).catch(() => undefined)
    if (!raw) return void hungUp++
    const arrivedAt = Date.now()
    let body: any
    try {
      body = raw.length ? JSON.parse(raw.toString('utf8')) : undefined
    } catch {
      body = undefined
    }
    const path = req.url ?? '/'
    const record: ProviderRequest = { method: req.method ?? 'GET', path, headers: req.headers, raw, body, lastText: lastMessageText(body), rule: 'none', arrivedAt, remotePort: req.socket.remotePort, writes: [], aborted: false }
    requests.push(record)
    let dropped = false
    closedWaiters.set(record, new Promise((resolve) => res.on('close', () => {
      record.closedAt = Date.now()
      record.aborted = !res.writableFinished && !dropped
      resolve()
    })))
    const gone = () => shutDown || res.destroyed || record.aborted
    const write = (text: string) => {
      const at = Date.now()
      record.firstByteAt ??= at
      record.writes.push({ at, text })
      res.write(text)
    }
    const json = (status: number, text: string, headers: Record<string, string> = {}) => {
      record.firstByteAt ??= Date.now()
      res.writeHead(status, { 'content-type': 'application/json', ...headers })
      res.end(text)
    }

    const pathname = path.split('?')[0]
    const openai = pathname === '/v1/chat/completions'
    if (req.method === 'POST' && pathname === '/v1/messages/count_tokens') return json(200, JSON.stringify({ input_tokens: Math.max(1, Math.ceil(raw.length / 4)) }))
    if (req.method !== 'POST' || (!openai && pathname !== '/v1/messages')) return json(404, errorBody(openai, 404, `mock provider: no route ${req.method} ${pathname}`))

    const index = rules.findIndex((r) => (r.match instanceof RegExp ? r.match.test(record.lastText) : r.match(record)))
    const rule = index >= 0 ? rules[index]! : undefined
    record.rule = index >= 0 ? index : 'default'
    const reply = rule?.reply ?? fallback
    const key = rule ?? fallback
    if (reply.firstByteMs) await sleep(reply.firstByteMs)
    if (gone()) return

    const seen = failures.get(key) ?? 0
    failures.set(key, seen + 1)
    const failing = reply.failTimes !== undefined ? seen < reply.failTimes : reply.status !== undefined
    if (failing) {
      const status = reply.status ?? 500
      return json(status, errorBody(openai, status, reply.errorMessage ?? `mock provider: status ${status}`), reply.retryAfter !== undefined ? { 'retry-after': String(reply.retryAfter) } : {})
    }
    if (!body?.stream) return json(200, openai ? openAiCompletion(reply, body) : anthropicMessage(reply, body))

    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
    const events = openai ? openAiEvents(reply, body) : anthropicEvents(reply, body)
    for (const [i, event] of events.entries()) {
      if (i > 0 && reply.pieceMs) await sleep(reply.pieceMs)
      if (i > 0 && i === (reply.stallAfter ?? 1) && reply.stallMs) await sleep(reply.stallMs)
      if (gone()) return
      if (reply.dropAfter !== undefined && i >= reply.dropAfter) {
        dropped = true
        res.socket?.destroy()
        return
      }
      write(event)
    }
    res.end()
  })
  // curl makes one request per connection; keep-alive sockets must not hold close() open.
  server.keepAliveTimeout = network.keepAliveMs ?? 500
  const connectMs = network.connectMs ?? 0
  // A new socket is handed to the HTTP server only after connectMs (its request read then); a kept-alive one pays nothing again.
  const listener = connectMs ? createNetServer((socket) => void setTimeout(() => server.emit('connection', socket), connectMs)) : server
  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject)
    listener.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = listener.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    get hungUp() {
      return hungUp
    },
    setRules(next, nextFallback) {
      rules = next
      fallback = nextFallback ?? DEFAULT_REPLY
      failures.clear()
    },
    closed: (req) => closedWaiters.get(req) ?? Promise.resolve(),
    close: () =>
      new Promise<void>((resolve) => {
        shutDown = true
        server.closeAllConnections()
        if (listener === server) server.close(() => resolve())
        else listener.close(() => resolve())
      }),
  }
}
