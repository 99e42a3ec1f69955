// Does the matcher { tool: /^mcp__/ } on tool.describe keep built-in tools' descriptions out of the
// worker? A module hooking it with that matcher logs each description its hook body sees; the
// debug log's `tool.describe settled` lines count the hops the engine made. Other matchers that
// might pick MCP tools without a RegExp are tried beside it.
//   node --import ./test/tools/ts-loader.mjs test/bench/probe-describe.ts
import { cleanupTmp, debugLines, hookSettles, runClaude, tmpDir, writePlugin } from '../e2e/engine.ts'
import { startMockModel } from '../e2e/mock-model.ts'
import { join } from 'node:path'

const mock = await startMockModel()
try {
  for (const [label, matcher] of [['matcher { tool: /^mcp__/ }', '{ tool: /^mcp__/ }, '], ["matcher { tool: 'Nope' }", "{ tool: 'Nope' }, "], ['matcher { mcpServer: {} }', '{ mcpServer: {} }, '], ["matcher { provider: { tier: ['prepend', 'user', 'append'] } }", "{ provider: { tier: ['prepend', 'user', 'append'] } }, "], ['no matcher', '']] as const) {
    const dir = writePlugin(join(tmpDir('describe'), 'probe'), 'probe', `export function register(on) {
  on('session.start', async ($, e, next) => { await $.tool.register({ name: 't', description: 'a tool', inputSchema: { type: 'object', properties: {} }, isDeferred: false }); return next(e) })
  on('tool.describe', ${matcher}($, e, next) => { $.ui.log('describe ' + e.tool, { to: 'debug' }); return next(e) })
}
`)
    const r = await runClaude({ prompt: 'hello', pluginDirs: [dir], mock })
    const seen = debugLines(r.debugLog, 'probe').filter((l) => l.startsWith('describe '))
    const hops = hookSettles(r.debugLog).filter((h) => h.event === 'tool.describe' && h.plugins.includes('probe'))
    console.log(`${label}: ${hops.length} tool.describe settles (median ${hops.map((h) => h.ms).sort((a, b) => a - b)[Math.floor(hops.length / 2)] ?? '-'} ms); the hook body saw ${seen.length}: ${[...new Set(seen.map((s) => s.slice(9)))].join(', ')}`)
  }
} finally {
  await mock.close()
  cleanupTmp()
}
