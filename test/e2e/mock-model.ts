// A mock Anthropic Messages API for driving the pinned engine headless.
// It answers POST /v1/messages (streaming SSE or JSON), /v1/messages/count_tokens, and
// anything else with a quick JSON 404, so the engine never hangs or retries forever.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export type RequestKind = 'main' | 'summarize' | 'other'

export interface RecordedRequest {
  method: string
  path: string
  headers: Record<string, string | string[] | undefined>
  body: any
  kind: RequestKind
}

export interface Reply {
  /** A thinking block before the text, as Anthropic streams one: these pieces as thinking_delta, then its signature. */
  thinking?: string[]
  /** The thinking block's signature, sent as one signature_delta (default `sig-mock`); null sends none. */
  signature?: string | null
  text?: string
  /** The text sent as several deltas of one block, in order (`text` is their join when not given). */
  textPieces?: string[]
  toolUse?: { name: string; input: unknown; id?: string }
  inputTokens?: number
  outputTokens?: number
  stopReason?: 'end_turn' | 'tool_use' | 'max_tokens' | 'stop_sequence' | 'refusal'
  // ---- Faults, to measure what the engine does with its own API failures ----
  /** Answer this status with an Anthropic error body (`errorType`, `errorMessage`) instead of a message. */
  status?: number
  errorType?: string
  errorMessage?: string
  /** Streaming: destroy the socket after this many text pieces (a stream cut mid-way). */
  cutAfter?: number
  /** Streaming: after the text, an `error` event (`errorType`, `errorMessage`) ends the stream; not streaming, the same error as a 529. */
  errorEvent?: boolean
  /** Streaming: after the text, the stream ends with no message_delta and no message_stop. */
  endEarly?: boolean
}

/** Decides a reply per /v1/messages request; `index` counts those requests from 0. */
export type Script = ((req: RecordedRequest, index: number) => Reply | undefined) | Reply[]

export interface MockModel {
  url: string
  requests: RecordedRequest[]
  /** Only the /v1/messages requests (not count_tokens or stray paths). */
  messages(kind?: RequestKind): RecordedRequest[]
  setScript(s: Script | undefined): void
  close(): Promise<void>
}

/** Text of a request body: system prompt plus every message's text, joined. Good for `includes`. */
export function requestText(body: any): string {
  const parts: string[] = []
  const walk = (c: any): void => {
    if (typeof c === 'string') parts.push(c)
    else if (Array.isArray(c)) c.forEach(walk)
    else if (c && typeof c === 'object') {
      if (typeof c.text === 'string') parts.push(c.text)
      if (c.content !== undefined) walk(c.content)
    }
  }
  walk(body?.system)
  walk(body?.messages)
  return parts.join('\n')
}

/** The last user-role message of a request body (the engine may append a `system` row after it). */
export function lastUserMessage(body: any): any {
  const msgs: any[] = Array.isArray(body?.messages) ? body.messages : []
  for (let i = msgs.length - 1; i >= 0; i--) if (msgs[i].role === 'user') return msgs[i]
  return undefined
}

/** The text of that message. */
export function lastUserText(body: any): string {
  const last = lastUserMessage(body)
  return last ? requestText({ messages: [last] }) : ''
}

// The engine's compaction request (verified on 2.1.328, see FINDINGS.md) is the main request
// replayed (same model, system and tools, for the prompt cache) plus a final user message, a
// plain string, that opens "CRITICAL: Respond with TEXT ONLY. Do NOT call any tools." and asks
// to "create a detailed summary of the conversation so far"; /compact's words follow
// "Additional Instructions:". So the last user message is the only reliable mark.
export function classify(path: string, body: any): RequestKind {
  if (!path.startsWith('/v1/messages') || path.startsWith('/v1/messages/count_tokens')) return 'other'
  const last = lastUserText(body)
  if (/Your task is to create a detailed summary of the conversation/i.test(last)) return 'summarize'
  // Main turns carry the tool list; title generation and other side calls carry none.
  return Array.isArray(body?.tools) && body.tools.length > 0 ? 'main' : 'other'
}

/** Default replies: "ok" for everything, a <summary> answer for the summarizer. */
export function defaultReply(req: RecordedRequest): Reply {
  if (req.kind === 'summarize') return { text: '<summary>SUMMARY: the mock summarized the conversation.</summary>', inputTokens: 2000, outputTokens: 50 }
  return { text: 'ok', inputTokens: 100, outputTokens: 5 }
}

/** Build a script from per-kind replies; kinds not given fall back to defaultReply. */
export function byKind(map: Partial<Record<RequestKind, Reply | ((req: RecordedRequest, index: number) => Reply)>>): Script {
  return (req, i) => {
    const r = map[req.kind]
    return typeof r === 'function' ? r(req, i) : r ?? defaultReply(req)
  }
}

function pickReply(script: Script | undefined, req: RecordedRequest, index: number): Reply {
  const r = Array.isArray(script) ? script[index] : script?.(req, index)
  if (!r) return defaultReply(req)
  // A reply that names only a tool call gets no default text block beside it.
  const d = defaultReply(req)
  return { ...d, ...(r.toolUse || r.textPieces ? { text: undefined } : {}), ...r }
}

function messageFor(reply: Reply, model: string) {
  const content: any[] = []
  if (reply.thinking) content.push({ type: 'thinking', thinking: reply.thinking.join(''), signature: reply.signature === undefined ? 'sig-mock' : reply.signature ?? '', pieces: reply.thinking, signed: reply.signature !== null })
  if (reply.textPieces) content.push({ type: 'text', text: reply.textPieces.join(''), pieces: reply.textPieces })
  else if (reply.text) content.push({ type: 'text', text: reply.text })
  if (reply.toolUse) {
    const t = reply.toolUse
    content.push({ type: 'tool_use', id: t.id ?? `toolu_mock${Math.random().toString(36).slice(2, 12)}`, name: t.name, input: t.input })
  }
  return {
    id: `msg_mock${Math.random().toString(36).slice(2, 12)}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: reply.stopReason ?? (reply.toolUse ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    usage: {
      input_tokens: reply.inputTokens ?? 100,
      output_tokens: reply.outputTokens ?? 5,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  }
}

function writeSse(res: ServerResponse, msg: ReturnType<typeof messageFor>, reply: Reply = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_${msg.id}` })
  const send = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`)
  // message_start carries the input usage (this drives the session's context fill) and an empty content list.
  send('message_start', { message: { ...msg, content: [], stop_reason: null, usage: { ...msg.usage, output_tokens: 1 } } })
  send('ping', {})
  let sent = 0
  for (const [index, block] of msg.content.entries()) {
    if (block.type === 'thinking') {
      send('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } })
      for (const piece of block.pieces) send('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } })
      if (block.signed) send('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } })
    } else if (block.type === 'text') {
      send('content_block_start', { index, content_block: { type: 'text', text: '' } })
      for (const piece of block.pieces ?? [block.text]) {
        if (reply.cutAfter !== undefined && sent++ >= reply.cutAfter) return void res.socket?.destroy()
        send('content_block_delta', { index, delta: { type: 'text_delta', text: piece } })
      }
      if (reply.errorEvent) {
        send('error', { error: { type: reply.errorType ?? 'overloaded_error', message: reply.errorMessage ?? 'mock: overloaded' } })
        return void res.end()
      }
      if (reply.endEarly) return void res.end()
    } else {
      send('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } })
      send('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(block.input) } })
    }
    send('content_block_stop', { index })
  }
  // Like the current API, message_delta repeats the cumulative usage (input included): the engine's
  // forked agents (the compaction summarizer) total usage from it and read input=0 without it.
  send('message_delta', { delta: { stop_reason: msg.stop_reason, stop_sequence: null }, usage: msg.usage })
  send('message_stop', {})
  res.end()
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

export async function startMockModel(script?: Script): Promise<MockModel> {
  const requests: RecordedRequest[] = []
  let current = script
  let messageIndex = 0

  const server = createServer(async (req, res) => {
    try {
      const raw = await readBody(req)
      let body: any = undefined
      try { body = raw ? JSON.parse(raw) : undefined } catch { body = raw }
      const path = req.url ?? '/'
      const rec: RecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body, kind: classify(path, body) }
      requests.push(rec)
      const pathname = path.split('?')[0]
      const json = (status: number, obj: object) => {
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(obj))
      }
      if (req.method === 'POST' && pathname === '/v1/messages/count_tokens') {
        return json(200, { input_tokens: Math.max(1, Math.ceil(requestText(body).length / 4)) })
      }
      if (req.method === 'POST' && pathname === '/v1/messages') {
        const reply = pickReply(current, rec, messageIndex++)
        if (reply.status !== undefined || (reply.errorEvent && !body?.stream)) {
          return json(reply.status ?? 529, { type: 'error', error: { type: reply.errorType ?? 'api_error', message: reply.errorMessage ?? `mock: status ${reply.status}` } })
        }
        const msg = messageFor(reply, body?.model ?? 'claude-mock')
        return body?.stream ? writeSse(res, msg, reply) : json(200, msg)
      }
      // Anything else (e.g. feature or account endpoints): a plain 404 the engine gives up on.
      json(404, { type: 'error', error: { type: 'not_found_error', message: `mock: no route ${req.method} ${pathname}` } })
    } catch (err) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ type: 'error', error: { type: 'api_error', message: String(err) } }))
    }
  })
  // The engine keeps sockets alive; don't let them hold close() open.
  server.keepAliveTimeout = 1000
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => resolve())
  })
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    messages: (kind) => requests.filter((r) => r.path.split('?')[0] === '/v1/messages' && (!kind || r.kind === kind)),
    setScript: (s) => { current = s },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}
