// Two packages of the bundle in one real session: a session-acting feature runs in exactly one of
// them, whichever order the engine loads them in (the first to claim it owns it), and a compaction
// is steered once, not twice.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { join } from 'node:path'
import { byKind, requestText, startMockModel, type MockModel } from './mock-model.ts'
import { cleanupTmp, debugLines, loadRefusals, repoRoot, runClaude, skippedHooks } from './engine.ts'

const dir = (pkg: string) => join(repoRoot(), 'packages', pkg)
let mock: MockModel

test.before(async () => { mock = await startMockModel() })
test.after(async () => { await mock.close(); cleanupTmp() })

/** The tools a package registered with the engine, from the debug log's `$.tool.register (<pkg>): <tool> (` lines. */
function toolsRegistered(log: string, pkg: string): string[] {
  return [...log.matchAll(new RegExp(`\\$\\.tool\\.register \\(${pkg}\\): (mcp__\\S+) \\(`, 'g'))].map((m) => m[1]!)
}

for (const [outer, inner] of [['keel', 'ws'], ['ws', 'keel']] as const) {
  test(`${outer} loaded before ${inner}: reconnect runs in ${outer} alone, and ${inner} says it yields`, async () => {
    const run = await runClaude({ prompt: `/${inner} status`, pluginDirs: [dir(outer), dir(inner)], mock })
    assert.is(run.code, 0, run.stderr)
    assert.equal(loadRefusals(run.debugLog), [])
    assert.equal(skippedHooks(run.debugLog).filter((s) => s.plugin === outer || s.plugin === inner), [])
    assert.ok(toolsRegistered(run.debugLog, outer).includes(`mcp__${outer}__request_mcp_reconnect`), `${outer} serves the lever`)
    assert.not.ok(toolsRegistered(run.debugLog, inner).includes(`mcp__${inner}__request_mcp_reconnect`), `${inner} registered no second lever`)
    assert.ok(debugLines(run.debugLog, inner).includes(`reconnect: yields to ${outer}, which runs it in this session`))
    assert.match(String(run.json?.result), new RegExp(`reconnect: on \\(profile\\), yields to ${outer}, which runs it in this session`))
  })
}

test('superheroes (no server to reach) loaded before ws: superheroes claims no reconnect, so ws serves the lever', async () => {
  const run = await runClaude({ prompt: '/ws status', pluginDirs: [dir('superheroes'), dir('ws')], mock })
  assert.is(run.code, 0, run.stderr)
  assert.ok(toolsRegistered(run.debugLog, 'ws').includes('mcp__ws__request_mcp_reconnect'), 'ws serves the lever')
  assert.equal(toolsRegistered(run.debugLog, 'superheroes'), ['mcp__superheroes__recall'], 'superheroes registers its recall tool (checkpoint), no lever')
  assert.match(String(run.json?.result), /reconnect: runs \(profile\)/)
})

test('superheroes and keel both running checkpoint: one compaction, steered once, one resume prompt', async () => {
  const settings = { pluginConfigs: { 'keel@inline': { options: { checkpoint: 'on' } } } }
  const notes = 'Now: the CRLF case'
  mock.setScript(byKind({ main: { text: `Working.\n\n\`\`\`superheroes-checkpoint\n${notes}\n\`\`\`\n` } }))
  const before = mock.messages().length
  const pluginDirs = [dir('superheroes'), dir('keel')]
  const t1 = await runClaude({ prompt: 'Fix the lexer', pluginDirs, mock, settings })
  assert.is(t1.code, 0, t1.stderr)
  assert.ok(debugLines(t1.debugLog, 'keel').includes('checkpoint: yields to superheroes, which runs it in this session'))
  mock.setScript(byKind({ main: { text: 'resumed' } }))
  const t2 = await runClaude({ prompt: '/compact keep it short', pluginDirs, mock, settings, home: t1.home, cwd: t1.cwd, resume: t1.sessionId })
  assert.is(t2.code, 0, t2.stderr)
  const requests = mock.messages().slice(before)
  const summaries = requests.filter((r) => r.kind === 'summarize')
  assert.is(summaries.length, 1, 'one compaction')
  const text = requestText(summaries[0]!.body)
  assert.is(text.split('## Checkpoint notes').length - 1, 1, 'the notes are in the instructions once')
  assert.ok(text.includes(notes))
  const resumes = requests.filter((r) => r.kind === 'main' && requestText(r.body).includes('Resume: this session was just compacted.'))
  assert.is(resumes.length, 1, 'one resume prompt')
})

test.run()
