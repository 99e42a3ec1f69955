// The safe writer: a real path inside the owning folder, replaced atomically or not at all, never
// over a second writer's change. Over an in-memory file system that behaves as `$.fs` does.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { filesOver, modeOfListing, type HostFiles } from '../../src/lib/files.ts'
import { REFUSED, removeSafely, resolveTarget, STALE_TEMP_MS, sweepTemps, TEMP_PATTERN, writeSafely } from '../../src/lib/safe-write.ts'
import { fakeFiles } from './fake-files.ts'

const ROOT = '/w/proj'
const P = `${ROOT}/.claude/settings.local.json`
const OLD = '{"permissions":{"allow":["Bash(ls)"]}}\n'
const NEW = '{"permissions":{"allow":["Bash(ls)"]},"env":{"X":"1"}}\n'

test('a plain write: a temporary file beside the target, read back, renamed over it', async () => {
  const fs = fakeFiles({ [P]: OLD })
  const r = await writeSafely(fs.edges, { within: ROOT, path: P, text: NEW, expected: OLD })
  assert.equal(r, { ok: true, path: P, atomic: true })
  assert.is(fs.files.get(P), NEW)
  assert.equal(fs.log, [`write ${ROOT}/.claude/.settings.local.json.keel-tok.tmp`, `chmod 644 ${ROOT}/.claude/.settings.local.json.keel-tok.tmp`, `move ${ROOT}/.claude/.settings.local.json.keel-tok.tmp -> ${P}`])
  assert.is(fs.modes.get(P), 0o644, 'the rewrite keeps the file\'s mode')
  assert.ok(TEMP_PATTERN.test('.settings.local.json.keel-tok.tmp'))
  assert.not.ok(TEMP_PATTERN.test('settings.local.json'))
})

test('a missing folder is created; a missing file is written', async () => {
  const fs = fakeFiles({}, [ROOT])
  const r = await writeSafely(fs.edges, { within: ROOT, path: P, text: NEW, expected: null })
  assert.ok(r.ok)
  assert.is(fs.files.get(P), NEW)
})

test('a full disk: the target keeps what it held, the temporary file goes', async () => {
  const fs = fakeFiles({ [P]: OLD })
  fs.failWrite = (p) => p.endsWith('.tmp')
  const r = await writeSafely(fs.edges, { within: ROOT, path: P, text: NEW, expected: OLD })
  assert.equal(r, { ok: false, reason: REFUSED.failed(P, `ENOSPC: no space left on device, write '${ROOT}/.claude/.settings.local.json.keel-tok.tmp'`) })
  assert.is(fs.files.get(P), OLD)
  assert.equal([...fs.files.keys()], [P], 'no temporary file left')
})

test('a rename that fails leaves the target whole; a temporary file that does not read back is never moved', async () => {
  const fs = fakeFiles({ [P]: OLD })
  fs.failMove = true
  assert.not.ok((await writeSafely(fs.edges, { within: ROOT, path: P, text: NEW })).ok)
  assert.is(fs.files.get(P), OLD)
  const torn = fakeFiles({ [P]: OLD })
  const write = torn.edges.write
  torn.edges.write = (p, t) => write(p, t.slice(0, 5))
  assert.equal(await writeSafely(torn.edges, { within: ROOT, path: P, text: NEW }), { ok: false, reason: REFUSED.readBack(P) })
  assert.is(torn.files.get(P), OLD)
})

test('a second writer: a file that no longer holds the text the change came from is left as it is', async () => {
  const fs = fakeFiles({ [P]: OLD })
  const theirs = '{"theirs":true}\n'
  const write = fs.edges.write
  fs.edges.write = async (p, t) => {
    await write(p, t)
    fs.files.set(P, theirs) // lands while keel's temporary file is written
  }
  assert.equal(await writeSafely(fs.edges, { within: ROOT, path: P, text: NEW, expected: OLD }), { ok: false, reason: REFUSED.changed(P) })
  assert.is(fs.files.get(P), theirs, 'their change stands')
})

test('links: the file, a folder on the way, or a dangling link is refused, and nothing is written anywhere', async () => {
  const home = '/root/.claude/settings.json'
  const linked = fakeFiles({ [home]: '{"home":1}' }, [`${ROOT}/.claude`])
  linked.links.set(P, home)
  assert.equal(await writeSafely(linked.edges, { within: ROOT, path: P, text: NEW }), { ok: false, reason: REFUSED.link(P) })
  const folder = fakeFiles({ '/root/.claude/settings.local.json': OLD }, [ROOT])
  folder.links.set(`${ROOT}/.claude`, '/root/.claude')
  assert.equal(await writeSafely(folder.edges, { within: ROOT, path: P, text: NEW }), { ok: false, reason: REFUSED.link(`${ROOT}/.claude`) })
  const dangling = fakeFiles({}, [`${ROOT}/.claude`])
  dangling.links.set(P, '/tmp/outside.json')
  assert.equal(await writeSafely(dangling.edges, { within: ROOT, path: P, text: NEW }), { ok: false, reason: REFUSED.link(P) })
  for (const fs of [linked, folder, dangling]) assert.equal(fs.log, [])
  assert.is(linked.files.get(home), '{"home":1}')
  assert.not.ok(dangling.files.has('/tmp/outside.json'))
})

test('the owner folder itself may sit behind a link: the write lands on its real path', async () => {
  const fs = fakeFiles({ '/real/proj/.claude/settings.local.json': OLD }, ['/real/proj/.claude'])
  fs.links.set('/w', '/real')
  assert.equal(await writeSafely(fs.edges, { within: ROOT, path: P, text: NEW }), { ok: true, path: '/real/proj/.claude/settings.local.json', atomic: true })
})

test('a path outside its folder, through .., a folder where the file should be, or a missing owner is refused', async () => {
  const fs = fakeFiles({ [P]: OLD }, [`${P}.d`])
  assert.equal(await resolveTarget(fs.edges, ROOT, '/w/other/x'), { refused: REFUSED.outside('/w/other/x', ROOT) })
  assert.equal(await resolveTarget(fs.edges, ROOT, `${ROOT}/../x`), { refused: REFUSED.outside(`${ROOT}/../x`, ROOT) })
  assert.equal(await resolveTarget(fs.edges, ROOT, `${P}.d`), { refused: REFUSED.folder(`${P}.d`) })
  assert.equal(await resolveTarget(fs.edges, ROOT, `${P}/x`), { refused: REFUSED.notFolder(P) })
  assert.equal(await resolveTarget(fs.edges, '/nowhere', '/nowhere/x'), { refused: REFUSED.ownerMissing('/nowhere') })
  assert.equal(await resolveTarget(fs.edges, `${ROOT}/`, P), { target: P })
})

test('no commands on this surface: a person\'s file is not written in place; a slot file is, read back', async () => {
  const fs = fakeFiles({ [P]: OLD })
  fs.commands = false
  assert.equal(await writeSafely(fs.edges, { within: ROOT, path: P, text: NEW }), { ok: false, reason: REFUSED.noRename(P) })
  assert.is(fs.files.get(P), OLD)
  const slot = `${ROOT}/slot.md`
  assert.equal(await writeSafely(fs.edges, { within: ROOT, path: slot, text: 'notes', inPlace: true }), { ok: true, path: slot, atomic: false })
  assert.equal(fs.log, [`write ${slot}`])
  assert.equal(await writeSafely(fs.edges, { within: ROOT, path: P, text: NEW, inPlace: true, expected: 'other' }), { ok: false, reason: REFUSED.changed(P) })
  fs.failWrite = () => true
  const failed = await writeSafely(fs.edges, { within: ROOT, path: slot, text: 'x', inPlace: true })
  assert.ok(!failed.ok && failed.reason.includes('ENOSPC'))
  const garbling = fakeFiles({}, [ROOT])
  garbling.commands = false
  const write = garbling.edges.write
  garbling.edges.write = (p, t) => write(p, t.slice(1))
  assert.equal(await writeSafely(garbling.edges, { within: ROOT, path: slot, text: 'xy', inPlace: true }), { ok: false, reason: REFUSED.readBack(slot) })
})

test('a stat that fails is a failure, not a write', async () => {
  const fs = fakeFiles({ [P]: OLD })
  fs.edges.stat = async () => { throw new Error('EIO') }
  const r = await writeSafely(fs.edges, { within: ROOT, path: P, text: NEW })
  assert.equal(r, { ok: false, reason: REFUSED.ownerMissing(ROOT) })
  fs.edges.stat = () => { throw new Error('sync EIO') }
  assert.equal(await writeSafely(fs.edges, { within: ROOT, path: P, text: NEW }), { ok: false, reason: REFUSED.failed(P, 'sync EIO') })
})

test('remove: a real file inside the folder goes (emptied without commands); a link is refused; a missing file is fine', async () => {
  const fs = fakeFiles({ [`${ROOT}/a`]: 'x', '/etc/passwd': 'root' }, [ROOT])
  fs.links.set(`${ROOT}/b`, '/etc/passwd')
  assert.ok((await removeSafely(fs.edges, ROOT, `${ROOT}/a`)).ok)
  assert.not.ok(fs.files.has(`${ROOT}/a`))
  assert.equal(await removeSafely(fs.edges, ROOT, `${ROOT}/b`), { ok: false, reason: REFUSED.link(`${ROOT}/b`) })
  assert.is(fs.files.get('/etc/passwd'), 'root')
  assert.equal(await removeSafely(fs.edges, ROOT, `${ROOT}/gone`), { ok: true, path: `${ROOT}/gone`, atomic: true })
  const plain = fakeFiles({ [`${ROOT}/c`]: 'x' })
  plain.commands = false
  assert.equal(await removeSafely(plain.edges, ROOT, `${ROOT}/c`), { ok: true, path: `${ROOT}/c`, atomic: false })
  assert.is(plain.files.get(`${ROOT}/c`), '')
  plain.edges.stat = () => { throw new Error('EIO') }
  assert.not.ok((await removeSafely(plain.edges, ROOT, `${ROOT}/c`)).ok)
})

// Issue 17 #11: the rename replaced a 0444 file (root or not) and every rewrite left the file 0600.
test('a file its owner made read-only is left as it is; a rewrite keeps the mode; a new or 0600 file needs no chmod', async () => {
  const ro = fakeFiles({ [P]: OLD })
  ro.modes.set(P, 0o444)
  assert.equal(await writeSafely(ro.edges, { within: ROOT, path: P, text: NEW, expected: OLD }), { ok: false, reason: REFUSED.readOnly(P) })
  assert.is(ro.files.get(P), OLD)
  assert.equal(ro.log, [], 'nothing written, not even a temporary file')
  assert.is(ro.modes.get(P), 0o444)
  const groupWritable = fakeFiles({ [P]: OLD })
  groupWritable.modes.set(P, 0o664)
  assert.ok((await writeSafely(groupWritable.edges, { within: ROOT, path: P, text: NEW })).ok)
  assert.is(groupWritable.modes.get(P), 0o664)
  const own = fakeFiles({ [P]: OLD })
  own.modes.set(P, 0o600)
  assert.ok((await writeSafely(own.edges, { within: ROOT, path: P, text: NEW })).ok)
  const fresh = fakeFiles({}, [`${ROOT}/.claude`])
  assert.ok((await writeSafely(fresh.edges, { within: ROOT, path: P, text: NEW, expected: null })).ok)
  for (const fs of [own, fresh]) assert.not.ok(fs.log.some((l) => l.startsWith('chmod')), fs.log.join('\n'))
  assert.is(fresh.modes.get(P), 0o600)
})

test('a mode that cannot be read is a failure, not a write: the file holds what it held', async () => {
  const fs = fakeFiles({ [P]: OLD })
  fs.edges.mode = async () => { throw new Error('/bin/ls exited 2: ls: cannot access') }
  const r = await writeSafely(fs.edges, { within: ROOT, path: P, text: NEW })
  assert.equal(r, { ok: false, reason: REFUSED.failed(P, '/bin/ls exited 2: ls: cannot access') })
  assert.is(fs.files.get(P), OLD)
  assert.equal([...fs.files.keys()], [P])
})

test('modeOfListing: the bits of ls -l\'s mode field, whatever follows it; a line without one is refused', () => {
  assert.is(modeOfListing('-r--r--r-- 1 root root 3 Dec  1 21:20 /p/ro.json\n'), 0o444)
  assert.is(modeOfListing('-rw-r--r--. 1 u g 3 Dec  1 21:20 /p/x'), 0o644)
  assert.is(modeOfListing('-rw-rw-r--@ 1 u staff 3 Dec  1 21:20 /p/x'), 0o664)
  assert.is(modeOfListing('-rwsr-Sr-T+ 1 u g 3 Dec  1 21:20 /p/x'), 0o744)
  assert.is(modeOfListing('----------'), 0)
  assert.throws(() => modeOfListing(''), /no mode/)
  assert.throws(() => modeOfListing('ls: cannot access'), /no mode/)
})

// Issue 17 #12: a crash between the temporary file and its rename left a copy of the person's settings for good.
test('sweepTemps: a stale temporary file goes; a fresh one, the person\'s files, a link and a folder stay', async () => {
  const dir = `${ROOT}/.claude`
  const stale = `${dir}/.settings.local.json.keel-0ld.tmp`
  const live = `${dir}/.settings.local.json.keel-l1ve.tmp`
  const fs = fakeFiles({ [P]: OLD, [stale]: OLD, [live]: NEW, [`${dir}/notes.tmp`]: 'x', '/etc/passwd': 'root' }, [`${dir}/.d.keel-x.tmp`])
  fs.links.set(`${dir}/.passwd.keel-l1nk.tmp`, '/etc/passwd')
  const now = 10 * STALE_TEMP_MS
  for (const p of [P, stale, `${dir}/notes.tmp`]) fs.mtimes.set(p, 0)
  fs.mtimes.set(live, now - 5_000)
  await sweepTemps(fs.edges, ROOT, dir, () => now)
  assert.equal([...fs.files.keys()].sort(), ['/etc/passwd', P, `${dir}/notes.tmp`, live].sort())
  assert.ok(fs.links.has(`${dir}/.passwd.keel-l1nk.tmp`) && fs.dirs.has(`${dir}/.d.keel-x.tmp`), 'a link and a folder of that name stay')
  assert.equal(fs.log, [`remove ${stale}`])
  await sweepTemps(fs.edges, ROOT, `${ROOT}/missing`, () => now)
  await sweepTemps(fs.edges, ROOT, dir, () => { throw new Error('no clock') })
  assert.equal(fs.log, [`remove ${stale}`], 'a missing folder, no clock: nothing, and no throw')
  const plain = fakeFiles({ [stale]: OLD })
  plain.commands = false
  await sweepTemps(plain.edges, ROOT, dir, () => now)
  assert.is(plain.files.get(stale), OLD, 'no commands: nothing (a removal would only empty it)')
})

test('filesOver: the host calls become the safe writer\'s edges (lib/bind.ts binds them to $)', async () => {
  const runs: string[] = []
  const answers: Record<string, { exitCode: number | null; stdout: string; stderr: string }> = {
    '/bin/mv': { exitCode: 1, stdout: '', stderr: 'mv: illegal option -- -\nusage: mv' },
    '/bin/ls': { exitCode: 0, stdout: '-rw-r--r--  1 u g 3 Dec  1 21:20 /p/x\n', stderr: '' },
  }
  const host: HostFiles = {
    run: async (argv, timeoutMs) => (runs.push(`${argv.join(' ')} (${timeoutMs} ms)`), answers[argv[0]!] ?? { exitCode: 0, stdout: '', stderr: '' }),
    stat: async (path) => {
      if (path === '/p/link') return { kind: 'file', isLink: true, realPath: '/p/x' }
      throw new Error('ENOENT')
    },
  }
  const io = filesOver(host)
  assert.equal(await io.stat('/p/link'), { kind: 'file', isLink: true, realPath: '/p/x' })
  assert.is(await io.stat('/p/missing'), undefined, 'a stat that rejects: nothing there')
  // BSD's mv has no --version: it starts all the same, so the host runs commands; asked once.
  assert.is(await io.hasCommands(), true)
  assert.is(await io.hasCommands(), true)
  assert.equal(runs, ['/bin/mv --version (10000 ms)'])
  assert.is(await io.mode('/p/x'), 0o644)
  await io.move('/p/a', '/p/b').then(() => assert.unreachable(), (err: Error) => assert.is(err.message, '/bin/mv exited 1: mv: illegal option -- -'))
  await io.chmod('/p/x', 0o644)
  assert.equal(runs.slice(1), ['/bin/ls -ld -- /p/x (10000 ms)', '/bin/mv -f -- /p/a /p/b (10000 ms)', '/bin/chmod -- 644 /p/x (10000 ms)'])
  assert.match(io.token(), /^[0-9a-f]{12}$/)
  // No `$.process` on this surface: the bound call throws at once, and that too reads as no commands.
  const none = filesOver({ ...host, run: () => { throw new TypeError("Cannot read properties of undefined (reading 'run')") } })
  assert.is(await none.hasCommands(), false)
  await none.remove('/p/x').then(() => assert.unreachable(), (err: Error) => assert.instance(err, TypeError))
})

test.run()
