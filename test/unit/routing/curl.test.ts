// curl as the transport: the config (escaping and pieces, checked by a reference reader of curl's
// own quoting rules), the version, the `-i` output reader, the retry plan and the exit reasons.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import {
  createCurlReader, curlConfig, curlReason, escapeConfigValue, jsonPieces, parseCurlVersion, retryAfterMs, retryPlan, type Attempt, type CurlOutput,
} from '../../../src/features/routing/curl.ts'

/**
 * curl 7.88's config reader (tool_parsecfg.c) for the lines keel writes: `option = "value"`, the
 * value unquoted by `unslashquote` (a backslash takes the next character as it is, except t, n, r, v).
 * Lines end at LF only; a quoted value ends at the first unescaped quote.
 */
function readCurlConfig(text: string): [string, string][] {
  const options: [string, string][] = []
  for (const line of text.split('\n')) {
    if (!line.trim()) continue
    const match = /^(\S+) = "/.exec(line)
    assert.ok(match, `unexpected config line ${line.slice(0, 40)}`)
    let value = ''
    let i = match[0].length
    for (; i < line.length && line[i] !== '"'; i++) {
      if (line[i] !== '\\') {
        value += line[i]
        continue
      }
      const next = line[++i]!
      value += ({ t: '\t', n: '\n', r: '\r', v: '\v' } as Record<string, string>)[next] ?? next
    }
    assert.is(line.slice(i), '"', 'nothing after the closing quote')
    options.push([match[1]!, value])
  }
  return options
}

const bytes = (text: string) => new TextEncoder().encode(text).length

test('escapeConfigValue: backslash, quote and the four controls curl knows; everything else as it is', () => {
  assert.is(escapeConfigValue('a\\b"c\td\ne\rf\vg'), 'a\\\\b\\"c\\td\\ne\\rf\\vg')
  assert.is(escapeConfigValue('é 🚀 \u0001 \u001b #x'), 'é 🚀 \u0001 \u001b #x')
  assert.throws(() => escapeConfigValue('a\0b'), /NUL/)
})

test('curlConfig, json mode: url, headers, Expect:, then json pieces that read back to the body', () => {
  const body = JSON.stringify({ text: 'quote " backslash \\ tab \t newline \n cr \r é 🚀 @home' })
  const config = curlConfig({ url: 'https://api.example.com/v1/chat/completions', headers: { Authorization: 'Bearer sk-1', 'Content-Type': 'application/json', Accept: 'text/event-stream' }, body }, { kind: 'json' })
  const options = readCurlConfig(config)
  assert.equal(options.slice(0, 5), [
    ['url', 'https://api.example.com/v1/chat/completions'],
    ['header', 'Authorization: Bearer sk-1'],
    ['header', 'Content-Type: application/json'],
    ['header', 'Accept: text/event-stream'],
    ['header', 'Expect:'],
  ])
  assert.is(options.slice(5).filter(([o]) => o === 'json').map(([, v]) => v).join(''), body)
  assert.ok(config.endsWith('"\n'))
})

test('curlConfig, file mode for curl < 7.82: data-binary names the file', () => {
  const options = readCurlConfig(curlConfig({ url: 'http://127.0.0.1:1/v1', headers: {}, body: '{"a":1}' }, { kind: 'file', path: '/data/req "main".json' }))
  assert.equal(options, [['url', 'http://127.0.0.1:1/v1'], ['header', 'Expect:'], ['data-binary', '@/data/req "main".json']])
})

test('jsonPieces: each piece within the byte limit, split between code points, never inside an escape, never starting with @', () => {
  // Every kind of unit: one-byte, escapes (two bytes), two-, three- and four-byte UTF-8, and @ runs.
  const units = ['a', '"', '\\', '\n', '\t', 'é', '€', '🚀', '@', '@@', '\u{10FFFF}']
  let seed = 7
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
  let body = '{"x":"'
  while (body.length < 20_000) body += units[Math.floor(random() * units.length)]
  body += '"}'
  for (const max of [1, 2, 3, 4, 5, 7, 16, 100, 4096]) {
    const pieces = jsonPieces(body, max)
    const unescaped = readCurlConfig(pieces.map((p) => `json = "${p}"\n`).join('')).map(([, v]) => v)
    assert.is(unescaped.join(''), body, `max ${max}: the pieces read back to the body`)
    for (const [i, piece] of pieces.entries()) {
      assert.not.ok(piece.startsWith('@'), `max ${max}: piece ${i} starts with @`)
      assert.not.ok(/[\uD800-\uDBFF]$/.test(piece) || /^[\uDC00-\uDFFF]/.test(piece), `max ${max}: piece ${i} splits a surrogate pair`)
      assert.not.ok(/(^|[^\\])(\\\\)*\\$/.test(piece), `max ${max}: piece ${i} ends inside an escape`)
      const atRun = /@+$/.exec(unescaped[i]!)?.[0].length ?? 0
      assert.ok(bytes(piece) <= Math.max(max, 4) + atRun, `max ${max}: piece ${i} is ${bytes(piece)} bytes`)
    }
  }
})

test('jsonPieces: the 64 KiB default, exact fits, and the bodies curl cannot take', () => {
  const body = JSON.stringify('x'.repeat(200_000))
  const pieces = jsonPieces(body)
  assert.equal(pieces.map(bytes), [65536, 65536, 65536, 3396], 'the two quotes are escaped: 200 004 bytes')
  assert.equal(jsonPieces('abcdef', 3), ['abc', 'def'])
  assert.equal(jsonPieces('🚀🚀é€', 4), ['🚀', '🚀', 'é', '€'], 'UTF-8 bytes, not UTF-16 units: an emoji is four')
  assert.equal(jsonPieces('ab"c', 3), ['ab', '\\"c'], 'an escape is not split: it moves whole to the next piece')
  assert.equal(jsonPieces('a@@b', 2), ['a@@', 'b'], 'an @ run stays with the character before it')
  assert.equal(jsonPieces('', 3), [])
  assert.throws(() => jsonPieces('@/etc/passwd'), /cannot begin with @/)
  assert.throws(() => jsonPieces('{"a":"\0"}'), /NUL/)
})

test('parseCurlVersion: the version and whether json pieces work (7.82 on)', () => {
  const cases: [string, unknown][] = [
    ['curl 7.88.1 (x86_64-pc-linux-gnu) libcurl/7.88.1 OpenSSL/3.0.19\nRelease-Date: 2023-02-20', { major: 7, minor: 88, patch: 1, json: true }],
    ['curl 7.81.0 (x86_64-pc-linux-gnu) libcurl/7.81.0', { major: 7, minor: 81, patch: 0, json: false }],
    ['curl 7.82.0 (x86_64-apple-darwin)', { major: 7, minor: 82, patch: 0, json: true }],
    ['curl 7.76.1 (x86_64-redhat-linux-gnu)', { major: 7, minor: 76, patch: 1, json: false }],
    ['curl 8.10.1-DEV (x86_64-pc-linux-gnu)', { major: 8, minor: 10, patch: 1, json: true }],
    ['curl 6.99', { major: 6, minor: 99, patch: 0, json: false }],
    ['WARNING: something\ncurl 8.5.0 (aarch64)', { major: 8, minor: 5, patch: 0, json: true }],
    ['wget 1.21', undefined],
    ['', undefined],
  ]
  for (const [text, want] of cases) assert.equal(parseCurlVersion(text), want, text)
})

/** Every two-piece cut of the output, and one character at a time, read the same. */
function readAll(pieces: readonly string[]): { head?: unknown; body: string } {
  const reader = createCurlReader()
  const outputs: CurlOutput[] = pieces.flatMap((p) => reader.push(p))
  const heads = outputs.filter((o) => o.kind === 'head')
  assert.ok(heads.length <= 1, 'one head at most')
  assert.ok(outputs.findIndex((o) => o.kind === 'body') === -1 || outputs[0]?.kind === 'head', 'the head comes first')
  return { head: heads[0]?.kind === 'head' ? heads[0].head : undefined, body: outputs.map((o) => (o.kind === 'body' ? o.text : '')).join('') }
}
function assertEveryCut(text: string, want: { head?: unknown; body: string }) {
  for (let k = 0; k <= text.length; k++) assert.equal(readAll([text.slice(0, k), text.slice(k)]), want, `cut at ${k}`)
  assert.equal(readAll(text.split('')), want, 'one character at a time')
}

test('the -i reader: 100 Continue skipped, status and lower-cased headers, then the body as it comes', () => {
  const out = 'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\nRetry-After: 3\r\nSet-Cookie: a=1\r\nset-cookie: b=2\r\nX-Odd:no-space\r\n\r\n{"error":{"message":"slow down"}}\n'
  assertEveryCut(out, {
    head: { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '3', 'set-cookie': 'a=1, b=2', 'x-odd': 'no-space' } },
    body: '{"error":{"message":"slow down"}}\n',
  })
  assertEveryCut('HTTP/2 200 \r\ncontent-type: text/event-stream\r\n\r\ndata: {"a":1}\r\n\r\ndata: [DONE]\r\n\r\n', {
    head: { status: 200, headers: { 'content-type': 'text/event-stream' } },
    body: 'data: {"a":1}\r\n\r\ndata: [DONE]\r\n\r\n',
  })
})

test('the -i reader: 103 hints, a proxy tunnel, LF-only lines, a body arriving later, no head yet, no HTTP status line', () => {
  assertEveryCut('HTTP/1.1 200 Connection established\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 500 Internal Server Error\r\n\r\noops', {
    head: { status: 500, headers: {} },
    body: 'oops',
  })
  assertEveryCut('HTTP/1.0 200 OK\nServer: tiny\n\nbody\n\nmore', { head: { status: 200, headers: { server: 'tiny' } }, body: 'body\n\nmore' })
  const reader = createCurlReader()
  assert.equal(reader.push('HTTP/1.1 200 OK\r\nA: b'), [])
  assert.equal(reader.push('\r\n\r\n'), [{ kind: 'head', head: { status: 200, headers: { a: 'b' } } }])
  assert.equal([reader.push(''), reader.push('data: x\n\n')], [[], [{ kind: 'body', text: 'data: x\n\n' }]])
  assert.equal(readAll(['garbage\r\n\r\nrest']), { head: { status: 0, headers: {} }, body: 'rest' })
})

test('retryAfterMs: seconds or an HTTP date', () => {
  const now = Date.parse('Wed, 01 Jan 2026 00:00:00 GMT')
  assert.equal(
    [retryAfterMs('3', now), retryAfterMs(' 0 ', now), retryAfterMs('Wed, 01 Jan 2026 00:00:02 GMT', now), retryAfterMs('Tue, 31 Dec 2025 23:59:00 GMT', now), retryAfterMs('soon', now), retryAfterMs('-1', now), retryAfterMs(undefined, now)],
    [3000, 0, 2000, 0, undefined, undefined, undefined],
  )
})

test('retryPlan: 429, 5xx, curl 7 and 52, before any output, twice at most, only while the budget allows the sleep', () => {
  const a = (over: Partial<Attempt>): Attempt => ({ retries: 0, outputSent: false, remainingMs: 9000, ...over })
  assert.equal(retryPlan(a({ status: 500 })), { delayMs: 500 })
  assert.equal(retryPlan(a({ status: 503, retries: 1 })), { delayMs: 1000 }, 'doubling')
  assert.equal(retryPlan(a({ status: 429, retryAfterMs: 2000 })), { delayMs: 2000 })
  assert.equal(retryPlan(a({ status: 429, retryAfterMs: 60_000 })), { delayMs: 4000 }, 'retry-after capped')
  assert.equal(retryPlan(a({ status: 529 })), { delayMs: 500 })
  assert.equal(retryPlan(a({ curlExit: 7 })), { delayMs: 500 })
  assert.equal(retryPlan(a({ curlExit: 52 })), { delayMs: 500 })
  for (const stop of [a({ status: 500, retries: 2 }), a({ status: 500, outputSent: true }), a({ status: 400 }), a({ status: 401 }), a({ status: 404 }), a({ status: 600 }),
    a({ curlExit: 6 }), a({ curlExit: 28 }), a({ curlExit: 56 }), a({}), a({ status: 500, remainingMs: 1400 }), a({ status: 429, retryAfterMs: 3000, remainingMs: 3999 })]) {
    assert.is(retryPlan(stop), 'stop', JSON.stringify(stop))
  }
  assert.equal(retryPlan(a({ status: 500, remainingMs: 1500 })), { delayMs: 500 }, 'exactly enough budget')
})

test('curlReason: the exit codes a routed request meets, in words', () => {
  assert.equal([6, 7, 18, 28, 35, 52, 56, 60].map(curlReason), [
    "the provider's host name did not resolve",
    'the provider could not be reached',
    'the connection closed before the answer was complete',
    'the request timed out',
    'the TLS handshake with the provider failed',
    'the provider closed the connection without answering',
    'the connection broke while the answer was arriving',
    "the provider's TLS certificate is not trusted",
  ])
  assert.is(curlReason(77), "curl's error 77")
})

test.run()
