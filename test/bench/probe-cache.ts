// Does the engine keep anything of a hooks module between runs (a parse cache under HOME)? Three runs
// of the package with one HOME and project, each run's gap from the package's options line to the
// worker's spawn printed (the loader's work on the module before the worker starts).
import { join } from 'node:path'
import { repoRoot, runClaude, cleanupTmp } from '../e2e/engine.ts'
import { startMockModel } from '../e2e/mock-model.ts'
import { marksOf } from './measure.ts'
const dir = process.argv[2] ?? join(repoRoot(), 'packages/keel')
const mock = await startMockModel()
try {
  let home: string | undefined, cwd: string | undefined
  for (let i = 0; i < 3; i++) {
    const r = await runClaude({ prompt: 'hello', pluginDirs: [dir], mock, home, cwd })
    home = r.home; cwd = r.cwd
    const lines = r.debugLog.split('\n')
    const at = (re: RegExp) => { const l = lines.find((x) => re.test(x)); return l ? Date.parse(l.slice(0, 24)) : NaN }
    const opts = at(/\] plugin keel: /), worker = at(/hooks worker spawned/)
    console.log(`run ${i}: ${r.durationMs} ms; options line -> worker spawned ${worker - opts} ms`, JSON.stringify(marksOf(r.debugLog)))
  }
  const { execSync } = await import('node:child_process')
  console.log(execSync(`find ${home} -type f | head -50`).toString())
} finally { await mock.close(); cleanupTmp() }
