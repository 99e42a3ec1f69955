// The snapshot machine (design §3.2, wsflow §5.4): one copy per reset, answered unchanged until the
// next; resets at start, at a landed manual/auto/plugin compaction and at /clear; the record for a
// resume; analysis and teammate renders; the bounded wait; reads in flight across a reset.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { COMPOSE_WAIT_MS, SNAPSHOT_RETENTION_MS } from '../../../src/features/manual/constants.ts'
import { contentHash } from '../../../src/features/manual/section.ts'
import { createSnapshot, parseRecord, recordsToPrune, type Edges } from '../../../src/features/manual/snapshot.ts'
import { headerLine, keyLine, MAILBOX_LINE } from '../../../src/features/manual/strings.ts'

const FILE = 'ai-docs/WORKFLOW.md'
const REAL = '/p/ai-docs/WORKFLOW.md'
const MAIN = ['lean', 'print', 'skills']
const section = (body: string) => `${headerLine(FILE)}\n\n${body}`
/** Node's own timer (the tests run on Node; the unit tsconfig declares no Node globals). */
const nodeTimer = (globalThis as unknown as { setTimeout(fn: () => void, ms: number): unknown }).setTimeout

function world() {
  const state = {
    text: '# W\nv1\n' as string | undefined,
    realPath: REAL,
    isFile: true,
    /** Set: the next stat waits on this gate. */
    hold: undefined as Promise<void> | undefined,
    statThrows: undefined as string | undefined,
    readValue: undefined as unknown,
    id: 'S1',
    now: 1000,
    extras: undefined as (() => Promise<{ key?: string; mailboxOn?: boolean }>) | undefined,
    afterThrows: false,
    setThrows: false,
    getThrows: false,
    keysThrows: false,
    logThrows: false,
  }
  const seen = { stats: 0, reads: 0, logs: [] as string[], sets: [] as [string, unknown][], deletes: [] as string[] }
  const store = new Map<string, unknown>()
  const timers: { at: number; fn: () => void }[] = []
  let clock = 0
  const edges: Edges = {
    fs: {
      stat: async () => {
        seen.stats++
        if (state.hold) await state.hold
        if (state.statThrows) throw new Error(state.statThrows)
        if (state.text === undefined) return null
        return { realPath: state.realPath, isFile: state.isFile, bytes: new TextEncoder().encode(state.text).length }
      },
      realRoot: async () => '/p',
      read: async () => {
        seen.reads++
        return (state.readValue ?? state.text) as string
      },
    },
    extras: () => (state.extras ? state.extras() : Promise.resolve({})),
    sessionId: async () => state.id,
    now: async () => state.now,
    after: (ms, fn) => {
      if (state.afterThrows) throw new Error('no clock')
      timers.push({ at: clock + ms, fn })
    },
    storeGet: async (key) => {
      if (state.getThrows) throw new Error('store down')
      return store.get(key)
    },
    storeSet: async (key, value) => {
      if (state.setThrows) throw new Error('disk full')
      seen.sets.push([key, value])
      store.set(key, value)
    },
    storeKeys: async () => {
      if (state.keysThrows) throw new Error('no keys')
      return [...store.keys()]
    },
    storeDelete: async (key) => {
      seen.deletes.push(key)
      store.delete(key)
    },
    log: (text) => {
      if (state.logThrows) throw new Error('log refused')
      seen.logs.push(text)
    },
  }
  const snap = createSnapshot({ pkg: 'keel', file: FILE })
  /** Lets the machine's promise chains settle; the hash (crypto.subtle) needs turns of Node's event loop. */
  const flush = async () => {
    for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => nodeTimer(resolve, 0))
  }
  async function advance(ms: number) {
    clock += ms
    for (const t of timers.filter((t) => t.at <= clock)) {
      timers.splice(timers.indexOf(t), 1)
      t.fn()
    }
    await flush()
  }
  /** A gate the next stat waits on; `open()` lets it through. */
  function holdFs() {
    let open!: () => void
    state.hold = new Promise<void>((resolve) => (open = resolve))
    return () => {
      state.hold = undefined
      open()
    }
  }
  const compose = async (traits: readonly string[] = MAIN) => {
    const out = await snap.compose(traits)
    await flush()
    return out
  }
  const start = async (resumed = false) => {
    snap.start(edges, { resumed })
    await flush()
  }
  return { state, seen, store, snap, edges, flush, advance, holdFs, compose, start, timers }
}

test('parseRecord: only a record this feature wrote', () => {
  const hash = 'a'.repeat(64)
  assert.equal(parseRecord({ hash, at: 5, reason: 'start', bytes: 3 }), { hash, at: 5, reason: 'start', bytes: 3 })
  assert.equal(parseRecord({ hash: null, at: 5, reason: 'clear', bytes: 0, extra: 1 }), { hash: null, at: 5, reason: 'clear', bytes: 0 })
  for (const bad of [undefined, null, 'x', { hash: 'short', at: 5, reason: 'start', bytes: 3 }, { hash, at: 'x', reason: 'start', bytes: 3 },
    { hash, at: Infinity, reason: 'start', bytes: 3 }, { hash, at: 5, reason: 'resume', bytes: 3 }, { hash, at: 5, reason: 'start', bytes: -1 },
    { hash, at: 5, reason: 'start', bytes: 1.5 }, { at: 5, reason: 'start', bytes: 1 }]) {
    assert.is(parseRecord(bad), undefined, JSON.stringify(bad))
  }
})

test('recordsToPrune: older than 30 days or not a record; never the current session, never another key', () => {
  const now = SNAPSHOT_RETENTION_MS + 10_000
  const rec = (at: number) => ({ hash: null, at, reason: 'start', bytes: 0 })
  const entries: [string, unknown][] = [
    ['manual-snapshot:old', rec(0)],
    ['manual-snapshot:junk', { at: 'x' }],
    ['manual-snapshot:fresh', rec(now - 1000)],
    ['manual-snapshot:edge', rec(now - SNAPSHOT_RETENTION_MS)],
    ['manual-snapshot:me', rec(0)],
    ['mailbox-key:old', rec(0)],
  ]
  assert.equal(recordsToPrune(entries, now, 'manual-snapshot:me'), ['manual-snapshot:old', 'manual-snapshot:junk'])
})

test('a fresh start: the first compose takes the copy and records it; later composes answer it byte for byte, with no read', async () => {
  const w = world()
  await w.start()
  const first = await w.compose()
  assert.is(first, section('# W\nv1'))
  assert.equal(w.store.get('manual-snapshot:S1'), { hash: await contentHash('# W\nv1'), at: 1000, reason: 'start', bytes: 7 })
  assert.equal([w.seen.stats, w.seen.reads], [1, 1])
  w.state.text = '# W\nv2 changed between turns\n'
  for (let i = 0; i < 3; i++) assert.is(await w.compose(), first)
  assert.equal([w.seen.stats, w.seen.reads], [1, 1], 'no $ call after the first')
  assert.equal(w.snap.carried(), { generation: w.snap.carried().generation, session: 1, manual: { realPath: REAL, folder: '/p/ai-docs', hash: await contentHash('# W\nv1') } })
  assert.equal(w.snap.view(), { state: 'copy', resumed: false, reason: 'start', hash: await contentHash('# W\nv1'), bytes: 7, at: 1000 })
  assert.ok(w.seen.logs.includes('the prompt after start carries ai-docs/WORKFLOW.md (ok, 7 bytes)'))
})

test('main renders carry lean, print, skills or nothing: any of them takes the copy', async () => {
  for (const traits of [[], ['lean'], ['lean', 'skills'], ['print'], ['sdk-preset']]) {
    const w = world()
    await w.start()
    assert.is(await w.compose(traits), section('# W\nv1'), traits.join())
  }
})

test('an analysis render (/context) never takes the copy; it answers the copy once there is one', async () => {
  const w = world()
  await w.start()
  assert.is(await w.compose(['analysis', 'lean']), undefined)
  assert.is(w.seen.stats, 0, 'it waited for nothing and read nothing')
  w.state.text = '# W\nv2\n'
  assert.is(await w.compose(), section('# W\nv2'), 'the next main render is still the first')
  assert.is(await w.compose(['analysis']), section('# W\nv2'))
  assert.is(w.seen.stats, 1)
})

test('a teammate render is left as the engine builds it and does not take the copy', async () => {
  const w = world()
  await w.start()
  assert.is(await w.compose(['teammate', 'lean']), undefined)
  assert.is(w.seen.stats, 0)
  assert.is(await w.compose(), section('# W\nv1'))
  assert.is(await w.compose(['teammate']), undefined)
})

test('refresh at a landed main compaction of trigger manual, auto or plugin: the next compose carries the file as it is then', async () => {
  for (const trigger of ['manual', 'auto', 'plugin']) {
    const w = world()
    await w.start()
    await w.compose()
    w.state.text = `# W\nafter ${trigger}\n`
    w.state.now = 2000
    w.snap.compacted({ trigger, skipped: false })
    assert.equal(w.snap.view(), { state: 'pending', reason: 'compaction' })
    assert.is(w.snap.carried().manual, undefined, 'between the landing and the next compose nothing is collapsed')
    assert.is(await w.compose(), section(`# W\nafter ${trigger}`), trigger)
    assert.equal(w.store.get('manual-snapshot:S1'), { hash: await contentHash(`# W\nafter ${trigger}`), at: 2000, reason: 'compaction', bytes: new TextEncoder().encode(`# W\nafter ${trigger}\n`).length })
    assert.is(await w.compose(), section(`# W\nafter ${trigger}`))
  }
})

test('no refresh at precompute, at a skipped compaction, at a subagent\'s, or at a trigger the engine may add', async () => {
  const w = world()
  await w.start()
  const first = await w.compose()
  const generation = w.snap.carried().generation
  w.state.text = '# W\nv2\n'
  w.snap.compacted({ trigger: 'precompute', skipped: false })
  w.snap.compacted({ trigger: 'manual', skipped: true })
  w.snap.compacted({ trigger: 'auto', agentId: 'a1', skipped: false })
  w.snap.compacted({ trigger: 'someday', skipped: false })
  assert.is(await w.compose(), first)
  assert.is(w.snap.carried().generation, generation)
  assert.is(w.seen.stats, 1)
})

test('/clear: the next compose takes a new copy under the new session id; the old record stays', async () => {
  const w = world()
  await w.start()
  await w.compose()
  const old = w.store.get('manual-snapshot:S1')
  w.snap.ended('clear')
  assert.ok(w.seen.logs.includes("session.end clear: the prompt's copy is forgotten; the next prompt takes a new one"))
  assert.equal(w.snap.view(), { state: 'pending', reason: 'clear' })
  w.state.id = 'S2'
  w.state.text = '# W\nv3\n'
  assert.is(await w.compose(), section('# W\nv3'))
  assert.equal((w.store.get('manual-snapshot:S2') as { reason: string }).reason, 'clear')
  assert.equal(w.store.get('manual-snapshot:S1'), old)
  assert.is(w.snap.carried().session, 2, 'a new conversation')
})

test('another end forgets the copy: composes answer nothing, reads collapse nothing', async () => {
  const w = world()
  await w.start()
  await w.compose()
  w.snap.ended('prompt_input_exit')
  assert.equal(w.snap.view(), { state: 'ended', reason: 'prompt_input_exit' })
  assert.is(await w.compose(), undefined)
  assert.is(w.snap.carried().manual, undefined)
  assert.is(w.seen.stats, 1)
})

test('resume with a record: the replayed prompt is the recorded copy; no compose reads or answers until a refresh', async () => {
  const w = world()
  const hash = await contentHash('# W\nold\n')
  w.store.set('manual-snapshot:S1', { hash, at: 500, reason: 'compaction', bytes: 9 })
  await w.start(true)
  assert.equal(w.snap.view(), { state: 'copy', resumed: true, hash, at: 500, reason: 'compaction', bytes: 9 })
  assert.equal(w.snap.carried().manual, { realPath: REAL, folder: '/p/ai-docs', hash })
  assert.ok(w.seen.logs.includes('resumed: the replayed prompt carries the copy taken at compaction (9 bytes)'))
  const stats = w.seen.stats
  assert.is(await w.compose(), undefined)
  assert.is(await w.compose(), undefined)
  assert.is(w.seen.stats, stats, 'composes after a resume read nothing')
  w.snap.compacted({ trigger: 'manual', skipped: false })
  assert.is(await w.compose(), section('# W\nv1'))
  assert.equal(w.snap.view(), { state: 'copy', resumed: false, reason: 'compaction', hash: await contentHash('# W\nv1'), bytes: 7, at: 1000 })
})

test('resume with a record while the manual is now gone: the copy is known, but where the manual is is not', async () => {
  const w = world()
  w.store.set('manual-snapshot:S1', { hash: 'b'.repeat(64), at: 500, reason: 'start', bytes: 9 })
  w.state.text = undefined
  await w.start(true)
  assert.equal(w.snap.view(), { state: 'copy', resumed: true, hash: 'b'.repeat(64), at: 500, reason: 'start', bytes: 9 })
  assert.is(w.snap.carried().manual, undefined)
})

test('resume with no record, an invalid one, or an unreadable store: unknown, nothing collapsed until a refresh', async () => {
  const cases: [string, (w: ReturnType<typeof world>) => void, string][] = [
    ['none', () => {}, 'resumed with no snapshot record: the prompt reads as unknown until the next compaction or /clear'],
    ['invalid', (w) => w.store.set('manual-snapshot:S1', { hash: 1 }), 'the snapshot record is not one keel wrote; the prompt reads as unknown until the next compaction or /clear'],
    ['store down', (w) => (w.state.getThrows = true), 'the snapshot record was not read (store down); the prompt reads as unknown until the next compaction or /clear'],
  ]
  for (const [name, arrange, line] of cases) {
    const w = world()
    arrange(w)
    w.snap.start(w.edges, { resumed: true })
    assert.equal(w.snap.view(), { state: 'loading' }, name)
    await w.flush()
    assert.equal(w.snap.view(), { state: 'unknown' }, name)
    assert.is(w.snap.carried().manual, undefined, name)
    assert.ok(w.seen.logs.includes(line), name)
    assert.is(await w.compose(), undefined, name)
    w.state.getThrows = false
    w.snap.ended('clear')
    w.state.id = 'S2'
    assert.is(await w.compose(), section('# W\nv1'), `${name}: a /clear refreshes`)
  }
})

test('a resume record read across a reset fills nothing', async () => {
  const w = world()
  w.store.set('manual-snapshot:S1', { hash: null, at: 1, reason: 'start', bytes: 0 })
  w.snap.start(w.edges, { resumed: true })
  w.snap.compacted({ trigger: 'auto', skipped: false })
  await w.flush()
  assert.equal(w.snap.view(), { state: 'pending', reason: 'compaction' })
  // the same across the look at the file that follows a record
  const v = world()
  v.store.set('manual-snapshot:S1', { hash: null, at: 1, reason: 'start', bytes: 0 })
  const open = v.holdFs()
  v.snap.start(v.edges, { resumed: true })
  await v.flush()
  v.snap.ended('clear')
  open()
  await v.flush()
  assert.equal(v.snap.view(), { state: 'pending', reason: 'clear' })
  // and a failing store read across a reset
  const u = world()
  u.state.getThrows = true
  u.snap.start(u.edges, { resumed: true })
  u.snap.ended('clear')
  await u.flush()
  assert.equal(u.snap.view(), { state: 'pending', reason: 'clear' })
})

test('a compose before any session.start answers nothing, and the start after it does not take that conversation\'s copy', async () => {
  const w = world()
  assert.is(await w.compose(), undefined)
  assert.is(w.snap.carried().manual, undefined)
  await w.start()
  assert.ok(w.seen.logs.includes("a prompt was composed before session.start: this conversation's prompt goes without the manual"))
  assert.is(await w.compose(), undefined, 'the prompt already went out without the section')
  assert.equal([w.seen.stats, w.seen.sets.length], [0, 0])
  assert.equal(w.snap.view(), { state: 'copy', resumed: false, reason: 'start', hash: null, bytes: 0 })
  w.snap.compacted({ trigger: 'manual', skipped: false })
  assert.is(await w.compose(), section('# W\nv1'), 'the next refresh carries it')
  assert.equal(w.snap.view(), { state: 'copy', resumed: false, reason: 'compaction', hash: await contentHash('# W\nv1'), bytes: 7, at: 1000 })
})

test('a start after an early compose counts it once: the next start waits for its own first compose', async () => {
  const w = world()
  await w.compose()
  await w.start()
  w.snap.ended('prompt_input_exit')
  await w.start()
  assert.is(await w.compose(), section('# W\nv1'), 'the early compose was counted by the start before')
  w.snap.ended('prompt_input_exit')
  assert.is(await w.compose(), undefined)
  await w.start()
  assert.is(await w.compose(), undefined, 'a compose between an end and a start is early too')
  const v = world()
  await v.compose()
  await v.start()
  v.snap.ended('clear')
  assert.is(await v.compose(), section('# W\nv1'), 'a clear is not an early compose')
})

test('a compaction before any start, and hot reload: with edges bound, the next refresh takes the copy', async () => {
  const w = world()
  w.snap.compacted({ trigger: 'manual', skipped: false })
  assert.equal(w.snap.view(), { state: 'not-started' })
  w.snap.bind(w.edges)
  assert.is(await w.compose(), undefined, 'mid-conversation after a reload: this prompt was taken before')
  w.snap.compacted({ trigger: 'manual', skipped: false })
  assert.is(await w.compose(), section('# W\nv1'))
})

test('the bounded wait: no manual by 5000 ms, the prompt goes without it for good; the late read fills nothing', async () => {
  const w = world()
  await w.start()
  const open = w.holdFs()
  let answered: unknown = 'pending'
  void w.snap.compose(MAIN).then((out) => (answered = out))
  await w.advance(COMPOSE_WAIT_MS - 1)
  assert.is(answered, 'pending')
  await w.advance(1)
  assert.is(answered, undefined)
  assert.ok(w.seen.logs.includes('no manual by the first prompt after start (5000 ms): the prompt goes without it and no read is collapsed until the next refresh'))
  open()
  await w.flush()
  assert.is(await w.compose(), undefined, 'later composes answer the copy: none')
  assert.is(w.snap.carried().manual, undefined)
  assert.equal(w.store.get('manual-snapshot:S1'), { hash: null, at: 1000, reason: 'start', bytes: 0 })
  assert.is(w.seen.stats, 1)
})

test('a copy in time cancels nothing it needs: the bound firing later changes nothing', async () => {
  const w = world()
  await w.start()
  const first = await w.compose()
  await w.advance(COMPOSE_WAIT_MS)
  assert.is(await w.compose(), first)
  assert.ok(!w.seen.logs.some((l) => l.startsWith('no manual by')))
})

test('composes while the first waits answer what the first answers', async () => {
  const w = world()
  await w.start()
  const open = w.holdFs()
  const a = w.snap.compose(MAIN)
  const b = w.snap.compose(MAIN)
  assert.equal(w.snap.view(), { state: 'pending', reason: 'start' })
  open()
  assert.equal(await Promise.all([a, b]), [section('# W\nv1'), section('# W\nv1')])
  assert.is(w.seen.stats, 1)
  assert.is(await w.snap.compose(['analysis']), section('# W\nv1'))
})

test('a timer that cannot be set: the prompt goes without the manual at once', async () => {
  const w = world()
  await w.start()
  w.state.afterThrows = true
  assert.is(await w.compose(), undefined)
  assert.ok(w.seen.logs.includes('the 5000 ms bound could not be set (no clock): the prompt goes without the manual'))
  assert.is(await w.compose(), undefined)
})

test('a read in flight across a reset fills neither the old copy nor the new one', async () => {
  for (const reset of ['compaction', 'clear', 'end'] as const) {
    const w = world()
    await w.start()
    const open = w.holdFs()
    const pending = w.snap.compose(MAIN)
    if (reset === 'compaction') w.snap.compacted({ trigger: 'auto', skipped: false })
    else w.snap.ended(reset === 'clear' ? 'clear' : 'other')
    w.state.id = 'S2'
    open()
    assert.is(await pending, undefined, reset)
    await w.flush()
    assert.equal(w.seen.sets, [], `${reset}: no record written`)
    if (reset !== 'end') {
      w.state.text = '# W\nnew\n'
      assert.is(await w.compose(), section('# W\nnew'), `${reset}: the next compose takes its own`)
      assert.equal(w.seen.sets.map(([k]) => k), ['manual-snapshot:S2'])
    }
  }
})

test('a record written across a /clear is dropped, not filed under the new session id', async () => {
  const w = world()
  await w.start()
  let release!: () => void
  const slow = new Promise<void>((resolve) => (release = resolve))
  w.edges.sessionId = async () => {
    await slow
    return w.state.id
  }
  assert.is(await w.snap.compose(MAIN), section('# W\nv1'))
  w.snap.ended('clear')
  w.state.id = 'S2'
  release()
  await w.flush()
  assert.equal(w.seen.sets, [])
  assert.equal(w.snap.view(), { state: 'pending', reason: 'clear' })
})

test('no manual file: no section, no record; not a manual project costs one look per reset', async () => {
  const w = world()
  w.state.text = undefined
  await w.start()
  assert.is(await w.compose(), undefined)
  assert.is(await w.compose(), undefined)
  assert.equal([w.seen.stats, w.seen.reads, w.seen.sets.length], [1, 0, 0])
  assert.is(w.snap.carried().manual, undefined)
  assert.ok(w.seen.logs.includes('the prompt after start carries no manual: no such file'))
})

test('a manual that appears mid-session is carried from the next refresh', async () => {
  const w = world()
  w.state.text = undefined
  await w.start()
  await w.compose()
  w.state.text = '# W\nnew\n'
  assert.is(await w.compose(), undefined)
  w.snap.compacted({ trigger: 'auto', skipped: false })
  assert.is(await w.compose(), section('# W\nnew'))
})

test('over the cap: the section names the file and says it is too large; the record carries no hash', async () => {
  const w = world()
  w.state.text = 'x'.repeat(70000)
  await w.start()
  const out = await w.compose()
  assert.ok(out!.startsWith("This project's workflow manual, ai-docs/WORKFLOW.md, is not in this system prompt: it is 70000 bytes, over the 65536 bytes"))
  assert.is(w.seen.reads, 0, 'not read')
  assert.equal(w.store.get('manual-snapshot:S1'), { hash: null, at: 1000, reason: 'start', bytes: 70000 })
  assert.equal(w.snap.carried().manual, { realPath: REAL, folder: '/p/ai-docs', hash: null })
})

test('empty and binary manuals: a one-line note, no hash', async () => {
  const w = world()
  w.state.text = ''
  await w.start()
  assert.is(await w.compose(), "This project's workflow manual, ai-docs/WORKFLOW.md, is empty.")
  const v = world()
  v.state.text = 'a\u0000b'
  await v.start()
  assert.ok((await v.compose())!.includes('is not UTF-8 text'))
  assert.is(v.snap.carried().manual!.hash, null)
})

test('refused or unreadable manuals: no section; a record saying the prompt carries none', async () => {
  const cases: [string, (w: ReturnType<typeof world>) => void, string][] = [
    ['outside', (w) => (w.state.realPath = '/etc/outside.md'), 'refused: it lands at /etc/outside.md, outside the project root /p'],
    ['not a file', (w) => (w.state.isFile = false), `refused: ${REAL} is not a regular file`],
    ['unreadable', (w) => (w.state.statThrows = 'EACCES'), 'unreadable (EACCES)'],
  ]
  for (const [name, arrange, why] of cases) {
    const w = world()
    arrange(w)
    await w.start()
    assert.is(await w.compose(), undefined, name)
    assert.ok(w.seen.logs.includes(`the prompt after start carries no manual: ${why}`), name)
    assert.equal(w.store.get('manual-snapshot:S1'), { hash: null, at: 1000, reason: 'start', bytes: 0 }, name)
    assert.is(w.snap.carried().manual, undefined, name)
  }
})

test('a copy that fails outright: the prompt goes without it', async () => {
  const w = world()
  w.state.readValue = { toString: () => { throw new Error('not text') } }
  await w.start()
  assert.is(await w.compose(), undefined)
  assert.ok(w.seen.logs.includes("the manual's copy failed (not text): the prompt goes without it"))
  assert.equal(w.store.get('manual-snapshot:S1'), { hash: null, at: 1000, reason: 'start', bytes: 0 })
})

test('the mailbox key line and mailbox line, when the binding gives them; a failed read leaves them out', async () => {
  const w = world()
  w.state.extras = async () => ({ key: 'K', mailboxOn: true })
  await w.start()
  assert.is(await w.compose(), `${headerLine(FILE)}\n\n${keyLine('K')}\n\n${MAILBOX_LINE}\n\n# W\nv1`)
  const v = world()
  v.state.extras = async () => { throw new Error('no key yet') }
  await v.start()
  assert.is(await v.compose(), section('# W\nv1'))
  assert.ok(v.seen.logs.includes('the mailbox key and line were not read (no key yet); the section goes without them'))
  const u = world()
  delete (u.edges as { extras?: unknown }).extras
  await u.start()
  assert.is(await u.compose(), section('# W\nv1'), 'no extras edge: neither line')
})

test('extras that never answer do not cost the manual: at the bound it goes without them', async () => {
  const w = world()
  w.state.extras = () => new Promise(() => {})
  await w.start()
  let answered: unknown = 'pending'
  void w.snap.compose(MAIN).then((out) => (answered = out))
  await w.flush()
  assert.is(answered, 'pending', 'the extras are waited for within the bound')
  await w.advance(COMPOSE_WAIT_MS)
  assert.is(answered, section('# W\nv1'))
  assert.ok(w.seen.logs.includes('the mailbox key and line were not there by 5000 ms; the section goes without them'))
  assert.is(await w.compose(), section('# W\nv1'))
  const v = world()
  let give!: (x: { key: string }) => void
  v.state.extras = () => new Promise((resolve) => (give = resolve))
  await v.start()
  const out = v.snap.compose(MAIN)
  await v.flush()
  give({ key: 'K' })
  assert.is(await out, `${headerLine(FILE)}\n\n${keyLine('K')}\n\n# W\nv1`, 'extras a little after the file: both')
})

test('a record that cannot be written costs only the resume: the copy stands', async () => {
  const w = world()
  w.state.setThrows = true
  await w.start()
  assert.is(await w.compose(), section('# W\nv1'))
  assert.ok(w.seen.logs.includes('the snapshot record was not written (disk full); a resume of this session reads its prompt as unknown'))
  assert.is(w.snap.carried().manual!.hash, await contentHash('# W\nv1'))
})

test('prune at start: stale and foreign-shaped records go; fresh ones and the session\'s own stay', async () => {
  const w = world()
  const now = SNAPSHOT_RETENTION_MS + 5000
  w.state.now = now
  w.store.set('manual-snapshot:old', { hash: null, at: 1, reason: 'start', bytes: 0 })
  w.store.set('manual-snapshot:junk', 'x')
  w.store.set('manual-snapshot:fresh', { hash: null, at: now - 10, reason: 'start', bytes: 0 })
  w.store.set('manual-snapshot:S1', { hash: null, at: 1, reason: 'start', bytes: 0 })
  w.store.set('mailbox-key:S0', { key: 'K', at: 1 })
  await w.start(true)
  assert.equal(w.seen.deletes.sort(), ['manual-snapshot:junk', 'manual-snapshot:old'])
  assert.ok(w.seen.logs.includes('pruned 2 snapshot records older than 30 days'))
  const v = world()
  v.state.now = now
  v.store.set('manual-snapshot:old', { hash: null, at: 1, reason: 'start', bytes: 0 })
  await v.start()
  assert.ok(v.seen.logs.includes('pruned 1 snapshot record older than 30 days'))
  const u = world()
  u.state.keysThrows = true
  await u.start()
  assert.ok(u.seen.logs.includes('old snapshot records were not pruned (no keys)'))
  const t = world()
  await t.start()
  assert.equal(t.seen.deletes, [], 'an empty store: nothing to read')
})

test('a log that throws changes nothing', async () => {
  const w = world()
  w.state.logThrows = true
  await w.start()
  assert.is(await w.compose(), section('# W\nv1'))
  w.snap.ended('clear')
  assert.equal(w.snap.view(), { state: 'pending', reason: 'clear' })
})

test.run()
