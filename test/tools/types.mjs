// `npm run types`: lets the pinned engine lay its own declarations (API.md §7) into
// .build/engine-types/.claude-plugin/types/, where tsconfig.json reads them. The engine writes them
// when it loads a watched plugin folder, before any model request, so the run points at a closed
// port and is stopped once the engine says it has laid them all.
//
// Measured (2.1.328): the engine lays claude-code/index.d.ts first, then claude-code-tools/ and
// claude-code-mcp/, a tsconfig.json and a .gitignore, some milliseconds apart (on a busy machine
// long enough for a run stopped at the first file to miss the rest), then logs one debug line:
// `type root of <plugin> at <folder>: entries claude-code, claude-code-tools, claude-code-mcp;
// wrote <files>` ("wrote nothing" when they were already there). That line is the completion
// signal; a stamp file beside the folder is written after it, so a later run knows the last laying
// finished (a run killed halfway leaves no stamp, and the types are laid again).
//   node test/tools/types.mjs [--engine <binary>] [--into <folder>]   (a test's stand-in engine and folder)
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))))
const option = (name, fallback) => {
  const at = process.argv.indexOf(name)
  return at > 0 ? process.argv[at + 1] : fallback
}
const engine = option('--engine', join(root, 'node_modules/.bin/claude'))
const probe = option('--into', join(root, '.build/engine-types'))
/** Written once the engine said every declaration is laid; test/run.mjs lays them again while it is missing. */
const STAMP = 'laid.txt'
const NAME = 'keel-types'
const TIMEOUT_MS = 90_000
const POLL_MS = 100
/** The engine's own line once it has laid the type root (see above). */
const LAID = new RegExp(`type root of ${NAME} at (.+?): entries ([^;]+); wrote .*`)

rmSync(probe, { recursive: true, force: true })
mkdirSync(join(probe, '.claude-plugin'), { recursive: true })
mkdirSync(join(probe, 'hooks'), { recursive: true })
writeFileSync(join(probe, '.claude-plugin/plugin.json'), JSON.stringify({ name: NAME, version: '0.0.0', description: 'lays the engine types', author: { name: 'keel' } }))
writeFileSync(join(probe, 'hooks/hooks.json'), JSON.stringify({ modules: ['./hooks.js'] }))
writeFileSync(join(probe, 'hooks/hooks.js'), 'export function register(on) {}\n')

const home = mkdtempSync(join(tmpdir(), 'keel-types-'))
const log = join(home, 'debug.log')
const child = spawn(engine, ['-p', 'x', '--max-turns', '1', '--plugin-dir', probe, '--debug-file', log], {
  cwd: probe,
  env: { PATH: process.env.PATH, HOME: home, CLAUDE_CODE_PLUGIN_DIR_WATCH: '1', ANTHROPIC_API_KEY: 'unused', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
  stdio: 'ignore',
  detached: true,
})
let exited
child.once('exit', (code, signal) => (exited = `exited (${signal ?? code})`))
child.once('error', (err) => (exited = `did not start (${err.message})`))
const started = Date.now()
const laidLine = () => (existsSync(log) ? LAID.exec(readFileSync(log, 'utf8')) : null)
let laid = laidLine()
// The line, or the engine gone without it (read once more: it may have logged it and then exited), or the time out.
while (!laid && exited === undefined && Date.now() - started < TIMEOUT_MS) {
  await new Promise((r) => setTimeout(r, POLL_MS))
  laid = laidLine()
}
laid ??= laidLine()
try { process.kill(-child.pid, 'SIGKILL') } catch {}
rmSync(home, { recursive: true, force: true })
const folder = join(probe, '.claude-plugin/types')
const missing = laid ? laid[2].split(', ').map((entry) => join(folder, entry, 'index.d.ts')).filter((f) => !existsSync(f)) : []
if (!laid || missing.length) {
  console.error(laid
    ? `the engine said it laid the declarations, but these are missing: ${missing.join(', ')}`
    : `the engine did not say it laid the declarations (its "type root of ${NAME}" debug line) in ${TIMEOUT_MS / 1000} s: it ${exited ?? 'was still running'}`)
  process.exit(1)
}
writeFileSync(join(probe, STAMP), `${laid[0]}\n`)
console.log(`engine declarations laid in ${Date.now() - started} ms (${laid[2]}): ${folder}`)
