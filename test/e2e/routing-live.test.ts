// Routing in one long session: `/model <alias>` in stream-json (approval refused headless, then given by
// the trust verb; the window set before the switch; the output naming who answers; `/model opus` back
// to native Claude with the leave note), and in the terminal UI (the approval asked in the engine's own
// dialog before the switch; Esc cancelling the provider's request at once; the session title).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { startMockModel, requestText, type MockModel } from './mock-model.ts'
import { startMockProvider, type MockProvider } from './mock-provider.ts'
import { cleanupTmp } from './engine.ts'
import { hasPty, startLive, type LiveSession } from './live.ts'
import { results, screenText, sendEach, sleep } from './probe-kit.ts'
import { ALIAS, LABEL, PROVIDER_MODEL, routedHome, stepRequests } from './routing-kit.ts'

let mock: MockModel | undefined
let provider: MockProvider | undefined
let live: LiveSession | undefined
test.after.each(async () => {
  await live?.stop()
  await mock?.close()
  await provider?.close()
  live = mock = provider = undefined
})
test.after(() => cleanupTmp())

const NOTICE = `Claude Code doesn't recognize the model "${ALIAS}"`

test('stream-json: /model gpt unapproved is refused with how to approve; approved, it switches with the window set and says who answers; /model opus goes native with the leave note', async () => {
  mock = await startMockModel()
  provider = await startMockProvider([{ match: /routed turn/, reply: { text: 'answered by the provider' } }])
  const { home, plugin } = await routedHome(mock, provider, { trusted: false })
  live = await startLive({ mode: 'stream-json', pluginDirs: [plugin], mock, home })
  await sendEach(live, [`/model ${ALIAS}`])
  const refused = results(live.output()).at(-1).result
  assert.match(refused, 'provider mock is not approved yet: nothing is sent to Mock GPT at')
  assert.match(refused, 'until you run /klyth route trust mock; the model is unchanged')
  await sendEach(live, ['/klyth route trust mock', `/model ${ALIAS}`])
  const switched = results(live.output()).at(-1).result
  assert.is(switched, `klyth: main now answered by ${LABEL} (${PROVIDER_MODEL}) through klyth; window 200000`)
  assert.not.match(live.output(), NOTICE, 'the window was set before the switch: no 1M notice')
  await sendEach(live, ['a routed turn'])
  assert.is(results(live.output()).at(-1).result, 'answered by the provider')
  assert.is(mock.messages().length, 0, 'nothing native yet')
  await sendEach(live, ['/model opus', 'a native turn now'])
  const native = mock.messages().filter((q) => q.kind === 'main')
  assert.ok(native.length >= 1, 'native Claude answered')
  const text = requestText(native[0]!.body)
  assert.match(text, `the previous assistant turn was answered by ${LABEL} (${PROVIDER_MODEL}) through klyth, not by you`)
  assert.is(stepRequests(provider).length, 1, 'the provider got only the routed turn')
  // Told once: the next native turn carries no second note.
  await sendEach(live, ['another native turn'])
  const later = mock.messages().filter((q) => q.kind === 'main').at(-1)!
  assert.is((requestText(later.body).match(/through klyth, not by you/g) ?? []).length, 1, 'the note stays where it was given, not added again')
})

test('terminal UI: /model gpt asks for approval in the engine\'s dialog before the switch; Allow switches and the turn is routed', async () => {
  if (!hasPty()) return console.log('skipped: no pty')
  mock = await startMockModel()
  provider = await startMockProvider([{ match: /routed in the ui/, reply: { text: ['ROUTED-', 'UI-', 'ANSWER'] } }])
  const { home, plugin } = await routedHome(mock, provider, { trusted: false })
  live = await startLive({ mode: 'tui', pluginDirs: [plugin], mock, home })
  await live.send(`/model ${ALIAS}`)
  await live.waitFor('the approval question', () => screenText(live!.output()).includes('Send this conversation to Mock GPT at'), 30_000).catch((err) => {
    throw new Error(`${err}\n${screenText(live!.output()).slice(-2000)}`)
  })
  assert.is(provider.requests.length, 0, 'nothing sent before the approval')
  await sleep(500)
  live.write('\r')
  await live.waitFor('the switch', () => /Set model to .?gpt/.test(screenText(live!.output())), 30_000)
  await live.send('routed in the ui please')
  await live.waitFor('the routed answer', () => screenText(live!.output()).includes('ROUTED-UI-ANSWER'), 30_000)
  assert.is(mock.messages().length, 0, 'no native request')
  assert.is(stepRequests(provider).length, 1)
})

test('terminal UI: Esc during a slow routed answer closes the provider\'s request at once; the partial answer stays', async () => {
  if (!hasPty()) return console.log('skipped: no pty')
  mock = await startMockModel()
  // One paragraph a piece: the terminal draws streamed text a finished line at a time (measured).
  provider = await startMockProvider([{ match: /slow/, reply: { text: Array.from({ length: 30 }, (_, i) => `p${i}\n\n`), pieceMs: 300 } }])
  const { home, plugin } = await routedHome(mock, provider)
  live = await startLive({ mode: 'tui', pluginDirs: [plugin], mock, home, extraArgs: ['--model', ALIAS] })
  await live.send('a slow answer please')
  await live.waitFor('the first pieces', () => screenText(live!.output()).includes('p2'), 30_000)
  const [req] = stepRequests(provider)
  const escAt = Date.now()
  live.write('\x1b')
  await Promise.race([provider.closed(req!), sleep(5_000)])
  assert.ok(req!.aborted, 'keel hung up on the provider')
  assert.ok(req!.closedAt! - escAt < 1_000, `closed ${req!.closedAt! - escAt} ms after Esc`)
  await live.waitFor('the interruption', () => screenText(live!.output()).includes('Interrupted'), 10_000)
  assert.match(screenText(live.output()), 'p1')
  assert.not.match(screenText(live.output()), 'p29')
  assert.is(mock.messages().length, 0)
})

test('terminal UI with non-essential traffic allowed: the session title is asked of the provider (structured output), never of Claude', async () => {
  if (!hasPty()) return console.log('skipped: no pty')
  mock = await startMockModel()
  provider = await startMockProvider([
    { match: (q) => q.body?.response_format !== undefined, reply: { text: '{"title":"Routed title"}' } },
    { match: /name this/, reply: { text: 'titled answer' } },
  ])
  const { home, plugin } = await routedHome(mock, provider)
  live = await startLive({ mode: 'tui', pluginDirs: [plugin], mock, home, extraArgs: ['--model', ALIAS], env: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '' } })
  await live.send('name this session')
  await live.waitFor('the answer', () => screenText(live!.output()).includes('titled answer'), 30_000)
  await live.waitFor('the title request', () => provider!.requests.find((q) => q.body?.response_format), 20_000)
  const title = provider.requests.find((q) => q.body?.response_format)!
  assert.is(title.body.response_format.type, 'json_schema')
  assert.is(title.body.model, PROVIDER_MODEL)
  await sleep(1_000)
  assert.equal(mock.requests.filter((q) => JSON.stringify(q.body ?? '').includes(`"${ALIAS}"`)), [], 'no request naming the alias reached Claude')
})

test.run()
