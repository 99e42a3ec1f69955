// The SSE parser: the event-stream rules, and the same events however the text is cut.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createSseParser, type SseEvent } from '../../../src/features/routing/sse.ts'
import { fixture } from './fixtures/read.ts'

function parse(pieces: readonly string[]): SseEvent[] {
  const parser = createSseParser()
  return [...pieces.flatMap((p) => parser.push(p)), ...parser.end()]
}

/** Every cut at position k (first k characters, then the rest), and one character at a time, give `want`. */
function assertEverySplit(text: string, want: readonly SseEvent[], name: string) {
  for (let k = 0; k <= text.length; k++) assert.equal(parse([text.slice(0, k), text.slice(k)]), want, `${name}: cut at ${k}`)
  assert.equal(parse(text.split('')), want, `${name}: one character at a time`)
}

test('fields: data, event, comments, the optional space, a field without a colon; id and retry ignored', () => {
  const text = ': comment\nevent: add\ndata: one\ndata:two\ndata:  three\nid: 7\nretry: 10\n\ndata\n\nevent: only-event\n\n'
  assert.equal(parse([text]), [{ event: 'add', data: 'one\ntwo\n three' }, { data: '' }])
})

test('line ends: LF, CRLF, CR and mixed give the same events; a leading BOM is skipped', () => {
  const want = [{ event: 'e', data: 'a\nb' }, { data: 'c' }]
  for (const eol of ['\n', '\r\n', '\r']) assert.equal(parse([`event: e${eol}data: a${eol}data: b${eol}${eol}data: c${eol}${eol}`]), want, JSON.stringify(eol))
  assert.equal(parse(['\uFEFFevent: e\r\ndata: a\ndata: b\r\rdata: c\r\n\n']), want)
  assert.equal(parse(['', '\uFEFFdata: x\n\n']), [{ data: 'x' }], 'the BOM is looked for in the first piece that has text')
  assert.equal(parse(['data: x\n\n', '\uFEFFdata: y\n\n']), [{ data: 'x' }], 'a BOM later is no BOM: its line names no known field')
})

test('end(): a last event without its blank line, and a last line without its line end, still count', () => {
  assert.equal(parse(['data: a\n\ndata: b']), [{ data: 'a' }, { data: 'b' }])
  assert.equal(parse(['data: a\n\ndata: b\n']), [{ data: 'a' }, { data: 'b' }])
  assert.equal(parse(['data: a\n\n: only a comment']), [{ data: 'a' }])
  const parser = createSseParser()
  assert.equal(parser.push('data: x\n\ndata: y\n'), [{ data: 'x' }], 'push returns only what that piece completed')
  assert.equal(parser.push('\n'), [{ data: 'y' }])
  assert.equal(parser.end(), [])
})

test('a CR at a piece end and its LF in the next piece are one line end, not two', () => {
  assert.equal(parse(['data: a\r', '\ndata: b\r', '\n\r', '\n']), [{ data: 'a\nb' }])
  assert.equal(parse(['data: a\r', '', '\n\r\n']), [{ data: 'a' }])
  assert.equal(parse(['data: a\r\r', '\n']), [{ data: 'a' }], 'CR then CRLF: two line ends, so a blank line')
})

test('a long line in many pieces is joined once', () => {
  const long = 'x'.repeat(200_000)
  const pieces = ['data: ', ...long.match(/.{1,7}/g)!, '\n\n']
  assert.equal(parse(pieces), [{ data: long }])
})

test('every fixture: the same events at every cut and one character at a time', () => {
  for (const name of ['openai-text.txt', 'openai-tools.txt', 'anthropic-tools.txt', 'openai-error.txt']) {
    const text = fixture(name)
    assertEverySplit(text, parse([text]), name)
  }
  const tools = parse([fixture('openai-tools.txt')])
  assert.is(tools.length, 10, 'CRLF fixture: every data event, no comment')
  assert.is(tools.at(-1)?.data, '[DONE]')
  const anthropic = parse([fixture('anthropic-tools.txt')])
  assert.equal(anthropic.map((e) => e.event), ['message_start', 'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'ping',
    'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'content_block_start', 'content_block_delta', 'content_block_delta',
    'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'], 'CR-only fixture')
})

test.run()
