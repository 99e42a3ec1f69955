// The window core (spec part A): parsing, and every branch of sync, reset, disable and enable.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { OPTOUT_KEY, WINDOW_KEY as K, WRITTEN_KEY } from '../../../src/features/window/constants.ts'
import {
  decideDisable, decideEnable, decideReset, decideSync, isHomeRoot, isWindowInBand, parseSettings, parseWindowTokens, readWindow, withEnvRows,
} from '../../../src/features/window/core.ts'

const P = '/tmp/proj/.claude/settings.local.json'
const L = { settingsPath: P, projectIsHome: false }
const file = (obj: unknown) => parseSettings(JSON.stringify(obj))
const env = (text: string | undefined) => (JSON.parse(text!) as { env: Record<string, unknown> }).env

test('parseWindowTokens accepts positive whole token counts only (A.9.1)', () => {
  const given = [150000, '150000', '850k', '1.5e5', '150000.0', 0, -1, 150000.5, '', null, ' 150000\n', '+150000', '-5', '0', true, {}, [], Infinity, NaN]
  const want = [150000, 150000, null, null, null, null, null, null, null, null, 150000, null, null, null, null, null, null, null, null]
  assert.equal(given.map(parseWindowTokens), want)
})

test('isWindowInBand is 100000..1000000 inclusive, whole numbers only (A.9.2)', () => {
  assert.equal([99999, 100000, 1000000, 1000001, null, 150000.5].map(isWindowInBand), [false, true, true, false, false, false])
})

test('parseSettings: a missing file, and what counts as unreadable', () => {
  assert.equal(parseSettings(undefined), { kind: 'missing' })
  assert.equal(parseSettings('{not json'), { kind: 'unreadable', why: 'not valid JSON' })
  assert.equal(parseSettings('[1,2]'), { kind: 'unreadable', why: 'not a JSON object' })
  assert.equal(parseSettings('null'), { kind: 'unreadable', why: 'not a JSON object' })
  assert.equal(parseSettings('{"env":"x"}'), { kind: 'unreadable', why: 'its "env" is not an object' })
  assert.equal(parseSettings('{"a":1}'), { kind: 'object', root: { a: 1 }, env: {} })
})

test('readWindow: the process environment first, ownership from the file (A.9.3-5)', () => {
  const owned = file({ env: { [K]: '967000', [WRITTEN_KEY]: '967000' } })
  assert.equal(readWindow(owned, '200000'), { tokens: 200000, raw: '200000', source: 'process-env', fileTokens: 967000, fileRaw: '967000', optedOut: false, owned: true })
  const pinned = file({ env: { [K]: '150000', [WRITTEN_KEY]: '967000' } })
  const r = readWindow(pinned, undefined)
  assert.equal([r.source, r.tokens, r.owned], ['settings-file', 150000, false])
  const none = readWindow({ kind: 'missing' }, '')
  assert.equal([none.source, none.tokens, none.fileRaw, none.optedOut], [null, null, undefined, false])
  assert.is(readWindow(file({ env: { [K]: 967000, [WRITTEN_KEY]: '967000', [OPTOUT_KEY]: 'off' } }), undefined).owned, true, 'a number matches its string marker')
  assert.is(readWindow(file({ env: { [OPTOUT_KEY]: 'off' } }), undefined).optedOut, true)
})

test('sync into no file writes the value and the marker (A.9.6)', () => {
  const d = decideSync(L, { kind: 'missing' }, 967000)
  assert.equal(d.result, { settingsPath: P, requestedTokens: 967000, action: 'written', tokens: 967000, previousTokens: null, previousRawValue: undefined, owned: true })
  assert.equal(JSON.parse(d.write!), { env: { [K]: '967000', [WRITTEN_KEY]: '967000' } })
})

test('sync again with the same value writes nothing (A.9.7)', () => {
  const d = decideSync(L, parseSettings(decideSync(L, { kind: 'missing' }, 967000).write), 967000)
  assert.is(d.write, undefined)
  assert.equal([d.result.action, d.result.owned], ['unchanged', true])
})

test('sync over its own value keeps every other key (A.9.8)', () => {
  const before = { env: { FOO: '1', [K]: '200000', [WRITTEN_KEY]: '200000' }, hooks: { PreCompact: [{ x: 1 }] }, zzz: [1, 2] }
  const d = decideSync(L, file(before), 967000)
  assert.equal([d.result.action, d.result.previousTokens], ['written', 200000])
  const after = JSON.parse(d.write!)
  assert.equal(after, { env: { FOO: '1', [K]: '967000', [WRITTEN_KEY]: '967000' }, hooks: { PreCompact: [{ x: 1 }] }, zzz: [1, 2] })
  assert.equal(Object.keys(after), ['env', 'hooks', 'zzz'], 'key order kept')
  assert.ok(d.write!.endsWith('}\n'))
})

test('a value pinned by hand is never overwritten (A.9.9-11)', () => {
  const pinned = decideSync(L, file({ env: { [K]: '150000' } }), 967000)
  assert.is(pinned.write, undefined)
  assert.equal(pinned.result, { settingsPath: P, requestedTokens: 967000, action: 'skipped', reason: 'not-owned', tokens: 150000, previousTokens: 150000, previousRawValue: '150000', owned: false })
  const typo = decideSync(L, file({ env: { [K]: '500k' } }), 967000)
  assert.equal([typo.result.reason, typo.result.previousRawValue, typo.result.previousTokens, typo.write], ['not-owned', '500k', null, undefined])
  const staleMarker = decideSync(L, file({ env: { [K]: '150000', [WRITTEN_KEY]: '967000' } }), 300000)
  assert.equal([staleMarker.result.reason, staleMarker.write], ['not-owned', undefined], 'a marker that no longer matches means a person took the key over')
  const same = decideSync(L, file({ env: { [K]: '967000' } }), 967000)
  assert.equal([same.result.action, same.result.owned, same.write], ['unchanged', false, undefined])
})

// A-I6: a value the process runs with while the file has none was set outside (a shell, another settings file).
test('a running value the file does not hold is a pin too, unless it is the marker\'s', () => {
  const pinned = decideSync(L, { kind: 'missing' }, 967000, '300000')
  assert.is(pinned.write, undefined)
  assert.equal(pinned.result, { settingsPath: P, requestedTokens: 967000, action: 'skipped', reason: 'not-owned', tokens: 300000, previousTokens: 300000, previousRawValue: '300000', owned: false, pinnedIn: 'running-env' })
  const typo = decideSync(L, file({ env: { FOO: '1' } }), 967000, '300k')
  assert.equal([typo.result.reason, typo.result.previousTokens, typo.result.previousRawValue, typo.write], ['not-owned', null, '300k', undefined])
  // Review 11: a running value equal to the one asked for is no pin (a `claude` started from a Bash
  // tool inherits it): the file gets the value and the marker.
  const same = decideSync(L, { kind: 'missing' }, 967000, '967000')
  assert.equal([same.result.action, same.result.pinnedIn, same.result.owned], ['written', undefined, true])
  assert.equal(JSON.parse(same.write!).env, { [K]: '967000', [WRITTEN_KEY]: '967000' })
  // Ours: the marker names the running value (its row left the file, the process kept it).
  assert.is(decideSync(L, file({ env: { [WRITTEN_KEY]: '300000' } }), 967000, '300000').result.action, 'written')
  assert.is(decideSync(L, { kind: 'missing' }, 967000, '').result.action, 'written', 'an empty value is unset')
  // The file's own value decides where it has one.
  assert.is(decideSync(L, file({ env: { [K]: '200000', [WRITTEN_KEY]: '200000' } }), 967000, '200000').result.action, 'written')
})

test('sync refuses: opted out, unreadable, home folder, out of band (A.9.12-16)', () => {
  assert.equal(decideSync(L, file({ env: { [OPTOUT_KEY]: 'off' } }), 967000).result.reason, 'opted-out')
  assert.is(decideSync(L, file({ env: { [OPTOUT_KEY]: 'on' } }), 967000).result.action, 'written')
  assert.is(decideSync(L, file({ env: { [OPTOUT_KEY]: 'OFF' } }), 967000).result.action, 'written')
  for (const text of ['{not json', '[1,2]', '{"env":"x"}']) {
    const d = decideSync(L, parseSettings(text), 967000)
    assert.equal([d.result.reason, d.result.why !== undefined, d.write], ['unreadable-settings', true, undefined])
  }
  const home = decideSync({ settingsPath: P, projectIsHome: true }, undefined, 967000)
  assert.equal([home.result.reason, home.result.tokens, home.result.previousRawValue, home.write], ['unsafe-project-root', null, undefined, undefined])
  for (const n of [99999, 1000001, 150000.5, -1]) assert.equal(decideSync(L, { kind: 'missing' }, n).result.reason, 'out-of-band')
  assert.is(decideSync(L, { kind: 'missing' }, 1000000).result.action, 'written')
})

test('reset removes the key and opts out in one write, then is idempotent (A.9.17-19)', () => {
  const d = decideReset(P, file({ env: { [K]: '967000', [WRITTEN_KEY]: '967000', FOO: '1' } }))
  assert.equal(d.result, { settingsPath: P, action: 'removed', previousTokens: 967000, optedOut: true })
  assert.equal(env(d.write), { FOO: '1', [OPTOUT_KEY]: 'off' })
  const again = decideReset(P, parseSettings(d.write))
  assert.equal([again.result.action, again.write], ['absent', undefined])
  assert.equal(decideReset(P, { kind: 'missing' }), { result: { settingsPath: P, action: 'absent', previousTokens: null, optedOut: false } })
  assert.equal(decideReset(P, file({ env: { FOO: '1' } })).write, undefined, 'nothing of ours: no write, no opt-out')
})

test('reset removes a value whoever wrote it, and adds a missing opt-out beside a stray marker (A.9.20)', () => {
  const litter = decideReset(P, file({ env: { [K]: '200000' } }))
  assert.equal([litter.result.action, litter.result.previousTokens, env(litter.write)], ['removed', 200000, { [OPTOUT_KEY]: 'off' }])
  const stray = decideReset(P, file({ env: { [WRITTEN_KEY]: '200000', [OPTOUT_KEY]: 'on' } }))
  assert.equal([stray.result.action, stray.result.optedOut, env(stray.write)], ['absent', true, { [OPTOUT_KEY]: 'off' }])
  const alreadyOff = decideReset(P, file({ env: { [K]: 'x', [OPTOUT_KEY]: 'off' } }))
  assert.equal([alreadyOff.result.action, alreadyOff.result.previousTokens, alreadyOff.result.optedOut], ['removed', null, false])
  const unreadable = decideReset(P, parseSettings('[]'))
  assert.equal([unreadable.result.action, unreadable.write], ['unreadable-settings', undefined])
})

test('after a reset, sync stays out (A.9.21)', () => {
  const reset = decideReset(P, file({ env: { [K]: '967000', [WRITTEN_KEY]: '967000' } }))
  const d = decideSync(L, parseSettings(reset.write), 967000)
  assert.equal([d.result.reason, d.write], ['opted-out', undefined])
})

test('disable records the opt-out only, and refuses at home or on an unreadable file (A.9.22-24)', () => {
  const d = decideDisable(L, { kind: 'missing' })
  assert.is(d.result.action, 'disabled')
  assert.equal(JSON.parse(d.write!), { env: { [OPTOUT_KEY]: 'off' } })
  assert.equal(decideDisable(L, parseSettings(d.write)), { result: { settingsPath: P, action: 'already-opted-out', fileRaw: undefined } })
  const human = decideDisable(L, file({ env: { [K]: '150000' } }))
  assert.equal([human.result.fileRaw, env(human.write)], ['150000', { [K]: '150000', [OPTOUT_KEY]: 'off' }])
  assert.equal(decideDisable({ settingsPath: P, projectIsHome: true }, undefined), { result: { settingsPath: P, action: 'refused-unsafe-project-root', fileRaw: undefined } })
  assert.equal(decideDisable(L, parseSettings('{x')).result.action, 'unreadable-settings')
})

test('enable removes the opt-out row only; absent writes nothing (A.9.25)', () => {
  const d = decideEnable(P, file({ env: { [K]: '150000', [OPTOUT_KEY]: 'off' } }))
  assert.equal([d.result.action, env(d.write)], ['reenabled', { [K]: '150000' }])
  assert.equal(decideEnable(P, file({ env: { [OPTOUT_KEY]: 'anything' } })).result.action, 'reenabled')
  assert.equal(decideEnable(P, { kind: 'missing' }), { result: { settingsPath: P, action: 'absent' } })
  assert.equal(decideEnable(P, parseSettings('1')).result.action, 'unreadable-settings')
  const after = decideSync(L, parseSettings(decideEnable(P, file({ env: { [OPTOUT_KEY]: 'off' } })).write), 967000)
  assert.is(after.result.action, 'written')
})

test('withEnvRows adds an env block at the end when there is none', () => {
  assert.equal(JSON.parse(withEnvRows(file({ a: 1 }), { X: '1', Y: undefined })), { a: 1, env: { X: '1' } })
})

test('isHomeRoot: only the home folder itself, however spelled (A.9.14)', () => {
  assert.ok(isHomeRoot('/home/me/', '/home/me'))
  assert.ok(isHomeRoot('/home//me', '/home/me/'))
  assert.ok(isHomeRoot('C:/Users/Me', 'c:\\users\\me\\'))
  assert.not.ok(isHomeRoot('/home/me/my-project', '/home/me'))
  assert.not.ok(isHomeRoot('/home/me', undefined))
  assert.not.ok(isHomeRoot('/Home/Me', '/home/me'), 'case matters off Windows')
  assert.ok(isHomeRoot('/link', '/home/me', { root: '/home/me', home: '/home/me' }), 'a link to home is home')
  assert.not.ok(isHomeRoot('/link', '/home/me', { root: '/elsewhere', home: '/home/me' }))
  assert.ok(isHomeRoot('/', '/'))
})

test.run()
