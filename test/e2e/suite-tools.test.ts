// The suite's own tools, where they once made a run fail at random: laying the engine's
// declarations (test/tools/types.mjs) and walking a folder the engine writes into (engine.ts).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cleanupTmp, entriesOf, findFiles, repoRoot, textIfThere, tmpDir } from './engine.ts'

test.after(() => cleanupTmp())

const ENTRIES = ['claude-code', 'claude-code-tools', 'claude-code-mcp']

/**
 * A stand-in for the engine as a busy machine runs it: it lays claude-code/ at once, the other
 * folders and its "type root" debug line 1.5 s later (the real one: milliseconds apart), then keeps
 * running as the engine does against an unreachable model. With `exits`, it lays the first and exits.
 */
function slowEngine(exits = false): string {
  const bin = join(tmpDir('engine'), 'claude')
  writeFileSync(bin, `#!${process.execPath}
const { appendFileSync, mkdirSync, writeFileSync } = require('node:fs')
const arg = (name) => process.argv[process.argv.indexOf(name) + 1]
const types = arg('--plugin-dir') + '/.claude-plugin/types'
const lay = (entry) => { mkdirSync(types + '/' + entry, { recursive: true }); writeFileSync(types + '/' + entry + '/index.d.ts', 'export {}\\n') }
lay('claude-code')
if (${exits}) process.exit(0)
setTimeout(() => {
  lay('claude-code-tools')
  lay('claude-code-mcp')
  appendFileSync(arg('--debug-file'), new Date().toISOString() + ' [DEBUG] type root of keel-types at ' + types + ': entries ${ENTRIES.join(', ')}; wrote them\\n')
}, 1500)
setInterval(() => {}, 1000)
`)
  chmodSync(bin, 0o755)
  return bin
}

const layTypes = (engine: string, into: string) =>
  spawnSync(process.execPath, [join(repoRoot(), 'test/tools/types.mjs'), '--engine', engine, '--into', into], { encoding: 'utf8', timeout: 120_000 })

test('types.mjs waits for the engine to say it laid every declaration, not for the first file', () => {
  const into = join(tmpDir('types'), 'engine-types')
  const r = layTypes(slowEngine(), into)
  assert.is(r.status, 0, r.stderr)
  for (const entry of ENTRIES) assert.ok(existsSync(join(into, '.claude-plugin/types', entry, 'index.d.ts')), `${entry} laid\n${r.stdout}${r.stderr}`)
  assert.match(textIfThere(join(into, 'laid.txt')), 'entries claude-code, claude-code-tools, claude-code-mcp', 'the stamp test/run.mjs looks for')
})

test('types.mjs fails at once, saying why, when the engine exits without laying them all', () => {
  const into = join(tmpDir('types'), 'engine-types')
  const r = layTypes(slowEngine(true), into)
  assert.is(r.status, 1)
  assert.match(r.stderr, 'the engine did not say it laid the declarations')
  assert.match(r.stderr, 'it exited (0)')
  assert.not.ok(existsSync(join(into, 'laid.txt')), 'no stamp: the next run lays them again')
})

test('a walk of a folder the engine writes into: an entry gone by the time it is looked at is not there', () => {
  // A dangling link lists and then stats ENOENT, as history.jsonl.lock does when the engine removes it between the two.
  const home = tmpDir('home')
  mkdirSync(join(home, '.claude/plugins/data/x/checkpoints'), { recursive: true })
  const notes = join(home, '.claude/plugins/data/x/checkpoints/s.notes.a.md')
  writeFileSync(notes, 'Now: x')
  symlinkSync(join(home, 'gone'), join(home, '.claude/history.jsonl.lock'))
  assert.equal(findFiles(home, '.notes.a.md'), [notes])
  assert.equal(entriesOf(join(home, 'no-such-folder')), [])
  assert.is(textIfThere(join(home, 'gone')), '')
})

test.run()
