// Routing measurements (src/features/routing/NOTES.md §13.2, issue 18 item 9): a routed model calls
// WebSearch and WebFetch. Which requests the engine then makes, which of them reach `http.fetch` (origin,
// URL, model, tools, body), what the mock model receives, what the tool result says when the inner
// request is answered by the network, by a probe, or refused; for WebFetch also the page fetch itself
// (a local HTTPS server with a throwaway certificate) and its summarizing call. Then the same through
// the klyth package against the mock provider: WebSearch refused with its line, WebFetch summarized there.
//
// The probe answers main's step 0 with the call (CFG.calls) and step 1 with `FINAL`, logging the tool
// result step 1 sees; its http.fetch hook logs every request and answers the inner one per CFG.search /
// CFG.fetch ('results': an Anthropic web search answer; 'text': an SSE summary; 'deny'; 'status500').
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { startMockModel, type MockModel } from './mock-model.ts'
import { startMockProvider, type MockProvider } from './mock-provider.ts'
import { cleanupTmp, runClaude, tmpDir, writePlugin, type RunResult } from './engine.ts'
import { kitSource, tagged } from './probe-kit.ts'
import { LABEL, routed, routedHome, REFUSED } from './routing-kit.ts'
import { TOOL_ERROR_PREFIX, webSearchRefused } from '../../src/features/routing/strings.ts'

const PROBE = (cfg: object) => kitSource(cfg) + `
function searchSse(model) {
  const ev = (type, data) => 'event: ' + type + '\\ndata: ' + JSON.stringify(Object.assign({ type }, data)) + '\\n\\n'
  const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, server_tool_use: { web_search_requests: 1 } }
  const id = 'srvtoolu_probe_1'
  return ev('message_start', { message: { id: 'msg_probe_search', type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage } })
    + ev('content_block_start', { index: 0, content_block: { type: 'server_tool_use', id, name: 'web_search', input: {} } })
    + ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify({ query: 'keel routing test' }) } })
    + ev('content_block_stop', { index: 0 })
    + ev('content_block_start', { index: 1, content_block: { type: 'web_search_tool_result', tool_use_id: id, content: [{ type: 'web_search_result', url: 'https://example.org/keel-result', title: 'KEEL-RESULT-TITLE', encrypted_content: 'enc', page_age: null }] } })
    + ev('content_block_stop', { index: 1 })
    + ev('content_block_start', { index: 2, content_block: { type: 'text', text: '' } })
    + ev('content_block_delta', { index: 2, delta: { type: 'text_delta', text: 'LOCAL-SEARCH-SUMMARY-77' } })
    + ev('content_block_stop', { index: 2 })
    + ev('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage })
    + ev('message_stop', {})
}
export function register(on) {
  on('turn.step', async function* ($, e, next) {
    if (!isAlias(e.model) && !CFG.native) return yield* next(e)
    if (e.index === 0) return yield* answer($, e, { text: 'calling', tools: CFG.calls })
    const ms = await $.session.messages({ as: 'api' })
    const result = (ms[ms.length - 1].content || []).find((b) => b.type === 'tool_result')
    log($, 'RESULT', { isError: !!(result && result.is_error), content: result ? (typeof result.content === 'string' ? result.content : JSON.stringify(result.content)).replace(/\\n\\n<system-reminder>[\\s\\S]*$/, '') : null })
    return yield* answer($, e, { text: 'FINAL' })
  })
  on('tool.call', async ($, e, next) => {
    const r = await next(e)
    if (e.tool === 'WebSearch') log($, 'SEARCHED', { results: r.result && r.result.results, searchCount: r.result && r.result.searchCount })
    return r
  })
  on('http.fetch', async ($, e, next) => {
    const body = bodyOf(e)
    const last = body && Array.isArray(body.messages) && body.messages.length ? body.messages[body.messages.length - 1] : undefined
    log($, 'FETCH', {
      path: new URL(e.url).pathname, method: e.init && e.init.method, origin: next.origin.plugin, model: body ? body.model : null, stream: body ? !!body.stream : null, max: body ? body.max_tokens : null,
      tools: body && Array.isArray(body.tools) ? body.tools.map((t) => (t.type ? t.type + ':' : '') + t.name) : null, toolChoice: body ? body.tool_choice || null : null, keys: body ? Object.keys(body).sort() : null,
      system: body && Array.isArray(body.system) ? body.system.map((b) => (b.text || '').slice(0, 60)) : null, last: last ? (Array.isArray(last.content) ? last.content.map((b) => b.text || '').join('') : String(last.content)) : null,
    })
    if (!body || new URL(e.url).pathname !== '/v1/messages') return next(e)
    const search = Array.isArray(body.tools) && body.tools.some((t) => String(t.type || '').startsWith('web_search'))
    const mode = search ? CFG.search : CFG.fetch
    if (mode === 'deny') return { deny: 'probe: no web here' }
    if (mode === 'status500') return localAnswer(500, JSON.stringify({ type: 'error', error: { type: 'api_error', message: 'probe 500' } }))
    if (mode === 'results') return localAnswer(200, searchSse(body.model), 'text/event-stream')
    if (mode === 'text') return localAnswer(200, sse(body.model, 'LOCAL-SUMMARY-77'), 'text/event-stream')
    return next(e)
  })
}
`

const PAGE = '<html><body><h1>PAGE-TITLE-42</h1><p>The page text PAGE-BODY-42.</p></body></html>'
// The inner requests' system blocks, their first 60 characters as the probe logs them: the billing block (its
// cc_version suffix differs per request kind), the SDK identity, and the search's own instructions.
const BILLING = (kind: string) => `x-anthropic-billing-header: cc_version=2.1.328.${kind}; cc_entrypoint=sdk-cli;`.slice(0, 60)
const IDENTITY = "You are a Claude agent, built on Anthropic's Claude Agent SDK.".slice(0, 60)
const SEARCH_SYSTEM = [BILLING('c86'), IDENTITY, 'You run a web search for another Claude model, which is waiting on the result'.slice(0, 60)]
const SEARCH_PROMPT = 'Perform a web search for the query: keel routing test'
const REMINDER = '\n\n\nREMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks.'
const DOMAIN_CHECK = 'Unable to verify if domain 127.0.0.1 is safe to fetch. This may be due to network restrictions or enterprise security policies blocking claude.ai.'
const SEARCH = [{ name: 'WebSearch', input: { query: 'keel routing test' } }]

let mock: MockModel | undefined
let provider: MockProvider | undefined
let page: Server | undefined
let pageHits: string[] = []
let certFile = ''
test.before(async () => {
  // A page server on HTTPS: WebFetch upgrades http:// to https://. Its throwaway certificate reaches the engine by NODE_EXTRA_CA_CERTS.
  const dir = tmpDir('cert')
  certFile = join(dir, 'cert.pem')
  const gen = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', certFile, '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'], { encoding: 'utf8' })
  if (gen.status !== 0) throw new Error(`openssl could not make the page server's certificate: ${gen.stderr}`)
  page = createServer({ key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(certFile) }, (req, res) => {
    pageHits.push(`${req.method} ${req.url}`)
    res.writeHead(200, { 'content-type': 'text/html' })
    res.end(PAGE)
  })
  await new Promise<void>((resolve) => page!.listen(0, '127.0.0.1', () => resolve()))
})
test.after.each(async () => {
  await mock?.close()
  await provider?.close()
  mock = provider = undefined
  pageHits = []
})
test.after(async () => {
  page?.closeAllConnections()
  await new Promise<void>((resolve) => (page ? page.close(() => resolve()) : resolve()))
  cleanupTmp()
})

const pagePort = () => (page!.address() as AddressInfo).port
const fetchCall = (scheme = 'https') => [{ name: 'WebFetch', input: { url: `${scheme}://127.0.0.1:${pagePort()}/doc`, prompt: 'What is the title?' } }]
async function run(cfg: object, opts: { model?: string; preflight?: boolean } = {}): Promise<RunResult> {
  // A test that runs several times closes each run's mock before the next.
  await mock?.close()
  mock = await startMockModel()
  const r = await runClaude({
    prompt: 'go', pluginDirs: [writePlugin(tmpDir('probe'), 'probe', PROBE(cfg))], mock, extraArgs: ['--model', opts.model ?? 'gpt-5', '--allowedTools', 'WebSearch,WebFetch'],
    ...(opts.preflight ? {} : { settings: { skipWebFetchPreflight: true } }), env: { NODE_EXTRA_CA_CERTS: certFile },
  })
  assert.is(r.code, 0, r.stderr.slice(-800))
  assert.is(r.json.result, 'FINAL', 'the loop went on after the tool')
  return r
}
const result = (r: RunResult) => tagged(r.debugLog, 'probe', 'RESULT')[0]
const fetches = (r: RunResult) => tagged(r.debugLog, 'probe', 'FETCH')

test('WebSearch from a routed step: one inner request at http.fetch (origin engine) naming the alias, the server tool web_search_20250305 alone; unanswered it goes to ANTHROPIC_BASE_URL and its text is taken as the results', async () => {
  const r = await run({ calls: SEARCH })
  assert.equal(fetches(r), [{
    path: '/v1/messages', method: 'POST', origin: 'engine', model: 'gpt-5', stream: true, max: 32000, tools: ['web_search_20250305:web_search'], toolChoice: { type: 'auto' },
    keys: ['max_tokens', 'messages', 'metadata', 'model', 'output_config', 'stream', 'system', 'tool_choice', 'tools'], system: SEARCH_SYSTEM, last: SEARCH_PROMPT,
  }])
  assert.match(r.debugLog, '[API REQUEST] /v1/messages source=web_search_tool')
  assert.match(r.debugLog, "tool_choice {type:'tool', name:'web_search'} demoted to auto: extended thinking is active")
  // The mock model (Anthropic's place) got it, alias and all, and answered `ok`: taken as the search's result.
  assert.equal(mock!.messages().map((q) => [q.body.model, q.body.tools.map((t: any) => t.type)]), [['gpt-5', ['web_search_20250305']]])
  assert.equal(result(r), { isError: false, content: `Web search results for query: "keel routing test"\n\nok${REMINDER}` })
  assert.equal(tagged(r.debugLog, 'probe', 'SEARCHED'), [{ results: ['ok'], searchCount: 0 }])
})

test('WebSearch from native Claude, for comparison: the same request on main\'s model, tool_choice forced to the tool, with thinking and temperature', async () => {
  const r = await run({ calls: SEARCH, native: true }, { model: 'claude-opus-4-5' })
  const [f] = fetches(r)
  assert.equal([f.model, f.tools, f.toolChoice, f.system, f.last], ['claude-opus-4-5', ['web_search_20250305:web_search'], { type: 'tool', name: 'web_search' }, SEARCH_SYSTEM, SEARCH_PROMPT])
  assert.equal(f.keys, ['max_tokens', 'messages', 'metadata', 'model', 'output_config', 'stream', 'system', 'temperature', 'thinking', 'tool_choice', 'tools'])
})

test('WebSearch: a hook answers the inner request with server_tool_use and web_search_tool_result blocks; the tool result lists the links and the text (searchCount 1), nothing is sent', async () => {
  const r = await run({ calls: SEARCH, search: 'results' })
  assert.equal(result(r), { isError: false, content: `Web search results for query: "keel routing test"\n\nLinks: [{"title":"KEEL-RESULT-TITLE","url":"https://example.org/keel-result"}]\n\nLOCAL-SEARCH-SUMMARY-77${REMINDER}` })
  assert.equal(tagged(r.debugLog, 'probe', 'SEARCHED'), [{ results: [{ tool_use_id: 'srvtoolu_probe_1', content: [{ title: 'KEEL-RESULT-TITLE', url: 'https://example.org/keel-result' }] }, 'LOCAL-SEARCH-SUMMARY-77'], searchCount: 1 }])
  assert.is(mock!.requests.length, 0)
})

test('WebSearch and WebFetch: an inner request refused ({deny}) or answered 500 is the tool\'s error result, the engine\'s line around the reason; the loop goes on, no retry', async () => {
  for (const [cfg, reason] of [[{ calls: SEARCH, search: 'deny' }, 'probe: no web here'], [{ calls: SEARCH, search: 'status500' }, 'probe 500'], [{ calls: fetchCall(), fetch: 'deny' }, 'probe: no web here']] as const) {
    const r = await run(cfg)
    assert.equal(result(r), { isError: true, content: `${REFUSED}${reason}` }, JSON.stringify(cfg))
    assert.is(fetches(r).filter((f) => f.path === '/v1/messages').length, 1, 'no retry')
    assert.is(mock!.requests.length, 0)
  }
})

test('WebFetch: the domain check goes to api.anthropic.com past http.fetch and, unreachable, fails the tool; skipWebFetchPreflight skips it', async () => {
  const r = await run({ calls: fetchCall() }, { preflight: true })
  assert.equal(result(r), { isError: true, content: DOMAIN_CHECK })
  assert.match(r.debugLog, 'Domain blocklist check failed for 127.0.0.1: getaddrinfo ENOTFOUND api.anthropic.com')
  assert.equal(fetches(r), [], 'no request of the check reached http.fetch')
  assert.equal(pageHits, [])
})

test('WebFetch: the engine fetches the page itself (http:// upgraded to https://, not at http.fetch), then one summarizing request at http.fetch naming the alias, no tools; answered by a hook, its text is the result', async () => {
  const r = await run({ calls: fetchCall('http'), fetch: 'text' })
  assert.equal(pageHits, ['GET /doc'], 'the page server (HTTPS only) got the http:// URL')
  const [f, more] = fetches(r)
  assert.is(more, undefined, 'the page fetch is not at http.fetch')
  assert.equal({ ...f, last: undefined }, { path: '/v1/messages', method: 'POST', origin: 'engine', model: 'gpt-5', stream: true, max: 32000, tools: [], toolChoice: null, keys: ['max_tokens', 'messages', 'metadata', 'model', 'output_config', 'stream', 'system', 'tools'], system: [BILLING('744'), IDENTITY], last: undefined })
  assert.match(f.last, /^\nWeb page content:\n---\nPAGE-TITLE-42\n=============\n\nThe page text PAGE-BODY-42.\n---\n\nWhat is the title\?\n\nProvide a concise response based only on the content above./)
  assert.match(r.debugLog, '[API REQUEST] /v1/messages source=web_fetch_apply')
  assert.equal(result(r), { isError: false, content: 'LOCAL-SUMMARY-77' })
  assert.is(mock!.requests.length, 0)
  // Native Claude's summarizer is main's model too (no smaller model), with thinking and temperature.
  const n = await run({ calls: fetchCall(), native: true }, { model: 'claude-opus-4-5' })
  assert.equal([fetches(n)[0].model, fetches(n)[0].keys], ['claude-opus-4-5', ['max_tokens', 'messages', 'metadata', 'model', 'output_config', 'stream', 'system', 'temperature', 'thinking', 'tools']])
})

// ---- keel's route ----
// Before the refusal, WebSearch's inner request went to the provider translated without its server tool (it has
// no schema) and the model's own words came back as "Web search results for query: …" (measured: MODEL-INVENTED-RESULTS).
test('klyth: WebSearch\'s inner request is refused with a line naming why (the model and the person read it as the tool\'s error), nothing sent; WebFetch\'s summarizer is translated and works', async () => {
  mock = await startMockModel()
  provider = await startMockProvider([
    { match: /search the web/, reply: { toolCalls: [{ name: 'WebSearch', arguments: JSON.stringify({ query: 'keel routing test' }) }] } },
    { match: /Perform a web search for the query/, reply: { text: 'MODEL-INVENTED-RESULTS' } },
    { match: /fetch the page/, reply: { toolCalls: [{ name: 'WebFetch', arguments: JSON.stringify({ url: `https://127.0.0.1:${pagePort()}/doc`, prompt: 'What is the title?' }) }] } },
    { match: /Web page content:/, reply: { text: 'PROVIDER-SUMMARY' } },
    { match: /WebSearch cannot run|PROVIDER-SUMMARY/, reply: { text: 'ROUTED-FINAL' } },
  ])
  const { home, plugin } = await routedHome(mock, provider, { settings: { skipWebFetchPreflight: true } })
  for (const prompt of ['search the web', 'fetch the page']) {
    provider.requests.length = 0
    const r = await routed({ prompt, pluginDirs: [plugin], mock, home, settings: { skipWebFetchPreflight: true }, env: { NODE_EXTRA_CA_CERTS: certFile }, extraArgs: ['--allowedTools', 'WebSearch,WebFetch'] })
    assert.is(r.code, 0, r.stderr.slice(-800))
    assert.is(r.json.result, 'ROUTED-FINAL', prompt)
    const chats = provider.requests.filter((q) => q.path === '/v1/chat/completions')
    const toolMessage = chats.at(-1)!.body.messages.find((m: any) => m.role === 'tool').content
    console.log(`  klyth ${prompt}: ${chats.length} provider requests, tool result ${JSON.stringify(toolMessage.slice(0, 200))}`)
    if (prompt === 'search the web') {
      assert.is(chats.length, 2, 'the step and the step after: the inner search request never reached the provider')
      // The tool result of an error, as the chat translation marks it.
      assert.is(toolMessage, `${TOOL_ERROR_PREFIX}${REFUSED}${webSearchRefused('klyth', LABEL)}`)
    } else {
      assert.is(chats.length, 3, 'the step, the summarizing request, the step after')
      assert.is(chats[1]!.body.tools, undefined, 'the summarizer has no tools')
      assert.is(toolMessage, 'PROVIDER-SUMMARY')
    }
    assert.is(mock.requests.length, 0, 'nothing reached Anthropic\'s place')
  }
})

test.run()
