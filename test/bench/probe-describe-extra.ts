// Where keel's extra tool.describe passes come from (keel makes 38 hops in a `-p hello` run, the bare
// module 23): a module hooking tool.describe on /^mcp__/ that registers one tool at session.start and
// makes one more of keel's start calls beside it; the `tool.describe settled` lines are counted.
//   node --import ./test/tools/ts-loader.mjs test/bench/probe-describe-extra.ts
import { cleanupTmp, hookSettles, runClaude } from '../e2e/engine.ts'
import { startMockModel } from '../e2e/mock-model.ts'
import { packageWith } from './variants.ts'

const EXTRA: [string, string][] = [
  ['nothing more', ''],
  ["$.env.set('KEEL_CLAIMS_KEEL', …)", `await $.env.set('KEEL_CLAIMS_KEEL', '{"session":"x","features":["reconnect"]}')`],
  ["$.session.usage({ breakdown: 'summary' })", `await $.session.usage({ breakdown: 'summary' })`],
  ["$.mcp.connect('keel')", `await $.mcp.connect('keel')`],
  ['$.command.register', `await $.command.register({ name: 'keel', description: 'x', argumentHint: 'status' })`],
  ['$.session.id() + 3 $.env.get', `await $.session.id(); await Promise.all([$.env.get('KEEL_CLAIMS_KEEL'), $.env.get('KEEL_CLAIMS_SUPERHEROES'), $.env.get('KEEL_CLAIMS_WS')])`],
]
const mock = await startMockModel()
try {
  for (const [label, stmt] of EXTRA) {
    const dir = packageWith('describe-extra', `export function register(on) {
  on('session.start', async ($, e, next) => {
    ${stmt}
    await $.tool.register({ name: 't', description: 'a tool', inputSchema: { type: 'object', properties: {} }, isDeferred: false })
    return next(e)
  })
  on('tool.describe', { tool: /^mcp__/ }, ($, e, next) => next(e))
}
`)
    const counts: number[] = []
    for (let i = 0; i < 2; i++) {
      const r = await runClaude({ prompt: 'hello', pluginDirs: [dir], mock })
      counts.push(hookSettles(r.debugLog).filter((h) => h.event === 'tool.describe').length)
    }
    console.log(`${label.padEnd(45)} tool.describe hops per run: ${counts.join(', ')}`)
  }
} finally {
  await mock.close()
  cleanupTmp()
}
