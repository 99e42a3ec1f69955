// Fault injection on keel's writes, in the real engine: whatever the disk, a crash, a second writer or
// a symbolic link does, keel never damages a file that is not its own, and a file it owns holds
// either what it held or the new whole text. Faults come from strace (`-e inject=…:error=ENOSPC`,
// `…:signal=SIGKILL`, `…:delay_enter=…`), a full tmpfs, links a cloned repository could carry, and
// an unprivileged user (root ignores file modes). A case whose tool is missing here is skipped with
// its reason printed.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { spawnSync } from 'node:child_process'
import { chmodSync, copyFileSync, existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { byKind, startMockModel, type MockModel } from './mock-model.ts'
import { cleanupTmp, debugLines, findFiles, packageCopy, runClaude, tmpDir, type RunOptions } from './engine.ts'

const K = 'CLAUDE_CODE_AUTO_COMPACT_WINDOW'
const hasStrace = spawnSync('strace', ['-V']).status === 0
const isRoot = process.getuid?.() === 0
const skip = (why: string) => { console.log(`  skipped: ${why}`); return true }

let mock: MockModel
test.before(async () => { mock = await startMockModel() })
test.after(async () => { await mock.close(); cleanupTmp() })

/** The person's own settings: permission rules, hooks and env rows, indented wide, so a rewrite is shorter. */
const PERSON = JSON.stringify({ permissions: { allow: ['Bash(npm test)', 'Read(./**)'] }, env: { MY_TOKEN_ROW: 'keep-me' }, hooks: {} }, null, 8) + '\n'
const wsRun = (cwd: string, over: Partial<RunOptions> = {}) => runClaude({
  prompt: 'hello', pluginDirs: [packageCopy('ws')], mock, cwd,
  settings: { pluginConfigs: { 'ws@inline': { options: { compactWindowTokens: 500000 } } } }, ...over,
})
/** The file holds what it held, or the whole new text with the person's rows kept. */
function wholeOrOld(path: string): 'old' | 'new' {
  const text = readFileSync(path, 'utf8')
  if (text === PERSON) return 'old'
  const parsed = JSON.parse(text) // a torn file throws here
  assert.equal(parsed.permissions, { allow: ['Bash(npm test)', 'Read(./**)'] })
  assert.is(parsed.env.MY_TOKEN_ROW, 'keep-me')
  assert.is(parsed.env[K], '500000')
  return 'new'
}
function project(): { cwd: string; settings: string } {
  const cwd = tmpDir('proj')
  mkdirSync(join(cwd, '.claude'))
  const settings = join(cwd, '.claude/settings.local.json')
  writeFileSync(settings, PERSON)
  return { cwd, settings }
}
const windowLines = (log: string) => debugLines(log, 'ws').filter((l) => l.startsWith('window: '))

test('links: a settings file linked to the home settings, a linked .claude folder, a dangling link: nothing outside is written', async () => {
  const home = tmpDir('home')
  mkdirSync(join(home, '.claude'), { recursive: true })
  const homeSettings = join(home, '.claude/settings.json')

  const linked = project()
  rmSync(linked.settings)
  symlinkSync(homeSettings, linked.settings)
  const r1 = await wsRun(linked.cwd, { home })
  const after = JSON.parse(readFileSync(homeSettings, 'utf8'))
  assert.is(after.env?.[K], undefined, 'the home settings were not written')
  assert.ok(lstatSync(linked.settings).isSymbolicLink(), 'the link is left as it was')
  assert.ok(windowLines(r1.debugLog).some((l) => l.includes(`${linked.settings} is a symbolic link`)), windowLines(r1.debugLog).join('\n'))

  const folder = tmpDir('proj')
  symlinkSync(join(home, '.claude'), join(folder, '.claude'))
  const r2 = await wsRun(folder, { home })
  assert.not.ok(existsSync(join(home, '.claude/settings.local.json')), 'nothing created in the linked folder')
  assert.ok(windowLines(r2.debugLog).some((l) => l.includes(`${folder}/.claude is a symbolic link`)), windowLines(r2.debugLog).join('\n'))

  const dangling = project()
  const outside = join(tmpDir('outside'), 'made.json')
  rmSync(dangling.settings)
  symlinkSync(outside, dangling.settings)
  await wsRun(dangling.cwd)
  assert.not.ok(existsSync(outside), 'a dangling link creates no file outside the project')
})

test('links in the notes folder: a slot, a skip record or the folder itself linked elsewhere is never written through', async () => {
  const sessionId = '5e55a1d0-0000-4000-8000-000000000001'
  const home = tmpDir('home')
  const data = join(home, '.claude/plugins/data/superheroes-inline')
  const folder = join(data, 'checkpoints')
  mkdirSync(folder, { recursive: true })
  const victim = join(tmpDir('victim'), 'passwd')
  copyFileSync('/etc/passwd', victim)
  const original = readFileSync(victim, 'utf8')
  for (const name of [`${sessionId}.notes.a.md`, `${sessionId}.notes.b.md`, `${sessionId}.notes.md`, `${sessionId}.skip`]) symlinkSync(victim, join(folder, name))
  mock.setScript(byKind({ main: { text: 'Noted.\n\n```superheroes-checkpoint\nNow: the lexer\n```\n', inputTokens: 160_000 } }))
  const r = await runClaude({ prompt: 'work', pluginDirs: [packageCopy('superheroes')], mock, home, extraArgs: ['--session-id', sessionId] })
  mock.setScript(undefined)
  assert.is(readFileSync(victim, 'utf8'), original, 'the linked file is untouched')
  const lines = debugLines(r.debugLog, 'superheroes')
  assert.ok(lines.some((l) => l.includes('is a symbolic link, and keel writes only to a real path inside the folder it owns')), lines.join('\n'))

  const linkedFolder = tmpDir('home')
  const elsewhere = tmpDir('elsewhere')
  mkdirSync(join(linkedFolder, '.claude/plugins/data/superheroes-inline'), { recursive: true })
  symlinkSync(elsewhere, join(linkedFolder, '.claude/plugins/data/superheroes-inline/checkpoints'))
  mock.setScript(byKind({ main: { text: 'Noted.\n\n```superheroes-checkpoint\nNow: x\n```\n' } }))
  await runClaude({ prompt: 'work', pluginDirs: [packageCopy('superheroes')], mock, home: linkedFolder })
  mock.setScript(undefined)
  assert.equal(readdirSync(elsewhere), [], 'nothing written into the folder the link points at')
})

test('a full disk (ENOSPC on every write to the settings file): it holds what it held, or the new whole text', async () => {
  if (!hasStrace && skip('strace is not installed')) return
  const { cwd, settings } = project()
  const r = await wsRun(cwd, { wrap: ['strace', '-f', '-qq', '-o', '/dev/null', '-P', settings, '-e', 'trace=write,pwrite64,writev', '-e', 'inject=write,pwrite64,writev:error=ENOSPC'] })
  assert.ok(!r.timedOut, r.stderr)
  const state = wholeOrOld(settings)
  console.log(`  ENOSPC on the settings file: it holds the ${state} text`)
})

test('a full disk (a filled tmpfs): the file holds what it held, and the reason is said', async () => {
  if (!isRoot && skip('mounting a tmpfs needs root')) return
  const cwd = tmpDir('proj')
  const mount = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', cwd])
  if (mount.status !== 0 && skip(`mount refused here: ${String(mount.stderr).trim()}`)) return
  try {
    mkdirSync(join(cwd, '.claude'))
    const settings = join(cwd, '.claude/settings.local.json')
    writeFileSync(settings, PERSON)
    spawnSync('dd', ['if=/dev/zero', `of=${join(cwd, 'fill')}`, 'bs=4k'])
    const r = await wsRun(cwd)
    assert.is(readFileSync(settings, 'utf8'), PERSON, 'the person\'s settings are as they were')
    assert.ok(windowLines(r.debugLog).some((l) => l.includes('could not be written') && l.includes('The file is as it was.')), windowLines(r.debugLog).join('\n'))
    assert.equal(readdirSync(join(cwd, '.claude')), ['settings.local.json'], 'no temporary file left')
  } finally {
    spawnSync('umount', [cwd])
  }
})

test('a crash at each system call of the write (SIGKILL): never a torn settings file', async () => {
  if (!hasStrace && skip('strace is not installed')) return
  const states: string[] = []
  for (const call of ['openat', 'write', 'ftruncate', 'close', 'rename,renameat,renameat2']) {
    const { cwd, settings } = project()
    const r = await wsRun(cwd, { wrap: ['strace', '-f', '-qq', '-o', '/dev/null', '-P', settings, '-e', `trace=${call}`, '-e', `inject=${call}:signal=SIGKILL:when=1`] })
    assert.ok(!r.timedOut)
    states.push(`${call}: ${wholeOrOld(settings)}`)
  }
  console.log(`  killed at: ${states.join('; ')}`)
})

test('a second writer during the write: its change stands, and keel does not claim it wrote', async () => {
  if (!hasStrace && skip('strace is not installed')) return
  const { cwd, settings } = project()
  const trace = join(tmpDir('strace'), 'trace.log')
  const theirs = JSON.stringify({ permissions: { allow: ['Bash(make)'] } }) + '\n'
  // Measured (strace): only keel's hooks read the file with read(2) (the engine's own settings reads
  // do not), two reads a `$.fs.read`: reads 1-2 are keel's read of the file, 3-4 its second (the old
  // code's read-back after its write, the new code's check before its rename). Every read is held
  // 1.5 s (strace counts `when=` per thread, and the engine's reads move between threads, so "the
  // third" cannot be picked there), and strace writes a held call's line up to its arguments when the
  // call is entered (`read(13, `): the other writer lands as soon as the third read is entered, while
  // it is held, whatever the machine's load.
  const running = wsRun(cwd, { wrap: ['strace', '-f', '-qq', '-o', trace, '-P', settings, '-e', 'trace=read', '-e', 'inject=read:delay_enter=1500000'] })
  const traced = () => (existsSync(trace) ? readFileSync(trace, 'utf8') : '')
  const until = Date.now() + 60_000
  while (Date.now() < until && traced().split('read(').length - 1 < 3) await new Promise((r) => setTimeout(r, 10))
  writeFileSync(settings, theirs)
  const third = traced().split('read(')[3] ?? ''
  // Still held when the other writer landed: the third read's line had no result yet.
  const held = third !== '' && !/\)\s+=\s/.test(third)
  const r = await running
  assert.ok(held, `keel's second read was held when the other writer landed: ${traced().slice(-1500)}`)
  assert.is(readFileSync(settings, 'utf8'), theirs, 'the other writer\'s change stands')
  const lines = windowLines(r.debugLog)
  assert.not.ok(lines.some((l) => l.includes(`wrote ${K}=500000`)), lines.join('\n'))
  assert.ok(lines.some((l) => l.includes('changed while keel was writing it')), lines.join('\n'))
})

test('a read-only folder, as an unprivileged user: the file is as it was, and the reason is said', async () => {
  if (!isRoot && skip('switching to an unprivileged user needs root')) return
  if (spawnSync('setpriv', ['--version']).status !== 0 && skip('setpriv is not installed')) return
  const { cwd, settings } = project()
  chmodSync(join(cwd, '.claude'), 0o555)
  chmodSync(settings, 0o444)
  const r = await wsRun(cwd, { asUser: { uid: 65534, gid: 65534 } })
  chmodSync(join(cwd, '.claude'), 0o755)
  assert.is(readFileSync(settings, 'utf8'), PERSON)
  const lines = windowLines(r.debugLog)
  assert.ok(lines.some((l) => l.includes('could not be written') || l.includes('not written')), `${lines.join('\n')}\n${r.stderr.slice(0, 500)}`)
})

test('the notes folder stays bounded: 60 sessions\' leftovers shrink to at most 50 sessions\' files', async () => {
  const home = tmpDir('home')
  const folder = join(home, '.claude/plugins/data/superheroes-inline/checkpoints')
  mkdirSync(folder, { recursive: true })
  const old = new Date(Date.now() - 86_400_000)
  for (let i = 0; i < 60; i++) {
    const id = `0ld0000${String(i).padStart(2, '0')}-0000-4000-8000-000000000000`
    for (const name of [`${id}.skip`, `${id}.notes.a.md`, `${id}.notes.b.md`]) writeFileSync(join(folder, name), '')
    spawnSync('touch', ['-d', old.toISOString(), ...[`${id}.skip`, `${id}.notes.a.md`, `${id}.notes.b.md`].map((n) => join(folder, n))])
  }
  mock.setScript(byKind({ main: { text: 'Noted.\n\n```superheroes-checkpoint\nNow: bounded\n```\n' } }))
  await runClaude({ prompt: 'work', pluginDirs: [packageCopy('superheroes')], mock, home })
  mock.setScript(undefined)
  const sessions = new Set(readdirSync(folder).map((n) => n.split('.')[0]))
  assert.ok(sessions.size <= 50, `${sessions.size} sessions' files left`)
  assert.ok(readdirSync(folder).length <= 50 * 4, `${readdirSync(folder).length} files`)
})

test('a damaged store file: the failed save and the status say exactly what to do, and after it the save works', async () => {
  const home = tmpDir('home')
  const reply = (note: string) => byKind({ main: { text: `Noted.\n\n\`\`\`superheroes-checkpoint\n${note}\n\`\`\`\n` } })
  mock.setScript(reply('Now: first'))
  const r1 = await runClaude({ prompt: 'work', pluginDirs: [packageCopy('superheroes')], mock, home })
  const store = findFiles(join(home, '.claude/plugins/store'), '.json').find((f) => f.includes('superheroes'))
  assert.ok(store, 'the store file exists')
  writeFileSync(store!, '{"notes:x": {"torn')
  mock.setScript(reply('Now: second'))
  const r2 = await runClaude({ prompt: 'more', pluginDirs: [packageCopy('superheroes')], mock, home, cwd: r1.cwd })
  const toast = r2.debugLog.split('\n').find((l) => l.includes('Checkpoint notes NOT saved'))
  assert.ok(toast?.includes(`mv "${store}" "${store}.damaged"`), toast ?? debugLines(r2.debugLog, 'superheroes').join('\n'))
  const status = await runClaude({ prompt: '/superheroes status', pluginDirs: [packageCopy('superheroes')], mock, home, cwd: r1.cwd })
  assert.match(String(status.json?.result), /store: the engine's store file for this plugin is damaged/)
  spawnSync('mv', [store!, `${store}.damaged`])
  mock.setScript(reply('Now: third'))
  const r3 = await runClaude({ prompt: 'again', pluginDirs: [packageCopy('superheroes')], mock, home, cwd: r1.cwd })
  mock.setScript(undefined)
  assert.ok(findFiles(home, '.notes.md').some((f) => readFileSync(f, 'utf8') === 'Now: third'), debugLines(r3.debugLog, 'superheroes').join('\n'))
})

// Issue 17 #11. Measured (mailbox-engine-spool): `$.fs.stat` answers no mode, and `$.fs.write` makes a
// new file 0600; the rename replaced a 0444 file (0600 after it) and every rewrite left the file 0600.
test('a settings file made read-only is left as it is, and why is said; a rewrite keeps the file\'s mode', async () => {
  const ro = project()
  chmodSync(ro.settings, 0o444)
  const r = await wsRun(ro.cwd)
  assert.is(readFileSync(ro.settings, 'utf8'), PERSON)
  assert.is(statSync(ro.settings).mode & 0o777, 0o444)
  const lines = windowLines(r.debugLog)
  assert.ok(lines.includes(`window: Harness window not written: ${ro.settings} is read-only, so keel leaves it as it is; to let keel write it, make it writable (chmod u+w "${ro.settings}"). The file is as it was.`), lines.join('\n'))
  assert.equal(readdirSync(join(ro.cwd, '.claude')), ['settings.local.json'], 'no temporary file left')
  for (const mode of [0o644, 0o664]) {
    const rw = project()
    chmodSync(rw.settings, mode)
    await wsRun(rw.cwd)
    assert.is(wholeOrOld(rw.settings), 'new')
    assert.is((statSync(rw.settings).mode & 0o777).toString(8), mode.toString(8))
  }
})

// Issue 17 #12: a crashed write's temporary file (a whole copy of the settings) stayed in the project for good.
test('a crashed write\'s temporary file in .claude/ is removed at the next start; a fresh one is left to its writer', async () => {
  const { cwd, settings } = project()
  const stale = join(cwd, '.claude/.settings.local.json.keel-0123456789ab.tmp')
  const fresh = join(cwd, '.claude/.settings.local.json.keel-ba9876543210.tmp')
  writeFileSync(stale, PERSON)
  writeFileSync(fresh, PERSON)
  const hoursAgo = new Date(Date.now() - 2 * 3_600_000)
  utimesSync(stale, hoursAgo, hoursAgo)
  await wsRun(cwd)
  assert.is(wholeOrOld(settings), 'new')
  assert.equal(readdirSync(join(cwd, '.claude')).sort(), ['.settings.local.json.keel-ba9876543210.tmp', 'settings.local.json'])
})

// Issue 17 #13. Measured: a headless session ends a turn whose events still run after 60 s ("turn
// events still running after 60000ms; the turn ends without them and their late notes are dropped"):
// a save held past that was dropped, and nothing said.
test('a notes save held by a stuck disk is given up at 30 s and said, before the engine drops the turn\'s end', async () => {
  if (!hasStrace && skip('strace is not installed')) return
  const sessionId = '5e55a1d0-0000-4000-8000-000000000013'
  const home = tmpDir('home')
  const folder = join(home, '.claude/plugins/data/superheroes-inline/checkpoints')
  mkdirSync(folder, { recursive: true })
  const slot = join(folder, `${sessionId}.notes.a.md`)
  // The save's first look at its slot (a stat, in whichever thread) is held 40 s: a disk that does not answer.
  const calls = 'newfstatat,statx,lstat,stat'
  mock.setScript(byKind({ main: { text: 'Noted.\n\n```superheroes-checkpoint\nNow: held\n```\n' } }))
  const r = await runClaude({
    prompt: 'work', pluginDirs: [packageCopy('superheroes')], mock, home, extraArgs: ['--session-id', sessionId], timeoutMs: 150_000,
    wrap: ['strace', '-f', '-qq', '-o', '/dev/null', '-P', slot, '-e', `trace=${calls}`, '-e', `inject=${calls}:delay_enter=40000000:when=1`],
  })
  mock.setScript(undefined)
  assert.ok(!r.timedOut, r.stderr)
  const said = 'Checkpoint notes NOT saved: the previous notes are still in place. The disk did not answer within 30 s, so the save was given up.'
  assert.ok(r.debugLog.includes(`$.ui.toast (superheroes): ${said}`), debugLines(r.debugLog, 'superheroes').join('\n'))
  assert.not.match(r.debugLog, 'turn events still running after', 'keel said it before the engine dropped the turn\'s end')
  assert.equal(findFiles(folder, '.notes.md'), [], 'nothing committed')
})

// Issue 17 #14. Measured: a folder where the store file goes makes every `$.store` call reject with
// `store file <path> is unreadable (EISDIR: illegal operation on a directory, read)`.
test('a folder where the store file goes: the failed save and the status name it as a damaged store', async () => {
  const home = tmpDir('home')
  const reply = (note: string) => byKind({ main: { text: `Noted.\n\n\`\`\`superheroes-checkpoint\n${note}\n\`\`\`\n` } })
  mock.setScript(reply('Now: first'))
  const r1 = await runClaude({ prompt: 'work', pluginDirs: [packageCopy('superheroes')], mock, home })
  const store = findFiles(join(home, '.claude/plugins/store'), '.json').find((f) => f.includes('superheroes'))!
  rmSync(store)
  mkdirSync(store)
  mock.setScript(reply('Now: second'))
  const r2 = await runClaude({ prompt: 'more', pluginDirs: [packageCopy('superheroes')], mock, home, cwd: r1.cwd })
  const damaged = `the engine's store file for this plugin is damaged (EISDIR: illegal operation on a directory, read): move it aside with mv "${store}" "${store}.damaged"`
  const toast = r2.debugLog.split('\n').find((l) => l.includes('Checkpoint notes NOT saved'))
  assert.ok(toast?.includes(`The ${damaged.slice(4)}`), toast ?? debugLines(r2.debugLog, 'superheroes').join('\n'))
  mock.setScript(undefined)
  const status = await runClaude({ prompt: '/superheroes status', pluginDirs: [packageCopy('superheroes')], mock, home, cwd: r1.cwd })
  assert.match(String(status.json?.result), `store: ${damaged}`)
})

test.run()
