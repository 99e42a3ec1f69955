// Every package loads in a real headless session of the pinned engine, with no load refusal and no
// skipped hook, and its package command answers there.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { cleanupTmp, loadedModules, loadRefusals, repoRoot, runClaude, skippedHooks } from './engine.ts'
import { startMockModel, type MockModel } from './mock-model.ts'

const PACKAGES = readdirSync(join(repoRoot(), 'packages'))
let mock: MockModel

test.before(async () => { mock = await startMockModel() })
test.after(async () => { await mock.close(); cleanupTmp() })

for (const pkg of PACKAGES) {
  test(`${pkg}: loads with no refusal or skipped hook, and /${pkg} status answers`, async () => {
    const run = await runClaude({ prompt: `/${pkg} status`, pluginDirs: [join(repoRoot(), 'packages', pkg)], mock })
    assert.is(run.code, 0, run.stderr)
    const loaded = loadedModules(run.debugLog).find((m) => m.plugin === pkg)
    assert.ok(loaded, `no load line for ${pkg}`)
    assert.ok(loaded.events.includes('session.start') && loaded.events.includes('command.run'), loaded.events.join(','))
    assert.equal(loadRefusals(run.debugLog).filter((r) => r.plugin === pkg), [])
    assert.equal(skippedHooks(run.debugLog).filter((s) => s.plugin === pkg), [])
    // The engine prefixes a plugin-answered command's output with the plugin's name.
    assert.match(String(run.json?.result), new RegExp(`^${pkg}: ${pkg} \\d+\\.\\d+\\.\\d+`))
    assert.match(String(run.json?.result), /Skipped hooks: none/)
  })
}

test.run()
