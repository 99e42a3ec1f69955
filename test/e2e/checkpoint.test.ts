// The checkpoint feature in the real engine, headless against the mock model: a reply's block is
// saved; `/compact <owner text>` on that session sends the summarizer the charter, the notes and
// the owner's text, and the resume prompt follows; a headless session past the trigger runs no
// checkpoint and records why.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, byKind, requestText, type MockModel } from './mock-model.ts'
import { cleanupTmp, debugLines, findFiles, loadRefusals, repoRoot, runClaude, skippedHooks, type RunResult } from './engine.ts'

const PKG = 'superheroes'
const plugin = () => join(repoRoot(), 'packages', PKG)
const RESUME = 'Resume: this session was just compacted. Re-read your resume point (your checkpoint notes, and your charter if this session has one), then continue where you left off.'
const NOTES = 'Task: the parser\nNow: lexer tests fail on CRLF\nNext: fix the tokenizer'

let mock: MockModel | undefined

function ok(r: RunResult): void {
  assert.ok(!r.timedOut && r.code === 0, `engine exit ${r.code} (timedOut=${r.timedOut})\nstderr: ${r.stderr}\nstdout: ${r.stdout}`)
  assert.equal(loadRefusals(r.debugLog), [], 'the package loaded')
  assert.equal(skippedHooks(r.debugLog).filter((s) => s.plugin === PKG), [], 'no hook of the package was skipped')
}

test.after.each(async () => {
  await mock?.close()
  mock = undefined
})
test.after(() => cleanupTmp())

test('a block is saved; /compact sends charter, notes and owner text to the summarizer; the resume prompt follows', async () => {
  mock = await startMockModel(byKind({ main: { text: `Working on it.\n\n\`\`\`${PKG}-checkpoint\n${NOTES}\n\`\`\`\n` } }))
  const t1 = await runClaude({ prompt: 'Build the parser for the config format', pluginDirs: [plugin()], mock })
  ok(t1)
  const saved = findFiles(t1.home, '.notes.a.md')
  assert.is(saved.length, 1, `one notes slot written under HOME\n${t1.debugLog.split('\n').filter((l) => l.includes(PKG)).join('\n')}`)
  assert.is(readFileSync(saved[0]!, 'utf8'), NOTES)

  mock.setScript(byKind({ main: { text: 'resumed' } }))
  const t2 = await runClaude({ prompt: '/compact keep the failing test names', pluginDirs: [plugin()], mock, home: t1.home, cwd: t1.cwd, resume: t1.sessionId })
  ok(t2)
  const requests = mock.messages()
  const at = requests.findIndex((r) => r.kind === 'summarize')
  assert.ok(at > 0, 'a summarizer request was made')
  const summarize = requestText(requests[at]!.body)
  const steered = summarize.slice(summarize.indexOf('Additional Instructions:'))
  assert.ok(steered.includes('## Charter\nBuild the parser for the config format'), steered)
  assert.ok(steered.includes(`## Checkpoint notes\n${NOTES}`), steered)
  assert.ok(steered.includes("## Owner's instructions\nkeep the failing test names"), steered)
  const stable = saved[0]!.replace(/\.notes\.a\.md$/, '.notes.md')
  assert.ok(steered.includes(`kept in ${stable};`), 'the stable notes file is named')
  assert.is(readFileSync(stable, 'utf8'), NOTES, 'it holds the notes')
  const next = requests[at + 1]
  assert.ok(next, `a request follows the summarizer\n${debugLines(t2.debugLog, PKG).join('\n')}`)
  assert.is(next!.kind, 'main')
  const lastUser = next!.body.messages.filter((m: { role: string }) => m.role === 'user').pop()
  assert.ok(requestText({ messages: [lastUser] }).includes(RESUME), 'the resume prompt is the next turn')
})

test('a headless session past the trigger runs no checkpoint and records why', async () => {
  mock = await startMockModel(byKind({ main: { text: 'big', inputTokens: 160_000 } }))
  const r = await runClaude({ prompt: 'fill the context', pluginDirs: [plugin()], mock })
  ok(r)
  const lines = debugLines(r.debugLog, PKG)
  assert.ok(lines.includes('checkpoint: skip record headless:past (fill 160000, trigger 150000)'), lines.join('\n'))
  const skips = findFiles(r.home, '.skip')
  assert.is(skips.length, 1)
  const record = JSON.parse(readFileSync(skips[0]!, 'utf8'))
  assert.equal({ ...record, at: typeof record.at }, {
    at: 'string', reason: 'headless', tokens: 160000, trigger: 150000, isInteractive: false, isDesktopStarted: false, surfaces: [],
  })
  assert.is(mock.messages('main').length, 1, 'no checkpoint turn ran')
  assert.is(mock.messages('summarize').length, 0, 'nothing compacted')
})

test('the skill runs as /superheroes:checkpoint, and the presence signal reaches its Bash with the session id', async () => {
  mock = await startMockModel(byKind({
    main: (_req, i) => (i === 0 ? { toolUse: { name: 'Bash', input: { command: 'echo "mod=${SUPERHEROES_COMPACT_MOD:-none}"', description: 'presence' } } } : { text: 'done' }),
  }))
  const r = await runClaude({ prompt: `/${PKG}:checkpoint auto`, pluginDirs: [plugin()], mock, extraArgs: ['--allowedTools', 'Bash'] })
  ok(r)
  const [first, second] = mock.messages('main')
  const skill = requestText(first!.body)
  // The tag the automatic checkpoint binds its turn by (B.0 F3), and the skill's text for this package.
  assert.ok(skill.includes(`<command-name>/${PKG}:checkpoint</command-name>`))
  assert.ok(skill.includes(`invoked as \`/${PKG}:checkpoint\`: the info string is \`${PKG}-checkpoint\``))
  // The engine substitutes the session id into the skill, so it can compare the signal with it.
  assert.ok(skill.includes(`session=${r.sessionId}`), 'CLAUDE_SESSION_ID is substituted')
  assert.ok(requestText(second!.body).includes(`mod=${r.sessionId}`), 'the signal names this session in the Bash child')
})

test.run()
