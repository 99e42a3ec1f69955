// Runs the pinned engine headless (`claude -p`) against a mock model, and reads its debug log.
import { spawn, spawnSync } from 'node:child_process'
import { chmodSync, chownSync, cpSync, lstatSync, mkdtempSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync, existsSync, rmSync, type Dirent } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve, dirname } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { MockModel } from './mock-model.ts'

/** The repo root: found from this file's place, whether run from test/e2e or a bundle under .build/ or /tmp. */
export function repoRoot(): string {
  const candidates = [process.env.KEEL_ROOT, process.cwd(), dirname(fileURLToPath(import.meta.url))]
  for (const start of candidates) {
    if (!start) continue
    let dir = resolve(start)
    for (;;) {
      if (existsSync(join(dir, 'node_modules/.bin/claude'))) return dir
      const up = dirname(dir)
      if (up === dir) break
      dir = up
    }
  }
  throw new Error('cannot find node_modules/.bin/claude above cwd or this file (set KEEL_ROOT)')
}

export function claudeBin(): string {
  return join(repoRoot(), 'node_modules/.bin/claude')
}

const madeDirs: string[] = []

/** A fresh temp folder, remembered so cleanupTmp() can remove it. */
export function tmpDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `keel-e2e-${prefix}-`))
  madeDirs.push(dir)
  return dir
}

/** Remove every folder tmpDir made (homes, projects, logs, plugins). KEEP_E2E_TMP=1 keeps them for a post-mortem. */
export function cleanupTmp(): void {
  if (process.env.KEEP_E2E_TMP) return
  for (const d of madeDirs.splice(0)) rmSync(d, { recursive: true, force: true })
}

export interface RunOptions {
  prompt: string
  pluginDirs: string[]
  mock: MockModel
  /** Reuse across turns of one session: --resume finds the transcript under <home>/.claude. */
  home?: string
  cwd?: string
  resume?: string
  /** Written to <home>/.claude/settings.json (e.g. { pluginConfigs: { keel: { options } } }). */
  settings?: object
  env?: Record<string, string>
  timeoutMs?: number
  extraArgs?: string[]
  /** `--output-format`: json unless given; stream-json adds the `--verbose` it needs with `-p`. */
  format?: 'json' | 'text' | 'stream-json'
  /** A command the engine runs under (argv prefix): `strace …`. */
  wrap?: string[]
  /** Runs the engine as this unprivileged user (root only): HOME, the project and the log are handed to it. */
  asUser?: { uid: number; gid: number }
}

/** Hands a folder and everything under it to a user (the temp folders are made 0700 for root). */
function handOver(dir: string, user: { uid: number; gid: number }): void {
  chownSync(dir, user.uid, user.gid)
  if (!statSync(dir).isDirectory()) return
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (!lstatSync(path).isSymbolicLink()) handOver(path, user)
  }
}

export interface RunResult {
  code: number | null
  signal: NodeJS.Signals | null
  timedOut: boolean
  stdout: string
  stderr: string
  debugLog: string
  sessionId?: string
  json?: any
  durationMs: number
  home: string
  cwd: string
}

// Parent variables that could point the engine at a real account, another server or a parent session.
export function cleanEnv(): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined) continue
    if (/^(ANTHROPIC_|CLAUDE_CODE_|CLAUDE_|AWS_BEARER|VERTEX_|OTEL_)/.test(k) || k === 'CLAUDECODE') continue
    if (/^(HTTPS?_PROXY|ALL_PROXY|NO_PROXY)$/i.test(k)) continue
    // A CI runner's markers: the engine takes a session with them for a CI job and behaves otherwise
    // (measured with CI=1: the terminal UI never drew a Bash call's command, and the safe-writes race
    // read the settings file in another order), where every test here plays a person's session.
    if (/^(CI|CONTINUOUS_INTEGRATION|BUILD_NUMBER|GITHUB_ACTIONS|GITLAB_CI|BUILDKITE|CIRCLECI|TRAVIS|JENKINS_URL|TEAMCITY_VERSION|TF_BUILD|CODEBUILD_BUILD_ID)$/.test(k)) continue
    out[k] = v
  }
  return out
}

export async function runClaude(opts: RunOptions): Promise<RunResult> {
  const home = opts.home ?? tmpDir('home')
  const cwd = opts.cwd ?? tmpDir('proj')
  mkdirSync(join(home, '.claude'), { recursive: true })
  if (opts.settings) writeFileSync(join(home, '.claude/settings.json'), JSON.stringify(opts.settings, null, 2))
  const debugFile = join(tmpDir('log'), 'debug.log')

  const format = opts.format ?? 'json'
  const args = ['-p', opts.prompt, '--output-format', format, ...(format === 'stream-json' ? ['--verbose'] : []), '--debug-file', debugFile]
  for (const d of opts.pluginDirs) args.push('--plugin-dir', d)
  if (opts.resume) args.push('--resume', opts.resume)
  args.push(...(opts.extraArgs ?? []))

  const env = {
    ...cleanEnv(),
    HOME: home,
    ANTHROPIC_API_KEY: 'dummy',
    ANTHROPIC_BASE_URL: opts.mock.url,
    DISABLE_TELEMETRY: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ...opts.env,
  }

  const started = Date.now()
  // Its own process group, so a timeout kills the engine and anything it spawned (shells, workers)
  // together; otherwise a grandchild holding stdout open would keep 'close' from firing.
  const user = opts.asUser
  if (user) {
    for (const dir of [home, cwd, dirname(debugFile)]) handOver(dir, user)
    // The plugin copies sit in 0700 temp folders: let the user read them.
    for (const d of opts.pluginDirs) chmodSync(dirname(d), 0o755)
  }
  const runAs = user ? ['setpriv', `--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups'] : []
  const [bin, ...argv] = [...(opts.wrap ?? []), ...runAs, claudeBin(), ...args]
  const child = spawn(bin!, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  const killGroup = () => { try { process.kill(-child.pid!, 'SIGKILL') } catch { /* already gone */ } }
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (c: string) => { stdout += c })
  child.stderr.setEncoding('utf8').on('data', (c: string) => { stderr += c })

  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    killGroup()
  }, opts.timeoutMs ?? 60_000)
  // If the test process exits mid-run (an assertion throws elsewhere), don't leave the engine behind.
  process.once('exit', killGroup)

  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((res, rej) => {
    child.once('error', rej)
    child.once('close', (c, s) => res([c, s]))
  }).finally(() => {
    clearTimeout(timer)
    process.removeListener('exit', killGroup)
    killGroup() // reap stragglers the engine left in its group (e.g. a backgrounded Bash)
  })

  let json: any
  try { json = JSON.parse(stdout.trim().split('\n').pop() ?? '') } catch { json = undefined }
  const debugLog = existsSync(debugFile) ? readFileSync(debugFile, 'utf8') : ''
  if (timedOut) stderr += `\n[e2e] killed after ${opts.timeoutMs ?? 60_000} ms timeout`
  return {
    code, signal, timedOut, stdout, stderr, debugLog,
    sessionId: json?.session_id, json,
    durationMs: Date.now() - started, home, cwd,
  }
}

/** Write a throwaway plugin folder: manifest, hooks.json and the given hooks module source. */
/**
 * A package copied away from packages/: a build elsewhere rewrites packages/, and a long-lived
 * session would hot-reload from under the test.
 */
export function packageCopy(pkg: string): string {
  const dir = join(tmpDir('pkg'), pkg)
  cpSync(join(repoRoot(), 'packages', pkg), dir, { recursive: true })
  return dir
}

/** A test bundle's plugin folder (test/tools/test-bundle.mjs): the shipped module with test-only features added. */
export function testPackage(set: string): string {
  const r = spawnSync(process.execPath, [join(repoRoot(), 'test/tools/test-bundle.mjs'), set], { cwd: repoRoot(), encoding: 'utf8' })
  if (r.status !== 0) throw new Error(`test bundle ${set} not built: ${r.stderr}`)
  return r.stdout.trim()
}

/**
 * A folder's entries, each kind as the listing gives it (no stat of its own); none when the folder is
 * gone. The engine creates and removes files under HOME while a test looks (`history.jsonl.lock`
 * lives for a moment): a walk that stats what it listed fails at random on one gone meanwhile.
 */
export function entriesOf(dir: string): Dirent[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return []
    throw err
  }
}

/** Every file under `dir` whose name ends with `suffix` (a link is not followed); one gone meanwhile is not there. */
export function findFiles(dir: string, suffix: string): string[] {
  return entriesOf(dir).flatMap((entry) => {
    const path = join(dir, entry.name)
    return entry.isDirectory() ? findFiles(path, suffix) : entry.name.endsWith(suffix) ? [path] : []
  })
}

/** A file's text, '' when it is gone: for a file under a folder the engine writes into while a test reads it. */
export function textIfThere(path: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return ''
    throw err
  }
}

export function writePlugin(dir: string, name: string, hooksJs: string): string {
  mkdirSync(join(dir, '.claude-plugin'), { recursive: true })
  mkdirSync(join(dir, 'hooks'), { recursive: true })
  writeFileSync(join(dir, '.claude-plugin/plugin.json'), JSON.stringify({
    name, version: '0.0.1', description: `e2e throwaway plugin ${name}`,
    author: { name: 'keel e2e' }, license: 'MIT',
  }, null, 2))
  writeFileSync(join(dir, 'hooks/hooks.json'), JSON.stringify({ modules: ['./hooks.js'] }))
  writeFileSync(join(dir, 'hooks/hooks.js'), hooksJs)
  return dir
}

// ---- Debug-log readers. Wordings measured on engine 2.1.328 (see FINDINGS.md). ----

const LINE = /^\S+ \[(DEBUG|INFO|WARN|ERROR)\] (.*)$/

function messages(log: string): string[] {
  return log.split('\n').map((l) => LINE.exec(l)?.[2]).filter((m): m is string => m !== undefined)
}

/** Texts a plugin logged with $.ui.log(text, { to: 'debug' }): "[<plugin>] $.ui.log (to debug): <text>". */
export function debugLines(log: string, plugin: string): string[] {
  const prefix = `[${plugin}] $.ui.log (to debug): `
  return messages(log).filter((m) => m.startsWith(prefix)).map((m) => m.slice(prefix.length))
}

export interface LoadedModule { plugin: string; source: string; host: string; tier: string; events: string[] }

/** "hooks module <plugin>@<source> loaded (<worker|native>, environment N, tier <tier>); events: a,b" */
export function loadedModules(log: string): LoadedModule[] {
  const re = /^hooks module ([^@\s]+)@(\S+) loaded \((\w+), environment \d+, tier (\w+)\); events: (.*)$/
  return messages(log).flatMap((m) => {
    const x = re.exec(m)
    return x ? [{ plugin: x[1]!, source: x[2]!, host: x[3]!, tier: x[4]!, events: x[5]!.split(',').filter(Boolean) }] : []
  })
}

export interface HookSettle { plugins: string[]; event: string; ms: number; link: string }

/** "hooks module a@inline, b@inline <event> settled in 5.0ms (worker hop, next() included)"; a streaming
 *  event says "<event> stream settled in". Plugins sharing the worker are reported together on one line. */
export function hookSettles(log: string): HookSettle[] {
  const re = /^hooks module (.+?) (\S+)(?: stream)? settled in ([\d.]+)ms \(([^,)]+)/
  return messages(log).flatMap((m) => {
    const x = re.exec(m)
    if (!x) return []
    const plugins = x[1]!.split(', ').map((p) => p.replace(/@\S+$/, ''))
    return [{ plugins, event: x[2]!, ms: Number(x[3]!), link: x[4]! }]
  })
}

/** Settle times in ms per event, optionally only lines naming `plugin`. */
export function hookSettleTimes(log: string, plugin?: string): Record<string, number[]> {
  const out: Record<string, number[]> = {}
  for (const s of hookSettles(log)) {
    if (plugin && !s.plugins.includes(plugin)) continue
    ;(out[s.event] ??= []).push(s.ms)
  }
  return out
}

/** "[ERROR] <plugin>: hooks module did not load: <reason>" (the loader's refusal, or a throw in register,
 *  or options that don't fit userConfig). One line per refused module. */
export function loadRefusals(log: string): { plugin: string; reason: string }[] {
  return messages(log).flatMap((m) => {
    const x = /^(\S+): hooks module did not load: (.*)$/.exec(m)
    return x ? [{ plugin: x[1]!, reason: x[2]! }] : []
  })
}

/** "[ERROR] <plugin>: <event> hook skipped: <why>", e.g. "threw Error: boom" or "returned the wrong shape (no result)". */
export function skippedHooks(log: string): { plugin: string; event: string; reason: string }[] {
  return messages(log).flatMap((m) => {
    const x = /^(\S+): (\S+) hook skipped: (.*)$/.exec(m)
    return x ? [{ plugin: x[1]!, event: x[2]!, reason: x[3]! }] : []
  })
}
