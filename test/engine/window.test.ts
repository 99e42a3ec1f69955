// packages: ws, keel
// The window feature through real dispatch: the settings file written at session start through
// `$.fs`, the running value set through `$.env`, a pinned value left alone, and the status lines
// of `/<pkg> status` and `/<pkg> window status`. The test's `on` hooks stand for the engine's fs and env.
import { expect, test, type TestBody } from 'claude-code/testing'
import { PKG } from './package.ts'
import { filesWorld } from './files-world.ts'

const K = 'CLAUDE_CODE_AUTO_COMPACT_WINDOW'
const P = '/w/proj/.claude/settings.local.json'
const ON = { options: { window: 'on', compactWindowTokens: 500000 } }
const RUN = { origin: { kind: 'composer' }, presentation: { isFullscreen: false, columns: 100 } } as const

type On = Parameters<TestBody>[1]

function world(on: On, files: Record<string, string> = {}, home = '/w') {
  const seen = { files: new Map(Object.entries(files)), modes: new Map<string, number>(), writes: [] as string[], envSets: [] as (string | undefined)[], logs: [] as string[], env: new Map<string, string>() }
  on('ui.log', (_, e) => (seen.logs.push(e.text), { value: undefined }))
  on('command.register', (_, e) => ({ value: { command: e.name } }))
  on('session.start', (_, e) => ({ cwd: e.cwd }))
  on('session.id', () => ({ value: 'session-1' }))
  on('session.root', () => ({ value: '/w/proj' }))
  on('env.get', (_, e) => ({ value: e.name === 'HOME' ? home : seen.env.get(e.name) }))
  on('env.set', (_, e) => {
    if (e.name === K) seen.envSets.push(e.value)
    if (e.value === undefined) seen.env.delete(e.name)
    else seen.env.set(e.name, e.value)
    return { value: {} }
  })
  filesWorld(on, seen.files, { dirs: ['/w/proj', home], landed: (path) => seen.writes.push(path), modes: seen.modes })
  on('session.usage', () => ({ value: <never>{ startedAt: 0, context: { tokens: 1000, window: 1_000_000, percent: 0, breakdown: { rawMaxTokens: 500000, autocompactSource: 'env', autoCompactThreshold: 467000, isAutoCompactEnabled: true } }, rateLimits: [] } }))
  return seen
}

const start = ($: Parameters<TestBody>[0]) => $.session.start({ cwd: '/w/proj', surface: 'terminal', isInteractive: true })

test('session start writes the window and its marker, and sets the running value', ON, async ($, on) => {
  const seen = world(on, { [P]: JSON.stringify({ env: { FOO: '1' }, permissions: { allow: [] } }) })
  await start($)
  expect(seen.writes).toEqual([P])
  expect(JSON.parse(seen.files.get(P)!)).toEqual({ env: { FOO: '1', [K]: '500000', KEEL_AUTO_COMPACT_WINDOW_WRITTEN: '500000' }, permissions: { allow: [] } })
  expect(seen.envSets).toEqual(['500000'])
  expect(seen.logs.some((l) => l.startsWith(`Harness auto-compact window: wrote ${K}=500000 to ${P} (was unset). Undo: /${PKG} window reset`))).toBe(true)
  const status = await $.command.run({ command: PKG, args: 'status', ...RUN })
  expect(status.text).toContain(`window: runs`)
  expect(status.text).toContain(`  Harness auto-compact window: wrote ${K}=500000`)
  const window = await $.command.run({ command: PKG, args: 'window status', ...RUN })
  expect(window.text).toContain(`${P}: ${K} "500000", written by ${PKG}; sync on`)
  expect(window.text).toContain('the harness compacts on a window of 500000 tokens (source: env); auto-compaction at 467000 tokens')
})

test('a value pinned by hand is left untouched', ON, async ($, on) => {
  const pinned = JSON.stringify({ env: { [K]: '150000' } })
  const seen = world(on, { [P]: pinned })
  await start($)
  expect(seen.writes).toEqual([])
  expect(seen.files.get(P)).toBe(pinned)
  expect(seen.envSets).toEqual([])
  expect(seen.logs.some((l) => l.includes(`pins ${K}=150000, while ${PKG} asked for 500000`))).toBe(true)
})

// Issue 17 #11: the rename replaced a read-only file, and every rewrite left the file 0600.
test('a settings file made read-only is not written, and the sync says so; a rewrite keeps the mode', ON, async ($, on) => {
  const text = JSON.stringify({ env: { FOO: '1' } })
  const seen = world(on, { [P]: text })
  seen.modes.set(P, 0o444)
  await start($)
  expect(seen.writes).toEqual([])
  expect(seen.files.get(P)).toBe(text)
  expect(seen.logs).toContain(`Harness window not written: ${P} is read-only, so keel leaves it as it is; to let keel write it, make it writable (chmod u+w "${P}"). The file is as it was.`)
  const window = await $.command.run({ command: PKG, args: 'window status', ...RUN })
  expect(window.text).toContain(`last sync: Harness window not written: ${P} is read-only`)
  seen.modes.set(P, 0o664)
  const disable = await $.command.run({ command: PKG, args: 'window disable', ...RUN })
  expect(disable.text).toContain(`Harness window sync is now off: wrote KEEL_AUTO_COMPACT_WINDOW_SYNC=off to ${P}`)
  expect(seen.writes).toEqual([P])
  expect(seen.modes.get(P)).toBe(0o664)
})

test('the home folder is never written', { options: { window: 'on', compactWindowTokens: 500000 } }, async ($, on) => {
  const seen = world(on, {}, '/w/proj')
  await start($)
  expect(seen.writes).toEqual([])
  expect(seen.logs.some((l) => l.includes('the project root is your home folder'))).toBe(true)
})

test('window reset and enable through the package command', ON, async ($, on) => {
  const seen = world(on)
  await start($)
  const reset = await $.command.run({ command: PKG, args: 'window reset', ...RUN })
  expect(reset.text).toContain(`removed ${K} (was 500000) from ${P}`)
  expect(JSON.parse(seen.files.get(P)!)).toEqual({ env: { KEEL_AUTO_COMPACT_WINDOW_SYNC: 'off' } })
  expect(seen.envSets).toEqual(['500000', undefined])
  const enable = await $.command.run({ command: PKG, args: 'window enable', ...RUN })
  expect(enable.text).toContain('Harness window sync is on again')
  expect(JSON.parse(seen.files.get(P)!).env[K]).toBe('500000')
})

test('with compactWindowTokens 0 nothing is read or written', { options: { window: 'on', compactWindowTokens: 0 } }, async ($, on) => {
  const seen = world(on)
  await start($)
  expect(seen.writes).toEqual([])
  const status = await $.command.run({ command: PKG, args: 'status', ...RUN })
  expect(status.text).toContain('not managed (compactWindowTokens is 0)')
})
