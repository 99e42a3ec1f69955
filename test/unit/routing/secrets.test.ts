// Trust, keys and secrets (§3.5): the fingerprint and its store key, where a key comes from and
// how it rides, the redactor, and the minted tool ids.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { authHeader, keyFromOutput, keySource, requestHeaders } from '../../../src/features/routing/auth.ts'
import type { Provider } from '../../../src/features/routing/config.ts'
import { createToolIds, toolUseId } from '../../../src/features/routing/ids.ts'
import { redactorFor, secretsOf } from '../../../src/features/routing/redact.ts'
import { providerFingerprint, stableJson, trustKey } from '../../../src/features/routing/trust.ts'

const PROVIDER: Provider = { id: 'example', api: 'openai-chat', baseUrl: 'https://api.example.com/v1', auth: { env: 'EXAMPLE_KEY' }, headers: { 'X-Title': 'keel' } }

test('stableJson sorts keys at every depth and keeps arrays in order', () => {
  assert.is(stableJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: null } }), '{"a":{"c":null,"d":[3,{"y":2,"z":1}]},"b":1}')
  assert.is(stableJson({ a: undefined, b: [undefined, 'x'] }), '{"b":[null,"x"]}', 'undefined fields drop and undefined items read null, as JSON.stringify does')
  assert.is(stableJson('é"'), '"é\\""')
})

test('the fingerprint: sha256 hex of the stable JSON, the same for reordered keys, changed by every field that decides where and how', async () => {
  const fp = await providerFingerprint(PROVIDER)
  assert.match(fp, /^[0-9a-f]{64}$/)
  const expected = Array.from(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(
      '{"api":"openai-chat","auth":{"env":"EXAMPLE_KEY"},"baseUrl":"https://api.example.com/v1","headers":{"X-Title":"keel"},"id":"example"}',
    ))),
    (b) => b.toString(16).padStart(2, '0'),
  ).join('')
  assert.is(fp, expected)
  const reordered: Provider = { headers: { 'X-Title': 'keel' }, auth: { env: 'EXAMPLE_KEY' }, baseUrl: PROVIDER.baseUrl, api: 'openai-chat', id: 'example' }
  assert.is(await providerFingerprint(reordered), fp)
  const edits: Provider[] = [
    { ...PROVIDER, id: 'other' },
    { ...PROVIDER, api: 'anthropic-messages' },
    { ...PROVIDER, baseUrl: 'https://evil.example/v1' },
    { ...PROVIDER, auth: { env: 'OTHER_KEY' } },
    { ...PROVIDER, auth: 'none' },
    { ...PROVIDER, headers: {} },
    { ...PROVIDER, headers: { 'X-Title': 'keel2' } },
  ]
  const prints = await Promise.all(edits.map(providerFingerprint))
  assert.is(new Set([fp, ...prints]).size, edits.length + 1)
  assert.is(trustKey(fp), `route:trust:${fp}`)
})

test('key sources: none, a command, env as printenv by absolute path, a file', () => {
  assert.equal(keySource('none'), { kind: 'none' })
  assert.equal(keySource({ helper: ['/usr/bin/pass', 'show', 'x'] }), { kind: 'command', argv: ['/usr/bin/pass', 'show', 'x'] })
  assert.equal(keySource({ env: 'OPENAI_API_KEY' }), { kind: 'command', argv: ['/usr/bin/printenv', 'OPENAI_API_KEY'] })
  assert.equal(keySource({ file: '/home/me/.key' }), { kind: 'file', path: '/home/me/.key' })
})

test('keyFromOutput: the first line trimmed; nothing, or a key that would break its header, is a problem', () => {
  assert.equal(keyFromOutput('sk-test-SECRET-1234\n'), { key: 'sk-test-SECRET-1234' })
  assert.equal(keyFromOutput('  sk-a \r\nsecond line\n'), { key: 'sk-a' })
  assert.equal(keyFromOutput(''), { problem: 'printed no key' })
  assert.equal(keyFromOutput('\nsk-on-line-two'), { problem: 'printed no key' })
  assert.equal(keyFromOutput('sk a'), { problem: 'printed a key with spaces or control characters in it' })
  assert.equal(keyFromOutput('sk\u0000a'), { problem: 'printed a key with spaces or control characters in it' })
  assert.equal(keyFromOutput('sk\ra'), { problem: 'printed a key with spaces or control characters in it' })
})

test('the key header per api, and the provider headers over keel\'s in any case', () => {
  assert.equal(authHeader('openai-chat', 'sk-1'), ['Authorization', 'Bearer sk-1'])
  assert.equal(authHeader('anthropic-messages', 'sk-1'), ['x-api-key', 'sk-1'])
  const own = { 'Content-Type': 'application/json' }
  assert.equal(requestHeaders(PROVIDER, own, 'sk-1'), { 'Content-Type': 'application/json', Authorization: 'Bearer sk-1', 'X-Title': 'keel' })
  assert.equal(requestHeaders(PROVIDER, own, undefined), { 'Content-Type': 'application/json', 'X-Title': 'keel' }, 'no key, no auth header')
  const bearerAnthropic: Provider = { ...PROVIDER, api: 'anthropic-messages', headers: { authorization: 'Bearer fixed', 'X-API-KEY': 'other' } }
  assert.equal(requestHeaders(bearerAnthropic, own, 'sk-1'), { 'Content-Type': 'application/json', 'X-API-KEY': 'other', authorization: 'Bearer fixed' })
})

test('the redactor: every occurrence, its Bearer, JSON and URL forms; header values too; short secrets left alone', () => {
  const key = 'sk-test-SECRET-1234'
  const redact = redactorFor(secretsOf({ ...PROVIDER, headers: { 'X-Org': 'org-secret-value', 'X-Short': 'abc' } }, key))
  assert.is(
    redact(`curl: header "Authorization: Bearer ${key}" failed; again ${key}; org org-secret-value; short abc`),
    'curl: header "Authorization: Bearer [redacted]" failed; again [redacted]; org [redacted]; short abc',
  )
  const quoted = 'pa"ss\\word-long'
  const r2 = redactorFor([quoted, 'a/b c+d=e&f'])
  assert.is(r2(JSON.stringify({ error: `bad key ${quoted}` })), '{"error":"bad key [redacted]"}')
  assert.is(r2('https://x.example/?k=a%2Fb%20c%2Bd%3De%26f'), 'https://x.example/?k=[redacted]')
  assert.is(r2(`raw ${quoted}`), 'raw [redacted]')
  const nested = redactorFor(['secret-1', 'secret-1-and-more'])
  assert.is(nested('x secret-1-and-more y secret-1'), 'x [redacted] y [redacted]', 'the longer secret first, whole')
  assert.is(redactorFor([])('nothing to hide'), 'nothing to hide')
  assert.equal(secretsOf(PROVIDER, undefined), ['keel'])
})

test('tool ids: toolu_keel_<n>_<hex>, counting from 1, random bytes from the caller', () => {
  assert.is(toolUseId(3, new Uint8Array([0, 15, 255])), 'toolu_keel_3_000fff')
  const asked: number[] = []
  const mint = createToolIds((length) => {
    asked.push(length)
    return new Uint8Array(length).fill(asked.length)
  })
  assert.equal([mint(), mint()], ['toolu_keel_1_0101010101010101', 'toolu_keel_2_0202020202020202'])
  assert.equal(asked, [8, 8])
  assert.match(createToolIds((n) => crypto.getRandomValues(new Uint8Array(n)))(), /^toolu_keel_1_[0-9a-f]{16}$/)
})

test.run()
