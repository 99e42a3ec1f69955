// `npm run demo`: a real headless session of the pinned engine with a keel package loaded, against
// the bundled mock model, printing what the mod did. No network, no account: the mock answers.
import { join } from 'node:path'
import { cleanupTmp, debugLines, loadedModules, loadRefusals, repoRoot, runClaude, skippedHooks } from './engine.ts'
import { startMockModel } from './mock-model.ts'

const say = (text = '') => console.log(text)

const mock = await startMockModel()
try {
  for (const pkg of ['superheroes', 'ws', 'keel']) {
    const dir = join(repoRoot(), 'packages', pkg)
    say(`\n=== ${pkg}: claude -p "/${pkg} status" --plugin-dir packages/${pkg}`)
    const run = await runClaude({ prompt: `/${pkg} status`, pluginDirs: [dir], mock })
    const loaded = loadedModules(run.debugLog).find((m) => m.plugin === pkg)
    say(loaded ? `loaded by the engine (${loaded.host}, tier ${loaded.tier}); hooks: ${loaded.events.join(', ')}` : 'NOT LOADED')
    for (const refusal of loadRefusals(run.debugLog)) say(`load refused: ${refusal.plugin}: ${refusal.reason}`)
    for (const skip of skippedHooks(run.debugLog)) say(`hook skipped: ${skip.plugin} ${skip.event}: ${skip.reason}`)
    say(String(run.json?.result ?? run.stdout).trim())
    const lines = debugLines(run.debugLog, pkg)
    if (lines.length) say(`debug log (${pkg}):\n  ${lines.join('\n  ')}`)
    say(`(${run.durationMs} ms)`)
  }
} finally {
  await mock.close()
  cleanupTmp()
}
