import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { allowedServers, checkCall, describeAllowed, hasTarget, parseServerRule, realNames, resolveServer, serverOfTool, toolPrefix, toolSpelling, withSeen, type Targets } from '../../../src/features/reconnect/targets.ts'

test('the option: names trimmed and de-duplicated; "*" anywhere means any server', () => {
  assert.equal(parseServerRule(''), { any: false, names: [] })
  assert.equal(parseServerRule(' a , b,,a '), { any: false, names: ['a', 'b'] })
  assert.equal(parseServerRule('*'), { any: true })
  assert.equal(parseServerRule('a, *'), { any: true })
})

test('allowed servers: the own server first, then the rule; the tool host is never one', () => {
  const named: Targets = { rule: { any: false, names: ['x', 'ws'] }, own: 'plugin:ws:ws', seen: ['y'] }
  assert.equal(allowedServers(named, 'ws'), ['plugin:ws:ws', 'x'])
  const any: Targets = { rule: { any: true }, seen: ['fixture', 'ws', 'github'] }
  assert.equal(allowedServers(any, 'ws'), ['fixture', 'github'])
})

test('a target: the own server, a named one, or "*" even before the session lists a server', () => {
  const empty: Targets = { rule: { any: false, names: [] }, seen: [] }
  assert.is(hasTarget(empty, 'superheroes'), false)
  assert.is(hasTarget({ rule: { any: false, names: ['superheroes'] }, seen: [] }, 'superheroes'), false, 'the tool host is no target')
  assert.is(hasTarget({ ...empty, own: 'plugin:superheroes:s' }, 'superheroes'), true)
  assert.is(hasTarget({ rule: { any: false, names: ['a'] }, seen: [] }, 'superheroes'), true)
  assert.is(hasTarget({ rule: { any: true }, seen: [] }, 'superheroes'), true)
})

test('servers seen later join "*", and a down server stays', () => {
  const t: Targets = { rule: { any: true }, seen: ['a'] }
  assert.is(withSeen(t, ['a']), t, 'nothing new: the same object')
  assert.equal(withSeen(t, ['b']).seen, ['a', 'b'])
  assert.equal(withSeen(t, []).seen, ['a'], 'a server that left the list is kept')
})

test('the description names the allowed servers, or any', () => {
  assert.is(describeAllowed({ rule: { any: false, names: ['a', 'b'] }, seen: [] }, 'ws'), 'allowed: "a", "b"')
  assert.is(describeAllowed({ rule: { any: true }, seen: ['f'] }, 'ws'), 'any MCP server of this session, e.g. "f"')
  assert.is(describeAllowed({ rule: { any: true }, seen: [], own: 'plugin:ws:ws' }, 'ws'), 'any MCP server of this session, e.g. "plugin:ws:ws"')
})

test('a subagent is refused (acceptance 1)', () => {
  assert.equal(checkCall('A1', { server: 'a' }, ['a'], false), { deny: 'request_mcp_reconnect serves the main session only; called from subagent A1.' })
})

test('continue counts only as the boolean true', () => {
  assert.equal(checkCall(undefined, { server: 'a', continue: 'true' }, ['a'], false), { server: 'a', resume: false })
  assert.equal(checkCall(undefined, { server: 'a', continue: true }, ['a'], false), { server: 'a', resume: true })
})

test('a name outside the targets is refused with the allowed list', () => {
  assert.equal(checkCall(undefined, { server: 'github' }, ['a', 'b'], false),
    { deny: 'request_mcp_reconnect: "github" is not a server this tool may reconnect; allowed: "a", "b".' })
  assert.equal(checkCall(undefined, { server: 'github' }, ['a'], true),
    { deny: 'request_mcp_reconnect: "github" is not a server this tool may reconnect; the session\'s MCP servers are "a".' })
  assert.equal(checkCall(undefined, { server: ' a ' }, ['a'], false), { server: 'a', resume: false })
})

test('"*" before the session listed any server: a call is refused', () => {
  assert.equal(checkCall(undefined, { server: 'x' }, [], true), { deny: 'request_mcp_reconnect: this session has listed no MCP server to reconnect.' })
})

test('no server named: the only target, or a refusal listing them', () => {
  assert.equal(checkCall(undefined, {}, ['only'], false), { server: 'only', resume: false })
  assert.equal(checkCall(undefined, {}, ['a', 'b'], true), { deny: 'request_mcp_reconnect: name the server to reconnect (`server`): one of "a", "b".' })
  assert.equal(checkCall(undefined, { server: 3 }, ['a'], false), { deny: 'request_mcp_reconnect: `server` must be a non-empty string.' })
  assert.equal(checkCall(undefined, { server: '  ' }, ['a'], false), { deny: 'request_mcp_reconnect: `server` must be a non-empty string.' })
})

test('tool names are matched by the sanitised server prefix', () => {
  assert.is(toolPrefix('plugin:ws:ws'), 'mcp__plugin_ws_ws__')
  assert.is(toolPrefix('fixture'), 'mcp__fixture__')
  assert.is(toolPrefix('claude.ai Gmail'), 'mcp__claude_ai_Gmail__')
})

test('tool spelling: what the engine makes of a server name in tool names', () => {
  assert.is(toolSpelling('audit.fix-2'), 'audit_fix-2')
  assert.is(toolSpelling('plugin:shipper:inner'), 'plugin_shipper_inner')
  assert.is(toolPrefix('claude.ai Gmail'), 'mcp__claude_ai_Gmail__')
})

test('a server is named by /mcp\'s name or its tool spelling', () => {
  const allowed = ['audit.fix-2', 'plugin:shipper:inner', 'plain']
  assert.is(resolveServer('audit.fix-2', allowed), 'audit.fix-2')
  assert.is(resolveServer('audit_fix-2', allowed), 'audit.fix-2')
  assert.is(resolveServer('plugin_shipper_inner', allowed), 'plugin:shipper:inner')
  assert.is(resolveServer('plain', allowed), 'plain')
  assert.is(resolveServer('ghost', allowed), undefined)
  assert.equal(checkCall(undefined, { server: ' audit_fix-2 ' }, allowed, true), { server: 'audit.fix-2', resume: false })
})

test('the real server of a described tool: configured, plugin-shipped, or none', () => {
  assert.is(serverOfTool('mcp__audit_fix-2__echo', 'mcp:audit.fix-2', 'ws'), 'audit.fix-2')
  assert.is(serverOfTool('mcp__plugin_shipper_inner__echo', 'shipper@inline', 'ws'), 'plugin:shipper:inner')
  assert.is(serverOfTool('mcp__plugin_my-plug_srv__x', 'my-plug@market', 'ws'), 'plugin:my-plug:srv')
  assert.is(serverOfTool('mcp__ws__request_mcp_reconnect', 'ws@inline', 'ws'), undefined, 'the package\'s own tool host')
  assert.is(serverOfTool('mcp__other__tool', 'other@inline', 'ws'), undefined, 'a tool another plugin registers itself')
  assert.is(serverOfTool('Bash', 'engine', 'ws'), undefined)
  assert.is(serverOfTool('mcp__x__t', undefined, 'ws'), undefined)
  assert.is(serverOfTool('mcp__x__t', 'mcp:', 'ws'), undefined)
  assert.is(serverOfTool('mcp__plugin_p___t', 'p@s', 'ws'), undefined, 'no key')
})

test('listed servers under their real names where known', () => {
  assert.equal(realNames(['audit_fix-2', 'plain', 'plugin_p_s'], ['audit.fix-2', 'plugin:p:s']), ['audit.fix-2', 'plain', 'plugin:p:s'])
})

test.run()
