// The routing feature's /model hook, the leave note, the route verbs and the status lines, over a
// fake port: approval asked before the switch, the window set before it, the output rewritten or a
// toast; native Claude told once which turns another model answered.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { SAVED_AS_DEFAULT } from '../../../src/features/routing/strings.ts'
import { fakeNext, macrotask } from '../fakes.ts'
import { fakeChild, SSE_HEAD } from './fake-child.ts'
import { fakeFiles } from '../fake-files.ts'
import { approve, capturing, CONFIG, CONFIG_PATH, KEY, PLUGIN_DATA, routingWorld, start, stepEvent, stepHook, type Routing, type World } from './fake-port.ts'
import { fixture } from './fixtures/read.ts'
import { OLLAMA_API_PS } from '../../fixtures/providers/ollama.ts'

type CommandResult = { text?: string; ref?: string; passed?: unknown }

/** /<command> <args> through the hook; the engine beneath records that it ran and answers `answer`. */
async function command(r: Routing, name: string, args: string, answer: object = { ref: 'r1', text: `Set model to \`${args}\` for this session only` }) {
  const ran: unknown[] = []
  const next = fakeNext((e: { command: string; args: string }) => {
    ran.push(e)
    r.w.events.push(`next ${e.command} ${e.args}`)
    if (e.command === 'model') r.w.main = e.args
    return answer
  })
  const e = { command: name, args, origin: { kind: 'sdk' }, presentation: { layout: 'main', columns: 80 } }
  const result = (await r.hooks['command.run']!(r.port, e, next, r.ctx)) as CommandResult
  return { result, ran }
}
const verb = (r: Routing, args: string) => r.feature.verbs!.route!.run(r.port, args, r.ctx) as Promise<string>
const status = async (r: Routing) => (await r.feature.status!(r.port, r.ctx)) as string[]
async function started(over: Partial<World> = {}) {
  const r = routingWorld(over)
  await start(r)
  return r
}

// ---- /model ----

test('/model of an alias on a local server that reports less context than the alias says: the switch says so; a server that does not say, nothing', async () => {
  const local = { providers: { ...CONFIG.providers, box: { preset: 'ollama', auth: 'none' } }, models: { ...CONFIG.models, qwen: { provider: 'box', model: 'qwen2.5-coder:14b', context: 128000 } } }
  const r = await started({ files: new Map([[CONFIG_PATH, JSON.stringify(local)]]), web: new Map([['http://localhost:11434/api/ps', OLLAMA_API_PS]]) })
  await approve(r.w, 'box')
  const { result } = await command(r, 'model', 'qwen')
  assert.match(String(result.text), /window 128000; but ollama reports \d+ tokens of context for it: past that the server cuts the conversation/)
  assert.ok(r.w.events.includes('fetch http://localhost:11434/api/ps'))
  const quiet = await started({ files: new Map([[CONFIG_PATH, JSON.stringify(local)]]) })
  await approve(quiet.w, 'box')
  assert.is((await command(quiet, 'model', 'qwen')).result.text, 'main now answered by qwen (qwen2.5-coder:14b) through klyth; window 128000')
  assert.is((await command(r, 'model', 'gpt-5')).result.text, 'main now answered by GPT-5 (gpt-5-2025) through klyth; window 400000', 'a cloud provider is not asked')
})

test('/model of another command, or before session.start, passes through', async () => {
  const r = await started()
  const other = await command(r, 'rename', 'gpt-5', { text: 'renamed' })
  assert.equal([other.result, other.ran.length], [{ text: 'renamed' }, 1])
  const fresh = routingWorld()
  const early = await command(fresh, 'model', 'gpt-5')
  assert.equal([early.ran.length, fresh.w.asks, fresh.w.windows], [1, [], []])
})

test('/model of an unapproved alias: asked first; Allow approves, sets the window before the switch, and rewrites the output', async () => {
  const r = await started()
  const { result, ran } = await command(r, 'model', ' gpt-5 ')
  assert.equal(r.w.asks, [{ question: 'Send this conversation to GPT-5 at https://api.example.com/v1?', options: ['Allow', 'Deny'] }])
  assert.equal(r.w.events, ['ask', 'window 400000', 'next model  gpt-5 '], 'the window before the switch: the engine prints no 1M notice')
  assert.equal(ran.length, 1)
  assert.equal(result, { ref: 'r1', text: 'main now answered by GPT-5 (gpt-5-2025) through klyth; window 400000' })
  assert.equal([...r.w.store.values()], [true], 'the approval is kept')
  assert.equal(r.w.statuses, ['klyth → GPT-5 · example'])
  // Asked once: the next switch to any alias of that provider goes straight through.
  r.w.events.length = 0
  await command(r, 'model', 'gpt-5')
  assert.equal([r.w.asks.length, r.w.events], [1, ['window 400000', 'next model gpt-5']])
  // Approval outlives the registration: a new one reads it from the store.
  const again = routingWorld({ store: r.w.store })
  await start(again)
  await command(again, 'model', 'gpt-5')
  assert.equal(again.w.asks, [])
})

test('/model: Deny or a dismissed dialog leaves the model unchanged; headless (no one to ask) says how to approve', async () => {
  const denied = await started({ answer: 'Deny' })
  const d = await command(denied, 'model', 'gpt-5')
  assert.equal(d.result, { text: 'provider example was not approved; the model is unchanged' })
  assert.equal([d.ran, denied.w.windows, [...denied.w.store.keys()]], [[], [], []])
  const headless = await started({ answer: new Error('no one to ask in a -p run') })
  const h = await command(headless, 'model', 'gpt-5')
  assert.equal(h.result, { text: 'provider example is not approved yet: nothing is sent to GPT-5 at https://api.example.com/v1 until you run /klyth route trust example; the model is unchanged' })
  assert.equal([h.ran, headless.w.windows], [[], []])
})

test('/model in the terminal UI: the engine draws its own text, so the switch is told in a toast', async () => {
  const r = await started()
  await approve(r.w, 'example')
  const { result } = await command(r, 'model', 'gpt-5', { ref: 'r2' })
  assert.equal(result, { ref: 'r2' })
  assert.equal(r.w.toasts, [`main now answered by GPT-5 (gpt-5-2025) through klyth; window 400000; ${SAVED_AS_DEFAULT}`])
  assert.equal(r.w.asks, [])
  await command(r, 'model', 'gpt-5', { ref: 'r3', text: 42 })
  assert.is(r.w.toasts.length, 2, 'a text that is no string is no text')
})

test('/model of a name the config no longer routes: refused with why; of a native model: passed, and the status line cleared', async () => {
  const r = await started({ main: 'gpt-5' })
  assert.equal(r.w.statuses, ['klyth → GPT-5 · example'])
  const native = await command(r, 'model', 'opus')
  assert.equal(native.ran.length, 1)
  assert.equal(native.result, { ref: 'r1', text: 'Set model to `opus` for this session only' })
  assert.equal(r.w.statuses, ['klyth → GPT-5 · example', undefined])
  r.w.files.set(CONFIG_PATH, JSON.stringify({ ...CONFIG, models: { kimi: CONFIG.models.kimi } }))
  await verb(r, 'reload')
  const gone = await command(r, 'model', 'gpt-5')
  assert.equal(gone.result, { text: `gpt-5 cannot be routed: gpt-5 is not configured (${CONFIG_PATH}); use /model to pick another` })
  assert.equal(gone.ran, [])
  // The main model unreadable after a native switch: the status line is cleared all the same.
  r.w.main = new Error('gone')
  r.w.statuses.length = 0
  await r.hooks['command.run']!(r.port, { command: 'model', args: 'sonnet' }, fakeNext(() => ({ ref: 'r' })), r.ctx)
  assert.equal(r.w.statuses, [], 'nothing was shown, nothing to clear')
})

// ---- The leave note ----

test('the leave note: main turns an alias answered are counted, and the first prompt with native main says so once', async () => {
  const r = await started({ main: 'gpt-5' })
  const complete = (e: object) => r.hooks['turn.complete']!(r.port, { turnId: 't', answer: '', reason: 'answer', ...e }, fakeNext((x: unknown) => ({ completed: x })), r.ctx)
  const submit = async (e: object = {}) => {
    const seen: { context?: readonly string[] }[] = []
    await r.hooks['prompt.submit']!(r.port, { text: 'hi', ...e }, fakeNext((x: { context?: readonly string[] }) => (seen.push(x), {})), r.ctx)
    return seen[0]!
  }
  await complete({ usage: { model: 'gpt-5', input_tokens: 1, output_tokens: 1 } })
  await complete({ usage: { model: 'gpt-5', input_tokens: 1, output_tokens: 1 } })
  await complete({ agentId: 'a1', usage: { model: 'gpt-5' } })
  await complete({ usage: { model: 'claude-opus-5-5' } })
  await complete({})
  assert.equal(await submit(), { text: 'hi' }, 'main still routed: no note yet')
  r.w.main = 'claude-opus-5-5'
  const noted = await submit({ context: ['the person\'s own'] })
  assert.equal(noted.context, ['the person\'s own', 'the previous 2 assistant turns were answered by GPT-5 (gpt-5-2025) through klyth, not by you'])
  assert.equal(await submit(), { text: 'hi' }, 'once')
  r.w.main = 'gpt-5'
  await complete({ usage: { model: 'gpt-5' } })
  r.w.main = 'claude-opus-5-5'
  assert.equal((await submit()).context, ['the previous assistant turn was answered by GPT-5 (gpt-5-2025) through klyth, not by you'])
  // turn.complete passes its own result on.
  assert.equal(await complete({ usage: { model: 'gpt-5' } }), { completed: { turnId: 't', answer: '', reason: 'answer', usage: { model: 'gpt-5' } } })
  const fresh = routingWorld()
  await fresh.hooks['turn.complete']!(fresh.port, { usage: { model: 'gpt-5' } }, fakeNext(() => ({})), fresh.ctx)
  const passed = await fresh.hooks['prompt.submit']!(fresh.port, { text: 'x' }, fakeNext((x: unknown) => ({ passed: x })), fresh.ctx)
  assert.equal(passed, { passed: { text: 'x' } }, 'before session.start nothing is counted')
})

// ---- The route verbs ----

test('route status (the default verb) is the status lines; an unknown verb names the usage', async () => {
  const r = await started()
  const lines = await status(r)
  assert.is(await verb(r, 'status'), lines.join('\n'))
  assert.is(await verb(r, '  '), lines.join('\n'))
  assert.is(await verb(r, 'frobnicate now'), 'unknown route verb "frobnicate"; use route status | route usage | route trust <provider> | route reload | route setup')
})

test('route trust: which provider, an unknown one, approved, already approved; with no config', async () => {
  const r = await started()
  assert.is(await verb(r, 'trust'), 'name the provider to approve: example, moon')
  assert.is(await verb(r, 'trust nowhere'), 'no provider "nowhere" in the config (configured: example, moon)')
  assert.is(await verb(r, 'trust example'), 'approved provider example: conversations routed to it go to https://api.example.com/v1, key from $EXAMPLE_KEY. Editing its baseUrl, auth or headers asks again.')
  assert.is(await verb(r, 'trust  example'), 'example: already approved')
  assert.ok((await status(r)).includes('provider example: openai-chat at https://api.example.com/v1; approved; key from $EXAMPLE_KEY (not read yet)'))
  assert.ok((await status(r)).includes('provider moon: anthropic-messages at https://api.moon.example/anthropic; not approved; key from the command /usr/bin/pass (not read yet)'))
  // An edited entry is a new fingerprint: asked again.
  r.w.files.set(CONFIG_PATH, JSON.stringify({ ...CONFIG, providers: { ...CONFIG.providers, example: { ...CONFIG.providers.example, baseUrl: 'https://proxy.example/v1' } } }))
  await verb(r, 'reload')
  assert.ok((await status(r)).some((l) => l.startsWith('provider example:') && l.includes('; not approved;')))
  const none = await started({ files: new Map() })
  assert.is(await verb(none, 'trust'), 'no provider is configured; see the README for routing.json')
  assert.is(await verb(none, 'trust example'), 'no provider "example" in the config')
})

test('route reload: the config read again, keys forgotten, curl checked again', async () => {
  const r = await started()
  await approve(r.w, 'example')
  r.w.children.push(fakeChild().out(SSE_HEAD, fixture('openai-text.txt')).exit(0))
  await stepHook(r, stepEvent(), capturing(r).beneath)
  assert.equal(r.w.runs.length, 2)
  r.w.files.set(CONFIG_PATH, JSON.stringify({ ...CONFIG, models: { 'gpt-5': CONFIG.models['gpt-5'] } }))
  assert.is(await verb(r, 'reload'), `routing config read again: config: ${CONFIG_PATH} (2 providers, 1 alias)`)
  const lines = await status(r)
  assert.ok(lines.includes('provider example: openai-chat at https://api.example.com/v1; approved; key from $EXAMPLE_KEY (not read yet)'), lines.join('\n'))
  assert.ok(lines.includes('curl: /usr/bin/curl (checked at the first routed request)'))
  assert.ok(lines.includes('this session: 1 routed step, 0 other routed requests, 0 failed'), 'the session\'s counts stay')
  r.w.children.push(fakeChild().out(SSE_HEAD, fixture('openai-text.txt')).exit(0))
  await stepHook(r, stepEvent(), capturing(r).beneath)
  assert.equal(r.w.runs.map((a) => a[0]), ['/usr/bin/curl', '/usr/bin/printenv', '/usr/bin/curl', '/usr/bin/printenv'])
  assert.equal(r.w.reads.filter((p) => !p.includes('/keel/usage/')), [CONFIG_PATH, CONFIG_PATH], 'the config read twice (beside it, the session\'s usage file)')
})

test('route setup: the steps; a line added to the file by the safe writer, routing reloaded with it, the key\'s step; a refusal writes nothing', async () => {
  const disk = fakeFiles({ [CONFIG_PATH]: JSON.stringify(CONFIG) }, ['/cfg', PLUGIN_DATA])
  const r = await started({ disk, files: disk.files })
  const steps = await verb(r, 'setup')
  assert.match(steps, '/klyth route setup <preset|openai-compatible|anthropic-compatible> <alias> <model> [baseUrl] <context> key=')
  assert.match(steps, '\n  deepseek: openai-chat at https://api.deepseek.com\n')
  assert.match(steps, '\n  kimi: anthropic-messages at https://api.moonshot.ai/anthropic\n')
  const done = await verb(r, 'setup  deepseek ds deepseek-v4-flash 1000000 key=env:DEEPSEEK_API_KEY')
  assert.is(done.split('\n')[0], `added ds (its provider: ds) to ${CONFIG_PATH}; routing config read again: config: ${CONFIG_PATH} (3 providers, 3 aliases)`)
  assert.match(done, "export DEEPSEEK_API_KEY='<your key>'")
  assert.match(done, '2. approve the provider: /model ds asks you, or /klyth route trust ds\n3. /model ds')
  const file = JSON.parse(disk.files.get(CONFIG_PATH)!)
  assert.equal([file.providers.example, file.providers.moon, file.models['gpt-5'], file.models.kimi], [CONFIG.providers.example, CONFIG.providers.moon, CONFIG.models['gpt-5'], CONFIG.models.kimi])
  assert.equal(file.providers.ds, { preset: 'deepseek', auth: { env: 'DEEPSEEK_API_KEY' } })
  assert.ok((await status(r)).includes('alias ds: ds = ds deepseek-v4-flash, window 1000000; dialect: emptyReasoning'), 'routing reads the new alias')
  const text = disk.files.get(CONFIG_PATH)
  assert.is(await verb(r, 'setup deepseek ds m 5 key=env:K'), 'nothing was written:\n  providers.ds is already in routing.json; pick another alias (setup never replaces an entry)\n  models.ds is already in routing.json; pick another alias (setup never replaces an entry)\nthe form: /klyth route setup <preset|openai-compatible|anthropic-compatible> <alias> <model> [baseUrl] <context> key=<cmd:COMMAND|env:NAME|file:PATH|none>')
  assert.match(await verb(r, 'setup deepseek ds2 m 5'), 'nothing was written:\n  key= is missing')
  assert.is(disk.files.get(CONFIG_PATH), text, 'a refused line leaves the file as it was')
  // No file yet: keel's home is made with it.
  const empty = fakeFiles({}, ['/cfg', PLUGIN_DATA])
  const fresh = await started({ disk: empty, files: empty.files })
  assert.match(await verb(fresh, 'setup ollama local llama3 8192 key=none'), /^added local .*\(1 provider, 1 alias\)\n1\. in your own terminal, not here: nothing to store/)
  assert.equal(JSON.parse(empty.files.get(CONFIG_PATH)!).models, { local: { provider: 'local', model: 'llama3', context: 8192 } })
})

type Drawn = { type: string; props: Record<string, any> & { children?: Drawn[] } }
test('the setup pane: opened where a surface places it (else the steps); drawn from its fields; a bad field named in it, then Set up writes the file', async () => {
  const disk = fakeFiles({}, ['/cfg', PLUGIN_DATA])
  const r = await started({ disk, files: disk.files, paneOpens: true })
  const render = { component: 'Pane', requestId: 'routing-setup', props: {} }
  const draw = () => r.hooks['ui.render']!(r.port, render, fakeNext(() => 'beneath'), r.ctx) as unknown as Drawn
  assert.is(await draw(), 'beneath' as never, 'no pane opened yet: drawn beneath')
  assert.is(await verb(r, 'setup'), 'the setup pane is open: pick the provider, fill in the fields, then Set up')
  const tree = () => draw().props.children!
  const field = (key: string) => tree().find((el) => el.props.key === key)!
  assert.equal(tree().map((el) => `${el.type} ${el.props.key ?? ''}`), ['Select kind', 'Input alias', 'Input model', 'Input baseUrl', 'Input context', 'Input key', 'Button setup', 'Text '])
  assert.is(field('kind').props.options.length, 19, 'every preset and the two other kinds')
  assert.is(field('baseUrl').props.placeholder, 'https://api.openai.com/v1', "the first preset's base URL is the hint")
  field('kind').props.onSelect('ollama')
  assert.is(field('baseUrl').props.placeholder, 'http://localhost:11434/v1')
  assert.is(field('kind').props.value, 'ollama')
  for (const [key, value] of [['alias', 'local'], ['model', 'llama3'], ['context', 'many'], ['key', 'none']]) field(key!).props.onInput(value)
  /** Set up runs off the press: polled until the pane's answer changes (a second at most). */
  const said = () => tree().at(-1)!.props.children as unknown as string
  const answered = async (before: string) => {
    for (let i = 0; i < 200 && said() === before; i++) await macrotask()
    return said()
  }
  field('setup').props.onPress()
  assert.match(await answered(''), 'nothing was written:\n  models.local.context: must be a positive whole number of tokens')
  assert.is(disk.files.get(CONFIG_PATH), undefined)
  const refused = said()
  field('context').props.onSubmit('8192')
  assert.match(await answered(refused), /^added local \(its provider: local\)/)
  assert.equal(JSON.parse(disk.files.get(CONFIG_PATH)!).models.local, { provider: 'local', model: 'llama3', context: 8192 })
  assert.ok(r.w.events.filter((e) => e === 'redraw').length >= 3, 'drawn again after the pick and each answer')
  // Headless: no surface places it, the steps as text.
  const headless = await started()
  assert.match(await verb(headless, 'setup'), /^Set up a routed model with one line:/)
  assert.ok(headless.w.events.includes('pane open false routing-setup: Set up a routed model'))
})

// ---- Status ----

test('status: main routed or native or unknown, a store that fails reads as not approved, the key never shown', async () => {
  const r = await started({ main: 'gpt-5' })
  await approve(r.w, 'example')
  r.w.children.push(fakeChild().out(SSE_HEAD, fixture('openai-text.txt')).exit(0))
  await stepHook(r, stepEvent(), capturing(r).beneath)
  assert.equal(await status(r), [
    `config: ${CONFIG_PATH} (2 providers, 2 aliases)`,
    'provider example: openai-chat at https://api.example.com/v1; approved; key from $EXAMPLE_KEY (ok)',
    '  no preset, and no known provider at this base URL: plain OpenAI or Anthropic format',
    'provider moon: anthropic-messages at https://api.moon.example/anthropic; not approved; key from the command /usr/bin/pass (not read yet)',
    '  no preset, and no known provider at this base URL: plain OpenAI or Anthropic format',
    'alias gpt-5: GPT-5 = example gpt-5-2025, window 400000',
    'alias kimi: Kimi K2 = moon kimi-k2, window 128000',
    'main: gpt-5 (routed to GPT-5)',
    'this session: 1 routed step, 0 other routed requests, 0 failed',
    'auto mode: no classifier (off); passed 0, refused 0',
    'curl: /usr/bin/curl 7.88.1 (body sent as json pieces)',
  ])
  assert.not.ok((await status(r)).join('\n').includes(KEY))
  r.w.main = 'claude-opus-5-5'
  assert.ok((await status(r)).includes('main: claude-opus-5-5 (native)'))
  r.w.main = new Error('no session')
  assert.not.ok((await status(r)).some((l) => l.startsWith('main:')))
  // A fresh registration whose store fails: every provider reads as not approved.
  const down = await started({ storeFails: true })
  assert.equal((await status(down)).filter((l) => l.startsWith('provider')).map((l) => l.includes('; not approved;')), [true, true])
  const before = routingWorld()
  assert.equal(await status(before), [
    'config: routing.json (not there: routing is off until it exists)',
    'main: claude-opus-5-5 (native)',
    'this session: 0 routed steps, 0 other routed requests, 0 failed',
    'auto mode: no classifier (off); passed 0, refused 0',
    'curl: /usr/bin/curl (checked at the first routed request)',
  ])
})

test('the feature\'s declaration: its name, one package per session, the engine command it hears, its verb', () => {
  const r = routingWorld()
  assert.is(r.feature.name, 'routing')
  assert.is(r.feature.sessionActing, true)
  assert.equal(r.feature.commands, ['model'])
  assert.equal(Object.keys(r.feature.hooks).sort(), ['agent.spawn', 'command.run', 'http.fetch', 'prompt.submit', 'session.end', 'session.start', 'tool.call', 'tool.check', 'tool.judge', 'turn.complete', 'turn.step', 'ui.render'])
  assert.is(r.feature.verbs!.route!.usage, 'route status | route usage | route trust <provider> | route reload | route setup')
})

test.run()
