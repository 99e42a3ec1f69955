// Captions in the real engine. Tool rows are drawn only by an interactive session (a `-p` run raises
// no ui.render), so this test runs the pinned engine's TUI under `script` (a pty from util-linux),
// lets the mock answer a Bash call, and waits for the caption request: the non-streaming haiku
// request the mock classifies 'other'. It checks that request's layout and that the TUI drew the caption.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawn } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { byKind, startMockModel, type MockModel, type RecordedRequest } from './mock-model.ts'
import { claudeBin, cleanupTmp, debugLines, repoRoot, tmpDir } from './engine.ts'

const PKG = 'ws'
const MARK = 'caption-e2e-7'
const INTENT = 'CAPTION-INTENT-42'
const CAPTION_REPLY = JSON.stringify([{ id: 'u1', subtitle: `echo ${MARK}`, intention: INTENT, result: 'printed the mark' }])

type Interactive = { screen: string; debugLog: string }

/** Runs the TUI with `prompt` until `done()` holds (or the timeout), then ends its process group. */
async function runInteractive(mock: MockModel, prompt: string, options: object, done: () => boolean, timeoutMs = 45_000): Promise<Interactive> {
  const home = tmpDir('home')
  const cwd = tmpDir('proj')
  mkdirSync(join(home, '.claude'), { recursive: true })
  writeFileSync(join(home, '.claude/settings.json'), JSON.stringify({ pluginConfigs: { [`${PKG}@inline`]: { options } } }))
  // A fresh HOME would open onboarding, the API-key question and the folder-trust dialog first.
  writeFileSync(join(home, '.claude.json'), JSON.stringify({
    hasCompletedOnboarding: true, theme: 'dark', customApiKeyResponses: { approved: ['dummy'], rejected: [] },
    projects: { [cwd]: { hasTrustDialogAccepted: true, hasCompletedProjectOnboarding: true } },
  }))
  const log = join(tmpDir('log'), 'debug.log')
  const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`
  const command = [claudeBin(), quote(prompt), '--plugin-dir', join(repoRoot(), 'packages', PKG), '--debug-file', log, '--allowedTools', 'Bash'].join(' ')
  const env = {
    PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm-256color', COLUMNS: '120', LINES: '40', LANG: 'C.UTF-8',
    HOME: home, ANTHROPIC_API_KEY: 'dummy', ANTHROPIC_BASE_URL: mock.url, DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  }
  const child = spawn('script', ['-qfec', command, '/dev/null'], { cwd, env, stdio: ['pipe', 'pipe', 'pipe'], detached: true })
  let screen = ''
  child.stdout.setEncoding('utf8').on('data', (c: string) => { screen += c })
  const started = Date.now()
  while (!done() && Date.now() - started < timeoutMs) await new Promise((r) => setTimeout(r, 200))
  // The redraw that follows the caption reply: give the TUI a moment to paint it.
  await new Promise((r) => setTimeout(r, 1500))
  try { process.kill(-child.pid!, 'SIGKILL') } catch { /* already gone */ }
  return { screen: screen.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07/g, ''), debugLog: existsSync(log) ? readFileSync(log, 'utf8') : '' }
}

const isCaptionRequest = (r: RecordedRequest) => r.kind === 'other' && r.path.startsWith('/v1/messages') && !r.path.includes('count_tokens') && /haiku/.test(r.body?.model ?? '')

let mock: MockModel | undefined
test.after.each(async () => { await mock?.close(); mock = undefined })
test.after(() => cleanupTmp())

test('a finished Bash row is captioned: rules first, the units last, and the TUI draws the caption', async () => {
  mock = await startMockModel(byKind({
    main: (_req, i) => (i === 0 ? { toolUse: { name: 'Bash', input: { command: `echo ${MARK}`, description: 'print the mark' } } } : { text: 'done' }),
    other: { text: CAPTION_REPLY, inputTokens: 900, outputTokens: 40 },
  }))
  const m = mock
  const r = await runInteractive(m, 'print the mark', { captions: 'on' }, () => m.requests.some(isCaptionRequest))
  const asked = m.requests.filter(isCaptionRequest)
  assert.is(asked.length, 1, `one caption request; saw ${m.requests.map((q) => q.kind).join(',')}\n${debugLines(r.debugLog, PKG).join('\n')}`)
  const body = asked[0]!.body
  assert.is(body.stream, undefined, 'a non-streaming completion')
  assert.equal(body.tools, undefined)
  const blocks: { type: string; text: string; cache_control?: object }[] = body.messages[0].content
  assert.ok(blocks[0]!.text.startsWith("You write one-glance captions for a coding agent's tool calls."), 'the rules block first')
  assert.ok(blocks[0]!.cache_control, 'the rules block is cached')
  const last = blocks.at(-1)!.text
  assert.match(last, /UNITS\n\[\{"id":"u1","calls":\[\{"tool":"Bash"/)
  assert.ok(last.endsWith('u1: lone call -> {id, subtitle, intention, result}'), 'the units and the answer lines last')
  assert.ok(last.includes(MARK), 'the unit carries the call')
  assert.ok(blocks.some((b) => b.text.includes('print the mark')), 'the mirror carries the conversation')
  assert.ok(debugLines(r.debugLog, PKG).includes("captions: on: model haiku, window 200000 tokens, language (the user's)"))
  assert.ok(r.screen.includes(INTENT), 'the TUI drew the caption')
})

test('off (the profile default): no caption request', async () => {
  mock = await startMockModel(byKind({
    main: (_req, i) => (i === 0 ? { toolUse: { name: 'Bash', input: { command: `echo ${MARK}`, description: 'print the mark' } } } : { text: 'done' }),
  }))
  const m = mock
  // Done once the turn's second main request came back, plus the idle ticks a caption would need.
  const r = await runInteractive(m, 'print the mark', {}, () => m.messages('main').length >= 2)
  await new Promise((res) => setTimeout(res, 3000))
  assert.is(m.messages('main').length, 2, r.screen.slice(-500))
  assert.is(m.requests.filter(isCaptionRequest).length, 0)
})

test.run()
