// The window feature in the real engine, and the measurements of spec A.8.4: whether a written
// settings.local.json takes effect in the running session, whether `$.env.set` of the variable
// does, and which `autocompactSource` the breakdown then reports. A probe plugin logs the harness's
// own breakdown after every turn (under `raw`/`src`: the log redacts keys named like tokens).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, byKind, type MockModel } from './mock-model.ts'
import { cleanupTmp, debugLines, repoRoot, runClaude, tmpDir, writePlugin, type RunResult } from './engine.ts'
import { startLive } from './live.ts'

const K = 'CLAUDE_CODE_AUTO_COMPACT_WINDOW'
const MARKER = 'KEEL_AUTO_COMPACT_WINDOW_WRITTEN'
const WS = join(repoRoot(), 'packages/ws')

// PROBE_WRITE: the probe writes the window into the project's settings file itself at session start
// (no `$.env.set`); PROBE_CLEAR: it rewrites the file without the key at the second turn's end.
const PROBE = `let turns = 0
export function register(on) {
  on('session.start', async ($, e, next) => {
    const w = await $.env.get('PROBE_WRITE')
    if (w) await $.fs.write((await $.session.root()) + '/.claude/settings.local.json', JSON.stringify({ env: { CLAUDE_CODE_AUTO_COMPACT_WINDOW: w } }))
    return next(e)
  })
  on('session.measure', async ($, e, next) => {
    const r = await next(e)
    const b = (await $.session.usage({ breakdown: 'summary' })).context.breakdown
    $.ui.log('window ' + JSON.stringify({ raw: b.rawMaxTokens, src: b.autocompactSource, at: b.autoCompactThreshold, env: await $.env.get('CLAUDE_CODE_AUTO_COMPACT_WINDOW') }), { to: 'debug' })
    return r
  })
  on('turn.complete', async ($, e, next) => {
    turns++
    if (turns === 2 && await $.env.get('PROBE_CLEAR')) await $.fs.write((await $.session.root()) + '/.claude/settings.local.json', JSON.stringify({ env: { OTHER: '1' } }))
    return next(e)
  })
}
`

type Seen = { raw: number; src: string; at: number; env?: string }
const windows = (log: string): Seen[] => debugLines(log, 'probe').filter((l) => l.startsWith('window ')).map((l) => JSON.parse(l.slice(7)))
const probeDir = () => writePlugin(tmpDir('probe'), 'probe', PROBE)
const wsOptions = (options: object) => ({ pluginConfigs: { 'ws@inline': { options } } })

let mock: MockModel | undefined
test.after.each(async () => {
  await mock?.close()
  mock = undefined
})
test.after(() => cleanupTmp())

function ok(r: RunResult): void {
  assert.ok(!r.timedOut && r.code === 0, `engine exit ${r.code} (timedOut=${r.timedOut})\nstderr: ${r.stderr}\nstdout: ${r.stdout}`)
}

function project(settingsLocal?: string): string {
  const cwd = tmpDir('proj')
  if (settingsLocal !== undefined) {
    mkdirSync(join(cwd, '.claude'), { recursive: true })
    writeFileSync(join(cwd, '.claude/settings.local.json'), settingsLocal)
  }
  return cwd
}

test('compactWindowTokens writes the window and its marker, keeps every other key, and the session compacts on it at once', async () => {
  mock = await startMockModel(byKind({ main: { text: 'ok', inputTokens: 50_000 } }))
  const cwd = project(JSON.stringify({ env: { FOO: '1' }, permissions: { allow: ['Bash(ls)'] } }, null, 2))
  const r = await runClaude({ prompt: 'hello', pluginDirs: [WS, probeDir()], mock, cwd, settings: wsOptions({ compactWindowTokens: 500000 }) })
  ok(r)
  const file = JSON.parse(readFileSync(join(cwd, '.claude/settings.local.json'), 'utf8'))
  assert.equal(file, { env: { FOO: '1', [K]: '500000', [MARKER]: '500000' }, permissions: { allow: ['Bash(ls)'] } })
  assert.ok(debugLines(r.debugLog, 'ws').some((l) => l.startsWith(`window: Harness auto-compact window: wrote ${K}=500000 to ${cwd}/.claude/settings.local.json (was unset). Undo: /ws window reset`)), r.debugLog)
  // Measured (A.8.4): `$.env.set` at session start is in force from the first turn, reported as 'env'.
  assert.equal(windows(r.debugLog), [{ raw: 500000, src: 'env', at: 467000, env: '500000' }])
})

test('a value pinned by hand is left byte for byte, and the harness compacts on it', async () => {
  mock = await startMockModel(byKind({ main: { text: 'ok', inputTokens: 50_000 } }))
  const pinned = JSON.stringify({ env: { [K]: '150000' } })
  const cwd = project(pinned)
  const r = await runClaude({ prompt: 'hello', pluginDirs: [WS, probeDir()], mock, cwd, settings: wsOptions({ compactWindowTokens: 500000 }) })
  ok(r)
  assert.is(readFileSync(join(cwd, '.claude/settings.local.json'), 'utf8'), pinned)
  const lines = debugLines(r.debugLog, 'ws')
  assert.ok(lines.some((l) => l.includes(`pins ${K}=150000, while ws asked for 500000; the harness compacts on 150000`)), lines.join('\n'))
  assert.ok(lines.some((l) => l.startsWith('window: harness window disagreement')))
  // The file's env rows are the launch environment: 'env' again, not 'settings'.
  assert.equal(windows(r.debugLog), [{ raw: 150000, src: 'env', at: 117000, env: '150000' }])
})

// Issue 17 item 8: the manual took the main checkout's root in a linked worktree; the window takes
// `$.session.root()`, the worktree (measured), which is where the engine reads the project's local
// settings. Measured too: the engine also reads the main checkout's settings.local.json there, and its
// rows win over the worktree's.
test('a linked worktree: the window is written to the worktree\'s own settings file; a pin in the main checkout\'s wins (measured)', async () => {
  mock = await startMockModel(byKind({ main: { text: 'ok', inputTokens: 50_000 } }))
  const main = project()
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=keel', '-c', 'user.email=keel@e2e', ...args], { cwd: main, encoding: 'utf8' })
  writeFileSync(join(main, 'README'), 'x')
  git('init', '-q', '-b', 'main')
  git('add', '-A')
  git('commit', '-qm', 'x')
  const worktree = join(tmpDir('worktrees'), 'feature')
  git('worktree', 'add', '-q', worktree, '-b', 'feature')
  const r = await runClaude({ prompt: 'hello', pluginDirs: [WS, probeDir()], mock, cwd: worktree, settings: wsOptions({ compactWindowTokens: 500000 }) })
  ok(r)
  assert.equal(JSON.parse(readFileSync(join(worktree, '.claude/settings.local.json'), 'utf8')), { env: { [K]: '500000', [MARKER]: '500000' } })
  assert.not.ok(existsSync(join(main, '.claude/settings.local.json')), 'the main checkout is not written')
  assert.equal(windows(r.debugLog).map((w) => w.env), ['500000'])

  mkdirSync(join(main, '.claude'))
  writeFileSync(join(main, '.claude/settings.local.json'), JSON.stringify({ env: { [K]: '150000' } }))
  const again = await runClaude({ prompt: 'hello', pluginDirs: [WS, probeDir()], mock, cwd: worktree, settings: wsOptions({ compactWindowTokens: 400000 }) })
  ok(again)
  assert.ok(debugLines(again.debugLog, 'ws').some((l) => l.startsWith(`window: Harness auto-compact window: wrote ${K}=400000 to ${worktree}/.claude/settings.local.json`)))
  // Left as found (reported, issue 17): the next start, the worktree's file holding 400000, runs on the main
  // checkout's 150000 (the engine applies a rewritten file a second or two later, so the run that wrote it races).
  const third = await runClaude({ prompt: 'hello', pluginDirs: [WS, probeDir()], mock, cwd: worktree, settings: wsOptions({ compactWindowTokens: 400000 }) })
  ok(third)
  console.log(`  measured: ${JSON.stringify(windows(third.debugLog))}; ${debugLines(third.debugLog, 'ws').filter((l) => l.startsWith('window')).join(' | ')}`)
  assert.ok(debugLines(third.debugLog, 'ws').some((l) => l.includes(`${K}=400000 in ${worktree}/.claude/settings.local.json already`)))
  assert.equal(windows(third.debugLog).map((w) => w.env), ['150000'], 'the main checkout\'s row is the one the session runs with')
})

test('the home folder as project root: nothing is written there', async () => {
  mock = await startMockModel()
  const home = tmpDir('home')
  const r = await runClaude({ prompt: 'hello', pluginDirs: [WS], mock, home, cwd: home, settings: wsOptions({ compactWindowTokens: 500000 }) })
  ok(r)
  assert.not.ok(existsSync(join(home, '.claude/settings.local.json')))
  assert.ok(debugLines(r.debugLog, 'ws').some((l) => l.includes('the project root is your home folder')), r.debugLog)
})

test('measured: a settings file written mid-session is applied within seconds; a key removed from it is not', async () => {
  mock = await startMockModel(byKind({ main: { text: 'ok', inputTokens: 50_000 } }))
  const live = await startLive({ mode: 'stream-json', pluginDirs: [probeDir()], mock, env: { PROBE_WRITE: '500000', PROBE_CLEAR: '1' } })
  const changes = () => live.debugLog().split('\n').filter((l) => l.includes('Detected change to') && l.includes('settings.local.json')).length
  try {
    await live.send('one')
    await live.waitFor('turn one', () => windows(live.debugLog()).length === 1)
    await live.waitFor('the settings watcher', () => changes() >= 1)
    await live.send('two')
    await live.waitFor('turn two and the rewrite', () => windows(live.debugLog()).length === 2 && changes() >= 2)
    await live.send('three')
    await live.waitFor('turn three', () => windows(live.debugLog()).length === 3)
  } finally {
    await live.stop()
  }
  const seen = windows(live.debugLog())
  assert.equal(seen[0], { raw: 1_000_000, src: 'model-default', at: 967000 }, 'written at start, not yet applied at the first turn end')
  assert.equal(seen[1], { raw: 500000, src: 'env', at: 467000, env: '500000' }, 'applied once the watcher saw the file')
  assert.equal(seen[2], { raw: 500000, src: 'env', at: 467000, env: '500000' }, 'a removed row leaves the variable set until restart')
})

test.run()
