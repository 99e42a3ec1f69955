// The review pane of auto mode for routed loops (issue 20, klyth F20) in the terminal UI, driven by keys in
// a pty and read off the screen: the klyth package routes `--model gpt` to the mock provider with
// `--permission-mode auto`, routing.json names the alias `judge` as the classifier. A routine routed call
// is shown in `Review action: 8s`; Allow once runs it with no classifier asked; a lapse hands it to the
// classifier, whose allow runs it; Esc and Deny leave the engine's own question; a secret-bearing call
// gets no pane and is not passed.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel } from './mock-model.ts'
import { startMockProvider, type MockProvider, type ProviderRequest } from './mock-provider.ts'
import { cleanupTmp, tmpDir } from './engine.ts'
import { hasPty, startLive, type LiveSession } from './live.ts'
import { screenText, sleep } from './probe-kit.ts'
import { ALIAS, routedHome, routingConfig, stepRequests, writeConfig } from './routing-kit.ts'

const JUDGE_MODEL = 'mock-judge'
const ENGINE_ASKS = "Auto mode couldn't check this action, so it needs your approval"
const isJudge = (req: ProviderRequest) => req.body?.model === JUDGE_MODEL
/** Each prompt's one Bash call: a script of the project's that prints its own marker. */
const CASES = { allow: 'node a.mjs', lapse: 'node b.mjs', esc: 'node c.mjs', deny: 'node d.mjs', secret: 'node e.mjs --token=sk-live-abcdefghijklmnop' }

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

test('the review pane: Allow once runs the call (no classifier asked); a lapse goes to the classifier, which allows; Esc and Deny leave the engine\'s question; a secret gets no pane', async () => {
  if (!hasPty()) return console.log('skipped: no pty')
  mock = await startMockModel()
  provider = await startMockProvider([
    { match: isJudge, reply: { text: '{"verdict":"allow","reason":"runs the project\'s own script"}' } },
    ...Object.entries(CASES).map(([name, command]) => ({ match: new RegExp(`case ${name}\\b`), reply: { toolCalls: [{ name: 'Bash', arguments: JSON.stringify({ command, description: 'check' }) }] } })),
  ], { text: 'all done' })
  const { home, plugin } = await routedHome(mock, provider)
  const config = routingConfig(provider, { models: { judge: { provider: 'mock', model: JUDGE_MODEL, context: 100000 } } })
  writeConfig(home, { ...config, classifier: { model: 'judge' } })
  const cwd = tmpDir('proj')
  for (const name of 'abcde') writeFileSync(join(cwd, `${name}.mjs`), `console.log('marker-${name}-ran')\n`)
  live = await startLive({ mode: 'tui', pluginDirs: [plugin], mock, home, cwd, extraArgs: ['--model', ALIAS, '--permission-mode', 'auto'] })
  const s = live
  let mark = 0
  const since = () => screenText(s.output().slice(mark))
  const waitScreen = (what: string, text: string) => s.waitFor(what, () => since().includes(text), 60_000).catch((err) => { throw new Error(`${err}\n${since().slice(-2500)}`) })
  /** The tool results the provider got back (each a later request's last message). */
  const results = () => stepRequests(provider!).map((r) => JSON.stringify(r.body.messages.at(-1))).join('\n')
  const judged = () => provider!.requests.filter(isJudge).length
  const start = async (name: keyof typeof CASES) => {
    mark = s.output().length
    await s.send(`case ${name}`)
  }
  /** The n-th review pane is placed and drawn (the debug log: Ink redraws only changed cells, so a pane drawn again is no whole text on screen). */
  const paneUp = (n: number) => s.waitFor(`review pane ${n} drawn`, () => {
    const opens = s.debugLog().split(/ui\.open klyth routing-review \([^)]*\): placed/)
    return opens.length > n && /klyth@inline ui\.render settled .* key=routing-review/.test(opens[n]!)
  }, 60_000)
  const ran = (letter: string) => s.waitFor(`marker-${letter}-ran in a tool result`, () => results().includes(`marker-${letter}-ran`), 60_000)
  /** The engine's own question came (keel did not pass the call): Esc answers it, the call not run. */
  const engineAsked = async (what: string) => {
    await waitScreen(`${what}: the engine's own question`, ENGINE_ASKS)
    await sleep(300)
    s.write('\x1b')
    await waitScreen(`${what}: the prompt again`, 'Interrupted')
  }

  // Allow once: Tab onto the button, Enter.
  await start('allow')
  await paneUp(1)
  await waitScreen('the pane', 'Review action: 8s')
  assert.match(since(), '"command": "node a.mjs"', 'the exact action')
  assert.match(since(), `"cwd": "${cwd}"`)
  s.write('\t')
  await sleep(300)
  s.write('\r')
  await ran('a')
  assert.is(judged(), 0, 'Allow once asked no classifier')

  // A lapse: the classifier is asked, allows, the call runs.
  await start('lapse')
  await paneUp(2)
  await ran('b')
  assert.is(judged(), 1, 'the classifier was asked after the lapse')
  assert.match(JSON.stringify(provider.requests.find(isJudge)!.body.messages), 'node b.mjs')

  // Esc, then Deny: the engine's own question follows, nothing passed, no classifier asked.
  await start('esc')
  await paneUp(3)
  s.write('\x1b')
  await engineAsked('Esc')
  await start('deny')
  await paneUp(4)
  s.write('\t')
  await sleep(300)
  s.write('\t')
  await sleep(300)
  s.write('\r')
  await engineAsked('Deny')
  assert.is(s.debugLog().match(/klyth: auto mode did not pass this Bash call: it was not allowed in the review/g)?.length, 2, 'Esc and Deny')

  // A secret: no pane, the engine's own question.
  await start('secret')
  await engineAsked('secret')
  assert.is(s.debugLog().match(/ui\.open klyth routing-review/g)?.length, 4, 'no pane for the secret')
  assert.match(s.debugLog(), 'klyth: auto mode did not pass this Bash call: it holds a secret')

  assert.is(judged(), 1)
  for (const letter of 'cde') assert.not.ok(results().includes(`marker-${letter}-ran`), letter)
  assert.is(mock.messages().length, 0, 'nothing reached Claude')
})

test.run()
