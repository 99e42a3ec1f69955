// `/klyth route setup` end to end, headless (issue 19 part 3): the steps printed; one line adding a
// DeepSeek alias (its base URL the mock provider's) to a routing.json that already holds another
// provider and alias; the file it wrote; the provider approved as the text says; a routed turn right
// after with the key from the environment; the same line again refused, the file left as it was.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readFileSync } from 'node:fs'
import { startMockModel, type MockModel } from './mock-model.ts'
import { startMockProvider, type MockProvider } from './mock-provider.ts'
import { cleanupTmp, packageCopy, runClaude, tmpDir, type RunOptions } from './engine.ts'
import { everyFile, routingConfig, stepRequests, writeConfig } from './routing-kit.ts'

/** The key the person keeps in their environment (the other provider's key sits in its command line in routing.json). */
const DS_KEY = 'sk-test-e2e-SETUP-KEY-0019'

let mock: MockModel | undefined
let provider: MockProvider | undefined
test.after.each(async () => {
  await mock?.close()
  await provider?.close()
  mock = provider = undefined
})
test.after(() => cleanupTmp())

test('route setup: the steps, a line merged into routing.json, the provider approved, a routed turn right after; the line again is refused', async () => {
  mock = await startMockModel()
  provider = await startMockProvider([{ match: /hello/, reply: { text: ['set up ', 'and routed'], usage: { input: 40, cached: 0, output: 3 } } }])
  const home = tmpDir('home')
  const file = writeConfig(home, routingConfig(provider))
  const before = JSON.parse(readFileSync(file, 'utf8'))
  const plugin = packageCopy('klyth')
  const run = async (prompt: string, more: Partial<RunOptions> = {}) => {
    const r = await runClaude({ prompt, pluginDirs: [plugin], mock: mock!, home, ...more })
    assert.is(r.code, 0, `${prompt}: ${r.stdout.slice(-600)}\n${r.stderr.slice(-600)}`)
    return String(r.json?.result)
  }

  const steps = await run('/klyth route setup')
  assert.match(steps, '/klyth route setup <preset|openai-compatible|anthropic-compatible> <alias> <model> [baseUrl] <context> key=<cmd:COMMAND|env:NAME|file:PATH|none>')
  assert.match(steps, '  deepseek: openai-chat at https://api.deepseek.com\n')

  const line = `/klyth route setup deepseek ds deepseek-v4-flash ${provider.url}/v1 1000000 key=env:DEEPSEEK_API_KEY`
  const said = await run(line)
  assert.match(said, `added ds (its provider: ds) to ${file}; routing config read again: config: ${file} (2 providers, 2 aliases)`)
  assert.match(said, "1. in your own terminal, not here: add export DEEPSEEK_API_KEY='<your key>' to your shell profile")
  assert.match(said, '2. approve the provider: /model ds asks you, or /klyth route trust ds\n3. /model ds')
  const text = readFileSync(file, 'utf8')
  const written = JSON.parse(text)
  assert.equal([written.providers.mock, written.models.gpt], [before.providers.mock, before.models.gpt], 'the entries already there are as they were')
  assert.equal(written.providers.ds, { preset: 'deepseek', baseUrl: `${provider.url}/v1`, auth: { env: 'DEEPSEEK_API_KEY' } })
  assert.equal(written.models.ds, { provider: 'ds', model: 'deepseek-v4-flash', context: 1000000 })

  assert.match(await run('/klyth route trust ds'), `approved provider ds: conversations routed to it go to ${provider.url}/v1, key from $DEEPSEEK_API_KEY.`)
  const nativeBefore = mock.requests.length
  assert.is(await run('hello there', { extraArgs: ['--model', 'ds'], env: { DEEPSEEK_API_KEY: DS_KEY } }), 'set up and routed')
  assert.is(mock.requests.length, nativeBefore, 'the routed turn sent nothing to Claude')
  const [req] = stepRequests(provider)
  assert.ok(req, 'the provider got the step')
  assert.is(req!.body.model, 'deepseek-v4-flash')
  assert.is(req!.headers.authorization, `Bearer ${DS_KEY}`)
  assert.not.match(everyFile(home), DS_KEY, 'the key is in no file: it came from the environment')

  const again = await run(line)
  assert.match(again, 'nothing was written:\n  providers.ds is already in routing.json; pick another alias (setup never replaces an entry)')
  assert.is(readFileSync(file, 'utf8'), text, 'the file is as the first setup left it')
})

test.run()
