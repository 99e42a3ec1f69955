// `npm run types`: lets the pinned engine lay its own declarations (API.md §7) into
// .build/engine-types/.claude-plugin/types/, where tsconfig.json reads them. The engine writes them
// when it loads a watched plugin folder, before any model request, so the run points at a closed
// port and is stopped as soon as the files are there.
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = dirname(dirname(dirname(fileURLToPath(import.meta.url))))
const probe = join(root, '.build/engine-types')
const laid = join(probe, '.claude-plugin/types/claude-code/index.d.ts')
const TIMEOUT_MS = 90_000

rmSync(probe, { recursive: true, force: true })
mkdirSync(join(probe, '.claude-plugin'), { recursive: true })
mkdirSync(join(probe, 'hooks'), { recursive: true })
writeFileSync(join(probe, '.claude-plugin/plugin.json'), JSON.stringify({ name: 'keel-types', version: '0.0.0', description: 'lays the engine types', author: { name: 'keel' } }))
writeFileSync(join(probe, 'hooks/hooks.json'), JSON.stringify({ modules: ['./hooks.js'] }))
writeFileSync(join(probe, 'hooks/hooks.js'), 'export function register(on) {}\n')

const home = mkdtempSync(join(tmpdir(), 'keel-types-'))
const child = spawn(join(root, 'node_modules/.bin/claude'), ['-p', 'x', '--max-turns', '1', '--plugin-dir', probe], {
  cwd: probe,
  env: { PATH: process.env.PATH, HOME: home, CLAUDE_CODE_PLUGIN_DIR_WATCH: '1', ANTHROPIC_API_KEY: 'unused', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' },
  stdio: 'ignore',
  detached: true,
})
const started = Date.now()
while (!existsSync(laid) && Date.now() - started < TIMEOUT_MS) await new Promise((r) => setTimeout(r, 200))
try { process.kill(-child.pid, 'SIGKILL') } catch {}
rmSync(home, { recursive: true, force: true })
if (!existsSync(laid)) {
  console.error(`the engine laid no declarations in ${TIMEOUT_MS / 1000}s (${laid})`)
  process.exit(1)
}
console.log(`engine declarations laid in ${Date.now() - started} ms: ${join(probe, '.claude-plugin/types')}`)
