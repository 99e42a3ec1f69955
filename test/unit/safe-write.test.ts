// The safe writer: a real path inside the owning folder, replaced atomically or not at all, never
// over a second writer's change. Over an in-memory file system that behaves as `$.fs` does.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { REFUSED, removeSafely, resolveTarget, TEMP_PATTERN, writeSafely } from '../../src/lib/safe-write.ts'
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
  assert.equal(fs.log, [`write ${ROOT}/.claude/.settings.local.json.keel-tok.tmp`, `move ${ROOT}/.claude/.settings.local.json.keel-tok.tmp -> ${P}`])
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

test.run()
