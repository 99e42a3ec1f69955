// Pieces of throwaway probe plugins for the routing measurements (routing-engine*.test.ts).
// The probes are hooks modules written as source text; these are the parts they share: a debug
// logger, a routed `turn.step` answer (the hook answers a step alone, no `next`), and local answers
// for engine model requests seen at `http.fetch` (an Anthropic SSE text, a JSON message).
import { debugLines } from './engine.ts'
import type { LiveSession } from './live.ts'

/**
 * JS source for the module top: `CFG` (the test's options, baked in as a literal), `log`, `answer`,
 * `sse`, `jsonMessage`, `isAlias`. `answer($, e, a)` is an async generator answering a step with
 * `a = { text?, tools?: [{ name, input }], fill?, stop? }`; it yields text, tool + input, and a stop
 * whose usage.input_tokens is `a.fill` (the context fill the engine then reads).
 */
export function kitSource(cfg: object): string {
  return `const CFG = ${JSON.stringify(cfg)}
const ALIASES = CFG.aliases || ['gpt-5', 'gpt-mini']
function isAlias(m) { return ALIASES.includes(String(m)) }
function log($, tag, x) { $.ui.log(tag + ' ' + JSON.stringify(x), { to: 'debug' }) }
let toolSeq = 0
async function* answer($, e, a) {
  if (a.text) yield { kind: 'text', index: 0, text: a.text }
  const toolUses = []
  const tools = a.tools || []
  for (let k = 0; k < tools.length; k++) {
    const t = tools[k]
    toolSeq++
    yield { kind: 'tool', index: 1 + k, id: 'toolu_keel_' + toolSeq + '_' + Math.random().toString(36).slice(2, 8), name: t.name }
    yield { kind: 'input', index: 1 + k, json: JSON.stringify(t.input) }
    toolUses.push({ name: t.name, input: t.input })
  }
  const stopReason = a.stop || (toolUses.length ? 'tool_use' : 'end_turn')
  const usage = { input_tokens: a.fill == null ? 1000 : a.fill, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, model: e.model }
  yield { kind: 'stop', stopReason, usage }
  return { turnId: e.turnId, index: e.index, answer: a.text || '', toolUses, stopReason, usage }
}
function sse(model, text, id) {
  const ev = (type, data) => 'event: ' + type + '\\ndata: ' + JSON.stringify(Object.assign({ type }, data)) + '\\n\\n'
  const usage = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
  return ev('message_start', { message: { id: id || 'msg_keel_local', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage } })
    + ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } })
    + ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text } })
    + ev('content_block_stop', { index: 0 })
    + ev('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage })
    + ev('message_stop', {})
}
function jsonMessage(model, text) {
  return JSON.stringify({ id: 'msg_keel_local', type: 'message', role: 'assistant', model, content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } })
}
function bodyOf(e) {
  const b = e.init && e.init.body
  if (typeof b !== 'string') return undefined
  try { return JSON.parse(b) } catch (err) { return undefined }
}
function localAnswer(status, text, type) {
  return { value: { status, ok: status < 300, headers: { 'content-type': type || 'application/json' }, text } }
}
`
}

/** The http.fetch hook source most probes share: logs each engine request to an alias model, answers it locally.
 *  Summarizer → SSE `<summary>`, count_tokens → `{input_tokens:1}`, any other stream → SSE `SIDE`, non-stream → JSON. */
export const LOCAL_FETCH = `
  on('http.fetch', async ($, e, next) => {
    const body = bodyOf(e)
    if (!body || !isAlias(body.model)) return next(e)
    const path = new URL(e.url).pathname
    const last = Array.isArray(body.messages) && body.messages.length ? body.messages[body.messages.length - 1] : undefined
    const lastText = last ? (typeof last.content === 'string' ? last.content : JSON.stringify(last.content)) : ''
    const kind = path.endsWith('/count_tokens') ? 'count' : /create a detailed summary of the conversation/.test(lastText) ? 'summary' : body.max_tokens === 1 ? 'probe' : 'other'
    log($, 'FETCH', { kind, path, origin: next.origin.plugin, model: body.model, stream: !!body.stream, max: body.max_tokens, nTools: Array.isArray(body.tools) ? body.tools.length : null, keys: Object.keys(body).sort() })
    if (kind === 'count') return localAnswer(200, JSON.stringify({ input_tokens: 1 }))
    if (kind === 'summary') return localAnswer(200, sse(body.model, '<summary>ROUTED-SUMMARY: local.</summary>'), 'text/event-stream')
    if (body.stream) return localAnswer(200, sse(body.model, 'SIDE'), 'text/event-stream')
    return localAnswer(200, jsonMessage(body.model, 'SIDE'))
  })
`

/** Debug lines of `plugin` tagged `tag` (`TAG {json}`), parsed. The debug log writes a value whose key looks
 *  like a token count or an id (`input_tokens`, `session_id`) as a bare `[REDACTED]`: read back as that string. */
export function tagged(log: string, plugin: string, tag: string): any[] {
  return debugLines(log, plugin).filter((l) => l.startsWith(tag + ' '))
    .map((l) => JSON.parse(l.slice(tag.length + 1).replace(/:\[REDACTED\]/g, ':"[REDACTED]"')))
}

export const SECRET = 'sk-test-SECRET-1234'

/** The `result` lines of a stream-json session's output, parsed. */
export function results(output: string): any[] {
  return output.split('\n').filter((l) => l.includes('"type":"result"')).flatMap((l) => {
    try { return [JSON.parse(l)] } catch { return [] }
  })
}

/** Writes each prompt to a stream-json session and waits for one more result line after each. */
export async function sendEach(live: LiveSession, prompts: string[], ms = 30_000): Promise<void> {
  for (const p of prompts) {
    const before = results(live.output()).length
    await live.send(p)
    await live.waitFor(`the result of ${JSON.stringify(p)}`, () => results(live.output()).length > before, ms)
  }
}

/** A terminal stream as plain text: escape sequences dropped, runs of whitespace made one space. */
export function screenText(raw: string): string {
  return raw.replace(/\x1b\][^\x07]*\x07/g, '').replace(/\x1b\[[0-9;?]*[ -\/]*[@-~]/g, ' ').replace(/\x1b[()][0-9A-Za-z]/g, '').replace(/\s+/g, ' ')
}

/**
 * The terminal's screen as it stands after `raw` (live.ts's pty is 160 x 50), one string a row, trailing blanks
 * cut: what a person sees, where screenText is everything ever drawn. The moves and erases the engine's
 * renderer writes (CSI A B C D G H K J; colours and the rest ignored, OSC dropped); one cell a code point.
 */
export function screenRows(raw: string, cols = 160, rows = 50): string[] {
  const grid = Array.from({ length: rows }, () => Array<string>(cols).fill(' '))
  let [row, col] = [0, 0]
  const clamp = () => ((row = Math.max(0, Math.min(rows - 1, row))), (col = Math.max(0, Math.min(cols - 1, col))))
  const erase = (r: number, from: number, to: number) => grid[r]!.fill(' ', from, to)
  for (const m of raw.matchAll(/\x1b\[([0-9;?<>=]*)[ -\/]*([@-~])|\x1b\][^\x07]*(?:\x07|\x1b\\)|\x1b[^[\]]|([\s\S])/gu)) {
    const [, params = '', final, ch] = m
    if (ch !== undefined) {
      if (ch === '\n') (row++, (col = 0))
      else if (ch === '\r') col = 0
      else if (ch >= ' ') {
        grid[row]![col] = ch
        col = Math.min(cols - 1, col + 1)
      }
      if (row >= rows) (grid.push(grid.shift()!.fill(' ')), (row = rows - 1))
      continue
    }
    const [a = 0, b = 0] = params.split(';').map((p) => Number(p.replace(/\D/g, '')) || 0)
    if (final === 'A') row -= a || 1
    else if (final === 'B') row += a || 1
    else if (final === 'C') col += a || 1
    else if (final === 'D') col -= a || 1
    else if (final === 'G') col = (a || 1) - 1
    else if (final === 'H' || final === 'f') ((row = (a || 1) - 1), (col = (b || 1) - 1))
    else if (final === 'K') erase(row, a === 0 ? col : 0, a === 1 ? col + 1 : cols)
    else if (final === 'J') for (let r = 0; r < rows; r++) if (a === 2 || (a === 0 ? r > row : r < row)) erase(r, 0, cols); else if (r === row) erase(r, a === 0 ? col : 0, a === 0 ? cols : col + 1)
    clamp()
  }
  return grid.map((cells) => cells.join('').trimEnd())
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Writes each piece to an idle terminal UI and waits until the screen drew what it changed (new output,
 * then 200 ms with none, at most 5 s of it; so too before the first): the next key reaches what the last one focused however slow
 * the machine is. Not for a running turn, whose spinner keeps drawing.
 */
export async function press(live: LiveSession, ...pieces: string[]): Promise<void> {
  const drawn = async () => {
    for (let seen = -1, waits = 0; seen !== live.output().length && waits < 25; waits++) {
      seen = live.output().length
      await sleep(200)
    }
  }
  await drawn()
  for (const piece of pieces) {
    const before = live.output().length
    live.write(piece)
    await live.waitFor(`a redraw after the key ${JSON.stringify(piece)}`, () => live.output().length > before, 30_000)
    await drawn()
  }
}

/** Waits until `plugin`'s turn.complete hook has settled `n` times: a result line comes before that hook's
 *  own logging after `next(e)` is done, so read the debug log only then. */
export async function turnsSettled(live: LiveSession, n: number, plugin = 'probe'): Promise<string> {
  const re = new RegExp(`hooks module ${plugin}@inline turn\\.complete settled`, 'g')
  await live.waitFor(`${n} settled turn.complete hooks`, () => (live.debugLog().match(re) ?? []).length >= n)
  return live.debugLog()
}
