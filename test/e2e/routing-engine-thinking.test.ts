// Routing measurements (src/features/routing/NOTES.md §13.1, issue 18 item 8): what the engine does with
// a routed step's thinking, in headless json, stream-json with partial messages, the transcript, and the
// terminal UI (live, collapsed, Ctrl+O's transcript view); compared with Claude's own thinking (the mock
// model streams a signed thinking block, as Anthropic does).
//
// One probe plays every variant. A step's plan (CFG.steps[index], the last one repeating):
// - `before`: chunks the hook yields itself (a routed answer, as keel's relay yields the provider's);
// - `blocks`: when given, the hook calls next(e) and its http.fetch hook answers the engine's own request
//   for the alias with these blocks as an Anthropic SSE (the "fake answer" of keel's capture); the hook
//   then passes on next(e)'s `engine` chunks and the kinds in `keep` (none: the recorded blocks only);
// - `after`: chunks the hook yields after that.
// Without `blocks` the hook answers alone (no request at all), as routing did before capture.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, byKind, type MockModel, type Reply } from './mock-model.ts'
import { cleanupTmp, findFiles, runClaude, tmpDir, writePlugin } from './engine.ts'
import { hasPty, startLive, type LiveSession } from './live.ts'
import { kitSource, screenText, sendEach, tagged } from './probe-kit.ts'
import { startMockProvider, type MockProvider } from './mock-provider.ts'
import { routed, routedHome } from './routing-kit.ts'

const PROBE = (cfg: object) => kitSource(cfg) + `
function sseBlocks(model, blocks) {
  const ev = (type, data) => 'event: ' + type + '\\ndata: ' + JSON.stringify(Object.assign({ type }, data)) + '\\n\\n'
  const usage = { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }
  let out = ev('message_start', { message: { id: 'msg_keel_capture_' + Math.random().toString(36).slice(2, 10), type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage } })
  blocks.forEach((b, index) => {
    if (b.type === 'thinking') {
      out += ev('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } })
      for (const p of b.pieces) out += ev('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: p } })
      if (b.signature != null) out += ev('content_block_delta', { index, delta: { type: 'signature_delta', signature: b.signature } })
    } else if (b.type === 'tool_use') {
      out += ev('content_block_start', { index, content_block: { type: 'tool_use', id: 'toolu_keel_c' + Math.random().toString(36).slice(2, 10), name: b.name, input: {} } })
      out += ev('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(b.input) } })
    } else {
      out += ev('content_block_start', { index, content_block: { type: 'text', text: '' } })
      out += ev('content_block_delta', { index, delta: { type: 'text_delta', text: b.text } })
    }
    out += ev('content_block_stop', { index })
  })
  const stop = blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn'
  return out + ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage }) + ev('message_stop', {})
}
const planOf = (i) => CFG.steps[Math.min(i, CFG.steps.length - 1)]
let fetches = 0
export function register(on) {
  on('turn.step', async function* ($, e, next) {
    if (!isAlias(e.model)) {
      const s = next(e)
      const kinds = []
      for (;;) {
        const x = await s.next()
        if (x.done) { log($, 'NATIVE', { kinds }); return x.value }
        kinds.push(x.value.kind + (x.value.index ?? ''))
        yield x.value
      }
    }
    log($, 'STEP', { index: e.index })
    const plan = planOf(e.index)
    const s = plan.blocks ? next(e) : null
    // Read at once, as keel's relay does: the engine's request goes out while the hook yields its own chunks.
    const first = s ? s.next() : null
    const toolUses = []
    async function* own(list) {
      for (const c0 of list || []) {
        const c = c0.kind === 'tool' ? Object.assign({}, c0, { id: 'toolu_keel_' + Math.random().toString(36).slice(2, 10) }) : c0
        if (c.kind === 'input') toolUses.push({ name: 'Bash', input: JSON.parse(c.json) })
        if (CFG.gapMs && c.kind !== 'stop') await new Promise((r) => setTimeout(r, CFG.gapMs))
        yield c
      }
    }
    yield* own(plan.before)
    if (s) {
      const kinds = []
      let x = await first
      while (!x.done) {
        kinds.push(x.value.kind + (x.value.index ?? ''))
        if (x.value.kind === 'engine' || (plan.keep || []).includes(x.value.kind)) yield x.value
        x = await s.next()
      }
      log($, 'BENEATH', { index: e.index, kinds, answer: x.value.answer })
    }
    yield* own(plan.after)
    const answer = [...(plan.before || []), ...(plan.after || [])].filter((c) => c.kind === 'text').map((c) => c.text).join('')
    return { turnId: e.turnId, index: e.index, answer, toolUses, stopReason: toolUses.length ? 'tool_use' : 'end_turn', usage: { input_tokens: 1000, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, model: e.model } }
  })
  on('http.fetch', async ($, e, next) => {
    const body = bodyOf(e)
    if (!body || !isAlias(body.model)) return next(e)
    log($, 'REQ', { thinking: body.thinking || null, assistant: (body.messages || []).filter((m) => m.role === 'assistant').map((m) => (Array.isArray(m.content) ? m.content : []).map((b) => b.type + (b.type === 'thinking' ? ':' + b.thinking + ':' + b.signature : ''))) })
    const plan = planOf(fetches++)
    return localAnswer(200, sseBlocks(body.model, plan.blocks || []), 'text/event-stream')
  })
}
`

// ---- Readers ----
const lines = (text: string): any[] => text.split('\n').flatMap((l) => {
  try {
    return [JSON.parse(l)]
  } catch {
    return []
  }
})
const blockView = (b: any) => b.type === 'thinking' ? `thinking(${b.thinking},sig=${JSON.stringify(b.signature)})` : b.type === 'text' ? `text(${b.text})` : b.type
/** stream-json stdout as short lines: partial events (`start`, `delta`), whole rows (`ROW`), `thinking_tokens`, `RESULT`. */
function streamView(stdout: string): string[] {
  return lines(stdout).flatMap((x) => {
    if (x.type === 'stream_event') {
      const ev = x.event
      if (ev.type === 'content_block_start') return [`start ${ev.index} ${ev.content_block.type}`]
      if (ev.type === 'content_block_delta') return [`delta ${ev.index} ${ev.delta.type} ${ev.delta.thinking ?? ev.delta.text ?? ev.delta.signature ?? ev.delta.partial_json}`]
      return []
    }
    if (x.type === 'assistant') return [`ROW ${x.message.content.map(blockView).join(' + ')}`]
    if (x.type === 'system' && x.subtype === 'thinking_tokens') return ['thinking_tokens']
    if (x.type === 'result') return [`RESULT ${x.result}`]
    return []
  })
}
/** The transcript's assistant rows: message id prefix (msg_hook = a hook's own, msg_keel = the fake answer, msg_mock = native) and blocks. */
const transcriptView = (home: string): string[] => findFiles(join(home, '.claude/projects'), '.jsonl').flatMap((f) => lines(readFileSync(f, 'utf8')))
  .filter((x) => x.type === 'assistant').map((x) => `${x.message.id.slice(0, 8)} ${x.message.content.map(blockView).join(' + ')}`)
/** The assistant messages of a request body, block by block (thinking with its text and signature, text with its text). */
const assistantBlocks = (body: any) => (body.messages || []).filter((m: any) => m.role === 'assistant')
  .map((m: any) => (Array.isArray(m.content) ? m.content : []).map((b: any) => b.type + (b.type === 'thinking' ? `:${b.thinking}:${b.signature}` : b.type === 'text' ? `:${b.text}` : '')))

// ---- Chunks and blocks ----
const USAGE = { input_tokens: 1000, output_tokens: 10, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, model: 'gpt-5' }
const th = (index: number, text: string) => ({ kind: 'thinking', index, text })
const tx = (index: number, text: string) => ({ kind: 'text', index, text })
const stop = (stopReason = 'end_turn') => ({ kind: 'stop', stopReason, usage: USAGE })
const bash = (index: number) => [{ kind: 'tool', index, name: 'Bash' }, { kind: 'input', index, json: JSON.stringify({ command: 'echo tool-ran-77' }) }]
const thinkingBlock = (text: string, signature: string | null = 'sig-keel') => ({ type: 'thinking', pieces: [text], signature })
const CLAUDE: Reply = { thinking: ['CLAUDE-THINKING-ONE ', 'CLAUDE-THINKING-TWO'], text: 'CLAUDE-ANSWER' }

let mock: MockModel | undefined
let live: LiveSession | undefined
let provider: MockProvider | undefined
test.after.each(async () => {
  await live?.stop()
  live = undefined
  await mock?.close()
  await provider?.close()
  mock = provider = undefined
})
test.after(() => cleanupTmp())

const probe = (cfg: object) => writePlugin(tmpDir('probe'), 'probe', PROBE(cfg))
async function headless(cfg: object, format: 'json' | 'stream-json', model = 'gpt-5', partial = true) {
  const r = await runClaude({ prompt: 'hello', pluginDirs: [probe(cfg)], mock: mock!, format, extraArgs: ['--model', model, ...(format === 'stream-json' && partial ? ['--include-partial-messages'] : [])] })
  assert.is(r.code, 0, r.stderr.slice(-800))
  return r
}

test('Claude\'s own thinking (the mock streams a signed block): partial deltas and a whole thinking row in stream-json, kept in the transcript, never in the json result', async () => {
  mock = await startMockModel(byKind({ main: CLAUDE }))
  const model = 'claude-opus-4-5'
  const json = await headless({ steps: [{}] }, 'json', model)
  assert.is(json.json.result, 'CLAUDE-ANSWER')
  assert.not.match(json.stdout, 'CLAUDE-THINKING')
  assert.equal(transcriptView(json.home), ['msg_mock thinking(CLAUDE-THINKING-ONE CLAUDE-THINKING-TWO,sig="sig-mock")', 'msg_mock text(CLAUDE-ANSWER)'])
  const sj = await headless({ steps: [{}] }, 'stream-json', model)
  assert.equal(streamView(sj.stdout), [
    'start 0 thinking', 'thinking_tokens', 'delta 0 thinking_delta CLAUDE-THINKING-ONE ', 'thinking_tokens', 'delta 0 thinking_delta CLAUDE-THINKING-TWO', 'delta 0 signature_delta sig-mock',
    'ROW thinking(CLAUDE-THINKING-ONE CLAUDE-THINKING-TWO,sig="sig-mock")',
    'start 1 text', 'delta 1 text_delta CLAUDE-ANSWER', 'ROW text(CLAUDE-ANSWER)', 'RESULT CLAUDE-ANSWER',
  ])
  // Without --include-partial-messages: the whole rows, and a `thinking_tokens` line per delta (no text in it).
  const rows = await headless({ steps: [{}] }, 'stream-json', model, false)
  assert.equal(streamView(rows.stdout), ['thinking_tokens', 'thinking_tokens', 'ROW thinking(CLAUDE-THINKING-ONE CLAUDE-THINKING-TWO,sig="sig-mock")', 'ROW text(CLAUDE-ANSWER)', 'RESULT CLAUDE-ANSWER'])
  // What a hook sees of it: thinking chunks at the block's index, the signature inside an engine chunk.
  assert.equal(tagged(sj.debugLog, 'probe', 'NATIVE')[0].kinds.filter((k: string) => k !== 'engine'), ['thinking0', 'thinking0', 'text1', 'stop'])
  // What the engine asks of the API: json output without --verbose asks for no thinking text.
  const asked = mock.messages('main').map((q) => q.body.thinking)
  console.log(`  thinking asked (json, stream-json): ${JSON.stringify(asked)}`)
  assert.is(asked[0].display, 'omitted')
  assert.is.not(asked[1].display, 'omitted')
})

test('a routed step\'s own thinking chunks: only partial stream events (thinking_delta, thinking_tokens) in stream-json; no thinking row, no transcript block, nothing in json, whatever the order or index', async () => {
  mock = await startMockModel()
  const variants: Record<string, { seq: object[]; partial: string[]; rows: string[] }> = {
    'keel today: thinking at 1 before text at 0': {
      seq: [th(1, 'R-THINK-A'), th(1, 'R-THINK-B'), tx(0, 'R-ANSWER')],
      partial: ['start 1 thinking', 'thinking_tokens', 'delta 1 thinking_delta R-THINK-A', 'thinking_tokens', 'delta 1 thinking_delta R-THINK-B', 'start 0 text', 'delta 0 text_delta R-ANSWER'],
      rows: ['ROW text(R-ANSWER)'],
    },
    'thinking at 0 before text at 1 (Claude\'s order)': {
      seq: [th(0, 'R-THINK-A'), tx(1, 'R-ANSWER')],
      partial: ['start 0 thinking', 'thinking_tokens', 'delta 0 thinking_delta R-THINK-A', 'start 1 text', 'delta 1 text_delta R-ANSWER'],
      rows: ['ROW text(R-ANSWER)'],
    },
    'interleaved: thinking 1, text 0, thinking 1, text 0': {
      seq: [th(1, 'R-THINK-A'), tx(0, 'R-ANS-1 '), th(1, 'R-THINK-B'), tx(0, 'R-ANS-2')],
      partial: ['start 1 thinking', 'thinking_tokens', 'delta 1 thinking_delta R-THINK-A', 'start 0 text', 'delta 0 text_delta R-ANS-1 ', 'thinking_tokens', 'delta 1 thinking_delta R-THINK-B', 'delta 0 text_delta R-ANS-2'],
      rows: ['ROW text(R-ANS-1 R-ANS-2)'],
    },
    'thinking after the text': {
      seq: [tx(0, 'R-ANSWER'), th(1, 'R-THINK-A')],
      partial: ['start 0 text', 'delta 0 text_delta R-ANSWER', 'start 1 thinking', 'thinking_tokens', 'delta 1 thinking_delta R-THINK-A'],
      rows: ['ROW text(R-ANSWER)'],
    },
    // A response of thinking alone (no text, no call) is asked for again, once: the step runs twice.
    'thinking only': {
      seq: [th(0, 'R-THINK-A')],
      partial: ['start 0 thinking', 'thinking_tokens', 'delta 0 thinking_delta R-THINK-A', 'start 0 thinking', 'thinking_tokens', 'delta 0 thinking_delta R-THINK-A'],
      rows: [],
    },
  }
  for (const [name, v] of Object.entries(variants)) {
    const cfg = { steps: [{ before: [...v.seq, stop()] }] }
    const sj = await headless(cfg, 'stream-json')
    const seen = streamView(sj.stdout)
    console.log(`  ${name}: ${JSON.stringify(seen)}`)
    const answer = v.seq.filter((c: any) => c.kind === 'text').map((c: any) => c.text).join('')
    assert.equal(seen, [...v.partial, ...v.rows, `RESULT ${answer}`], name)
    assert.equal(tagged(sj.debugLog, 'probe', 'STEP').map((x) => x.index), name === 'thinking only' ? [0, 1] : [0], name)
    assert.equal(transcriptView(sj.home), v.rows.map((r) => r.replace('ROW ', 'msg_hook ')), name)
    const json = await headless(cfg, 'json')
    assert.is(json.json.result, answer, name)
    assert.not.match(json.stdout, 'R-THINK', name)
  }
  // Without --include-partial-messages: a `thinking_tokens` line for the step's thinking, and none of its text.
  const rows = await headless({ steps: [{ before: [th(1, 'R-THINK-A'), tx(0, 'R-ANSWER'), stop()] }] }, 'stream-json', 'gpt-5', false)
  assert.equal(streamView(rows.stdout), ['thinking_tokens', 'ROW text(R-ANSWER)', 'RESULT R-ANSWER'])
  assert.not.match(rows.stdout, 'R-THINK')
  // A `signature` on a thinking chunk is no field of it: taken without a word, changes nothing.
  const signed = await headless({ steps: [{ before: [{ ...th(1, 'R-THINK-A'), signature: 'sig-x' }, tx(0, 'R-ANSWER'), stop()] }] }, 'stream-json')
  assert.equal(streamView(signed.stdout).filter((l) => l.startsWith('ROW')), ['ROW text(R-ANSWER)'])
  assert.not.match(signed.stdout + transcriptView(signed.home).join(), 'sig-x')
})

test('the engine records a thinking block only from its own received response: a fake answer carrying one is a thinking row and a transcript block, signed or not, even when the hook drops its thinking chunks', async () => {
  mock = await startMockModel()
  const think = (sig: string | null) => [thinkingBlock('CAPT-THINK', sig), { type: 'text', text: 'CAPT-ANSWER' }]
  const all = ['thinking', 'text', 'tool', 'input', 'stop']
  // The whole response in the fake answer, passed on: one message, as Claude's.
  for (const sig of ['sig-keel', null]) {
    const r = await headless({ steps: [{ blocks: think(sig), keep: all }] }, 'stream-json')
    const shown = sig === null ? '""' : '"sig-keel"'
    assert.equal(streamView(r.stdout).filter((l) => !l.startsWith('start')), [
      'thinking_tokens', 'delta 0 thinking_delta CAPT-THINK', ...(sig ? ['delta 0 signature_delta sig-keel'] : []),
      `ROW thinking(CAPT-THINK,sig=${shown})`, 'delta 1 text_delta CAPT-ANSWER', 'ROW text(CAPT-ANSWER)', 'RESULT CAPT-ANSWER',
    ], String(sig))
    assert.equal(transcriptView(r.home), [`msg_keel thinking(CAPT-THINK,sig=${shown})`, 'msg_keel text(CAPT-ANSWER)'])
  }
  // The fake answer's engine chunks alone (its thinking and text chunks dropped), then the hook's own: the
  // recorded thinking is the received block, whole; the hook's own thinking is shown and not recorded.
  const r = await headless({ steps: [{ blocks: think('sig-keel'), after: [th(0, 'OWN-THINK'), tx(1, 'OWN-ANSWER'), stop()] }] }, 'stream-json')
  assert.equal(streamView(r.stdout).filter((l) => !l.startsWith('start')), [
    'delta 0 signature_delta sig-keel', 'ROW thinking(CAPT-THINK,sig="sig-keel")',
    'thinking_tokens', 'delta 0 thinking_delta OWN-THINK', 'delta 1 text_delta OWN-ANSWER', 'ROW text(OWN-ANSWER)', 'RESULT OWN-ANSWER',
  ])
  assert.equal(transcriptView(r.home), ['msg_keel thinking(CAPT-THINK,sig="sig-keel")', 'msg_hook text(OWN-ANSWER)'])
})

test('klyth: a provider\'s reasoning_content streams as thinking chunks at block 1 before the text at 0, shown in stream-json\'s partial events only, never in the transcript; the next request carries it back to the provider (issue 18 item 1)', async () => {
  mock = await startMockModel()
  provider = await startMockProvider([
    { match: /think and run/, reply: { reasoning: ['PROVIDER-', 'REASONING'], text: 'calling', toolCalls: [{ name: 'Bash', arguments: JSON.stringify({ command: 'echo tool-ran-77' }) }] } },
    { match: /tool-ran-77/, reply: { reasoning: ['MORE-REASONING'], text: 'PROVIDER-ANSWER' } },
  ])
  const { home, plugin } = await routedHome(mock, provider)
  const r = await routed({ prompt: 'think and run', pluginDirs: [plugin], mock, home, format: 'stream-json', extraArgs: ['--include-partial-messages', '--allowedTools', 'Bash'] })
  assert.is(r.code, 0, r.stderr.slice(-800))
  const seen = streamView(r.stdout)
  assert.equal(seen.filter((l) => l.includes('thinking')), ['start 1 thinking', 'thinking_tokens', 'delta 1 thinking_delta PROVIDER-', 'thinking_tokens', 'delta 1 thinking_delta REASONING', 'start 1 thinking', 'thinking_tokens', 'delta 1 thinking_delta MORE-REASONING'])
  assert.equal(seen.filter((l) => l.startsWith('ROW') || l.startsWith('RESULT')), ['ROW text(calling)', 'ROW tool_use', 'ROW text(PROVIDER-ANSWER)', 'RESULT PROVIDER-ANSWER'])
  assert.not.match(transcriptView(home).join(), 'REASONING')
  const second = provider.requests.filter((q) => q.path === '/v1/chat/completions')[1]!
  // Kept by the step's tool-call id (replay.ts), not from the transcript, which never had it.
  assert.equal(second.body.messages.filter((m: any) => m.role === 'assistant').map((m: any) => m.reasoning_content), ['PROVIDER-REASONING'])
})

// A routed tool loop (Bash, then an answer), then `/model claude-opus-4-5` and two native turns: where the
// recorded thinking goes in the next routed request and in Claude's.
const LOOP: Record<string, { steps: object[]; transcript: string[]; routedNext: string[][]; claudeSees: string[][]; result: string }> = {
  'the whole response in the fake answer, passed on (one message)': {
    steps: [
      { blocks: [thinkingBlock('REC-THINK-0'), { type: 'text', text: 'calling' }, { type: 'tool_use', name: 'Bash', input: { command: 'echo tool-ran-77' } }], keep: ['thinking', 'text', 'tool', 'input', 'stop'] },
      { blocks: [thinkingBlock('REC-THINK-1'), { type: 'text', text: 'DONE-ANSWER' }], keep: ['thinking', 'text', 'tool', 'input', 'stop'] },
    ],
    transcript: ['msg_keel thinking(REC-THINK-0,sig="sig-keel")', 'msg_keel text(calling)', 'msg_keel tool_use', 'msg_keel thinking(REC-THINK-1,sig="sig-keel")', 'msg_keel text(DONE-ANSWER)'],
    routedNext: [['thinking:REC-THINK-0:sig-keel', 'text', 'tool_use']],
    claudeSees: [['text:calling', 'tool_use'], ['text:DONE-ANSWER']],
    result: 'DONE-ANSWER',
  },
  'the whole response in the fake answer, its thinking unsigned': {
    steps: [
      { blocks: [thinkingBlock('REC-THINK-0', null), { type: 'text', text: 'calling' }, { type: 'tool_use', name: 'Bash', input: { command: 'echo tool-ran-77' } }], keep: ['thinking', 'text', 'tool', 'input', 'stop'] },
      { blocks: [thinkingBlock('REC-THINK-1', null), { type: 'text', text: 'DONE-ANSWER' }], keep: ['thinking', 'text', 'tool', 'input', 'stop'] },
    ],
    transcript: ['msg_keel thinking(REC-THINK-0,sig="")', 'msg_keel text(calling)', 'msg_keel tool_use', 'msg_keel thinking(REC-THINK-1,sig="")', 'msg_keel text(DONE-ANSWER)'],
    routedNext: [['thinking:REC-THINK-0:', 'text', 'tool_use']],
    // Unsigned, the routed thinking is NOT dropped at the switch: Claude's request carries it, signature "".
    claudeSees: [['thinking:REC-THINK-0:', 'text:calling', 'tool_use'], ['thinking:REC-THINK-1:', 'text:DONE-ANSWER']],
    result: 'DONE-ANSWER',
  },
  'early: the fake answer holds the thinking alone and is passed on first, then the hook streams text and the call': {
    steps: [
      { blocks: [thinkingBlock('REC-THINK-0')], before: [th(0, 'LIVE-THINK-0')], after: [tx(1, 'calling'), ...bash(2), stop('tool_use')] },
      { blocks: [thinkingBlock('REC-THINK-1')], before: [th(0, 'LIVE-THINK-1')], after: [tx(1, 'DONE-ANSWER'), stop()] },
    ],
    transcript: ['msg_keel thinking(REC-THINK-0,sig="sig-keel")', 'msg_hook text(calling)', 'msg_hook tool_use', 'msg_keel thinking(REC-THINK-1,sig="sig-keel")', 'msg_hook text(DONE-ANSWER)'],
    routedNext: [['text', 'tool_use']],
    claudeSees: [['text:(no content)'], ['text:calling', 'tool_use'], ['text:(no content)'], ['text:DONE-ANSWER']],
    result: 'DONE-ANSWER',
  },
  'late: the hook streams first, then passes on a fake answer holding the thinking alone': {
    steps: [
      { before: [th(0, 'LIVE-THINK-0'), tx(1, 'calling'), ...bash(2), stop('tool_use')], blocks: [thinkingBlock('REC-THINK-0')] },
      { before: [th(0, 'LIVE-THINK-1'), tx(1, 'DONE-ANSWER'), stop()], blocks: [thinkingBlock('REC-THINK-1')] },
    ],
    transcript: ['msg_hook text(calling)', 'msg_hook tool_use', 'msg_keel thinking(REC-THINK-0,sig="sig-keel")', 'msg_hook text(DONE-ANSWER)', 'msg_keel thinking(REC-THINK-1,sig="sig-keel")'],
    routedNext: [['text', 'tool_use']],
    claudeSees: [['text:calling', 'tool_use'], ['text:(no content)'], ['text:DONE-ANSWER'], ['text:(no content)']],
    result: '',
  },
}
for (const [name, c] of Object.entries(LOOP)) {
  test(`tool loop, ${name}: the transcript, the next routed request, what Claude gets after /model`, async () => {
    mock = await startMockModel(byKind({ main: { thinking: ['NATIVE-THINK'], text: 'CLAUDE-AFTER-SWITCH' } }))
    live = await startLive({ mode: 'stream-json', pluginDirs: [probe({ steps: c.steps })], mock, extraArgs: ['--model', 'gpt-5', '--include-partial-messages', '--allowedTools', 'Bash'] })
    await sendEach(live, ['run it', '/model claude-opus-4-5', 'again', 'and again'], 40_000)
    const out = streamView(live.output())
    assert.is(out.filter((l) => l.startsWith('RESULT'))[0], `RESULT ${c.result}`)
    assert.equal(transcriptView(live.home).filter((l) => !l.startsWith('msg_mock')), c.transcript)
    const reqs = tagged(live.debugLog(), 'probe', 'REQ')
    assert.equal(reqs.map((q) => q.assistant), [[], c.routedNext])
    // Claude's first request after the switch (a signed routed thinking is gone), then the next (its own thinking kept).
    const claude = mock.messages('main')
    assert.is(claude.length, 2)
    assert.equal(assistantBlocks(claude[0]!.body), c.claudeSees)
    assert.equal(assistantBlocks(claude[1]!.body), [...c.claudeSees, ['thinking:NATIVE-THINK:sig-mock', 'text:CLAUDE-AFTER-SWITCH']])
    console.log(`  ${name}: routed next ${JSON.stringify(c.routedNext)}, Claude ${JSON.stringify(c.claudeSees)}`)
  })
}

test('--resume: a recorded thinking block goes back to the alias in the resumed session\'s first request', async () => {
  mock = await startMockModel()
  const plugin = probe({ steps: LOOP['the whole response in the fake answer, passed on (one message)']!.steps })
  const first = await runClaude({ prompt: 'run it', pluginDirs: [plugin], mock, extraArgs: ['--model', 'gpt-5', '--allowedTools', 'Bash'] })
  assert.is(first.code, 0, first.stderr.slice(-800))
  const again = await runClaude({ prompt: 'again', pluginDirs: [plugin], mock, home: first.home, cwd: first.cwd, resume: first.sessionId, extraArgs: ['--model', 'gpt-5', '--allowedTools', 'Bash'] })
  assert.is(again.code, 0, again.stderr.slice(-800))
  assert.equal(tagged(again.debugLog, 'probe', 'REQ')[0].assistant, [['thinking:REC-THINK-0:sig-keel', 'text', 'tool_use'], ['thinking:REC-THINK-1:sig-keel', 'text']])
  assert.is(mock.requests.length, 0)
})

// ---- The terminal UI ----
/** Types `hello`, waits for the answer and the turn's end line (`screen`: all drawn since the prompt), then Ctrl+O until the transcript view is drawn. */
async function tuiRun(cfg: object, model: string, reply: Reply = {}): Promise<{ screen: string; transcriptView: string }> {
  mock = await startMockModel(byKind({ main: reply }))
  live = await startLive({ mode: 'tui', pluginDirs: [probe(cfg)], mock, extraArgs: ['--model', model] })
  const start = live.output().length
  await live.send('hello')
  await live.waitFor('the answer and the turn\'s end', () => /ANSWER.*done/.test(screenText(live!.output().slice(start))), 40_000)
  const screen = screenText(live.output().slice(start))
  const mark = live.output().length
  live.write('\x0f')
  await live.waitFor('the transcript view', () => screenText(live!.output().slice(mark)).includes('Showing detailed'), 20_000)
  const view = screenText(live.output().slice(mark))
  await live.stop()
  live = undefined
  await mock.close()
  mock = undefined
  return { screen, transcriptView: view }
}

test('terminal UI: Claude\'s thinking shows "Thinking for Ns" live, then a collapsed "Thought for Ns" line; Ctrl+O shows "∴ <thinking>"', async () => {
  if (!hasPty()) return console.log('skipped: no `script` for a pty')
  const r = await tuiRun({ steps: [{}] }, 'claude-opus-4-5', CLAUDE)
  assert.match(r.screen, /Thought for \d+s/)
  assert.not.match(r.screen, 'CLAUDE-THINKING')
  assert.match(r.transcriptView, '∴ CLAUDE-THINKING-ONE CLAUDE-THINKING-TWO')
})

test('terminal UI: a routed step\'s own thinking chunks show only as the spinner\'s "thinking"; no Thought line, nothing in Ctrl+O\'s view', async () => {
  if (!hasPty()) return console.log('skipped: no `script` for a pty')
  for (const seq of [[th(1, 'R-THINK-ONE '), th(1, 'R-THINK-TWO '), th(1, 'R-THINK-THREE'), tx(0, 'R-ANSWER')], [th(0, 'R-THINK-ONE '), th(0, 'R-THINK-TWO '), th(0, 'R-THINK-THREE'), tx(1, 'R-ANSWER')]]) {
    // 1 s between chunks: the reasoning lasts long enough for the UI to draw what it draws of it.
    const r = await tuiRun({ gapMs: 1000, steps: [{ before: [...seq, stop()] }] }, 'gpt-5')
    assert.match(r.screen, /\(\d+s · thinking ?\)/, r.screen.slice(-1500))
    assert.not.match(r.screen, 'Thought for')
    assert.not.match(r.screen + r.transcriptView, 'R-THINK')
    assert.match(r.transcriptView, 'R-ANSWER')
  }
})

test('terminal UI: a thinking block in the fake answer shows as Claude\'s does ("Thought for Ns", Ctrl+O "∴ …"), passed on whole or first before the hook\'s own text', async () => {
  if (!hasPty()) return console.log('skipped: no `script` for a pty')
  const whole = await tuiRun({ steps: [{ blocks: [thinkingBlock('CAPT-THINK'), { type: 'text', text: 'CAPT-ANSWER' }], keep: ['thinking', 'text', 'stop'] }] }, 'gpt-5')
  const early = await tuiRun({ gapMs: 500, steps: [{ blocks: [thinkingBlock('CAPT-THINK')], before: [th(0, 'LIVE-THINK')], after: [tx(1, 'OWN-ANSWER'), stop()] }] }, 'gpt-5')
  for (const r of [whole, early]) {
    assert.match(r.screen, /Thought for \d+s/)
    assert.match(r.transcriptView, '∴ CAPT-THINK')
    assert.not.match(r.transcriptView, 'LIVE-THINK')
  }
})

test.run()
