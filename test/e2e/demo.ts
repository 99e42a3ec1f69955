// `npm run demo`: real headless sessions of the pinned engine with keel packages loaded, against the
// bundled mock model, printing what the mod did. No network, no account: the mock answers.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { cleanupTmp, debugLines, loadedModules, loadRefusals, repoRoot, runClaude, skippedHooks, tmpDir, type RunResult } from './engine.ts'
import { startLive } from './live.ts'
import { byKind, lastUserText, requestText, startMockModel, type MockModel } from './mock-model.ts'
import { startMockProvider } from './mock-provider.ts'
import { writeConfig } from './routing-kit.ts'

const say = (text = '') => console.log(text)
const indent = (text: string) => text.trim().split('\n').map((l) => `    ${l}`).join('\n')
const dir = (pkg: string) => join(repoRoot(), 'packages', pkg)

function report(run: RunResult, pkg: string): void {
  const loaded = loadedModules(run.debugLog).find((m) => m.plugin === pkg)
  say(loaded ? `  ${pkg} loaded (${loaded.host}, tier ${loaded.tier}); hooks: ${loaded.events.join(', ')}` : `  ${pkg} NOT LOADED`)
  for (const r of loadRefusals(run.debugLog)) say(`  load refused: ${r.plugin}: ${r.reason}`)
  for (const s of skippedHooks(run.debugLog)) say(`  hook skipped: ${s.plugin} ${s.event}: ${s.reason}`)
  const lines = debugLines(run.debugLog, pkg)
  if (lines.length) say(`  what ${pkg} logged:\n${indent(lines.join('\n'))}`)
}

function filesUnder(root: string, suffix: string): string[] {
  return readdirSync(root).flatMap((name) => {
    const path = join(root, name)
    return statSync(path).isDirectory() ? filesUnder(path, suffix) : name.endsWith(suffix) ? [path] : []
  })
}

/** klyth: the three setup steps (config, approval, --model), then a routed turn with a tool call. */
async function routedDemo(mock: MockModel): Promise<void> {
  const provider = await startMockProvider([
    { match: /Count the files/, reply: { text: 'Counting them. ', toolCalls: [{ name: 'Bash', arguments: ['{"command":', '"ls | wc -l"}'] }] } },
    { match: /^\s*\d+\s*$/, reply: { text: ['The project ', 'has that many ', 'files (counted by Bash).'] } },
  ])
  try {
    const home = tmpDir('home')
    const config = {
      providers: { local: { api: 'openai-chat', baseUrl: `${provider.url}/v1`, auth: { helper: ['/bin/echo', 'sk-demo-key'] } } },
      models: { 'demo-gpt': { provider: 'local', model: 'gpt-demo-1', context: 128000, label: 'Demo GPT' } },
    }
    const file = writeConfig(home, config)
    say(`  1. the config, ${file.replace(home, '~')}:\n${indent(JSON.stringify(config, null, 2).replace(provider.url, 'http://127.0.0.1:<port>'))}`)
    say('\n$ claude -p "/klyth route trust local" --plugin-dir packages/klyth')
    const trust = await runClaude({ prompt: '/klyth route trust local', pluginDirs: [dir('klyth')], mock, home })
    say(indent(String(trust.json?.result ?? trust.stdout).replace(provider.url, 'http://127.0.0.1:<port>')))
    const native = mock.requests.length
    say('\n$ claude -p "Count the files here" --model demo-gpt --allowedTools Bash --plugin-dir packages/klyth')
    const run = await runClaude({ prompt: 'Count the files here', pluginDirs: [dir('klyth')], mock, home, extraArgs: ['--model', 'demo-gpt', '--allowedTools', 'Bash'] })
    say(`  answer: ${run.json?.result}`)
    const steps = provider.requests.filter((r) => r.path === '/v1/chat/completions')
    say(`  the provider got ${steps.length} requests (model ${steps[0]?.body.model}); the tool call it streamed ran in the engine and its result went back as a "tool" message: ${JSON.stringify(steps[1]?.body.messages.at(-1)?.content ?? null)}`)
    say(`  native Claude got ${mock.requests.length - native} requests`)
  } finally {
    await provider.close()
  }
}

/** One session mails another: kept while the recipient is down, delivered at its start; then live. */
async function mailDemo(mock: MockModel): Promise<void> {
  say('\n=== ws: mail between two sessions of one HOME')
  mock.setScript(byKind({ main: { text: 'Noted: taking the release notes.' } }))
  const home = tmpDir('home')
  const mail = (text: string) => runClaude({ prompt: `/ws mail keel-B ${text}`, pluginDirs: [dir('ws')], mock, home, extraArgs: ['--name', 'keel-A'] })
  say('\n$ claude -p "/ws mail keel-B the parser tests pass; please take the release notes" --name keel-A --plugin-dir packages/ws')
  say(indent(String((await mail('the parser tests pass; please take the release notes')).json?.result)))
  say('\n$ claude --name keel-B --plugin-dir packages/ws   (an SDK session that stays: -p --input-format stream-json)')
  const before = mock.messages('main').length
  const B = await startLive({ mode: 'stream-json', home, pluginDirs: [dir('ws')], mock, extraArgs: ['--name', 'keel-B'] })
  try {
    const [req] = await B.waitFor('keel-B to read its mail', () => {
      const got = mock.messages('main').slice(before).filter((r) => lastUserText(r.body).includes('release notes'))
      return got.length ? got : undefined
    }, 30_000)
    const text = lastUserText(req!.body)
    say(`  with nobody typing, keel-B's model received:\n${indent(text.slice(text.indexOf('The ws plugin sent a message:'), text.indexOf('\n\nThis is how')))}`)
    say('\n$ claude -p "/ws mail keel-B thanks, also bump the version" --name keel-A --plugin-dir packages/ws   (keel-B is running)')
    say(indent(String((await mail('thanks, also bump the version')).json?.result)))
  } finally {
    await B.stop()
  }
}

const NOTES = 'Task: the config parser\nNow: lexer tests fail on CRLF\nNext: fix the tokenizer, then run npm test'
const mock = await startMockModel()
try {
  say('=== superheroes: a checkpoint survives a compaction')
  mock.setScript(byKind({ main: { text: `I will start with the lexer.\n\n\`\`\`superheroes-checkpoint\n${NOTES}\n\`\`\`\n` } }))
  say('\n$ claude -p "Build the parser for the config format" --plugin-dir packages/superheroes')
  const t1 = await runClaude({ prompt: 'Build the parser for the config format', pluginDirs: [dir('superheroes')], mock })
  report(t1, 'superheroes')
  const saved = filesUnder(t1.home, '.notes.md')
  say(saved.length ? `  the reply's checkpoint block was saved as the session's notes:\n${indent(readFileSync(saved[0]!, 'utf8'))}` : '  NO NOTES SAVED')

  const before = mock.messages().length
  mock.setScript(byKind({ main: { text: 'Resuming: fixing the tokenizer.' } }))
  say(`\n$ claude -p "/compact keep the failing test names" --resume ${t1.sessionId} --plugin-dir packages/superheroes`)
  const t2 = await runClaude({ prompt: '/compact keep the failing test names', pluginDirs: [dir('superheroes')], mock, home: t1.home, cwd: t1.cwd, resume: t1.sessionId })
  report(t2, 'superheroes')
  const after = mock.messages().slice(before)
  const summary = after.find((r) => r.kind === 'summarize')
  if (summary) {
    const text = requestText(summary.body)
    say(`  the summarizer request the model received was steered with:\n${indent(text.slice(text.indexOf('Additional Instructions:'), text.indexOf('REMINDER:')))}`)
  }
  const resume = after.find((r) => r.kind === 'main')
  const resumeLine = resume && requestText(resume.body).split('\n').find((l) => l.startsWith('Resume:'))
  say(resumeLine ? `  then the mod resumed the session; the next request the model received says:\n${indent(resumeLine)}` : '  NO RESUME PROMPT')

  say('\n$ claude -p "/superheroes status" --resume … --plugin-dir packages/superheroes')
  const t3 = await runClaude({ prompt: '/superheroes status', pluginDirs: [dir('superheroes')], mock, home: t1.home, cwd: t1.cwd, resume: t1.sessionId })
  say(indent(String(t3.json?.result ?? t3.stdout)))

  for (const pkg of ['ws', 'keel', 'klyth']) {
    say(`\n=== ${pkg}\n$ claude -p "/${pkg} status" --plugin-dir packages/${pkg}`)
    const run = await runClaude({ prompt: `/${pkg} status`, pluginDirs: [dir(pkg)], mock })
    report(run, pkg)
    say(indent(String(run.json?.result ?? run.stdout)))
  }

  say('\n=== klyth: a conversation routed to another provider (the bundled mock OpenAI-compatible provider)')
  await routedDemo(mock)

  await mailDemo(mock)

  say('\n=== keel and ws in one session: each session-acting feature runs in one package')
  const both = await runClaude({ prompt: '/ws status', pluginDirs: [dir('keel'), dir('ws')], mock })
  say(indent(String(both.json?.result ?? '').split('\n').filter((l) => /yields|^ws:? /.test(l)).join('\n')))
} finally {
  await mock.close()
  cleanupTmp()
}
