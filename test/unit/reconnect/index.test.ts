// The feature's hooks over a fake port: registration, the call, the turn-end step, the status.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { ReconnectPort as Port } from '../../../src/features/reconnect/bind.ts'
import { createFacts, type Facts } from '../../../src/runtime/facts.ts'
import { hooksOf } from '../fakes.ts'
import { createRegistry, type FeatureContext } from '../../../src/registry.ts'
import { createReconnectFeature } from '../../../src/features/reconnect/index.ts'

type Fake = {
  servers: string[]
  own?: string
  registerFails?: boolean
  usageFails?: boolean
  listed: string[]
  commandAnswer: { text?: string }
  /** The servers `$.mcp.connect` holds connected, by their real names; default: `servers`. */
  connected?: string[]
}

function fakePort(pkg: string, fake: Fake) {
  const seen = { registered: [] as { name: string; description: string }[], commands: [] as string[], submitted: [] as string[], logs: [] as string[], notices: [] as string[] }
  const timers: (() => void)[] = []
  const port = {
    pkg,
    log: (l: string) => seen.logs.push(l),
    notice: (l: string) => seen.notices.push(l),
    usage: async () => {
      if (fake.usageFails) throw new Error('usage down')
      return { context: { breakdown: { mcpTools: fake.servers.map((s) => ({ name: `mcp__${s}__t`, serverName: s })) } } }
    },
    // The package's own name answers for its own server; any other name by what the session runs (real names).
    connection: async (server: string) => (server === pkg
      ? (fake.own ? { isConnected: true, server: fake.own } : { isConnected: false, reason: 'unlisted', message: `no ${server}` })
      : (fake.connected ?? fake.servers).includes(server) ? { isConnected: true, server } : { isConnected: false, reason: 'unlisted', message: `no ${server}` }),
    registerTool: async (spec: { name: string; description: string }) => {
      if (fake.registerFails) throw new Error('not bound')
      seen.registered.push(spec)
      return `mcp__${pkg}__${spec.name}`
    },
    listTools: async () => fake.listed,
    reconnect: async (server: string) => (seen.commands.push(`mcp reconnect ${server}`), fake.commandAnswer),
    submitPrompt: async (text: string) => (seen.submitted.push(text), { text }),
    now: async () => 0,
    after: (_ms: number, fn: () => void) => { timers.push(fn) },
  } as unknown as Port
  const fire = async () => {
    for (let round = 0; round < 30 && timers.length; round++) {
      for (const fn of timers.splice(0)) fn()
      for (let i = 0; i < 50; i++) await Promise.resolve()
    }
  }
  // The runtime's facts over this port: the own server as `$.mcp.connect(<pkg>)` resolves it.
  const facts = createFacts()
  facts.bind({
    sessionId: async () => 'session-1',
    // The runtime's summary read, over the same fake usage as the port's own.
    summary: () => port.usage(),
    ownServer: async () => {
      const conn = await port.connection(pkg)
      return conn.isConnected && conn.server.startsWith(`plugin:${pkg}:`) ? conn.server : undefined
    },
  })
  worlds.set(port, { seen, facts })
  return { port, seen, fire, facts }
}

const worlds = new WeakMap<object, { seen: { logs: string[] }; facts: Facts }>()
let reconnectFeature = createReconnectFeature()
let hooks = hooksOf(reconnectFeature)
/** The context the runtime hands the feature over this port: lines prefixed as the feature declares. */
function ctxOn(port: object, pkg: string, reconnectServers: string): FeatureContext {
  const world = worlds.get(port)!
  const prefix = reconnectFeature.logPrefix!(pkg)
  return { pkg, options: { reconnect: true, reconnectServers }, defaults: {}, facts: world.facts, log: (l) => void world.seen.logs.push(prefix + l), compact: async () => ({ messages: [] }) as never }
}
const next = ((e: unknown) => Promise.resolve({ passed: e })) as never
const MEASURE = { context: { tokens: 1000, window: 200000 }, rateLimits: [], changed: ['context'] }

async function started(pkg: string, option: string, fake: Partial<Fake> = {}) {
  const f: Fake = { servers: ['fixture'], listed: ['mcp__fixture__t'], commandAnswer: {}, ...fake }
  reconnectFeature = createReconnectFeature()
  hooks = hooksOf(reconnectFeature)
  const h = fakePort(pkg, f)
  await hooks['session.start']!(h.port, { cwd: '/w' } as never, next, ctxOn(h.port, pkg, option))
  return { ...h, fake: f }
}

const call = (h: { port: Port }, input: object) => hooks['tool.call']!(h.port, { tool_use_id: 'u', ...input } as never, next, ctxOn(h.port, 'ws', '*'))
const status = (h: { port: Port }, pkg = 'ws') => reconnectFeature.status!(h.port, ctxOn(h.port, pkg, '*')) as string[]

test('"*": registered at start; a call is recorded and the step runs at the turn end', async () => {
  const h = await started('ws', '*')
  assert.is(h.seen.registered.length, 1)
  // The servers are read off the start's path (they connect after it): none is named at registration.
  assert.ok(h.seen.registered[0]!.description.includes('any MCP server of this session'), h.seen.registered[0]!.description)
  assert.not.ok(h.seen.registered[0]!.description.includes('"fixture"'))
  const r = await call(h, { tool: 'mcp__ws__request_mcp_reconnect', continue: true })
  assert.ok(String((r as { result: string }).result).startsWith('Reconnect requested.'))
  assert.ok(status(h).includes('pending: "fixture" at the next turn end, then resume'), status(h).join('\n'))
  await hooks['turn.complete']!(h.port, { answer: 'a', reason: 'answer', turnId: 't' } as never, next, ctxOn(h.port, 'ws', '*'))
  await h.fire()
  assert.equal(h.seen.commands, ['mcp reconnect fixture'])
  assert.equal(h.seen.submitted, ['[ws mcp] The MCP server "fixture" reconnected; its tools are available again. Resume the interrupted work.'])
  assert.ok(status(h).some((l) => l.startsWith('last step: reconnected "fixture"')), status(h).join('\n'))
  assert.ok(status(h).includes('servers seen: "fixture"'))
})

test('another tool, and calls before a start, pass through', async () => {
  const h = await started('ws', '*')
  const r = await call(h, { tool: 'mcp__other__request_mcp_reconnect' })
  assert.equal(r, { passed: { tool_use_id: 'u', tool: 'mcp__other__request_mcp_reconnect' } })
})

test('empty option and no own server: not registered, and the status says why', async () => {
  const h = await started('superheroes', '')
  assert.equal(h.seen.registered, [])
  assert.ok(status(h, 'superheroes').includes('tool: not registered: reconnectServers is empty and the package declares no MCP server of its own'))
  assert.ok(h.seen.logs.includes('superheroes mcp reconnect: request_mcp_reconnect not registered: reconnectServers is empty and the package declares no MCP server of its own'))
  const r = await call(h, { tool: 'mcp__superheroes__request_mcp_reconnect' })
  assert.ok('passed' in (r as object), 'no tool, no answer: the call goes on beneath')
})

test('the package\'s own server is a target even with an empty option', async () => {
  const h = await started('superheroes', '', { own: 'plugin:superheroes:mail' })
  assert.ok(h.seen.registered[0]!.description.includes('allowed: "plugin:superheroes:mail"'))
  const r = await call(h, { tool: 'mcp__superheroes__request_mcp_reconnect' })
  assert.ok('result' in (r as object))
})

test('a user server that merely shares the package name is not the own server', async () => {
  const h = await started('superheroes', '', { own: 'superheroes' })
  assert.equal(h.seen.registered, [])
})

test('a registration that fails is written in the status; a failing server read leaves "*" with none seen', async () => {
  const h = await started('ws', 'a', { registerFails: true })
  assert.ok(status(h).includes('tool: not registered: setup failed (Error: not bound); request_mcp_reconnect not registered'), status(h).join('\n'))
  const u = await started('ws', '*', { usageFails: true })
  assert.equal(u.seen.logs.filter((l) => l.includes('were not read')), [], 'no server read on the start\'s path')
  await hooks['session.measure']!(u.port, MEASURE as never, next, ctxOn(u.port, 'ws', '*'))
  await u.fire()
  assert.ok(u.seen.logs.includes('ws mcp reconnect: the session\'s MCP servers were not read (Error: usage down)'), u.seen.logs.join('\n'))
  assert.ok(status(u).includes('servers seen: none yet'))
})

test('a hook that throws refuses the call instead of leaving it unanswered', async () => {
  // The refusal is the hook's declared failure policy, which the registry applies.
  const h = await started('ws', 'a')
  const e = Object.defineProperty({ tool: 'mcp__ws__request_mcp_reconnect', tool_use_id: 'u' }, 'server', { get() { throw new Error('bad input') } })
  const registry = createRegistry([reconnectFeature], (line) => void h.seen.logs.push(line))
  registry.bind({ reconnect: h.port }, { reconnect: ctxOn(h.port, 'ws', 'a') })
  const r = await registry.dispatch('tool.call', e as never, next)
  assert.ok(h.seen.logs.includes('reconnect: tool.call hook skipped (Error: bad input)'), h.seen.logs.join('\n'))
  assert.equal(r, { deny: 'request_mcp_reconnect: the reconnect request hook failed; see the debug log.' })
})

test('session.end drops the pending request', async () => {
  const h = await started('ws', 'a')
  await call(h, { tool: 'mcp__ws__request_mcp_reconnect' })
  await hooks['session.end']!(h.port, { reason: 'clear', sessionId: 's' } as never, next, ctxOn(h.port, 'ws', 'a'))
  assert.not.ok(status(h).some((l) => l.startsWith('pending')))
  await hooks['turn.complete']!(h.port, { answer: 'a', reason: 'answer', turnId: 't' } as never, next, ctxOn(h.port, 'ws', 'a'))
  await h.fire()
  assert.equal(h.seen.commands, [])
})

test('prompt.submit: the report entering after a session end is dropped; any other prompt, and the report in its own conversation, pass', async () => {
  const h = await started('ws', '*')
  const submit = (text: string) => hooks['prompt.submit']!(h.port, { text, origin: { kind: 'plugin', name: 'ws' }, wait: false } as never, next, ctxOn(h.port, 'ws', '*'))
  await call(h, { tool: 'mcp__ws__request_mcp_reconnect', continue: true })
  await hooks['turn.complete']!(h.port, { answer: 'a', reason: 'answer', turnId: 't' } as never, next, ctxOn(h.port, 'ws', '*'))
  await h.fire()
  const report = h.seen.submitted[0]!
  assert.equal(await submit(report), { passed: { text: report, origin: { kind: 'plugin', name: 'ws' }, wait: false } })
  await hooks['session.end']!(h.port, { reason: 'clear', sessionId: 's' } as never, next, ctxOn(h.port, 'ws', '*'))
  assert.equal(await submit(report), { drop: 'an MCP reconnect report of the conversation before this one; dropped' })
  assert.ok(h.seen.logs.includes("ws mcp reconnect: the session ended before the reconnect report's turn began; the report is dropped"), h.seen.logs.join('\n'))
  assert.ok('passed' in (await submit('hello')))
})

test('"*": a measurement (a turn\'s end) notes the servers off its path, from the clock; one listed then is kept while down', async () => {
  const h = await started('ws', '*', { servers: [] })
  h.fake.servers.push('late')
  const r = await hooks['session.measure']!(h.port, MEASURE as never, next, ctxOn(h.port, 'ws', '*'))
  assert.equal(r, { passed: MEASURE })
  assert.ok(status(h).includes('servers seen: none yet'), 'not read on the hook\'s path')
  await h.fire()
  h.fake.servers.pop()
  assert.ok(status(h).includes('servers seen: "late"'), status(h).join('\n'))
  const call1 = await call(h, { tool: 'mcp__ws__request_mcp_reconnect' })
  assert.ok(String((call1 as { result: string }).result).startsWith('Reconnect requested.'))
})

test('"*": a measurement\'s read not yet landed is made at the lever\'s call', async () => {
  const h = await started('ws', '*', { servers: [] })
  h.fake.servers.push('late')
  await hooks['session.measure']!(h.port, MEASURE as never, next, ctxOn(h.port, 'ws', '*'))
  const r = await call(h, { tool: 'mcp__ws__request_mcp_reconnect' })
  assert.ok(String((r as { result: string }).result).startsWith('Reconnect requested.'), JSON.stringify(r))
  assert.ok(status(h).includes('pending: "late" at the next turn end'), status(h).join('\n'))
})

const describe = (h: { port: Port }, tool: string, plugin: string) => hooks['tool.describe']!(h.port, { tool, description: 'd', provider: { plugin, tier: 'user' } } as never, next, ctxOn(h.port, 'ws', '*'))

test('real names from the tool descriptions: the breakdown\'s spelling is mapped, either spelling is accepted, /mcp gets the real one', async () => {
  const h = await started('ws', '*', { servers: ['audit_fix-2', 'plugin_shipper_inner'], connected: ['audit.fix-2', 'plugin:shipper:inner'], listed: ['mcp__audit_fix-2__echo', 'mcp__plugin_shipper_inner__echo'] })
  await describe(h, 'mcp__audit_fix-2__echo', 'mcp:audit.fix-2')
  await describe(h, 'mcp__plugin_shipper_inner__echo', 'shipper@inline')
  await describe(h, 'mcp__ws__request_mcp_reconnect', 'ws@inline')
  assert.ok(status(h).includes('servers seen: "audit.fix-2", "plugin:shipper:inner"'), status(h).join('\n'))
  const r1 = await call(h, { tool: 'mcp__ws__request_mcp_reconnect', server: 'audit_fix-2' })
  assert.ok(String((r1 as { result?: string }).result).startsWith('Reconnect requested.'), JSON.stringify(r1))
  const r2 = await call(h, { tool: 'mcp__ws__request_mcp_reconnect', server: 'plugin:shipper:inner', continue: true })
  assert.ok(String((r2 as { result?: string }).result).startsWith('Reconnect requested.'), JSON.stringify(r2))
  await hooks['turn.complete']!(h.port, { answer: 'a', reason: 'answer', turnId: 't' } as never, next, ctxOn(h.port, 'ws', '*'))
  await h.fire()
  assert.equal(h.seen.commands, ['mcp reconnect audit.fix-2', 'mcp reconnect plugin:shipper:inner'])
  assert.equal(h.seen.submitted, ['[ws mcp] The MCP servers "audit.fix-2", "plugin:shipper:inner" reconnected; their tools are available again. Resume the interrupted work.'])
})

test('a described server joins "*" before any breakdown lists it; a refused name lists the real names', async () => {
  const h = await started('ws', '*', { servers: [] })
  await describe(h, 'mcp__late_one__t', 'mcp:late.one')
  const r = await call(h, { tool: 'mcp__ws__request_mcp_reconnect', server: 'other' })
  assert.ok(String((r as { deny?: string }).deny).includes('"late.one"'), JSON.stringify(r))
})


test('"*": a main turn start reads nothing; its measurement reads the servers through the facts\' one summary read of the turn; the lever\'s call reads afresh', async () => {
  const h = await started('ws', '*')
  let reads = 0
  const usage = h.port.usage
  ;(h.port as { usage: () => ReturnType<Port['usage']> }).usage = () => (reads++, usage())
  h.facts.turnStarted(undefined)
  assert.is(hooks['turn.start'], undefined, 'no turn start hook: the turn\'s request never waits behind a read')
  // checkpoint's measurement started the turn's read in its hook: the same read, no second trip.
  await h.facts.summary()
  await hooks['session.measure']!(h.port, MEASURE as never, next, ctxOn(h.port, 'ws', '*'))
  await h.fire()
  assert.is(reads, 1)
  await call(h, { tool: 'mcp__ws__request_mcp_reconnect', server: 'fixture' })
  assert.is(reads, 2, 'the lever\'s call reads the list afresh')
})

test.run()
