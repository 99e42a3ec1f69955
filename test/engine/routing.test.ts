// packages: klyth
// Routing through the engine's own host: the test's hooks stand for the engine (its model stream
// beneath turn.step, the config file in keel's home, the plugin store, curl and the key command).
// What the kit cannot stand for is an engine-origin http.fetch (capture): the e2e tests cover that.
import { expect, test, type TestBody } from 'claude-code/testing'
import { filesWorld } from './files-world.ts'

type On = Parameters<TestBody>[1]
type Engine = Parameters<TestBody>[0]

const CONFIG = '/cfg/keel/routing.json'
const USAGE = { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }
const step = (model: string) => ({ turnId: 't1', index: 0, model, messageCount: 3 })

function world(on: On, config: object) {
  const files = new Map([[CONFIG, JSON.stringify(config)]])
  filesWorld(on, files)
  const store = new Map<string, unknown>()
  const seen = { requests: 0, spawned: 0, env: new Map<string, string | undefined>() }
  on('session.start', (_, e) => ({ cwd: e.cwd }))
  on('ui.log', () => ({ value: undefined }))
  on('clock.now', () => ({ value: Date.UTC(2026, 11, 1) }) as never)
  on('ui.status', () => ({ value: undefined }))
  on('command.register', (_, e) => ({ value: { command: e.name } }))
  on('session.id', () => ({ value: 's1' }))
  on('session.info', () => ({ value: { transcriptPath: '/cfg/projects/w/s1.jsonl' } }) as never)
  on('session.model', () => ({ value: 'claude-opus-5-5' }))
  on('env.get', (_, e) => ({ value: e.name === 'CLAUDE_CONFIG_DIR' ? '/cfg' : e.name === 'HOME' ? '/home/u' : undefined }))
  on('env.set', (_, e) => (seen.env.set(e.name, e.value), { value: {} }))
  on('store.get', (_, e) => ({ value: store.get(e.key) }))
  on('store.set', (_, e) => (store.set(e.key, e.value), { value: undefined }))
  on('process.spawn', async function* () {
    seen.spawned++
    return { code: 0, signal: null }
  } as never)
  on('turn.step', async function* (_, e) {
    seen.requests++
    yield { kind: 'text', index: 0, text: 'native' } as never
    yield { kind: 'stop', stopReason: 'end_turn', usage: USAGE } as never
    return { turnId: e.turnId, index: e.index, answer: 'native', toolUses: [], stopReason: 'end_turn', usage: USAGE } as never
  })
  return { seen, store, files }
}

const CONFIGURED = {
  providers: { mock: { api: 'openai-chat', baseUrl: 'http://127.0.0.1:9/v1', auth: 'none' } },
  models: { gpt: { provider: 'mock', model: 'mock-gpt-1', context: 128000, label: 'Mock GPT' }, broken: { provider: 'nowhere', model: 'x', context: 1 } },
}

async function read($: Engine, model: string) {
  const stream = $.turn.step(step(model) as never)
  const texts: string[] = []
  for (;;) {
    const r = await stream.next()
    if (r.done) return { texts, result: r.value as { answer: string; stopReason: string } }
    const c = r.value as { kind: string; text?: string }
    if (c.kind === 'text') texts.push(c.text!)
  }
}

test('a native model\'s step is the engine\'s own, untouched', async ($, on) => {
  const { seen } = world(on, CONFIGURED)
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: false })
  const { texts } = await read($, 'claude-opus-5-5')
  expect(texts).toEqual(['native'])
  expect(seen.requests).toBe(1)
})

test('an alias step has the engine build its request; where no engine request reaches keel, it ends with the capture line, nothing spawned', async ($, on) => {
  // The kit raises no engine-origin http.fetch, as a Bedrock setup or another plugin answering first would
  // not: the refusals keel's http.fetch gives an unapproved or broken alias (NOTES §11.1) are the unit and
  // e2e tests'; here each ends on the line for a request keel never saw.
  const { seen } = world(on, CONFIGURED)
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: false })
  for (const [model, label] of [['gpt', 'Mock GPT'], ['broken', 'broken']] as const) {
    const { texts, result } = await read($, model)
    expect(texts).toEqual([`klyth: ${label} failed: the engine sent no request keel could read within 5 s (a Bedrock or Vertex setup, or a guard that hides engine requests, cannot be routed)`])
    expect(result.stopReason).toBe('end_turn')
  }
  expect(seen.requests).toBe(2)
  expect(seen.spawned).toBe(0)
})

test('/klyth route trust stores the approval by fingerprint; /model gpt then sets the window before the switch', async ($, on) => {
  const { seen, store } = world(on, CONFIGURED)
  const order: string[] = []
  on('command.run', (_, e) => (order.push(`engine ${e.command} ${e.args}`), { text: 'Set model to `gpt` for this session only' }))
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: false })
  const trusted = await $.command.run({ command: 'klyth', args: 'route trust mock' } as never)
  expect((trusted as { text: string }).text).toContain('approved provider mock')
  expect([...store.keys()].some((k) => /^route:trust:[0-9a-f]{64}$/.test(k))).toBe(true)
  const switched = await $.command.run({ command: 'model', args: 'gpt' } as never)
  expect((switched as { text: string }).text).toBe('main now answered by Mock GPT (mock-gpt-1) through klyth; window 128000')
  expect(seen.env.get('CLAUDE_CODE_MAX_CONTEXT_TOKENS')).toBe('128000')
  expect(order).toEqual(['engine model gpt'])
})

test('/model gpt unapproved where no one can be asked: refused with how to approve; the engine\'s switch never runs', async ($, on) => {
  world(on, CONFIGURED)
  const order: string[] = []
  on('command.run', (_, e) => (order.push(`engine ${e.command}`), { text: 'switched' }))
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: false })
  const r = await $.command.run({ command: 'model', args: 'gpt' } as never)
  expect((r as { text: string }).text).toContain('provider mock is not approved yet')
  expect(order).toEqual([])
})

test('/klyth route usage: the text where no surface places a pane; in the terminal UI the usage pane, opened by its id', async ($, on) => {
  world(on, CONFIGURED)
  const opened: string[] = []
  let placed = false
  on('ui.open', (_, e) => (opened.push(e.id), { value: placed ? { isPlaced: true } : { isPlaced: false, reason: 'no surface' } }) as never)
  on('ui.close', () => ({ value: undefined }))
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: false })
  const text = ((await $.command.run({ command: 'klyth', args: 'route usage' } as never)) as { text: string }).text
  expect(text.split('\n')[0]).toBe('this session, by alias:')
  expect(text).toContain('the last 30 days, by alias')
  placed = true
  const pane = ((await $.command.run({ command: 'klyth', args: 'route usage' } as never)) as { text: string }).text
  expect(pane).toBe('the usage pane is open: Esc closes it')
  expect(opened).toEqual(['routing-usage', 'routing-usage'])
})

test('/klyth route setup <line>: the alias merged into routing.json through the safe writer, every other entry kept, routing reloaded with it', async ($, on) => {
  const { files } = world(on, CONFIGURED)
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: false })
  const said = ((await $.command.run({ command: 'klyth', args: 'route setup deepseek ds deepseek-v4-flash 1000000 key=env:DEEPSEEK_API_KEY' } as never)) as { text: string }).text
  const config = JSON.parse(files.get(CONFIG)!) as { providers: Record<string, unknown>; models: Record<string, { provider: string; model: string; context: number }> }
  expect(Object.keys(config.models).sort()).toEqual(['broken', 'ds', 'gpt'])
  expect(config.models.ds).toMatchObject({ model: 'deepseek-v4-flash', context: 1000000 })
  expect(Object.keys(config.providers)).toContain('mock')
  expect(said).toContain('ds')
  const status = ((await $.command.run({ command: 'klyth', args: 'route status' } as never)) as { text: string }).text
  expect(status).toContain('ds')
})

test('the agent tool is registered at session start with the configured aliases as its model choices, each with its label', async ($, on) => {
  world(on, CONFIGURED)
  const tools: { name: string; description: string; inputSchema: { properties: { model: { enum: string[] } } } }[] = []
  on('tool.register', (_, e) => (tools.push(e as never), { value: { tool: `mcp__klyth__${e.name}` } }))
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: false })
  const agent = tools.find((t) => t.name === 'agent')
  expect(agent?.inputSchema.properties.model.enum).toEqual(['gpt'])
  expect(agent?.description).toContain('Mock GPT')
})
