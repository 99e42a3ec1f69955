// A provider's key (§3.5): read when a request needs it, by its command or its file, kept in memory
// for KEY_CACHE_MS by the whole provider entry, a failed read never kept, and the state status shows
// never holding the key.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Provider } from '../../../src/features/routing/config.ts'
import { HELPER_TIMEOUT_MS, KEY_CACHE_MS, PRINTENV_PATH } from '../../../src/features/routing/constants.ts'
import { createKeys, type KeyEdges } from '../../../src/features/routing/keys.ts'

const KEY = 'sk-test-SECRET-1234'
const base = { api: 'openai-chat', baseUrl: 'https://api.example.com/v1', headers: {} } as const
const ENV: Provider = { ...base, id: 'example', auth: { env: 'EXAMPLE_KEY' } }
const HELPER: Provider = { ...base, id: 'pass', auth: { helper: ['/usr/bin/pass', 'show', 'example'] } }
const FILE: Provider = { ...base, id: 'disk', auth: { file: '/home/me/.example-key' } }
const NONE: Provider = { ...base, id: 'local', auth: 'none' }

type Run = Awaited<ReturnType<KeyEdges['run']>>

/** Edges that record every run and read; the answers and the clock are the test's to set. */
function world() {
  const w = {
    clock: 1_000_000,
    runs: [] as { argv: readonly string[]; timeoutMs: number }[],
    reads: [] as string[],
    run: (async () => ({ exitCode: 0, stdout: `${KEY}\n`, stderr: '' })) as (argv: readonly string[]) => Promise<Run>,
    read: (async () => `${KEY}\n`) as (path: string) => Promise<string>,
  }
  const edges: KeyEdges = {
    run: (argv, timeoutMs) => {
      w.runs.push({ argv, timeoutMs })
      return w.run(argv)
    },
    read: (path) => {
      w.reads.push(path)
      return w.read(path)
    },
    now: async () => w.clock,
  }
  return { w, keys: createKeys(edges) }
}

test('none: no key, nothing run or read, state "none"', async () => {
  const { w, keys } = world()
  assert.is(keys.stateOf(NONE), 'none', 'even before a read')
  assert.equal(await keys.keyFor(NONE), { key: undefined })
  assert.equal([w.runs, w.reads], [[], []])
  assert.is(keys.stateOf(NONE), 'none')
  assert.equal(keys.held(), [])
})

test('a helper command: run by its argv with the helper timeout, the first line its key; state "ok"', async () => {
  const { w, keys } = world()
  assert.is(keys.stateOf(HELPER), 'not read yet')
  w.run = async () => ({ exitCode: 0, stdout: `  ${KEY}  \nsecond line\n`, stderr: 'warning: agent\n' })
  assert.equal(await keys.keyFor(HELPER), { key: KEY })
  assert.equal(w.runs, [{ argv: ['/usr/bin/pass', 'show', 'example'], timeoutMs: HELPER_TIMEOUT_MS }])
  assert.is(keys.stateOf(HELPER), 'ok')
  assert.equal(keys.held(), [KEY])
})

test('env: printenv by absolute path; file: read, its first line the key', async () => {
  const { w, keys } = world()
  assert.equal(await keys.keyFor(ENV), { key: KEY })
  assert.equal(w.runs.map((r) => r.argv), [[PRINTENV_PATH, 'EXAMPLE_KEY']])
  w.read = async () => 'sk-file-KEY-5678\r\n# a comment\n'
  assert.equal(await keys.keyFor(FILE), { key: 'sk-file-KEY-5678' })
  assert.equal(w.reads, ['/home/me/.example-key'])
  assert.equal(keys.held().sort(), [KEY, 'sk-file-KEY-5678'].sort())
  assert.equal([keys.stateOf(ENV), keys.stateOf(FILE)], ['ok', 'ok'])
})

test('the cache: kept for KEY_CACHE_MS, read again at KEY_CACHE_MS; the read time, not the last use, counts', async () => {
  const { w, keys } = world()
  await keys.keyFor(ENV)
  w.run = async () => ({ exitCode: 0, stdout: 'sk-rotated-KEY-0000\n', stderr: '' })
  w.clock += KEY_CACHE_MS - 1
  assert.equal(await keys.keyFor(ENV), { key: KEY }, 'still cached a millisecond before')
  assert.is(w.runs.length, 1)
  w.clock += 1
  assert.equal(await keys.keyFor(ENV), { key: 'sk-rotated-KEY-0000' }, 'read again at KEY_CACHE_MS')
  assert.is(w.runs.length, 2)
  assert.equal(keys.held(), ['sk-rotated-KEY-0000'], 'the old key is no longer held')
})

test('the cache is keyed by the whole provider entry: an edited auth, URL or header reads afresh; an equal entry in another order does not', async () => {
  const { w, keys } = world()
  await keys.keyFor(ENV)
  await keys.keyFor({ ...ENV, baseUrl: ENV.baseUrl })
  assert.is(w.runs.length, 1, 'an equal entry')
  await keys.keyFor({ headers: {}, auth: { env: 'EXAMPLE_KEY' }, baseUrl: ENV.baseUrl, api: 'openai-chat', id: 'example' })
  assert.is(w.runs.length, 1, 'the same entry, keys reordered')
  await keys.keyFor({ ...ENV, auth: { env: 'OTHER_KEY' } })
  await keys.keyFor({ ...ENV, baseUrl: 'https://elsewhere.example/v1' })
  await keys.keyFor({ ...ENV, headers: { 'X-Org': 'org-1' } })
  assert.equal(w.runs.map((r) => r.argv[1]), ['EXAMPLE_KEY', 'OTHER_KEY', 'EXAMPLE_KEY', 'EXAMPLE_KEY'])
})

test('failures: each named, never cached, and the state says why', async () => {
  const { w, keys } = world()
  w.run = async () => ({ exitCode: 1, stdout: '', stderr: '\nError: example is not in the password store.\nmore\n' })
  assert.equal(await keys.keyFor(HELPER), { problem: '/usr/bin/pass exited 1 (run it yourself to see why)' })
  assert.is(keys.stateOf(HELPER), 'failed: /usr/bin/pass exited 1 (run it yourself to see why)')
  w.run = async () => ({ exitCode: null, stdout: '', stderr: '' })
  assert.equal(await keys.keyFor(HELPER), { problem: '/usr/bin/pass exited on a signal (run it yourself to see why)' }, 'killed (the timeout): no code')
  // A command that prints the key on its standard error on the way to failing: never quoted.
  w.run = async () => ({ exitCode: 2, stdout: '', stderr: 'sk-live-PRINTED-BY-MISTAKE\n' })
  const printed = await keys.keyFor(HELPER)
  assert.equal(printed, { problem: '/usr/bin/pass exited 2 (run it yourself to see why)' })
  assert.not.match(keys.stateOf(HELPER), 'sk-live')
  w.run = async () => Promise.reject(new Error('ENOENT: no such file'))
  assert.equal(await keys.keyFor(HELPER), { problem: '/usr/bin/pass did not run (ENOENT: no such file)' })
  w.run = async () => Promise.reject('not an Error')
  assert.equal(await keys.keyFor(HELPER), { problem: '/usr/bin/pass did not run (not an Error)' })
  w.run = async () => ({ exitCode: 0, stdout: '\n', stderr: '' })
  assert.equal(await keys.keyFor(ENV), { problem: 'printed no key' })
  assert.is(keys.stateOf(ENV), 'failed: printed no key')
  w.read = async () => Promise.reject(new Error('EACCES: permission denied'))
  assert.equal(await keys.keyFor(FILE), { problem: '/home/me/.example-key could not be read (EACCES: permission denied)' })
  w.read = async () => Promise.reject(13)
  assert.equal(await keys.keyFor(FILE), { problem: '/home/me/.example-key could not be read (13)' })
  w.read = async () => 'two words\n'
  assert.equal(await keys.keyFor(FILE), { problem: 'printed a key with spaces or control characters in it' })
  assert.equal(keys.held(), [], 'nothing failed is held')
  // The next request tries again at once: nothing of a failure was kept.
  const runs = w.runs.length
  w.run = async () => ({ exitCode: 0, stdout: `${KEY}\n`, stderr: '' })
  assert.equal(await keys.keyFor(HELPER), { key: KEY })
  assert.is(w.runs.length, runs + 1)
  assert.is(keys.stateOf(HELPER), 'ok')
})

test('a read that fails after the cache ran out drops the old key too', async () => {
  const { w, keys } = world()
  await keys.keyFor(ENV)
  assert.equal(keys.held(), [KEY])
  w.clock += KEY_CACHE_MS
  w.run = async () => ({ exitCode: 1, stdout: '', stderr: 'unset' })
  assert.equal(await keys.keyFor(ENV), { problem: '/usr/bin/printenv exited 1 (run it yourself to see why)' })
  assert.equal(keys.held(), [])
  assert.is(keys.stateOf(ENV), 'failed: /usr/bin/printenv exited 1 (run it yourself to see why)')
})

test('no state text ever holds the key, whatever was read', async () => {
  const { w, keys } = world()
  const providers = [ENV, HELPER, FILE, NONE]
  for (const p of providers) await keys.keyFor(p)
  w.run = async () => ({ exitCode: 3, stdout: KEY, stderr: '' })
  w.clock += KEY_CACHE_MS
  await keys.keyFor(HELPER)
  for (const p of providers) assert.not.ok(String(keys.stateOf(p)).includes(KEY), p.id)
})

test('forget: every key and state goes; the next request reads again', async () => {
  const { w, keys } = world()
  await keys.keyFor(ENV)
  await keys.keyFor(FILE)
  keys.forget()
  assert.equal(keys.held(), [])
  assert.equal([keys.stateOf(ENV), keys.stateOf(FILE), keys.stateOf(NONE)], ['not read yet', 'not read yet', 'none'])
  await keys.keyFor(ENV)
  assert.is(w.runs.length, 2)
})

test.run()
