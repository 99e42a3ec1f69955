// Mailbox engine facts, part 3 (src/features/mailbox/NOTES.md, questions 5 and 7): the primitives a file
// spool delivers with (`$.prompt.submit` idle and busy, `$.session.append` at a tool boundary, in
// stream-json and one-shot `-p`), and the `$.fs` / `$.process` facts its safe writes rest on.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { randomUUID } from 'node:crypto'
import { existsSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cleanupTmp, runClaude, tmpDir, writePlugin } from './engine.ts'
import { startLive, type LiveSession } from './live.ts'
import { requestText } from './mock-model.ts'
import { DO, PROBE, probe, probeScript, spread, startStampedMock, type Stamp, type StampedMock } from './multi.ts'

let mock: StampedMock | undefined
const running: LiveSession[] = []
test.after.each(async () => {
  for (const s of running.splice(0)) await s.stop()
  await mock?.close()
  mock = undefined
})
test.after(() => cleanupTmp())

const ENV = { ENABLE_TOOL_SEARCH: 'false' }
const plugin = () => writePlugin(tmpDir('probe'), 'probe', PROBE)
const lastMessage = (st: Stamp) => st.body.messages[st.body.messages.length - 1]
const textOf = (m: any) => (typeof m.content === 'string' ? m.content : m.content.map((b: any) => b.text ?? '').join(''))
/** The framing the model reads for a plugin's `$.prompt.submit` (measured on 2.1.328). */
const submitted = (text: string) =>
  `The probe plugin sent a message:\n${text}\n\nThis is how Claude Code surfaces a prompt a plugin submits between turns — it starts this turn in the user's place. Address the message above.`
const NOTE = 'Note from the probe plugin, not from the user:\n'

async function live(env: Record<string, string>, args: string[]): Promise<LiveSession> {
  const s = await startLive({ mode: 'stream-json', pluginDirs: [plugin()], mock: mock!, env: { ...ENV, ...env }, extraArgs: args })
  running.push(s)
  return s
}
/** Sends `text` and waits for the `turns`-th turn to end; a timeout names what the probe heard (this wait failed twice beside other suites). */
async function turn(s: LiveSession, text: string, turns: number): Promise<void> {
  await s.send(text)
  await s.waitFor(`turn ${turns}`, () => probe(s.debugLog(), 'TDONE').length >= turns, 60_000).catch((err) => {
    const heard = ['TSTART', 'TDONE', 'SUBMIT-CALL', 'SUBMIT'].map((tag) => `${tag} ${JSON.stringify(probe(s.debugLog(), tag))}`)
    throw new Error(`${err}\n${heard.join('\n')}`)
  })
}

test('stream-json: a submit at start runs a turn with nobody typing; an append after a main tool call is the next request\'s system note and stays; a busy submit waits for its own turn', async () => {
  mock = await startStampedMock(probeScript())
  const sid = randomUUID()
  const B = await live({ PROBE_SUBMIT: 'SPOOLED-AT-START' }, ['--session-id', sid, '--allowedTools', 'Bash'])
  await B.waitFor('the submitted turn', () => probe(B.debugLog(), 'TDONE').length >= 1, 20_000)
  const [st] = probe(B.debugLog(), 'START')
  const [call] = probe(B.debugLog(), 'SUBMIT-CALL')
  const [res] = probe(B.debugLog(), 'SUBMIT')
  assert.equal(res.value, { text: 'SPOOLED-AT-START', origin: { kind: 'plugin', name: 'probe' } })
  assert.equal(probe(B.debugLog(), 'PSUBMIT'), [], 'the plugin does not hear its own submit')
  const row = probe(B.debugLog(), 'APPENDROW').find((r) => r.door === 'prompt')
  assert.equal([row.origin, row.role, row.text], [{ kind: 'plugin', name: 'probe' }, 'user', submitted('SPOOLED-AT-START')])
  const [first] = mock.of(sid, 'main')
  assert.ok(requestText(first!.body).includes(submitted('SPOOLED-AT-START')))
  console.log(`  [measured] submit at start: resolved in ${res.ms} ms (as its turn started); request ${first!.at - call.at} ms after the call, ${first!.at - st.at} ms after session.start`)

  // Busy append: queued by a probe call, appended by the unmatched tool.call hook after the next Bash call's next(e).
  await turn(B, DO({ op: 'queue', text: 'APPENDED-BUSY' }), 2)
  await turn(B, 'DO-BUSY 2 1', 3)
  const [app] = probe(B.debugLog(), 'APPEND')
  assert.equal([app.tool, app.origin, app.res.error], ['Bash', { plugin: 'engine', tier: 'core' }, undefined])
  const note = probe(B.debugLog(), 'APPENDROW').find((r) => r.door === 'note')
  assert.equal([note.origin, note.type, note.role, note.isMeta, note.text], [{ kind: 'plugin', name: 'probe' }, 'user', 'user', true, 'APPENDED-BUSY'])
  const reqs = mock.of(sid, 'main')
  const busy = reqs.findIndex((r) => requestText(r.body).includes('DO-BUSY 2 1'))
  assert.not.ok(requestText(reqs[busy]!.body).includes(NOTE), 'not before the tool call')
  assert.equal(lastMessage(reqs[busy + 1]!).role, 'system')
  assert.is(textOf(lastMessage(reqs[busy + 1]!)), NOTE + 'APPENDED-BUSY')
  assert.ok(requestText(reqs[busy + 2]!.body).includes(NOTE + 'APPENDED-BUSY'), 'still there in the later request')
  console.log(`  [measured] append after next(e): ${app.res.ms} ms`)

  // Busy submit (from inside a tool.call, not awaited): resolves only once the running turn ended and its own began.
  await turn(B, DO({ op: 'submit', text: 'SUBMITTED-BUSY' }), 5)
  const [, busyCall] = probe(B.debugLog(), 'SUBMIT-CALL')
  const [, busyRes] = probe(B.debugLog(), 'SUBMIT')
  const done = probe(B.debugLog(), 'TDONE')
  const starts = probe(B.debugLog(), 'TSTART')
  assert.equal(busyRes.value, { text: 'SUBMITTED-BUSY', origin: { kind: 'plugin', name: 'probe' } })
  assert.ok(busyCall.at < done[3].at && done[3].at < starts[4].at && starts[4].at <= busyRes.at, 'submitted mid-turn, run as a turn of its own after it')
  assert.is(starts[4].text, submitted('SUBMITTED-BUSY'))
  assert.ok(requestText(mock.of(sid, 'main').at(-1)!.body).includes(NOTE + 'APPENDED-BUSY'), 'the note is still sent turns later')
  console.log(`  [measured] busy submit: resolved ${busyRes.ms} ms after the call, ${busyRes.at - done[3].at} ms after the running turn completed`)
})

test('one-shot -p: a submit from a timer at start runs after the prompt\'s turn, before the process exits', async () => {
  mock = await startStampedMock(probeScript())
  const sid = randomUUID()
  const r = await runClaude({ prompt: 'hello', pluginDirs: [plugin()], mock, env: { ...ENV, PROBE_SUBMIT: 'SPOOLED-ONESHOT' }, extraArgs: ['--session-id', sid] })
  assert.is(r.code, 0, r.stderr)
  const reqs = mock.of(sid, 'main')
  assert.is(reqs.length, 2)
  assert.ok(requestText(reqs[0]!.body).includes('hello') && !requestText(reqs[0]!.body).includes('SPOOLED-ONESHOT'), 'the prompt first')
  assert.ok(requestText(reqs[1]!.body).includes(submitted('SPOOLED-ONESHOT')), 'then the submitted prompt')
  const starts = probe(r.debugLog, 'TSTART')
  const [call] = probe(r.debugLog, 'SUBMIT-CALL')
  assert.equal(starts.map((s) => s.text), ['hello', submitted('SPOOLED-ONESHOT')])
  assert.ok(call.at < starts[0].at, 'submitted before the prompt\'s turn started, run after it')
  assert.equal(probe(r.debugLog, 'SUBMIT')[0].value, { text: 'SPOOLED-ONESHOT', origin: { kind: 'plugin', name: 'probe' } })
  assert.equal(probe(r.debugLog, 'END').map((e) => e.reason), ['other'])
})

test('$.fs: list, stat, exists and write around symlinks; $.process.run of mv and rm', async () => {
  mock = await startStampedMock(probeScript())
  const dir = tmpDir('fsfix')
  writeFileSync(join(dir, 'file.txt'), 'hello file')
  writeFileSync(join(dir, '.hidden'), 'h')
  mkdirSync(join(dir, 'sub'))
  mkdirSync(join(dir, 'realdir'))
  symlinkSync(join(dir, 'file.txt'), join(dir, 'link-to-file'))
  symlinkSync(join(dir, 'nowhere.txt'), join(dir, 'dangling'))
  symlinkSync(join(dir, 'realdir'), join(dir, 'linkdir'))
  const r = await runClaude({ prompt: DO({ op: 'fs', dir }), pluginDirs: [plugin()], mock, env: ENV })
  assert.is(r.code, 0, r.stderr)
  const [fs] = probe(r.debugLog, 'FS')
  // list: every entry, dot files too, in name order; a link is `other` with isLink, size and mtime 0.
  assert.equal(fs.list.value.map((e: any) => [e.name, e.kind, e.isLink]), [
    ['.hidden', 'file', false], ['dangling', 'other', true], ['file.txt', 'file', false], ['link-to-file', 'other', true],
    ['linkdir', 'other', true], ['realdir', 'dir', false], ['sub', 'dir', false],
  ])
  const entry = (name: string) => fs.list.value.find((e: any) => e.name === name)
  assert.equal([entry('file.txt').size, entry('link-to-file').size, entry('link-to-file').mtimeMs, entry('sub').mtimeMs], [10, 0, 0, 0])
  assert.ok(entry('file.txt').mtimeMs > 0)
  assert.match(fs.listMissing.error, /\$\.fs\.list\(.*no-such-dir\) failed: ENOENT$/)
  // stat follows a link and says isLink; resolve adds realPath, absent for a dangling link.
  assert.equal(Object.keys(fs['stat:file.txt'].value).sort(), ['isLink', 'kind', 'mtimeMs', 'size'])
  assert.equal(fs['stat:link-to-file'].value, { ...fs['stat:file.txt'].value, isLink: true })
  assert.is(fs['statR:link-to-file'].value.realPath, join(dir, 'file.txt'))
  assert.is(fs['statR:linkdir'].value.realPath, join(dir, 'realdir'))
  assert.equal([fs['stat:linkdir'].value.kind, fs['stat:linkdir'].value.isLink], ['dir', true])
  assert.equal([fs['stat:dangling'].value.kind, fs['stat:dangling'].value.isLink, fs['stat:dangling'].value.size], ['other', true, join(dir, 'nowhere.txt').length])
  assert.not.ok('realPath' in fs['statR:dangling'].value)
  assert.match(fs['stat:no-such'].error, /failed: ENOENT$/)
  assert.equal(['file.txt', 'link-to-file', 'dangling', 'linkdir', 'no-such'].map((n) => fs[`exists:${n}`].value), [true, true, false, true, false])
  assert.match(fs.readDir.error, /failed: EISDIR$/)
  // write follows links: through a link to a file, a dangling link (creating its target), a linked folder.
  for (const w of ['writeLink', 'writeDangling', 'writeLinkDir', 'writeNewDeep']) assert.is(fs[w].error, undefined, w)
  assert.is(readFileSync(join(dir, 'file.txt'), 'utf8'), 'via-link')
  assert.ok(lstatSync(join(dir, 'link-to-file')).isSymbolicLink(), 'the link stays a link')
  assert.is(readFileSync(join(dir, 'nowhere.txt'), 'utf8'), 'via-dangling')
  assert.is(readlinkSync(join(dir, 'dangling')), join(dir, 'nowhere.txt'))
  assert.is(readFileSync(join(dir, 'realdir/inside.txt'), 'utf8'), 'via-linkdir')
  assert.is(readFileSync(join(dir, 'new/a/b.txt'), 'utf8'), 'deep')
  assert.equal([statSync(join(dir, 'new/a/b.txt')).mode & 0o777, statSync(join(dir, 'new/a')).mode & 0o777], [0o600, 0o700])

  // mv and rm by argv from a hook: five of each.
  const spool = tmpDir('spool')
  for (let i = 0; i < 5; i++) writeFileSync(join(spool, `m${i}.tmp`), `{"i":${i}}`)
  const argvs = [
    ...Array.from({ length: 5 }, (_, i) => ['/bin/mv', '-f', join(spool, `m${i}.tmp`), join(spool, `m${i}.json`)]),
    ...Array.from({ length: 5 }, (_, i) => ['/bin/rm', '-f', join(spool, `m${i}.json`)]),
    ['/bin/mv', '-f', join(spool, 'none.tmp'), join(spool, 'none.json')],
  ]
  const p = await runClaude({ prompt: DO({ op: 'proc', argvs }), pluginDirs: [plugin()], mock, env: ENV })
  assert.is(p.code, 0, p.stderr)
  const [runs] = probe(p.debugLog, 'PROC')
  assert.equal(runs.slice(0, 10).map((x: any) => x.value), Array(10).fill({ exitCode: 0, stdout: '', stderr: '', isStdoutTruncated: false, isStderrTruncated: false }))
  assert.equal(readdirSync(spool), [])
  assert.equal([runs[10].value.exitCode, runs[10].value.stdout], [1, ''])
  assert.match(runs[10].value.stderr, /cannot stat .*none\.tmp.*No such file or directory/)
  console.log(`  [measured] mv ms ${JSON.stringify(spread(runs.slice(0, 5).map((x: any) => x.ms)))}, rm ms ${JSON.stringify(spread(runs.slice(5, 10).map((x: any) => x.ms)))}`)
})

test('$.fs.read while another engine writes: an over-written file reads mixed now and then; a new file was never read partial', async () => {
  mock = await startStampedMock(probeScript())
  const home = tmpDir('home')
  const plug = plugin()
  const dir = tmpDir('race')
  const file = join(dir, 'one.json')
  writeFileSync(file, JSON.stringify({ v: 1, pad: 's' }))
  const spool = join(dir, 'spool')
  mkdirSync(spool)
  const start = (env: Record<string, string>) => startLive({ mode: 'stream-json', home, pluginDirs: [plug], mock: mock!, env }).then((s) => (running.push(s), s))
  const [W, R] = await Promise.all([start({ PROBE_FSWRITE: file }), start({ PROBE_FSREAD: file })])
  await W.waitFor('the writer', () => probe(W.debugLog(), 'FSWRITE').length, 20_000)
  await R.waitFor('the reader', () => probe(R.debugLog(), 'FSREAD').length, 20_000)
  const [w] = probe(W.debugLog(), 'FSWRITE')
  const [rd] = probe(R.debugLog(), 'FSREAD')
  // A short text over a long one: write, then ftruncate, so a read between them sees the short text and the long one's rest.
  // Whether a mixed read happens in a given run is timing: measured 1-4% of reads over 6 runs, never an
  // empty one. Only what the design rests on is asserted: both texts were read whole at times.
  console.log(`  measured: over-written in place, ${JSON.stringify(rd)}`)
  assert.ok(rd.long > 0 && rd.short > 0)
  const [W2, R2] = await Promise.all([start({ PROBE_FSCREATE: spool }), start({ PROBE_FSSCAN: spool })])
  await W2.waitFor('the creator', () => probe(W2.debugLog(), 'FSCREATE').length, 20_000)
  await R2.waitFor('the scanner', () => probe(R2.debugLog(), 'FSSCAN').length, 20_000)
  const [c] = probe(W2.debugLog(), 'FSCREATE')
  const [sc] = probe(R2.debugLog(), 'FSSCAN')
  // Every file was read once, as soon as it was listed, and most whole: a one-write create leaves a window,
  // not a guarantee (measured: none partial on an idle machine; 2 of 117 on a loaded one). The spool publishes by rename.
  assert.is(sc.ok + sc.empty + sc.bad, c.n, JSON.stringify({ c, sc }))
  assert.ok(sc.ok > 0, JSON.stringify({ c, sc }))
  assert.ok(existsSync(join(spool, 'c-000000.json')))
  console.log(`  [measured] over-write: ${w.n} writes in 3 s; reads ${JSON.stringify(rd)}; create: ${c.n} new 200 kB files, scan ${JSON.stringify(sc)}`)
})

test('$.process.run mv as a claim: two engines racing over one spool folder claim each file exactly once', async () => {
  mock = await startStampedMock(probeScript())
  const home = tmpDir('home')
  const plug = plugin()
  const spool = tmpDir('claim')
  const names = Array.from({ length: 60 }, (_, i) => `m-${String(i).padStart(3, '0')}.json`)
  for (const n of names) writeFileSync(join(spool, n), '{}')
  const start = () => startLive({ mode: 'stream-json', home, pluginDirs: [plug], mock: mock!, env: { PROBE_CLAIM: spool } }).then((s) => (running.push(s), s))
  const [X, Y] = await Promise.all([start(), start()])
  await X.waitFor('X claims', () => probe(X.debugLog(), 'CLAIM').length, 30_000)
  await Y.waitFor('Y claims', () => probe(Y.debugLog(), 'CLAIM').length, 30_000)
  const [x] = probe(X.debugLog(), 'CLAIM')
  const [y] = probe(Y.debugLog(), 'CLAIM')
  assert.equal([...x.won, ...y.won].sort(), names, 'every file claimed once')
  assert.equal(x.won.filter((n: string) => y.won.includes(n)), [], 'never twice')
  assert.equal(readdirSync(spool).sort(), [...x.won.map((n: string) => `${n}.claimed-${x.pid}`), ...y.won.map((n: string) => `${n}.claimed-${y.pid}`)].sort())
  console.log(`  [measured] claim race: ${x.won.length}/${y.won.length} won, ${x.lost}/${y.lost} lost; mv ms ${JSON.stringify(spread([...x.ms, ...y.ms]))}`)
})

test('$.fs bytes (issue 17 item 5): 2-, 3- and 4-byte texts from 4 KiB to 400 KB at every alignment of their characters are written and read back whole, and a file written by another process reads whole', async () => {
  mock = await startStampedMock(probeScript())
  const s = await live({}, [])
  // Its tool is registered at session.start: a prompt sent before would find no probe tool.
  await s.waitFor('the probe to start', () => probe(s.debugLog(), 'REG-SEEN').length, 30_000)
  const dir = tmpDir('fs')
  const gens: { unit: string; count: number; prefix: string }[] = []
  const files: { path: string; gen: (typeof gens)[number] }[] = []
  for (const unit of ['é', '€', '😀']) {
    for (const size of [4096, 65536, 131072, 400_000]) {
      for (let pad = 0; pad < 3; pad++) {
        const gen = { unit, count: Math.floor((size - pad) / Buffer.byteLength(unit)), prefix: 'p'.repeat(pad) }
        gens.push(gen)
        const path = join(dir, `f-${files.length}.txt`)
        writeFileSync(path, gen.prefix + unit.repeat(gen.count))
        files.push({ path, gen })
      }
    }
  }
  let n = 0
  for (let i = 0; i < gens.length; i += 6) {
    const k = probe(s.debugLog(), 'FSROUND').length
    const turns = probe(s.debugLog(), 'TDONE').length
    await s.send(DO({ op: 'fsround', path: join(dir, 'round.txt'), gens: gens.slice(i, i + 6), files: files.slice(i, i + 6) }))
    // Generous: 12 writes and reads of up to 400 KB each, on 2 cores that other engines share.
    await s.waitFor('the round trips', () => probe(s.debugLog(), 'FSROUND').length > k, 180_000).catch((err: Error) => {
      // Say what the probe's tool answered, if it did.
      const last = mock!.stamps.flatMap((st) => (st.body.messages ?? []).flatMap((m: any) => (Array.isArray(m.content) ? m.content.filter((b: any) => b.type === 'tool_result') : []))).at(-1)
      throw new Error(`${err.message}; the probe's last tool result: ${JSON.stringify(last).slice(0, 600)}`)
    })
    // The turn's end too: a prompt sent while it still runs may join it instead of starting the next (seen under load: the probe call never came).
    await s.waitFor('the round trips\' turn to end', () => probe(s.debugLog(), 'TDONE').length > turns, 60_000)
    const [round] = probe(s.debugLog(), 'FSROUND').slice(k)
    assert.equal(round.bad, [])
    n += round.n
  }
  assert.is(n, 2 * gens.length)
  console.log(`  [measured] ${n} $.fs round trips of multi-byte texts, 4 KiB-400 KB: all whole`)
})

test.run()
