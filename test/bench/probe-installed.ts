// keel installed the way a person installs it (a local marketplace, `claude plugin install`), not
// --plugin-dir: is the loader's work on the module the same, and is any of it kept between runs?
//   node --import ./test/tools/ts-loader.mjs test/bench/probe-installed.ts
import { spawnSync } from 'node:child_process'
import { cpSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { claudeBin, cleanEnv, cleanupTmp, repoRoot, runClaude, tmpDir } from '../e2e/engine.ts'
import { startMockModel } from '../e2e/mock-model.ts'
import { marksOf } from './measure.ts'

const mock = await startMockModel()
try {
  const market = tmpDir('market')
  mkdirSync(join(market, 'packages'), { recursive: true })
  cpSync(join(repoRoot(), '.claude-plugin'), join(market, '.claude-plugin'), { recursive: true })
  cpSync(join(repoRoot(), 'packages/keel'), join(market, 'packages/keel'), { recursive: true })
  const home = tmpDir('home')
  mkdirSync(join(home, '.claude'), { recursive: true })
  const env = { ...cleanEnv(), HOME: home, ANTHROPIC_API_KEY: 'dummy', ANTHROPIC_BASE_URL: mock.url, DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' }
  for (const args of [['plugin', 'marketplace', 'add', market], ['plugin', 'install', 'keel@keel']]) {
    const r = spawnSync(claudeBin(), args, { env, encoding: 'utf8', timeout: 60_000 })
    console.log(`claude ${args.join(' ')} -> ${r.status}: ${(r.stdout + r.stderr).trim().split('\n').slice(-2).join(' | ')}`)
  }
  let cwd: string | undefined
  for (let i = 0; i < 3; i++) {
    const r = await runClaude({ prompt: 'hello', pluginDirs: [], mock, home, cwd })
    cwd = r.cwd
    const lines = r.debugLog.split('\n')
    const at = (re: RegExp) => { const l = lines.find((x) => re.test(x)); return l ? Date.parse(l.slice(0, 24)) : NaN }
    const loaded = lines.find((l) => /hooks module keel@\S+ loaded/.test(l))
    console.log(`run ${i}: exit ${r.code}, ${r.durationMs} ms; options line -> worker spawned ${at(/hooks worker spawned/) - at(/\] plugin keel: /)} ms; ${loaded?.slice(33, 140)}`, JSON.stringify(marksOf(r.debugLog)))
  }
  console.log(spawnSync('find', [join(home, '.claude/plugins'), '-maxdepth', '3'], { encoding: 'utf8' }).stdout)
} finally {
  await mock.close()
  cleanupTmp()
}
