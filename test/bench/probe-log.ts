// One headless turn of a plugin folder (argv[2], default packages/keel), its debug log printed: a look at what happens.
import { join } from 'node:path'
import { repoRoot, runClaude, cleanupTmp } from '../e2e/engine.ts'
import { startMockModel } from '../e2e/mock-model.ts'
const dir = process.argv[2] ?? join(repoRoot(), 'packages/keel')
const mock = await startMockModel()
try {
  const settings = process.env.PROBE_SETTINGS ? JSON.parse(process.env.PROBE_SETTINGS) : undefined
  const r = await runClaude({ prompt: 'hello', pluginDirs: process.argv[2] === 'none' ? [] : [dir], mock, settings, wrap: ['/usr/bin/time', '-f', 'TIME %e %U %S %M'] })
  console.log(r.debugLog)
  console.log('code', r.code, 'ms', r.durationMs, r.stderr.slice(-300))
} finally { await mock.close(); cleanupTmp() }
