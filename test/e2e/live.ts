// A long-lived engine session for tests that need more than one turn in one process: either headless
// with `--input-format stream-json` (prompts written as JSON lines), or the interactive terminal UI in
// a pseudo-terminal (`script` from util-linux), where commands such as `/mcp reconnect` behave as a
// person's session does. Same environment as runClaude: temp HOME, the mock model, no real account.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { claudeBin, cleanEnv, tmpDir } from './engine.ts'
import type { MockModel } from './mock-model.ts'

export interface LiveOptions {
  mode: 'stream-json' | 'tui'
  pluginDirs: string[]
  mock: MockModel
  /** Written to <home>/.claude/settings.json. */
  settings?: object
  env?: Record<string, string>
  extraArgs?: string[]
  /** A HOME to share with other sessions (several engine processes on one HOME); default: a fresh one. */
  home?: string
  /** The project folder; default: a fresh one. Trusted in the HOME's `.claude.json` either way. */
  cwd?: string
}

export interface LiveSession {
  readonly home: string
  readonly cwd: string
  /** Types a prompt (TUI) or writes a user message (stream-json). */
  send(text: string): Promise<void>
  /** Writes raw bytes to the terminal or stdin, nothing added (Esc is `\x1b`). */
  write(raw: string): void
  /** The engine's process id (the one `$.process.hookEnv().CLAUDE_PID` names); undefined once gone. */
  pid(): number | undefined
  debugLog(): string
  /** Output so far (stream-json lines, or the raw terminal stream). */
  output(): string
  /** Polls `check` every 100 ms until it returns truthy; throws with `what` after `ms`. */
  waitFor<T>(what: string, check: () => T | undefined | false, ms?: number): Promise<T>
  stop(): Promise<void>
}

/** Whether the pseudo-terminal runner is present (util-linux `script`). */
export function hasPty(): boolean {
  return spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const shellQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
// The interactive UI asks once whether to use a key from the environment; the answer is keyed by its last 20 characters.
const API_KEY = 'sk-ant-keel-e2e-mock-key-000000000001'

/**
 * First-run screens the UI would otherwise stop at: onboarding, the folder trust dialog, the key
 * question. Merged into the HOME's `.claude.json`, so sessions sharing a HOME keep each other's projects.
 */
export function trustProject(home: string, cwd: string): void {
  const file = join(home, '.claude.json')
  let kept: Record<string, any> = {}
  try { kept = JSON.parse(readFileSync(file, 'utf8')) } catch { /* none yet */ }
  writeFileSync(file, JSON.stringify({
    ...kept,
    hasCompletedOnboarding: true,
    theme: 'dark',
    customApiKeyResponses: { approved: [API_KEY.slice(-20)], rejected: [] },
    projects: { ...(kept.projects ?? {}), [cwd]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
  }))
}

export async function startLive(opts: LiveOptions): Promise<LiveSession> {
  const home = opts.home ?? tmpDir('home')
  const cwd = opts.cwd ?? tmpDir('proj')
  mkdirSync(join(home, '.claude'), { recursive: true })
  if (opts.settings) writeFileSync(join(home, '.claude/settings.json'), JSON.stringify(opts.settings, null, 2))
  trustProject(home, cwd)
  const debugFile = join(tmpDir('log'), 'debug.log')
  const args = ['--debug-file', debugFile, ...opts.pluginDirs.flatMap((d) => ['--plugin-dir', d]), ...(opts.extraArgs ?? [])]
  const env = {
    ...cleanEnv(), HOME: home, ANTHROPIC_API_KEY: API_KEY, ANTHROPIC_BASE_URL: opts.mock.url,
    DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', ...opts.env,
  }
  let child: ChildProcess
  if (opts.mode === 'tui') {
    const command = `stty cols 160 rows 50; exec ${[claudeBin(), ...args].map(shellQuote).join(' ')}`
    child = spawn('script', ['-qfec', command, '/dev/null'], { cwd, env: { ...env, TERM: 'xterm-256color' }, stdio: ['pipe', 'pipe', 'pipe'], detached: true })
  } else {
    child = spawn(claudeBin(), ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', ...args], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true })
  }
  let out = ''
  child.stdout!.setEncoding('utf8').on('data', (c: string) => { out += c })
  child.stderr!.setEncoding('utf8').on('data', (c: string) => { out += c })
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const killGroup = () => { try { process.kill(-child.pid!, 'SIGKILL') } catch { /* already gone */ } }
  process.once('exit', killGroup)

  /** `script`'s child: the shell it runs execs the engine. */
  const enginePid = (): number | undefined => {
    try {
      return Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/)[0]) || undefined
    } catch {
      return undefined
    }
  }
  const debugLog = () => (existsSync(debugFile) ? readFileSync(debugFile, 'utf8') : '')
  async function waitFor<T>(what: string, check: () => T | undefined | false, ms = 20_000): Promise<T> {
    const until = Date.now() + ms
    for (;;) {
      const v = check()
      if (v) return v
      if (Date.now() > until) throw new Error(`timed out after ${ms} ms waiting for ${what}\n--- output tail:\n${out.slice(-2000)}`)
      await sleep(100)
    }
  }

  if (opts.mode === 'tui') {
    // The prompt box takes keys once the session has started (every plugin's session.start settled).
    await waitFor('the interactive session to start', () => /session\.start settled/.test(debugLog()) && out.includes('❯'))
    await sleep(500)
  }

  return {
    home, cwd, debugLog, waitFor,
    output: () => out,
    write: (raw) => { child.stdin!.write(raw) },
    pid: () => (opts.mode === 'tui' ? enginePid() : child.exitCode === null ? child.pid : undefined),
    async send(text) {
      if (opts.mode === 'tui') {
        // Typed, then Enter on its own: text and Enter in one write reads as a paste. Enter waits at least
        // 300 ms, and until the screen has changed since the keys went in (at most 3 s): on a loaded
        // machine a fixed pause sent Enter before the keys were read. Mid-turn the spinner changes the
        // screen anyway, so a prompt typed then goes after the 300 ms as before.
        const before = out.length
        child.stdin!.write(text)
        await sleep(300)
        const until = Date.now() + 2700
        while (out.length === before && Date.now() < until) await sleep(25)
        child.stdin!.write('\r')
      } else {
        child.stdin!.write(JSON.stringify({ type: 'user', message: { role: 'user', content: text } }) + '\n')
      }
    },
    async stop() {
      if (opts.mode === 'tui') {
        // The engine leads its own session in the pty: killed with `script`'s group alone, it lives on for seconds,
        // writing under HOME. Killed first by its id (its group: its MCP servers too), `script` ends with it.
        const engine = enginePid()
        if (engine) try { process.kill(-engine, 'SIGKILL') } catch { try { process.kill(engine, 'SIGKILL') } catch { /* gone */ } }
      } else child.stdin!.end()
      await Promise.race([exited, sleep(3000)])
      killGroup()
      process.removeListener('exit', killGroup)
    },
  }
}
