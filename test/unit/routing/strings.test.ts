// The failure lines (§4): the provider's message read from each format, one line per failure kind,
// every line redacted; and the other texts of the strings table, exactly.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { errorMessageOf, failureText, sampleOf, type RouteFailure } from '../../../src/features/routing/failure.ts'
import { redactorFor } from '../../../src/features/routing/redact.ts'
import * as S from '../../../src/features/routing/strings.ts'
import { GEMINI_MISSING_THOUGHT_SIGNATURE } from '../../fixtures/providers/gemini.ts'
import { GROQ_TOOL_USE_FAILED } from '../../fixtures/providers/groq.ts'
import { MISTRAL_EXTRA_FORBIDDEN_STREAM_OPTIONS } from '../../fixtures/providers/mistral.ts'
import { XAI_REASONING_EFFORT_UNSUPPORTED } from '../../fixtures/providers/xai.ts'

test('errorMessageOf: OpenAI and Anthropic error objects, a top-level message, an HTML title, plain text; first line, capped', () => {
  assert.is(errorMessageOf('{"error":{"message":"Incorrect API key provided: sk-te****1234.","type":"invalid_request_error","code":"invalid_api_key"}}'), 'Incorrect API key provided: sk-te****1234.')
  assert.is(errorMessageOf('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'), 'Overloaded')
  assert.is(errorMessageOf('{"error":"model not found"}'), 'model not found')
  assert.is(errorMessageOf('{"message":"Too many requests","status":429}'), 'Too many requests')
  assert.is(errorMessageOf('{"detail":"nope"}'), 'nope')
  assert.is(errorMessageOf('{"detail":5}'), '{"detail":5}')
  assert.is(errorMessageOf('{"error":{"message":"line one\\nline two"}}'), 'line one')
  assert.is(errorMessageOf('<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>nginx</body></html>'), '502 Bad Gateway')
  assert.is(errorMessageOf('\n\n  upstream connect error  \nmore'), 'upstream connect error')
  assert.is(errorMessageOf(''), '')
  assert.is(errorMessageOf('x'.repeat(400)), `${'x'.repeat(300)}…`)
  assert.is(sampleOf(`  ${'y'.repeat(100)}  `), `${'y'.repeat(80)}…`)
})

test('errorMessageOf: each provider\'s error body (test/fixtures/providers) reads as its message', () => {
  assert.match(errorMessageOf(GEMINI_MISSING_THOUGHT_SIGNATURE.body), /^Function call is missing a thought_signature in functionCall parts\./, 'Gemini: a pretty-printed list')
  assert.is(errorMessageOf(MISTRAL_EXTRA_FORBIDDEN_STREAM_OPTIONS.body), 'body.stream_options.include_usage: Extra inputs are not permitted', "Mistral's 422: pydantic's detail")
  assert.is(errorMessageOf(XAI_REASONING_EFFORT_UNSUPPORTED.body), 'Model grok-4-latest does not support parameter reasoningEffort.', 'xAI: error as text')
  assert.match(errorMessageOf(GROQ_TOOL_USE_FAILED.body), /^Failed to call a function\..* \(the model wrote: <function=brave_search>\{"query": "Hello!"\}<\/function>\)$/, "Groq: what the model tried")
})

const ROUTE = { label: 'GPT-5', provider: { id: 'example' } }
const KEY = 'sk-test-SECRET-1234'
const redact = redactorFor([KEY])

test('failureText: one line per kind, each through the redactor', () => {
  const cases: [RouteFailure, string][] = [
    [{ kind: 'status', status: 401, body: `{"error":{"message":"Incorrect API key provided: ${KEY}"}}` }, 'keel: GPT-5 failed: example answered 401 Incorrect API key provided: [redacted]'],
    [{ kind: 'status', status: 500, body: '' }, 'keel: GPT-5 failed: example answered 500'],
    [{ kind: 'stream-error', message: 'Upstream overloaded\nplease retry' }, 'keel: GPT-5 failed: example sent an error: Upstream overloaded'],
    [{ kind: 'unreadable', sample: '{"choices": [oops' }, 'keel: GPT-5 failed: example sent a stream that is not JSON ({"choices": [oops)'],
    [{ kind: 'curl', code: 7, stderr: 'curl: (7) Failed to connect to 127.0.0.1 port 9: Connection refused\n' }, 'keel: GPT-5 failed: curl exited 7: the provider could not be reached (curl: (7) Failed to connect to 127.0.0.1 port 9: Connection refused)'],
    [{ kind: 'curl', code: 18, stderr: '' }, 'keel: GPT-5 failed: curl exited 18: the connection closed before the answer was complete'],
    [{ kind: 'curl', code: 35, stderr: `curl: (35) header Authorization: Bearer ${KEY}` }, 'keel: GPT-5 failed: curl exited 35: the TLS handshake with the provider failed (curl: (35) header Authorization: Bearer [redacted])'],
    [{ kind: 'stall', idleMs: 120_000 }, 'keel: GPT-5 stopped sending (no data for 120 s); the partial answer stands'],
    [{ kind: 'other', reason: `the key command failed: ${KEY}` }, 'keel: GPT-5 failed: the key command failed: [redacted]'],
  ]
  for (const [failure, want] of cases) assert.is(failureText('keel', ROUTE, failure, redact), want, failure.kind)
})

test('the strings table of §4, word for word', () => {
  assert.is(S.aliasNotConfigured('keel', 'gpt-5', '/home/me/.claude/keel/routing.json'), 'keel: gpt-5 is not configured (/home/me/.claude/keel/routing.json); use /model to pick another')
  assert.is(S.untrusted('klyth', 'example', 'gpt-5'), 'klyth: provider example is not approved; run /model gpt-5 or /klyth route trust example')
  assert.is(S.unreadableArguments('keel', 'GPT-5', 'Bash'), 'keel: GPT-5 sent unreadable arguments for Bash')
  assert.is(S.fetchDenied('keel'), 'keel: a routed request could not be handled, so it was not sent')
  assert.is(S.trustAsk('GPT-5', 'https://api.example.com/v1'), 'Send this conversation to GPT-5 at https://api.example.com/v1?')
  assert.equal([S.TRUST_ALLOW, S.TRUST_DENY], ['Allow', 'Deny'])
  assert.is(S.modelSwitched('GPT-5', 'gpt-5-2025', 'keel', 400000), 'main now answered by GPT-5 (gpt-5-2025) through keel; window 400000')
  assert.not.ok(S.modelSwitched('a', 'b', 'keel', 1).startsWith('keel:'), 'command output never starts with <pkg>: (the engine adds it)')
  assert.is(S.leaveNote(3, 'GPT-5', 'gpt-5-2025', 'keel'), 'the previous 3 assistant turns were answered by GPT-5 (gpt-5-2025) through keel, not by you')
  assert.is(S.leaveNote(1, 'GPT-5', 'gpt-5-2025', 'keel'), 'the previous assistant turn was answered by GPT-5 (gpt-5-2025) through keel, not by you')
  assert.is(S.statusLine('keel', 'GPT-5', 'example'), 'keel → GPT-5 · example')
  assert.is(S.identityLine('GPT-5', 'gpt-5-2025', 'keel'), 'You are GPT-5 (gpt-5-2025), answering inside Claude Code through keel.')
  assert.is(S.stalled('keel', 'GPT-5', 300), 'keel: GPT-5 stopped sending (no data for 0.3 s); the partial answer stands')
})

test.run()
