// Recall (issue 22) on Node, over a transcript in memory read by byte ranges as the engine reads them
// (a cut character reads as U+FFFD at the range's edge): ranking, phrases and whole words, the bounds,
// damaged and excluded rows, the named images and oversized results, ranges that cut rows and characters.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { RECALL_BUDGET_BYTES, RECALL_LIMIT_MAX, RECALL_QUERY_MAX } from '../../../src/features/checkpoint/constants.ts'
import { parseQuery, recall } from '../../../src/features/checkpoint/recall.ts'
import { RECALL_HEAD, RECALL_ONLY_STOP_WORDS, RECALL_TOO_LONG, WHO_MODEL, WHO_PERSON, WHO_TOOL } from '../../../src/features/checkpoint/strings.ts'

const TOOL = 'mcp__superheroes__recall'
const utf8Bytes = (text: string) => new TextEncoder().encode(text).length
const SID = '0b5c9e1a-session'
const PATH = `/home/u/.claude/projects/-w/${SID}.jsonl`

let clock = 0
const stamp = () => new Date(Date.UTC(2026, 0, 1, 9, 0, clock++)).toISOString()
const base = () => ({ parentUuid: null, isSidechain: false, sessionId: SID, timestamp: stamp() })
const person = (content: unknown, extra: object = {}) => JSON.stringify({ ...base(), type: 'user', message: { role: 'user', content }, ...extra })
const model = (content: unknown) => JSON.stringify({ ...base(), type: 'assistant', message: { role: 'assistant', content: typeof content === 'string' ? [{ type: 'text', text: content }] : content } })
const result = (content: unknown) => person([{ tool_use_id: 'toolu_1', type: 'tool_result', content }], { toolUseResult: { stdout: 'the full record' } })
/** An engine row that is not a message, with the words in it. */
const other = (text: string) => JSON.stringify({ type: 'api-request-blob', sessionId: SID, message: { role: 'user', content: [{ type: 'text', text }] } })

/** The edges over the lines as one file; `reads` counts the ranges asked for. */
function transcript(lines: string[], { ended = true } = {}) {
  const bytes = new TextEncoder().encode(lines.join('\n') + (ended ? '\n' : ''))
  const seen = { reads: 0 }
  return {
    seen,
    edges: {
      transcript: async () => ({ path: PATH, size: bytes.length }),
      readRange: async (path: string, offset: number, length: number) => {
        assert.is(path, PATH)
        seen.reads++
        return new TextDecoder().decode(bytes.subarray(offset, offset + length))
      },
    },
  }
}

/** The answer's excerpts: `{ head, text }` each, in the order given. */
function excerpts(answer: string) {
  return answer.split('\n\n--- ').slice(1).map((part) => {
    const [head, ...rest] = part.split('\n')
    return { head: head!, text: rest.join('\n') }
  })
}
const texts = (answer: string) => excerpts(answer).map((e) => e.text)

test('ranking: more of the query\'s words first, then the rarer word; the newest among equals', async () => {
  const lines = [
    person('old: the zebra rule says names are nouns'),
    model('rule one'),
    model('rule two'),
    person('a zebra crossed'),
    model('rule three'),
  ]
  const answer = await recall(transcript(lines).edges, 'zebra rule', undefined, TOOL)
  assert.ok(answer.startsWith(`${RECALL_HEAD} the best 5 of 5 matching rows; damaged rows skipped: 0.`), answer)
  assert.equal(texts(answer), ['old: the zebra rule says names are nouns', 'a zebra crossed', 'rule three', 'rule two', 'rule one'])
})

test('ties go to the most recent row', async () => {
  const lines = [person('the parser first'), person('the parser second'), person('the parser third')]
  assert.equal(texts(await recall(transcript(lines).edges, 'parser', 2, TOOL)), ['the parser third', 'the parser second'])
})

test('words match whole words in any case; a phrase matches its words in order, any spacing between', async () => {
  const lines = [
    person('the rules are long'),
    person('The lexer\n  FAILS on CRLF'),
    person('CRLF: the lexer never fails'),
  ]
  const t = transcript(lines).edges
  assert.equal(texts(await recall(t, 'rule', undefined, TOOL)), [], 'rule is not rules')
  assert.equal(texts(await recall(t, '"lexer fails"', undefined, TOOL)), ['The lexer\n  FAILS on CRLF'])
  assert.equal(texts(await recall(t, 'LEXER fails', undefined, TOOL)), ['CRLF: the lexer never fails', 'The lexer\n  FAILS on CRLF'])
})

test('the query: stop words dropped, a query of nothing else or over the limit refused with why', async () => {
  const t = transcript([person('the of and')]).edges
  assert.is(await recall(t, 'the of AND is', undefined, TOOL), RECALL_ONLY_STOP_WORDS)
  assert.is(await recall(t, '   ', undefined, TOOL), RECALL_ONLY_STOP_WORDS)
  assert.is(await recall(t, 'x'.repeat(RECALL_QUERY_MAX + 1), undefined, TOOL), RECALL_TOO_LONG)
  assert.ok((await recall(t, 'x'.repeat(RECALL_QUERY_MAX), undefined, TOOL)).startsWith(RECALL_HEAD))
  // A phrase of common words is what the person asked for: kept.
  assert.equal(texts(await recall(t, '"of and"', undefined, TOOL)), ['the of and'])
  const terms = parseQuery('the "Exact phrase" parser parser PARSER')
  assert.ok(Array.isArray(terms) && terms.length === 2, 'one term each, the stop word gone')
})

test('bounds: 6 excerpts unless asked, at most 20, 8 KiB of text in all, a long row cut around its hit', async () => {
  const many = Array.from({ length: 30 }, (_, i) => person(`token ${i} ${'pad '.repeat(600)}`))
  const t = transcript(many).edges
  const six = await recall(t, 'token', undefined, TOOL)
  assert.is(excerpts(six).length, 6)
  assert.ok(six.startsWith(`${RECALL_HEAD} the best 6 of 30 matching rows`), six.split('\n')[0])
  assert.is(excerpts(await recall(t, 'token', 2, TOOL)).length, 2)
  assert.is(excerpts(await recall(t, 'token', 0, TOOL)).length, 6, 'a limit below 1 is the default')
  const most = await recall(t, 'token', 100, TOOL)
  assert.is(excerpts(most).length, RECALL_LIMIT_MAX)
  for (const answer of [six, most]) {
    const total = texts(answer).reduce((n, x) => n + utf8Bytes(x), 0)
    assert.ok(total <= RECALL_BUDGET_BYTES, `${total} bytes of excerpts`)
  }
  const long = `${'before '.repeat(3000)}the needle is here${' after'.repeat(3000)}`
  const [cut] = texts(await recall(transcript([person(long)]).edges, 'needle', undefined, TOOL))
  assert.ok(cut!.includes('the needle is here') && cut!.startsWith('…') && cut!.endsWith('…'), cut!.slice(0, 80))
  assert.ok(utf8Bytes(cut!) <= RECALL_BUDGET_BYTES)
})

test('a damaged row is skipped and counted; the rest is found; an unended last line is a row being written', async () => {
  const lines = [person('the zebra one'), '{"parentUuid":null,"type":"user","message":{"role":"user","content":"zebra torn', person('the zebra two'), person('zebra being written')]
  const answer = await recall(transcript(lines, { ended: false }).edges, 'zebra', undefined, TOOL)
  assert.ok(answer.startsWith(`${RECALL_HEAD} the best 2 of 2 matching rows; damaged rows skipped: 1.`), answer.split('\n')[0])
  assert.equal(texts(answer), ['the zebra two', 'the zebra one'])
})

test('who and when; the engine\'s other rows, summaries, meta rows, command echoes and recall\'s own are left out', async () => {
  const lines = [
    person('zebra from the person'),
    model([{ type: 'thinking', thinking: 'zebra thought' }, { type: 'text', text: 'zebra from the model' }, { type: 'tool_use', id: 't', name: TOOL, input: { query: 'zebra' } }]),
    model([{ type: 'tool_use', id: 't2', name: 'Bash', input: { command: 'grep zebra src' } }]),
    result('zebra in a result'),
    result([{ type: 'text', text: `${RECALL_HEAD} the best 1 of 1 matching rows; damaged rows skipped: 0.\n\n--- zebra` }]),
    person('zebra summary', { isCompactSummary: true }),
    person('zebra caveat', { isMeta: true }),
    person('<command-name>/superheroes</command-name>\n<command-args>recall zebra</command-args>'),
    person('<local-command-stdout>zebra</local-command-stdout>'),
    other('zebra in a request record'),
    JSON.stringify({ type: 'attachment', sessionId: SID, attachment: { text: 'zebra "type":"user"' } }),
  ]
  const answer = await recall(transcript(lines).edges, 'zebra', 20, TOOL)
  const found = excerpts(answer)
  assert.equal(found.map((e) => e.text), ['zebra in a result', 'Bash {"command":"grep zebra src"}', 'zebra from the model', 'zebra from the person'])
  assert.equal(found.map((e) => e.head.replace(/^\S+, /, '')), [`${WHO_TOOL}:`, `${WHO_MODEL}:`, `${WHO_MODEL}:`, `${WHO_PERSON}:`])
  assert.match(found[3]!.head, /^2026-01-01T09:00:\d\d\.000Z, /)
})

test('an image and a result over the engine\'s size cap are named, not inlined', async () => {
  const persisted = '<persisted-output>\nOutput too large (293KB). Full output saved to: /h/tool-results/b1.txt\n\nPreview (first 2KB):\nzebra zebra preview'
  const lines = [
    result([{ type: 'image', source: { type: 'base64', data: 'iVBORw0KGgo', media_type: 'image/png' } }, { type: 'text', text: 'the zebra screenshot' }]),
    result(persisted),
  ]
  const t = transcript(lines).edges
  assert.equal(texts(await recall(t, 'zebra', undefined, TOOL)), ['[an image (image/png), not shown]\nthe zebra screenshot'])
  const [named] = texts(await recall(t, '"output too large"', undefined, TOOL))
  assert.is(named, '<persisted-output>\nOutput too large (293KB). Full output saved to: /h/tool-results/b1.txt\n')
})

test('ranges that cut rows and characters: every row read whole and verbatim', async () => {
  const words = '한국어 규칙 🦓 zebra — naïve 名前'
  const lines = Array.from({ length: 12 }, (_, i) => person(`${i} ${words} ${'ü'.repeat(i * 7)}`))
  const { edges, seen } = transcript(lines)
  const size = (await edges.transcript()).size
  for (const chunk of [61, 64, 97, 128, 4096]) {
    seen.reads = 0
    const answer = await recall(edges, '규칙', 20, TOOL, chunk)
    const got = texts(answer).map((x) => Number(x.split(' ')[0]))
    assert.equal(got, [11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0], `chunk ${chunk}`)
    for (const x of texts(answer)) assert.ok(!x.includes('\uFFFD') && x.includes(words), `chunk ${chunk}: ${x}`)
    assert.ok(seen.reads >= Math.ceil(size / chunk), 'read in ranges')
  }
  // A row longer than a range is carried whole across ranges.
  const long = person(`zebra ${'é'.repeat(500)} tail`)
  const [whole] = texts(await recall(transcript([long]).edges, 'tail', undefined, TOOL, 50))
  assert.is(whole, `zebra ${'é'.repeat(500)} tail`)
})

test('no transcript on this machine: nothing found', async () => {
  const edges = { transcript: async () => ({ path: '', size: 0 }), readRange: async () => assert.unreachable('no read') as never }
  assert.is(await recall(edges, 'zebra', undefined, TOOL), `${RECALL_HEAD} the best 0 of 0 matching rows; damaged rows skipped: 0.`)
})

test.run()
