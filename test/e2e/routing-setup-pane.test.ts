// The setup pane in the terminal UI (issue 19 part 3, klyth F24), driven by keys in a pty and read off
// the screen: `/klyth route setup` opens it; the preset picked moves the base URL's hint to its own; bad
// fields are named in the pane and nothing is written; fixed, Set up writes routing.json beside what
// it held; `/model ds` asks the trust question, and the turn right after is routed.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel } from './mock-model.ts'
import { startMockProvider, type MockProvider } from './mock-provider.ts'
import { cleanupTmp, packageCopy, tmpDir } from './engine.ts'
import { hasPty, startLive, type LiveSession } from './live.ts'
import { press, screenText, sleep } from './probe-kit.ts'
import { stepRequests } from './routing-kit.ts'

const DS_KEY = 'sk-test-e2e-PANE-KEY-0019'
const TAB = '\t'
const BACK_TAB = '\x1b[Z'
const DOWN = '\x1b[B'

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

test('the setup pane: a preset picked, bad fields named in the pane, then Set up writes the alias; /model asks the trust question; the next turn is routed', async () => {
  if (!hasPty()) return console.log('skipped: no pty')
  mock = await startMockModel()
  provider = await startMockProvider([{ match: /hello from the pane/, reply: { text: ['PANE-', 'ROUTED-', 'ANSWER'] } }])
  const plugin = packageCopy('klyth')
  const home = tmpDir('home')
  const file = join(home, '.claude/keel/routing.json')
  live = await startLive({ mode: 'tui', pluginDirs: [plugin], mock, home, env: { DEEPSEEK_API_KEY: DS_KEY } })
  const s = live
  /** The screen drawn since `mark` (the stream so far is kept whole: earlier drawings must not count). */
  let mark = 0
  const since = () => screenText(s.output().slice(mark))
  const waitScreen = (what: string, text: string | RegExp) =>
    s.waitFor(what, () => (typeof text === 'string' ? since().includes(text) : text.test(since())), 30_000).catch((err) => {
      throw new Error(`${err}\n${since().slice(-2500)}`)
    })
  const keys = (...pieces: string[]) => press(s, ...pieces)

  await s.send('/klyth route setup')
  await waitScreen('the pane', 'key kept in: env:NAME, file:/path, cmd:COMMAND or none')
  assert.match(since(), 'base URL: https://api.openai.com/v1', "the first preset's base URL is the hint")
  // The provider: the list opens, down to deepseek (the fourth), picked.
  await keys(TAB, DOWN, DOWN, DOWN)
  mark = s.output().length
  await keys('\r')
  // The terminal redraws only the cells that change (the hint's `openai` → `deepseek` is drawn as `de…pseek`):
  // the picked value is drawn whole.
  await waitScreen('deepseek picked', 'deepseek ▾')
  // alias, no model, the mock's base URL, a context that is no number, the key's variable; Enter sets up.
  await keys(TAB, 'ds', TAB, TAB, `${provider.url}/v1`, TAB, 'lots', TAB, 'env:DEEPSEEK_API_KEY')
  mark = s.output().length
  await keys('\r')
  await waitScreen('the bad fields named', 'models.ds.context: must be a positive whole number of tokens')
  assert.match(since(), 'nothing was written:')
  assert.match(since(), 'models.ds.model: missing')
  assert.not.ok(existsSync(file), 'nothing written')
  // The context fixed, the model given; Enter in the key field sets up.
  await keys(BACK_TAB, '\x7f'.repeat(4), '1000000', BACK_TAB, BACK_TAB, 'deepseek-v4-flash', TAB, TAB, TAB)
  mark = s.output().length
  await keys('\r')
  await waitScreen('set up', '3. /model ds')
  assert.match(since(), "export DEEPSEEK_API_KEY='<your key>'")
  const written = JSON.parse(readFileSync(file, 'utf8'))
  assert.equal(written, {
    providers: { ds: { preset: 'deepseek', baseUrl: `${provider.url}/v1`, auth: { env: 'DEEPSEEK_API_KEY' } } },
    models: { ds: { provider: 'ds', model: 'deepseek-v4-flash', context: 1000000 } },
  })

  // The pane closed with Esc; /model ds asks the trust question, Allow; the turn is routed.
  await keys('\x1b')
  mark = s.output().length
  await s.send('/model ds')
  await waitScreen('the trust question', `Send this conversation to ds at ${provider.url}/v1?`)
  await sleep(500)
  await keys('\r')
  await waitScreen('the switch', /Set model to .?ds/)
  await s.send('hello from the pane')
  await waitScreen('the routed answer', 'PANE-ROUTED-ANSWER')
  const [req] = stepRequests(provider)
  assert.is(req?.headers.authorization, `Bearer ${DS_KEY}`)
  assert.is(mock.messages().length, 0, 'nothing reached Claude')
})

test.run()
