// The window feature through its hook and verbs, over an in-memory file system and environment.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { OPTOUT_KEY, WINDOW_KEY as K, WRITTEN_KEY } from '../../../src/features/window/constants.ts'
import { createWindowFeature } from '../../../src/features/window/index.ts'
import { describeSync, describeState, syncWarning } from '../../../src/features/window/strings.ts'
import type { SyncResult } from '../../../src/features/window/core.ts'
import type { FeatureContext } from '../../../src/registry.ts'
import { fakeNext, fakePort, type FakePort } from '../fakes.ts'
import { fakeFiles, type FakeFiles } from '../fake-files.ts'

const ROOT = '/w/proj'
const P = `${ROOT}/.claude/settings.local.json`
const NAMES = { who: 'ws', cmd: '/ws window' }

type World = {
  files: Map<string, string>
  fs: FakeFiles
  env: { value: string | undefined }
  writes: string[]
  notices: string[]
  lines: string[]
  envSets: (string | undefined)[]
}

function setup(opts: { root?: string; home?: string; files?: Record<string, string>; envValue?: string; failWrite?: boolean; garble?: boolean; deny?: string; unreadable?: boolean; breakdown?: object } = {}) {
  const fs = fakeFiles(opts.files ?? {}, [opts.root?.replace(/\/+$/, '') ?? ROOT])
  if (opts.failWrite) fs.failWrite = () => true
  if (opts.garble) {
    const write = fs.edges.write
    fs.edges.write = (p, text) => write(p, text + 'x')
  }
  const world: World = { files: fs.files, fs, env: { value: opts.envValue }, writes: [], notices: [], lines: [], envSets: [] }
  const moved = fs.edges.move
  fs.edges.move = async (from, to) => {
    await moved(from, to)
    world.writes.push(to)
  }
  const fake = fakePort('ws', {
    projectRoot: async () => opts.root ?? ROOT,
    homeDir: async () => opts.home ?? '/w',
    realPath: async (p: string) => p,
    fileExists: async (p: string) => world.files.has(p),
    readFile: async (p: string) => {
      if (opts.unreadable) throw new Error('EACCES')
      const text = world.files.get(p)
      if (text === undefined) throw new Error('ENOENT')
      return text
    },
    files: fs.edges,
    windowEnv: async () => world.env.value,
    setWindowEnv: async (v: string | undefined) => {
      world.envSets.push(v)
      if (opts.deny) return { deny: opts.deny }
      world.env.value = v
      return {}
    },
    notice: (line: string) => void world.notices.push(line),
    usage: async () => ({ startedAt: 0, rateLimits: [], context: { window: 1_000_000, tokens: 1000, breakdown: opts.breakdown } }) as never,
    now: async () => fs.now,
  })
  world.lines = fake.lines
  // A fresh registration of the feature per world: its state (the last sync, the notices shown) is its own.
  registrations.set(fake.port, { fake, feature: createWindowFeature() })
  return { port: fake.port, world }
}

const registrations = new WeakMap<object, { fake: FakePort; feature: ReturnType<typeof createWindowFeature> }>()
const of = (port: object) => registrations.get(port)!
const ctxOf = (port: object, tokens: number): FeatureContext => of(port).fake.ctx(of(port).feature, { window: true, compactWindowTokens: tokens })
const window = { status: (port: object, tokens: number) => of(port).feature.status!(port as never, ctxOf(port, tokens)) }
const start = (port: ReturnType<typeof setup>['port'], tokens: number) =>
  (of(port).feature.hooks['session.start'] as (...a: unknown[]) => unknown)(port, { cwd: ROOT, surface: null, isInteractive: false } as never, fakeNext((e: { cwd: string }) => ({ cwd: e.cwd })), ctxOf(port, tokens))
const verb = (port: ReturnType<typeof setup>['port'], args: string, tokens = 500000) => of(port).feature.verbs!.window!.run(port, args, ctxOf(port, tokens))
const envOf = (world: World) => (JSON.parse(world.files.get(P)!) as { env: Record<string, string> }).env

test('session start with the option set writes the file, sets the running value, and tells the person', async () => {
  const { port, world } = setup()
  const r = await start(port, 500000)
  assert.equal(r, { cwd: ROOT })
  assert.equal(envOf(world), { [K]: '500000', [WRITTEN_KEY]: '500000' })
  assert.equal(world.envSets, ['500000'])
  assert.is(world.notices.length, 1)
  assert.match(world.notices[0]!, `wrote ${K}=500000 to ${P} (was unset). Undo: /ws window reset`)
  assert.ok(world.lines.some((l) => l.startsWith('window: Harness auto-compact window: wrote')))
  // A second start finds its own value: no write, no notice.
  await start(port, 500000)
  assert.equal(world.writes, [P])
  assert.is(world.notices.length, 1)
  assert.equal(await window.status(port, 500000), [`Harness auto-compact window: ${K}=500000 in ${P} already (managed by ws).`])
})

test('option 0: nothing is read or written', async () => {
  const { port, world } = setup({ files: { [P]: '{' } })
  await start(port, 0)
  assert.equal([world.writes, world.envSets, world.notices], [[], [], []])
  assert.match(world.lines.join('\n'), 'not managed (compactWindowTokens is 0)')
  assert.match((await window.status(port, 0))[0]!, 'not managed')
})

test('a pinned value stays, and the notice names both numbers', async () => {
  const text = JSON.stringify({ env: { [K]: '150000', FOO: 'x' } })
  const { port, world } = setup({ files: { [P]: text } })
  await start(port, 500000)
  assert.is(world.files.get(P), text)
  assert.equal([world.writes, world.envSets], [[], []])
  assert.match(world.notices[0]!, `pins ${K}=150000, while ws asked for 500000; the harness compacts on 150000`)
  assert.ok(world.lines.some((l) => l.includes('harness window disagreement')))
})

// A-I6, W1: a value pinned in the shell or ~/.claude/settings.json, with no key in the file.
test('a value the running session holds from outside is a pin: nothing written or set, both numbers said', async () => {
  const { port, world } = setup({ envValue: '300000' })
  await start(port, 500000)
  assert.equal([world.writes, world.envSets], [[], []])
  assert.is(world.files.has(P), false)
  assert.match(world.notices[0]!, `the running session's environment (from your shell or another settings file) pins ${K}=300000, while ws asked for 500000; the harness compacts on 300000.`)
  assert.match(world.notices[0]!, `To let ws manage it: unset ${K} where it is set, then start a new session.`)
  assert.not.match(world.notices[0]!, 'was unset')
  assert.ok(world.lines.some((l) => l.includes(`harness window disagreement: ${K} in the running session's environment`)), world.lines.join('\n'))
})

// Review 11: a running value equal to the one asked for is no pin (NOTES.md): nothing to protect.
test('a running value equal to the one asked for, inherited by a claude started from a Bash tool, is no pin: the file is written', async () => {
  const child = setup({ envValue: '500000' })
  await start(child.port, 500000)
  assert.equal(envOf(child.world), { [K]: '500000', [WRITTEN_KEY]: '500000' })
  assert.not.match(child.world.lines.join('\n'), 'from your shell')
  assert.match(child.world.lines.join('\n'), `wrote ${K}=500000 to ${P}`)
  // reset, whose unset of the running value is refused, then enable: managed again, not a pin.
  const { port, world } = setup({ files: { [P]: JSON.stringify({ env: { [K]: '500000', [WRITTEN_KEY]: '500000' } }) }, envValue: '500000', deny: 'not allowed' })
  await start(port, 500000)
  assert.match(await verb(port, 'reset'), `keeps ${K}=500000`)
  const enabled = await verb(port, 'enable')
  assert.equal(envOf(world), { [K]: '500000', [WRITTEN_KEY]: '500000' })
  assert.match(enabled, `wrote ${K}=500000 to ${P}`)
  assert.not.match(enabled, 'does not manage it')
})

test('a write is a temporary file renamed over the target: a full disk or a failed rename leaves the file as it was', async () => {
  const text = JSON.stringify({ env: { FOO: 'x' } })
  const { port, world } = setup({ files: { [P]: text } })
  world.fs.failWrite = (p) => p.endsWith('.tmp')
  await start(port, 500000)
  assert.is(world.files.get(P), text, 'the file holds exactly what it held')
  assert.equal([...world.files.keys()], [P], 'no temporary file left')
  assert.equal(world.envSets, [])
  assert.match(world.notices[0]!, `Harness window not written: ${P} could not be written (ENOSPC`)
  assert.match(world.notices[0]!, 'The file is as it was.')
  const stuck = setup({ files: { [P]: text } })
  stuck.world.fs.failMove = true
  await start(stuck.port, 500000)
  assert.is(stuck.world.files.get(P), text)
})

// Issue 14 #4: the old undo wrote the previous text back over a change another writer made meanwhile.
test('a second writer\'s change made during the write is kept, and the notice says keel left it', async () => {
  const text = JSON.stringify({ env: { FOO: 'x' } })
  const theirs = JSON.stringify({ env: { FOO: 'theirs' } })
  const { port, world } = setup({ files: { [P]: text } })
  const write = world.fs.edges.write
  world.fs.edges.write = async (p, t) => {
    await write(p, t)
    world.files.set(P, theirs)
  }
  await start(port, 500000)
  assert.is(world.files.get(P), theirs)
  assert.match(world.notices[0]!, `${P} changed while keel was writing it, so keel left it as the other writer made it`)
})

test('a settings file that is a link, or a .claude folder that is one, is refused: nothing is written anywhere', async () => {
  const home = '/w/.claude/settings.json'
  const { port, world } = setup({ files: { [home]: '{"model":"opus"}' } })
  world.fs.dirs.add(`${ROOT}/.claude`)
  world.fs.links.set(P, home)
  await start(port, 500000)
  assert.is(world.files.get(home), '{"model":"opus"}')
  assert.equal(world.writes, [])
  assert.match(world.notices[0]!, `${P} is a symbolic link, and keel writes only to a real path inside the folder it owns`)
  const folder = setup({ files: { '/w/.claude/settings.local.json': '{}' } })
  folder.world.fs.links.set(`${ROOT}/.claude`, '/w/.claude')
  await start(folder.port, 500000)
  assert.is(folder.world.files.get('/w/.claude/settings.local.json'), '{}')
  assert.match(folder.world.notices[0]!, `${ROOT}/.claude is a symbolic link`)
})

test('the home folder: no file is touched, and the notice says why in words', async () => {
  const { port, world } = setup({ root: '/w/', home: '/w' })
  let touched = false
  port.fileExists = async () => { touched = true; return false }
  await start(port, 500000)
  assert.not.ok(touched)
  assert.equal(world.writes, [])
  assert.match(world.lines.join('\n'), 'the project root is your home folder')
})

test('an unreadable file is left alone with a clear message', async () => {
  const { port, world } = setup({ files: { [P]: '{"env": [1]}' } })
  await start(port, 500000)
  assert.equal(world.writes, [])
  assert.match(world.lines.join('\n'), `${P} is not a JSON object ws can edit safely (its "env" is not an object); left untouched`)
  const denied = setup({ files: { [P]: '{}' }, unreadable: true })
  await start(denied.port, 500000)
  assert.equal(denied.world.writes, [])
  assert.match(denied.world.lines.join('\n'), 'not readable: EACCES')
})

test('a failed or garbled write is reported, and the running value is not set', async () => {
  const failed = setup({ failWrite: true })
  await start(failed.port, 500000)
  assert.equal(failed.world.envSets, [])
  assert.ok(failed.world.lines.some((l) => l.includes(`${P} could not be written (ENOSPC`)), failed.world.lines.join('\n'))
  const garbled = setup({ garble: true })
  await start(garbled.port, 500000)
  assert.equal(garbled.world.envSets, [])
  assert.is(garbled.world.files.has(P), false, 'a temporary file that does not read back is never moved')
  assert.ok(garbled.world.lines.includes(`window: Harness window not written: the text written to ${P} did not read back whole. The file is as it was.`), garbled.world.lines.join('\n'))
})

// Issue 17 #11: the rename replaced a read-only file (0444 became 0600).
test('a settings file its owner made read-only is not written: the notice, the status and the verbs say so and how to let keel', async () => {
  const text = JSON.stringify({ env: { FOO: 'x' } })
  const { port, world } = setup({ files: { [P]: text } })
  world.fs.modes.set(P, 0o444)
  await start(port, 500000)
  assert.is(world.files.get(P), text)
  assert.is(world.fs.modes.get(P), 0o444)
  assert.equal(world.envSets, [], 'nothing set: the file does not carry it')
  const said = `Harness window not written: ${P} is read-only, so keel leaves it as it is; to let keel write it, make it writable (chmod u+w "${P}"). The file is as it was.`
  assert.equal(world.notices, [said])
  assert.equal(await window.status(port, 500000), [said])
  assert.ok((await verb(port, 'status')).split('\n').includes(`last sync: ${said}`))
  assert.is(await verb(port, 'disable'), said)
  world.fs.modes.set(P, 0o644)
  await start(port, 500000)
  assert.is(envOf(world)[K], '500000', 'made writable: the next start writes it')
  assert.is(world.fs.modes.get(P), 0o644, 'and keeps its mode')
})

// Issue 17 #12: a crashed write's temporary file (a copy of the person's settings) stayed in the project for good.
test('a session start removes the temporary file a crashed write left in .claude/, never a fresh one or one at home', async () => {
  const stale = `${ROOT}/.claude/.settings.local.json.keel-0ld.tmp`
  const fresh = `${ROOT}/.claude/.settings.local.json.keel-n3w.tmp`
  const text = JSON.stringify({ env: { [K]: '500000', [WRITTEN_KEY]: '500000' } })
  const { port, world } = setup({ files: { [P]: text, [stale]: text, [fresh]: text } })
  world.fs.now = 2 * 60 * 60 * 1000
  world.fs.mtimes.set(stale, 0)
  world.fs.mtimes.set(fresh, world.fs.now - 1000)
  await start(port, 500000)
  assert.equal([...world.files.keys()].sort(), [P, fresh].sort())
  const home = setup({ root: '/w', home: '/w', files: { '/w/.claude/.settings.local.json.keel-0ld.tmp': text } })
  home.world.fs.now = 2 * 60 * 60 * 1000
  await start(home.port, 500000)
  assert.ok(home.world.files.has('/w/.claude/.settings.local.json.keel-0ld.tmp'), 'the home folder is never touched')
})

test('a refused running value is said beside the write', async () => {
  const { port, world } = setup({ deny: 'launch-only' })
  await start(port, 500000)
  assert.match(world.notices[0]!, `(the running session's ${K} was not set (launch-only)`)
})

test('a sync that throws leaves the start going', async () => {
  const { port, world } = setup()
  port.projectRoot = async () => { throw new Error('no root') }
  assert.equal(await start(port, 500000), { cwd: ROOT })
  assert.match(world.lines.join('\n'), 'window: sync failed (no root)')
})

test('window status: option, file, running session, harness and last sync', async () => {
  const { port } = setup({ files: { [P]: JSON.stringify({ env: { [K]: '500000', [WRITTEN_KEY]: '500000' } }) }, envValue: '500000', breakdown: { rawMaxTokens: 500000, autocompactSource: 'env', autoCompactThreshold: 467000, isAutoCompactEnabled: true } })
  await start(port, 500000)
  const text = await verb(port, 'status')
  assert.equal(text.split('\n'), [
    'compactWindowTokens: 500000',
    `${P}: ${K} "500000", written by ws; sync on`,
    `running session: ${K} "500000"`,
    'the harness compacts on a window of 500000 tokens (source: env); auto-compaction at 467000 tokens',
    `last sync: Harness auto-compact window: ${K}=500000 in ${P} already (managed by ws).`,
  ])
  assert.is(await verb(port, ''), text, 'status is the default')
  const broken = setup({ files: { [P]: '[' } })
  const lines = (await verb(broken.port, 'status')).split('\n')
  assert.ok(lines.some((l) => l.includes('left untouched')))
  broken.port.usage = async () => { throw new Error('no usage') }
  assert.not.ok((await verb(broken.port, 'status')).includes('the harness compacts'))
})

test('window reset removes the value, opts out, and unsets the running value that was its own', async () => {
  const { port, world } = setup()
  await start(port, 500000)
  const text = await verb(port, 'reset')
  assert.equal(envOf(world), { [OPTOUT_KEY]: 'off' })
  assert.equal(world.envSets, ['500000', undefined])
  assert.is(text, `Harness auto-compact window: removed ${K} (was 500000) from ${P} and turned sync off there (${OPTOUT_KEY}=off), so it is not written back. Undo: /ws window enable The running session compacts on the model's own window again.`)
  assert.match(await verb(port, 'reset'), 'holds nothing of ws')
  // The next start stays out.
  await start(port, 500000)
  assert.equal(envOf(world), { [OPTOUT_KEY]: 'off' })
})

test('window reset keeps a running value that is not the one removed, and says so', async () => {
  const { port, world } = setup({ files: { [P]: JSON.stringify({ env: { [K]: '500000' } }) }, envValue: '300000' })
  const text = await verb(port, 'reset')
  assert.equal(world.envSets, [])
  assert.match(text, `keeps ${K}=300000 (from its environment) until it restarts`)
  const unreadable = setup({ files: { [P]: '{' } })
  assert.match(await verb(unreadable.port, 'reset'), 'not reset')
  assert.equal(unreadable.world.writes, [])
  const failing = setup({ files: { [P]: JSON.stringify({ env: { [K]: '500000' } }) }, failWrite: true })
  assert.match(await verb(failing.port, 'reset'), 'could not be written (ENOSPC')
})

test('window disable and enable', async () => {
  const { port, world } = setup({ files: { [P]: JSON.stringify({ env: { [K]: '150000' } }) } })
  assert.is(await verb(port, 'disable'), `Harness window sync is now off: wrote ${OPTOUT_KEY}=off to ${P}; ${K} left as it was ("150000"). Undo: /ws window enable`)
  assert.match(await verb(port, 'DISABLE'), 'was already off')
  assert.match(await verb(port, 'enable'), `Harness window sync is on again: removed ${OPTOUT_KEY} from ${P}; the next session start writes ${K}=500000 unless a value set outside ws is there. Undo: /ws window disable\nHarness window not managed`)
  assert.equal(envOf(world), { [K]: '150000' })
  assert.is(await verb(port, 'enable'), `Harness window sync was not off in ${P}; nothing written.`)
  const home = setup({ root: '/w', home: '/w' })
  assert.match(await verb(home.port, 'disable'), 'not turned off here: the project root is your home folder')
  assert.equal(home.world.writes, [])
  const fresh = setup({ files: { [P]: JSON.stringify({ env: { [OPTOUT_KEY]: 'off' } }) } })
  const enabled = await verb(fresh.port, 'enable')
  assert.match(enabled, `wrote ${K}=500000 to ${P}`, 'enabling syncs at once')
  const zero = setup({ files: { [P]: JSON.stringify({ env: { [OPTOUT_KEY]: 'off' } }) } })
  assert.match(await verb(zero.port, 'enable', 0), 'compactWindowTokens is 0, so nothing is written. Undo')
  assert.match(await verb(setup({ files: { [P]: 'x' } }).port, 'enable'), 'not re-enabled')
  assert.match(await verb(setup({ files: { [P]: 'x' } }).port, 'disable'), 'not turned off: ')
  assert.match(await verb(setup({ files: { [P]: '{}' }, failWrite: true }).port, 'disable'), 'could not be written (ENOSPC')
  assert.match(await verb(setup({ files: { [P]: '{"env":{"' + OPTOUT_KEY + '":"off"}}' }, failWrite: true }).port, 'enable'), 'could not be written (ENOSPC')
  assert.match(await verb(port, 'frob'), '/ws window: unknown action "frob"')
})

const result = (over: Partial<SyncResult>): SyncResult => ({ settingsPath: P, action: 'skipped', tokens: null, previousTokens: null, requestedTokens: 967000, previousRawValue: undefined, owned: false, ...over })

test('describeSync: every outcome names what it must (A.3.9, A.9.26)', () => {
  assert.is(describeSync(undefined, NAMES), 'Harness window sync did not run in this session.')
  const written = describeSync(result({ action: 'written', tokens: 967000, previousTokens: 200000, previousRawValue: '200000', owned: true }), NAMES)
  for (const part of [K, '967000', P, 'was 200000', '/ws window reset']) assert.ok(written.includes(part), part)
  assert.match(describeSync(result({ action: 'written', tokens: 967000, owned: true }), NAMES), '(was unset)')
  assert.match(describeSync(result({ action: 'written', tokens: 967000, previousRawValue: 'x', owned: true }), NAMES), '(was "x")')
  assert.match(describeSync(result({ action: 'unchanged', tokens: 967000, previousTokens: 967000, previousRawValue: '967000' }), NAMES), 'was set outside ws; ws does not manage it')
  const typo = describeSync(result({ reason: 'not-owned', previousRawValue: '500k' }), NAMES)
  assert.match(typo, `${K}="500k", which is not a plain token count`)
  assert.match(typo, '/ws window reset, then /ws window enable')
  assert.match(describeSync(result({ reason: 'opted-out', tokens: 150000, previousTokens: 150000, previousRawValue: '150000' }), NAMES), `nothing written. ${P} pins ${K}=150000, while ws asked for 967000; the harness compacts on 150000. Re-enable: /ws window enable`)
  assert.match(describeSync(result({ reason: 'opted-out' }), NAMES), 'nothing written. Re-enable')
  assert.match(describeSync(result({ reason: 'out-of-band', requestedTokens: 99999 }), NAMES), 'compactWindowTokens 99999 is not a whole number in the harness\'s accepted 100000..1000000')
  assert.match(describeSync(result({ reason: 'not-owned', tokens: 967000, previousTokens: 967000, previousRawValue: '967000' }), NAMES), 'Harness window not managed (set outside ws): To let')
})

test('syncWarning: a line only for a disagreement (A.9.9, A.9.10, A.9.16, A.9.27)', () => {
  assert.is(syncWarning(undefined, NAMES), null)
  assert.is(syncWarning(result({ action: 'written', tokens: 967000, owned: true }), NAMES), null)
  assert.is(syncWarning(result({ action: 'unchanged', tokens: 967000, previousTokens: 967000, previousRawValue: '967000', owned: true }), NAMES), null)
  assert.is(syncWarning(result({ reason: 'unsafe-project-root' }), NAMES), null)
  const pinned = syncWarning(result({ reason: 'not-owned', tokens: 150000, previousTokens: 150000, previousRawValue: '150000' }), NAMES)!
  assert.ok(pinned.includes('150000') && pinned.includes('967000'))
  assert.match(syncWarning(result({ reason: 'not-owned', previousRawValue: '500k' }), NAMES)!, '"500k", not a token count')
  assert.match(syncWarning(result({ reason: 'out-of-band', requestedTokens: 1000001 }), NAMES)!, 'outside 100000..1000000')
})

test('describeState without a file read or a breakdown, and with auto-compaction off', () => {
  assert.equal(describeState(0, undefined, P, undefined, NAMES), ['compactWindowTokens: 0 (not managed)'])
  const lines = describeState(500000, { tokens: null, raw: undefined, source: null, fileTokens: null, fileRaw: undefined, optedOut: true, owned: false }, P, { rawMaxTokens: 1000000, source: 'model-default', isAutoCompactEnabled: false }, NAMES)
  assert.equal(lines.slice(1), [`${P}: ${K} unset; sync off (${OPTOUT_KEY}=off)`, `running session: ${K} unset in its environment`, 'the harness compacts on a window of 1000000 tokens (source: model-default); auto-compaction off'])
})

test.run()
