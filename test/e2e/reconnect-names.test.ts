// How the pinned engine names an MCP server on each surface a mod can read (measured, and kept so
// a change in the engine shows): the usage breakdown and the tool list give the tool-name spelling
// (`audit_fix-2`, `plugin_shipper_inner`), `$.mcp.connect` and /mcp know only the real name
// (`audit.fix-2`, `plugin:shipper:inner`), and `tool.describe` names the provider (`mcp:<real>` for a
// configured server, the plugin for a plugin's). Then the reconnect lever in keel lists and accepts
// both kinds of server by their real names.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { lastUserText, startMockModel, type MockModel } from './mock-model.ts'
import { startLive } from './live.ts'
import { cleanupTmp, debugLines, packageCopy, repoRoot, runClaude, tmpDir, writePlugin } from './engine.ts'

const PROBE = `export function register(on) {
  on('turn.start', async ($, e, next) => {
    const b = (await $.session.usage({ breakdown: 'summary' })).context.breakdown
    $.ui.log('BREAKDOWN ' + JSON.stringify(b.mcpTools.map((t) => t.serverName)), { to: 'debug' })
    $.ui.log('TOOLS ' + JSON.stringify((await $.tool.list()).filter((t) => t.mcp).map((t) => t.name)), { to: 'debug' })
    const connect = {}
    for (const n of ['audit.fix-2', 'audit_fix-2', 'plugin:shipper:inner', 'plugin_shipper_inner']) connect[n] = (await $.mcp.connect(n)).isConnected
    $.ui.log('CONNECT ' + JSON.stringify(connect), { to: 'debug' })
    return next(e)
  })
  on('tool.describe', async ($, e, next) => {
    if (e.tool.startsWith('mcp__')) $.ui.log('DESCRIBE ' + JSON.stringify([e.tool, e.provider.plugin]), { to: 'debug' })
    return next(e)
  })
}
`

let mock: MockModel | undefined
test.after.each(async () => { await mock?.close(); mock = undefined })
test.after(() => cleanupTmp())

/** A configured server named with punctuation, and a plugin shipping one of its own. */
function servers() {
  const fixture = (tag: string) => ({ command: process.execPath, args: [join(repoRoot(), 'test/e2e/fixtures/mcp-server.mjs'), tag] })
  const config = join(tmpDir('fx'), 'mcp.json')
  writeFileSync(config, JSON.stringify({ mcpServers: { 'audit.fix-2': fixture('configured') } }))
  const shipper = writePlugin(tmpDir('ship'), 'shipper', 'export function register(on) {}\n')
  const manifest = join(shipper, '.claude-plugin/plugin.json')
  // A distinct argument: the engine drops a plugin server whose command repeats a configured one's.
  writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, 'utf8')), mcpServers: { inner: fixture('shipped') } }))
  return { config, shipper }
}

test('the engine names a server in the tool spelling on the breakdown and the tool list, and by its real name on connect and describe', async () => {
  mock = await startMockModel()
  const { config, shipper } = servers()
  const r = await runClaude({ prompt: 'hello', pluginDirs: [writePlugin(tmpDir('probe'), 'probe', PROBE), shipper], mock, extraArgs: ['--mcp-config', config] })
  const lines = debugLines(r.debugLog, 'probe')
  const read = (tag: string) => JSON.parse(lines.find((l) => l.startsWith(`${tag} `))!.slice(tag.length + 1))
  assert.equal(read('BREAKDOWN').sort(), ['audit_fix-2', 'plugin_shipper_inner'])
  assert.equal(read('TOOLS').sort(), ['mcp__audit_fix-2__echo', 'mcp__plugin_shipper_inner__echo'])
  assert.equal(read('CONNECT'), { 'audit.fix-2': true, 'audit_fix-2': false, 'plugin:shipper:inner': true, 'plugin_shipper_inner': false })
  const described = lines.filter((l) => l.startsWith('DESCRIBE ')).map((l) => JSON.parse(l.slice(9)))
  assert.ok(described.some(([tool, provider]) => tool === 'mcp__audit_fix-2__echo' && provider === 'mcp:audit.fix-2'), JSON.stringify(described))
  assert.ok(described.some(([tool, provider]) => tool === 'mcp__plugin_shipper_inner__echo' && provider === 'shipper@inline'), JSON.stringify(described))
})

test('keel: the lever allows both servers by their real names and takes either spelling from the model', async () => {
  const lever = 'mcp__keel__request_mcp_reconnect'
  mock = await startMockModel((req) => (req.kind === 'main' && lastUserText(req.body).includes('reconnect the shipped one') ? { toolUse: { name: lever, input: { server: 'plugin_shipper_inner' } } } : undefined))
  const { config, shipper } = servers()
  const live = await startLive({ mode: 'stream-json', mock, pluginDirs: [packageCopy('keel'), shipper], extraArgs: ['--mcp-config', config] })
  try {
    await live.send('reconnect the shipped one')
    // Headless, the engine refuses /mcp reconnect: what matters here is the name the step asked for.
    await live.waitFor('the request', () => debugLines(live.debugLog(), 'keel').includes('keel mcp reconnect: reconnect requested for "plugin:shipper:inner"; resume: false'))
    await live.send('/keel status')
    const status = await live.waitFor('the status', () => live.output().split('\n').find((l) => l.includes('servers seen:')))
    assert.match(status, /servers seen: .*\\"audit\.fix-2\\"/)
    assert.match(status, /servers seen: .*\\"plugin:shipper:inner\\"/)
  } finally {
    await live.stop()
  }
})

test.run()
