// Routing measurements (src/features/routing/NOTES.md §11): what the engine tells a script, headless,
// for its own API failures (a 401, a 500, a stream cut, an error event mid-stream) and for its own
// max-tokens stop, in `-p` text, `--output-format json` and `stream-json`; then the same for a routed
// failure, which klyth now tells through the engine's own error (its request answered with the
// failure), and the routed stops that cut an answer short (a length or content-filter finish, a
// stream that ends without any finish), for an OpenAI- and an Anthropic-compatible provider.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { startMockModel, byKind, lastUserText, type MockModel, type Reply } from './mock-model.ts'
import { startMockProvider, type MockProvider, type ProviderReply } from './mock-provider.ts'
import { cleanupTmp, runClaude, skippedHooks, type RunResult } from './engine.ts'
import { hasPty, startLive } from './live.ts'
import { screenText, sleep } from './probe-kit.ts'
import { ALIAS, assertFailed, REFUSED, routed, routedHome, stepRequests, transcripts } from './routing-kit.ts'

let mock: MockModel | undefined
let provider: MockProvider | undefined
test.after.each(async () => {
  await mock?.close()
  await provider?.close()
  mock = provider = undefined
})
test.after(() => cleanupTmp())

const FORMATS = ['text', 'json', 'stream-json'] as const
type Format = (typeof FORMATS)[number]

/** A run read the way a script reads it: the exit code, the result line's fields, the assistant rows (stream-json). */
function scriptView(format: Format, r: RunResult) {
  const lines = r.stdout.trim().split('\n').map((l) => {
    try {
      return JSON.parse(l)
    } catch {
      return undefined
    }
  })
  const result = lines.find((x) => x?.type === 'result')
  return {
    code: r.code,
    text: format === 'text' ? r.stdout.trim() : String(result?.result),
    isError: format === 'text' ? undefined : result?.is_error,
    subtype: format === 'text' ? undefined : result?.subtype,
    stopReason: result?.stop_reason,
    apiStatus: result?.api_error_status,
    rows: lines.filter((x) => x?.type === 'assistant').map((x) => ({ text: x.message.content.map((b: any) => b.text ?? '').join(''), error: x.error })),
  }
}

const engineOwn: Record<string, { reply: Reply; result: RegExp; requests: number }> = {
  '401': { reply: { status: 401, errorType: 'authentication_error', errorMessage: 'invalid x-api-key' }, result: /^Invalid API key · Fix external API key$/, requests: 1 },
  '500': { reply: { status: 500, errorType: 'api_error', errorMessage: 'Internal server error' }, result: /^API Error: 500 Internal server error\. This is a server-side issue/, requests: 1 },
  'a stream cut after text': { reply: { textPieces: ['partial ', 'answer ', 'never'], cutAfter: 1 }, result: /^API Error: Connection dropped \(ECONNRESET\)/, requests: 1 },
  'an error event mid-stream': { reply: { textPieces: ['partial ', 'answer'], errorEvent: true, errorType: 'overloaded_error', errorMessage: 'Overloaded' }, result: /Overloaded/, requests: 2 },
}

for (const [name, c] of Object.entries(engineOwn)) {
  test(`the engine's own API failure (${name}), retries off: exit 1, is_error, subtype success, its line as the result, in every format`, async () => {
    for (const format of FORMATS) {
      mock = await startMockModel(byKind({ main: c.reply }))
      const r = await runClaude({ prompt: 'hello', pluginDirs: [], mock, format, env: { CLAUDE_CODE_MAX_RETRIES: '0' } })
      const seen = scriptView(format, r)
      console.log(`engine own ${name} ${format}: ${JSON.stringify({ ...seen, requests: mock.messages().map((q) => q.body?.stream ? 'stream' : 'whole') })}`)
      assert.is(seen.code, 1, format)
      assert.match(seen.text, c.result)
      if (format !== 'text') assert.equal([seen.isError, seen.subtype, seen.stopReason], [true, 'success', 'stop_sequence'], format)
      if (format === 'stream-json') assert.ok(seen.rows.at(-1)?.error, 'the last assistant row is the engine\'s error row')
      assert.is(mock.messages().length, c.requests, 'requests made')
      await mock.close()
      mock = undefined
    }
  })
}

test('the engine\'s own max-tokens stop: three asks to resume, then an API error (exit 1, is_error) naming the output maximum; the partial rows stay', async () => {
  for (const format of FORMATS) {
    mock = await startMockModel(byKind({ main: { textPieces: ['partial ', 'answer'], stopReason: 'max_tokens' } }))
    const r = await runClaude({ prompt: 'hello', pluginDirs: [], mock, format })
    const seen = scriptView(format, r)
    console.log(`engine own max_tokens ${format}: ${JSON.stringify(seen)}`)
    assert.is(seen.code, 1)
    assert.match(seen.text, /^API Error: Claude's response exceeded the \d+ output token maximum\. To configure this behavior, set the CLAUDE_CODE_MAX_OUTPUT_TOKENS environment variable\.$/)
    if (format !== 'text') assert.equal([seen.isError, seen.subtype], [true, 'success'])
    if (format === 'stream-json') assert.equal(seen.rows.map((row) => row.error ?? row.text), ['partial answer', 'partial answer', 'partial answer', 'partial answer', 'max_output_tokens'])
    const asks = mock.messages()
    assert.is(asks.length, 4)
    console.log(`  the resume ask: ${JSON.stringify(lastUserText(asks[1]!.body).slice(0, 300))}`)
    assert.match(transcripts(r.home), '"text":"partial answer"')
    await mock.close()
    mock = undefined
  }
})

async function routedRun(reply: ProviderReply, format: Format, extras: Parameters<typeof routedHome>[2] = {}) {
  mock = await startMockModel()
  provider = await startMockProvider([{ match: /go/, reply }])
  const { home, plugin } = await routedHome(mock, provider, extras)
  const r = await routed({ prompt: 'go now', pluginDirs: [plugin], mock, home, format, ...(extras.settings ? { settings: extras.settings } : {}) })
  assert.is(mock.requests.length, 0, 'nothing reached native Claude')
  return { r, home, seen: scriptView(format, r) }
}

const routedFailures: Record<string, { reply: ProviderReply; line: RegExp; partial?: string; status: number }> = {
  '401': { reply: { status: 401, errorMessage: 'Incorrect API key provided' }, line: /^klyth: Mock GPT failed: mock answered 401 Incorrect API key provided$/, status: 401 },
  'a stream cut after text': { reply: { text: ['partial ', 'answer ', 'never'], dropAfter: 3, pieceMs: 30 }, line: /^klyth: Mock GPT failed: curl exited \d+: /, partial: 'partial answer ', status: 502 },
  'an error object mid-stream': { reply: { text: ['partial ', 'answer'], errorObject: 'upstream overloaded' }, line: /^klyth: Mock GPT failed: mock sent an error: upstream overloaded$/, partial: 'partial answer', status: 502 },
}

for (const [name, c] of Object.entries(routedFailures)) {
  test(`a routed failure (${name}) tells a script what the engine tells for its own: exit 1, is_error, subtype success; the person reads klyth's line once`, async () => {
    for (const format of FORMATS) {
      const { r, home, seen } = await routedRun(c.reply, format)
      console.log(`routed ${name} ${format}: ${JSON.stringify(seen)}`)
      assert.is(seen.code, 1, `${format}: ${r.stderr.slice(-400)}`)
      assert.ok(seen.text.startsWith(REFUSED), seen.text)
      assert.match(seen.text.slice(REFUSED.length), c.line)
      assert.is(seen.text.split('klyth: Mock GPT').length, 2, 'the line once')
      if (format === 'json') {
        assertFailed(r, c.line)
        assert.is(seen.apiStatus, c.status)
        assert.is(seen.stopReason, 'stop_sequence', 'as the engine\'s own error row')
      }
      if (format === 'stream-json') {
        assert.equal(seen.rows.map((row) => row.error ?? row.text), [...(c.partial ? [c.partial] : []), 'invalid_request'], 'the partial row, then the engine\'s error row')
        assert.is(seen.isError, true)
      }
      if (c.partial) assert.match(transcripts(home), `"text":"${c.partial}"`, 'the partial answer stands in the transcript')
      assert.is(stepRequests(provider!).length, 1, 'the engine retried nothing keel answered')
      await mock!.close()
      await provider!.close()
      mock = provider = undefined
    }
  })
}

test('terminal UI: a routed failure after text shows the partial answer and klyth\'s line once, in the engine\'s error row', async () => {
  if (!hasPty()) return console.log('skipped: no pty')
  mock = await startMockModel()
  provider = await startMockProvider([{ match: /go/, reply: { text: ['PARTIAL-', 'SHOWN\n\n'], errorObject: 'upstream overloaded' } }])
  const { home, plugin } = await routedHome(mock, provider)
  const live = await startLive({ mode: 'tui', pluginDirs: [plugin], mock, home, extraArgs: ['--model', ALIAS] })
  try {
    await live.send('go in the ui')
    const line = 'klyth: Mock GPT failed: mock sent an error: upstream overloaded'
    await live.waitFor('the failure line', () => screenText(live.output()).includes(line), 30_000)
    await sleep(1_000)
    const screen = screenText(live.output())
    console.log(`terminal: ${screen.slice(screen.indexOf('go in the ui'), screen.indexOf(line) + line.length + 40)}`)
    assert.match(screen, 'PARTIAL-SHOWN')
    assert.is(screen.split(line).length, 2, 'the line once')
    assert.is(mock.messages().length, 0)
  } finally {
    await live.stop()
  }
})

const CUT_LINE = 'klyth: Mock GPT\'s response hit its output token maximum and is cut off here (the alias\'s "maxOutput" in routing.json sets it)'
const FILTER_LINE = 'klyth: Mock GPT\'s content filter stopped the response; it is cut off here'
const anthropic = { extras: { provider: { api: 'anthropic-messages', baseUrl: '<root>' } } }

for (const [api, extras, length, filter] of [['openai-chat', {}, 'length', 'content_filter'], ['anthropic-messages', anthropic, 'max_tokens', 'refusal']] as const) {
  test(`${api}: a cut answer (${length}, ${filter}) says so once under the text, keeps the engine's stop reason, and is no failure`, async () => {
    for (const [finish, stopReason, line] of [[length, 'max_tokens', CUT_LINE], [filter, 'refusal', FILTER_LINE]] as const) {
      const { r, home, seen } = await routedRun({ text: ['the first ', 'half'], finish }, 'json', extras)
      console.log(`routed ${api} ${finish}: ${JSON.stringify(seen)}`)
      assert.equal([seen.code, seen.isError, seen.stopReason], [0, false, stopReason], r.stderr.slice(-400))
      assert.is(seen.text, `the first half\n\n${line}`)
      assert.match(transcripts(home), JSON.stringify(`the first half\n\n${line}`).slice(1, -1), 'the transcript says it too')
      await mock!.close()
      await provider!.close()
      mock = provider = undefined
    }
  })

  test(`${api}: a stream that ends with no finish at all is a failure of the stream, told as the engine's error`, async () => {
    const { home, r } = await routedRun({ text: ['half an ', 'answer'], unfinished: true }, 'json', extras)
    assertFailed(r, 'klyth: Mock GPT failed: mock ended the stream without finishing the answer (no finish reason, no end marker)')
    assert.match(transcripts(home), '"text":"half an answer"', 'the partial answer stands')
  })
}

test('a routed answer streaming for longer than a hook\'s 10 s budget: whole, no hook skipped (the waits are on the engine\'s request and on curl, not the budget)', async () => {
  const { r, seen } = await routedRun({ text: Array.from({ length: 24 }, (_, i) => `p${i} `), pieceMs: 500 }, 'json')
  assert.equal([seen.code, seen.isError], [0, false], r.stderr.slice(-400))
  assert.is(seen.text, Array.from({ length: 24 }, (_, i) => `p${i} `).join(''))
  assert.ok(r.durationMs > 11_000, `${r.durationMs} ms`)
  assert.equal(skippedHooks(r.debugLog).filter((s) => s.plugin === 'klyth'), [])
})

test.run()
