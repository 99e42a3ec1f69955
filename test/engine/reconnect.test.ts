// The reconnect lever through real dispatch: the tool is registered at session start when the
// package has a target, served at tool.call (names outside the targets refused), and the step runs
// `/mcp reconnect` after the turn end, polls the tool list and reports. The test's `on` hooks stand
// for the engine: its MCP servers, its tool list, its commands and the prompts queued.
import { expect, mock, test, type TestBody } from 'claude-code/testing'
import { PKG } from './package.ts'

const TOOL: `mcp__${string}__${string}` = `mcp__${PKG}__request_mcp_reconnect`
const TURN = { durationMs: 10, isAborted: false, turnId: 't1', reason: 'answer' as const }
const ANY = { options: { reconnect: 'on', reconnectServers: '*' } }

type On = Parameters<TestBody>[1]
type Engine = Parameters<TestBody>[0]

/** The engine beneath: one MCP server `fixture` whose tools come and go, and what the plugin raised. */
function world(on: On, { servers = ['fixture'], commandText = '' } = {}) {
  const clock = mock.clock(on, { now: 5_000 })
  const seen = { registered: [] as { name: string; description: string; isDeferred?: unknown }[], commands: [] as string[], submitted: [] as string[], logs: [] as string[] }
  const state = { listed: true, backAfterChecks: 0, checks: 0, usageReads: 0 }
  on('ui.log', (_, e) => (seen.logs.push(e.text), { value: undefined }))
  on('command.register', (_, e) => ({ value: { command: e.name } }))
  on('session.start', (_, e) => ({ cwd: e.cwd }))
  on('session.id', () => ({ value: 'session-1' }))
  on('env.get', () => ({ value: undefined }))
  on('env.set', () => ({ value: {} }))
  // The engine holds the session's servers connected; the package's own name (no server shipped) is unlisted.
  on('mcp.connect', (_, e) => ({ value: servers.includes(e.server) ? { isConnected: true, server: e.server } : { isConnected: false, reason: 'unlisted', message: `no ${e.server}` } }))
  on('session.usage', () => (state.usageReads++, { value: { startedAt: 0, context: { tokens: 1, window: 200_000, percent: 0, breakdown: { mcpTools: servers.map((s) => ({ name: `mcp__${s}__echo`, serverName: s, tokens: 10, isLoaded: false })) } }, rateLimits: [] } as never }))
  // Other features register their own tools (ws: request_compaction): only this one is recorded.
  on('tool.register', (_, e) => (e.name === 'request_mcp_reconnect' && seen.registered.push(e), { value: { tool: `mcp__${PKG}__${e.name}` } }))
  on('tool.list', () => {
    state.checks++
    const back = state.listed && state.checks > state.backAfterChecks
    return { value: back ? servers.map((s) => ({ name: `mcp__${s}__echo`, description: 'echo', mcp: true })) : [] }
  })
  on('command.run', (_, e) => (seen.commands.push(`${e.command} ${e.args}`.trim()), { text: commandText }))
  on('prompt.submit', (_, e) => (seen.submitted.push(e.text), { text: e.text }))
  on('tool.call', () => ({ result: 'the server answered' }))
  on('turn.start', (_, e) => ({ turnId: e.turnId }))
  on('session.measure', (_, e) => ({ changed: e.changed }))
  on('turn.complete', (_, e) => ({ text: e.answer }))
  on('session.end', (_, e) => ({ sessionId: e.sessionId }))
  return { clock, seen, state }
}

async function start($: Engine) {
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
}

test('with "*" the tool is registered at start, eager; the session\'s servers are read off the start\'s path (they connect after it)', ANY, async ($, on) => {
  const w = world(on)
  await start($)
  expect(w.seen.registered).toHaveLength(1)
  expect(w.seen.registered[0]).toMatchObject({ name: 'request_mcp_reconnect', isDeferred: false })
  expect(w.seen.registered[0]!.description).toContain('any MCP server of this session')
  expect(w.state.usageReads).toBe(0)
})

test('a call is recorded; after the turn end /mcp reconnect runs, the tools are polled back, and continue resumes', ANY, async ($, on) => {
  const w = world(on)
  await start($)
  const r = await $.tool.call({ tool: TOOL, tool_use_id: 'u1', server: 'fixture', continue: true })
  expect(r).toMatchObject({ result: expect.stringContaining('Reconnect requested.') })
  expect(w.seen.commands).toEqual([])
  w.state.backAfterChecks = w.state.checks + 2
  await $.turn.complete({ answer: 'ending', ...TURN })
  await w.clock.advance(0)
  expect(w.seen.commands).toEqual(['mcp reconnect fixture'])
  await w.clock.advance(500)
  await w.clock.advance(500)
  await w.clock.settle()
  expect(w.seen.submitted).toEqual([`[${PKG} mcp] The MCP server "fixture" reconnected; its tools are available again. Resume the interrupted work.`])
  expect(w.seen.logs).toContain(`${PKG} mcp reconnect: reconnected "fixture" in 1000 ms`)
})

test('a headless refusal is reported to the model even without continue', { ...ANY, timeoutMs: 10_000 }, async ($, on) => {
  const w = world(on, { commandText: "Reconnect, enable, and disable aren't available in this session." })
  await start($)
  await $.tool.call({ tool: TOOL, tool_use_id: 'u1' })
  await $.turn.complete({ answer: 'ending', ...TURN })
  await w.clock.advance(0)
  await w.clock.settle()
  expect(w.seen.submitted).toHaveLength(1)
  expect(w.seen.submitted[0]).toContain(`[${PKG} mcp] The MCP server "fixture" did not come back (the reconnect command answered: Reconnect, enable, and disable aren't available in this session.)`)
})

test('a name outside the targets is refused with the allowed list; a subagent is refused', { options: { reconnect: 'on', reconnectServers: 'fixture, other' } }, async ($, on) => {
  world(on)
  await start($)
  const r = await $.tool.call({ tool: TOOL, tool_use_id: 'u1', server: 'github' })
  expect(r).toEqual({ deny: 'request_mcp_reconnect: "github" is not a server this tool may reconnect; allowed: "fixture", "other".' })
  const sub = await $.tool.call({ tool: TOOL, tool_use_id: 'u2', server: 'fixture', agentId: 'A1' })
  expect(sub).toEqual({ deny: 'request_mcp_reconnect serves the main session only; called from subagent A1.' })
})

test('another tool with the same suffix passes through untouched', ANY, async ($, on) => {
  world(on)
  await start($)
  const r = await $.tool.call({ tool: 'mcp__x__request_mcp_reconnect', tool_use_id: 'u1' })
  expect(r).toMatchObject({ result: 'the server answered' })
})

test('a session end drops a pending request: the next turn end runs nothing', ANY, async ($, on) => {
  const w = world(on)
  await start($)
  await $.tool.call({ tool: TOOL, tool_use_id: 'u1', server: 'fixture' })
  await $.session.end({ reason: 'clear', sessionId: 'session-1', resume: { id: 'session-1' } })
  await $.turn.complete({ answer: 'ending', ...TURN })
  await w.clock.advance(0)
  await w.clock.settle()
  expect(w.seen.commands).toEqual([])
  expect(w.seen.logs).toContain(`${PKG} mcp reconnect: session.end clear dropped a pending reconnect request`)
})

test('with no target the tool is not registered and the status says why', { options: { reconnect: 'on', reconnectServers: '' } }, async ($, on) => {
  const w = world(on)
  await start($)
  expect(w.seen.registered).toEqual([])
  const r = await $.command.run({ command: PKG, args: 'status', origin: { kind: 'composer' }, presentation: { isFullscreen: false, columns: 100 } } as never)
  expect(r.text).toContain('tool: not registered: reconnectServers is empty and the package declares no MCP server of its own')
})

test('with "*" the tool is registered before any server is listed; a server listed at a turn\'s measurement is kept while down', ANY, async ($, on) => {
  const servers: string[] = []
  const w = world(on, { servers })
  await start($)
  expect(w.seen.registered).toHaveLength(1)
  expect(await $.tool.call({ tool: TOOL, tool_use_id: 'u1' })).toEqual({ deny: 'request_mcp_reconnect: this session has listed no MCP server to reconnect.' })
  servers.push('late')
  await $.turn.start({ text: 'go', turnId: 't2' })
  await w.clock.settle()
  // Nothing read at the turn's start: its request never waits behind a read.
  servers.pop()
  expect(await $.tool.call({ tool: TOOL, tool_use_id: 'u1b' })).toEqual({ deny: 'request_mcp_reconnect: this session has listed no MCP server to reconnect.' })
  servers.push('late')
  await $.session.measure({ context: { tokens: 1000, window: 200000 }, rateLimits: [], changed: ['context'] })
  await w.clock.settle()
  servers.pop()
  expect(await $.tool.call({ tool: TOOL, tool_use_id: 'u2' })).toMatchObject({ result: expect.stringContaining('Reconnect requested.') })
  const r = await $.command.run({ command: PKG, args: 'status', origin: { kind: 'composer' }, presentation: { isFullscreen: false, columns: 100 } } as never)
  expect(r.text).toContain('servers seen: "late"')
  expect(r.text).toContain('pending: "late" at the next turn end')
})
