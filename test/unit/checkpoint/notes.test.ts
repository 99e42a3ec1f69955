// B.18.2 double-buffer commit, B.18.4 caps, B.19 #30.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createNotes, fnv1a32, sessionOfFile, staleKeys, byteLength } from '../../../src/features/checkpoint/notes.ts'
import { fakeEdges } from './fake-edges.ts'

async function rejects(work: () => Promise<unknown>, pattern: RegExp): Promise<void> {
  const err = await work().then(() => undefined, (e: Error) => e)
  assert.ok(err, 'it rejects')
  assert.match(err!.message, pattern)
}

test('no pointer: no notes, no path', async () => {
  const { io } = fakeEdges()
  const notes = createNotes(io)
  assert.is(await notes.read('s'), null)
  assert.is(await notes.path('s'), null)
  assert.is(await notes.folder(), '/data/checkpoints')
})

test('saves alternate slots; the pointer commits', async () => {
  const { io, files, store } = fakeEdges()
  const notes = createNotes(io)
  await notes.save('s', 'old')
  assert.equal(store.get('notes:s'), { slot: 'a', length: 3, digest: fnv1a32('old'), savedAt: 1_000_000 })
  await notes.save('s', 'new')
  assert.is((store.get('notes:s') as { slot: string }).slot, 'b')
  assert.is(files.get('/data/checkpoints/s.notes.a.md'), 'old')
  assert.is(await notes.read('s'), 'new')
  // The path the model is given is the stable copy, which always holds the committed notes.
  assert.is(await notes.path('s'), '/data/checkpoints/s.notes.md')
  assert.is(files.get('/data/checkpoints/s.notes.md'), 'new')
})

test('a stable copy that lags the commit (a crash between the two) is rewritten before its path is given', async () => {
  const { io, files } = fakeEdges()
  const notes = createNotes(io)
  await notes.save('s', 'first')
  await notes.save('s', 'second')
  files.set('/data/checkpoints/s.notes.md', 'first')
  assert.is(await notes.path('s'), '/data/checkpoints/s.notes.md')
  assert.is(files.get('/data/checkpoints/s.notes.md'), 'second')
})

test('a stable copy that cannot be written: the save stands, and the committed slot is named instead', async () => {
  const w = fakeEdges()
  const write = w.io.write
  const notes = createNotes({ ...w.io, write: async (path, text) => { if (path.endsWith('s.notes.md')) throw new Error('ENOSPC'); return write(path, text) } })
  await notes.save('s', 'kept')
  assert.is(await notes.read('s'), 'kept')
  assert.is(await notes.path('s'), '/data/checkpoints/s.notes.a.md')
})

test('#30: a read-back that differs leaves the old pointer and the old notes in force', async () => {
  const w = fakeEdges()
  const notes = createNotes(w.io)
  await notes.save('s', 'old')
  const torn = createNotes({ ...w.io, write: async (path, text) => void w.files.set(path, text.slice(0, 1)) })
  await rejects(() => torn.save('s', 'new'), /read back differ/)
  assert.is((w.store.get('notes:s') as { slot: string }).slot, 'a')
  assert.is(await notes.read('s'), 'old')
})

test('a slot that does not match its pointer reads as unreadable, as does a failing store', async () => {
  const w = fakeEdges()
  const notes = createNotes(w.io)
  await notes.save('s', 'old')
  w.files.set('/data/checkpoints/s.notes.a.md', 'olD')
  assert.is(await notes.read('s'), undefined)
  w.files.set('/data/checkpoints/s.notes.a.md', 'older')
  assert.is(await notes.read('s'), undefined)
  const broken = createNotes({ ...w.io, storeGet: async () => { throw new Error('store down') } })
  assert.is(await broken.read('s'), undefined)
})

test('the cap: 256 KiB of UTF-8 saves, one byte more fails before anything is written', async () => {
  const w = fakeEdges()
  const notes = createNotes(w.io)
  await notes.save('s', 'x'.repeat(256 * 1024))
  await rejects(() => notes.save('t', 'é'.repeat(128 * 1024) + 'x'), /over the notes cap/)
  assert.is(w.files.has('/data/checkpoints/t.notes.a.md'), false)
  assert.is(byteLength('é'), 2)
})

test('eviction keeps the 50 newest sessions and removes the files of the rest', async () => {
  const w = fakeEdges()
  const notes = createNotes(w.io)
  for (let i = 0; i < 52; i++) {
    w.world.now += 1000
    await notes.save(`s${i}`, `n${i}`)
  }
  assert.equal(await notes.evict('s51'), ['s1', 's0'])
  assert.is(w.store.has('notes:s0'), false)
  assert.is(w.files.has('/data/checkpoints/s0.notes.a.md'), false)
  assert.is(w.files.has('/data/checkpoints/s0.notes.md'), false, 'the stable copy goes too')
  assert.is(await notes.read('s51'), 'n51')
  assert.equal(await notes.evict('s51'), [])
})

// Issue 14 #6: 60 sessions left 130 files while 50 were kept (evicted slots emptied, skip records never removed).
test('the folder stays bounded: 50 sessions\' files at most, skip records and crash leftovers included, the current one always', async () => {
  const w = fakeEdges()
  const notes = createNotes(w.io)
  for (let i = 0; i < 60; i++) {
    w.world.now += 1000
    w.files.set(`/data/checkpoints/k${i}.skip`, '{}')
    w.written.set(`/data/checkpoints/k${i}.skip`, w.world.now)
    if (i % 2) await notes.save(`k${i}`, `n${i}`)
  }
  w.files.set('/data/checkpoints/.k1.notes.md.keel-abc.tmp', 'torn')
  w.written.set('/data/checkpoints/.k1.notes.md.keel-abc.tmp', w.world.now - 2 * 60 * 60 * 1000)
  w.files.set('/data/checkpoints/.k2.notes.md.keel-new.tmp', 'in flight')
  w.written.set('/data/checkpoints/.k2.notes.md.keel-new.tmp', w.world.now)
  w.files.set('/data/checkpoints/README', 'not ours')
  const removed = await notes.sweep('k0')
  const sessions = new Set([...w.files.keys()].map((p) => sessionOfFile(p.slice('/data/checkpoints/'.length))).filter((s) => s !== undefined))
  assert.is(sessions.size, 50, 'the 50 kept, the current one among them')
  assert.ok(sessions.has('k0'), 'the current session keeps its files')
  assert.ok(sessions.has('k59') && !sessions.has('k2'), 'the newest kept, the oldest gone')
  assert.ok(removed.includes('.k1.notes.md.keel-abc.tmp'), 'a stale temporary file is removed')
  assert.ok(w.files.has('/data/checkpoints/.k2.notes.md.keel-new.tmp'), 'a fresh one (a write in flight) is not')
  assert.ok(w.files.has('/data/checkpoints/README'), 'a file keel did not make stays')
  assert.equal(await notes.sweep('k0'), [], 'a second sweep has nothing to do')
  assert.equal(await createNotes({ ...w.io, list: async () => [] }).sweep('x'), [])
})

test('sessionOfFile: the files keel makes, and nothing else', () => {
  assert.is(sessionOfFile('abc.notes.a.md'), 'abc')
  assert.is(sessionOfFile('abc.notes.b.md'), 'abc')
  assert.is(sessionOfFile('abc.notes.md'), 'abc')
  assert.is(sessionOfFile('abc.skip'), 'abc')
  assert.is(sessionOfFile('.abc.notes.md.keel-x.tmp'), undefined)
  assert.is(sessionOfFile('abc.txt'), undefined)
})

// H1: the store keeps a key's first place when it is set again; eviction goes by the time saved.
test('a long-lived session that saves again after 50 others keeps its notes; the current session is never evicted', async () => {
  const w = fakeEdges()
  const notes = createNotes(w.io)
  await notes.save('long', 'first')
  for (let i = 0; i < 50; i++) {
    w.world.now += 1000
    await notes.save(`s${i}`, `n${i}`)
  }
  w.world.now += 1000
  await notes.save('long', 'again')
  assert.equal(await notes.evict('long'), ['s0'], 'the least recently saved goes, not the first inserted')
  assert.is(await notes.read('long'), 'again')
  assert.is(w.files.get('/data/checkpoints/long.notes.b.md'), 'again')
  // The current session stays even when its pointer says it is the oldest (a clock set back).
  w.store.set('notes:long', { ...(w.store.get('notes:long') as object), savedAt: 0 })
  await notes.save('s50', 'n50')
  assert.equal(await notes.evict('long'), ['s1'])
  // A value that names no time counts as the oldest; ties go by the store's order.
  const keys = { storeKeys: async () => ['c:a', 'c:b', 'c:c', 'x:d'], storeGet: async (k: string) => (k === 'c:b' ? { savedAt: 5 } : {}) }
  assert.equal(await staleKeys(keys, 'c:', 1, 'none'), ['c:c', 'c:a'])
  assert.equal(await staleKeys(keys, 'c:', 1, 'a'), ['c:b', 'c:c'])
  assert.equal(await staleKeys(keys, 'c:', 3, 'none'), [])
})

test.run()
