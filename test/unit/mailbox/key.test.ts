// The mailbox key: the allowed form, its folder name, settling a session's own key, adoption and
// the store entries; random names; where the spool and the registry are.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { KEY_STORE_TTL_MS } from '../../../src/features/mailbox/constants.ts'
import { MAIL_ID_PATTERN, newMailId, randomBase32 } from '../../../src/features/mailbox/ids.ts'
import {
  adoptRename, checkKey, escapeName, folderOf, isStaleKeyEntry, keyIdOf, keyOfFolder, sameKey, looksDerived, mintKey, renamedTo, settleKey, slugOf, storedKeyOf,
  type SettleInput,
} from '../../../src/features/mailbox/key.ts'
import {
  holdersOf, ownNameFromListAgents, ownNameOf, parseSessionRecord, registryPathOf, sessionsDirOf, spoolRootOf,
} from '../../../src/features/mailbox/sessions.ts'
import { configRootOf, keelHomeOf } from '../../../src/lib/keel-home.ts'
import { KEY_WHY, NO_KEY_WHY } from '../../../src/features/mailbox/strings.ts'

/** Random bytes of the length asked for, repeating `b`. */
const bytes = (...b: number[]) => (n: number) => new Uint8Array(n).map((_, i) => b[i % b.length]!)

test('checkKey: the allowed form, trimmed', () => {
  assert.equal(checkKey('keel-B'), { ok: true, key: 'keel-B' })
  assert.equal(checkKey('  my key  '), { ok: true, key: 'my key' })
  assert.equal(checkKey('Ünïcødé 名前'), { ok: true, key: 'Ünïcødé 名前' })
  assert.equal(checkKey('a.b'), { ok: true, key: 'a.b' }, 'one dot is fine')
  assert.equal(checkKey('x'.repeat(64)), { ok: true, key: 'x'.repeat(64) })
})

test('checkKey: every bad input, with its reason', () => {
  const cases: [unknown, string][] = [
    [undefined, KEY_WHY.notText],
    [42, KEY_WHY.notText],
    ['', KEY_WHY.empty],
    ['   \t ', KEY_WHY.empty],
    ['../x', KEY_WHY.path],
    ['..', KEY_WHY.dots],
    ['a..b', KEY_WHY.dots],
    ['a/b', KEY_WHY.path],
    ['/', KEY_WHY.path],
    ['a\\b', KEY_WHY.path],
    ['a\u0000b', KEY_WHY.control],
    ['a\nb', KEY_WHY.control],
    ['a\tb', KEY_WHY.control],
    ['a\u007fb', KEY_WHY.control],
    ['a\u0085b', KEY_WHY.control],
    ['a\u2028b', KEY_WHY.control],
    ['x'.repeat(65), KEY_WHY.long],
    ['名'.repeat(29), KEY_WHY.folder], // 29 × 9 bytes encoded = 261 > 255
  ]
  for (const [raw, why] of cases) assert.equal(checkKey(raw), { ok: false, why }, JSON.stringify(raw))
  assert.ok(checkKey('名'.repeat(28)).ok, '28 × 9 = 252 bytes fits')
})

test('escapeName: reversible, ASCII, never a dot name, and apart under case folding', () => {
  assert.is(escapeName('keel-b_2'), 'keel-b_2')
  assert.is(escapeName('Keel'), '%4Beel')
  assert.is(escapeName('a.b c'), 'a%2Eb%20c')
  assert.is(escapeName('名'), '%E5%90%8D')
  for (const text of ['keel-B', 'Keel', 'keel', 'a.b c', 'Ünïcødé 名前', '%41', 'x'.repeat(64), '[ref]']) {
    assert.is(keyOfFolder(escapeName(text)), text, text)
    assert.ok(/^[A-Za-z0-9_%-]+$/.test(escapeName(text)))
  }
  assert.is.not(escapeName('Keel').toLowerCase(), escapeName('keel').toLowerCase())
  assert.is.not(escapeName('J').toLowerCase(), escapeName('%4a').toLowerCase())
})

test('keyOfFolder: only a name escapeName makes', () => {
  for (const name of ['', 'A', '%4b', '%ZZ', '.', '..', '%FF', 'a b', '%2', 'a%2']) assert.is(keyOfFolder(name), undefined, name)
  assert.is(keyOfFolder('%61'), undefined, "'a' is never escaped")
})

test('keys (issue 17 item 4): one rule, the engine\'s (measured: SendMessage reaches `Release Bot` by each of these); one key, one folder', () => {
  // Every spelling the engine delivered to a session named `Release Bot` (NOTES §9).
  const spellings = ['Release Bot', 'release bot', 'RELEASE BOT', 'release-bot', 'Release  Bot', 'Release\tBot', 'Release \u200bBot', 'Ｒｅｌｅａｓｅ Ｂｏｔ']
  for (const k of spellings) {
    assert.is(keyIdOf(k), 'release-bot', JSON.stringify(k))
    assert.is(folderOf(k), 'release-bot', JSON.stringify(k))
    assert.ok(sameKey(k, 'Release Bot'), JSON.stringify(k))
  }
  // ... and the ones it refused ("No agent named … is reachable").
  for (const k of ['Release\u200bBot', 'releasebot', 'release_bot']) assert.not.ok(sameKey(k, 'Release Bot'), JSON.stringify(k))
  assert.is(keyIdOf('Release\ufeffBot'), 'release-bot', 'U+FEFF is white space to the engine, not dropped')
  assert.not.ok(sameKey('a', undefined))
  assert.is(folderOf('keel-B'), 'keel-b')
  assert.is(folderOf('名前'), '%E5%90%8D%E5%89%8D')
  // A folder an earlier keel made for a spelling: its key decodes; its own folder is now another.
  assert.is(keyOfFolder('keel-%42'), 'keel-B')
  assert.is(folderOf(keyOfFolder('keel-%42')!), 'keel-b')
  // A name that is nothing once folded is no key (it would name the spool's root).
  assert.equal(checkKey('\u200b'), { ok: false, why: KEY_WHY.empty })
  assert.equal(checkKey(' \u00ad '), { ok: false, why: KEY_WHY.empty })
})

test('ids: base32 of random bytes, one a byte (its low 5 bits); a mail id has 16 characters', () => {
  assert.is(randomBase32(bytes(0), 4), 'aaaa')
  assert.is(randomBase32(bytes(255), 4), '7777')
  assert.is(randomBase32(bytes(1, 33, 31), 3), 'bb7')
  const id = newMailId(bytes(7))
  assert.ok(MAIL_ID_PATTERN.test(id), id)
})

test('slugs and minting: the folder basename, lower case, with a 4-character random suffix', () => {
  assert.is(slugOf('/work/My Project!/'), 'my-project')
  assert.is(slugOf('/work/--x--'), 'x')
  assert.is(slugOf('/'), 'session')
  assert.is(slugOf('C:\\work\\Repo'), 'repo')
  assert.is(slugOf(`/w/${'a'.repeat(23)}-bbbb`), 'a'.repeat(23), 'cut at 24, no trailing dash')
  assert.is(mintKey('/work/keel', bytes(0, 0, 0)), 'keel-aaaa')
  assert.ok(checkKey(mintKey('/work/keel', bytes(1, 2, 3))).ok)
})

test('looksDerived: <cwd basename, lowercased>-<2 hex>', () => {
  assert.ok(looksDerived('projb-8b3b2t-7a', '/tmp/projB-8b3b2t'))
  assert.not.ok(looksDerived('projb-8b3b2t-7g', '/tmp/projB-8b3b2t'))
  assert.not.ok(looksDerived('keel-B', '/work/keel'))
  assert.not.ok(looksDerived('-7a', '/'))
})

const base = (over: Partial<SettleInput>): SettleInput => ({
  own: { name: 'keel-B', source: 'user' },
  stored: undefined,
  naming: 'auto',
  cwd: '/work/keel',
  randomBytes: bytes(0, 0, 0),
  ...over,
})

test('settleKey: a given or restored name is the key', () => {
  assert.equal(settleKey(base({})), { key: 'keel-B', source: 'user' })
  assert.equal(settleKey(base({ own: { name: 'keel-B', source: 'auto' }, stored: { key: 'other', at: 1 } })), { key: 'keel-B', source: 'auto' })
  assert.equal(settleKey(base({ headless: true })), { key: 'keel-B', source: 'user' }, 'headless too')
})

test('settleKey: a derived name: the stored key, applied by rename; else a minted one; off leaves it', () => {
  const own = { name: 'keel-7a', source: 'derived' as const }
  assert.equal(settleKey(base({ own, stored: { key: 'keel-k2xq', at: 5 } })), { key: 'keel-k2xq', source: 'stored', rename: 'keel-k2xq' })
  assert.equal(settleKey(base({ own: { name: 'keel-k2xq', source: 'derived' }, stored: { key: 'keel-k2xq', at: 5 } })).key, 'keel-k2xq')
  assert.not.ok('rename' in settleKey(base({ own: { name: 'keel-k2xq', source: 'derived' }, stored: { key: 'keel-k2xq', at: 5 } })), 'already the name')
  assert.equal(settleKey(base({ own })), { key: 'keel-aaaa', source: 'minted', rename: 'keel-aaaa' })
  assert.equal(settleKey(base({ own, stored: { key: '../x', at: 5 } })).key, 'keel-aaaa', 'a stored value that is no key is ignored')
  assert.equal(settleKey(base({ own, stored: 'garbage' })).key, 'keel-aaaa')
  assert.equal(settleKey(base({ own, naming: 'off' })), { why: NO_KEY_WHY.namingOff('keel-7a') })
  assert.equal(settleKey(base({ own, naming: 'off', headless: true })), { why: NO_KEY_WHY.namingOff('keel-7a') })
  assert.equal(settleKey(base({ own, headless: true, stored: { key: 'keel-k2xq', at: 5 } })), { why: NO_KEY_WHY.headless('keel-7a') }, 'a headless session is never renamed')
})

test('settleKey: the ListAgents fallback (no source) counts as derived only in the derived form', () => {
  assert.equal(settleKey(base({ own: { name: 'keel-7a', source: 'unknown' } })).key, 'keel-aaaa')
  assert.equal(settleKey(base({ own: { name: 'reviewer', source: 'unknown' } })), { key: 'reviewer', source: 'user' })
})

test('settleKey: no name read, or a name that cannot be a key: no key, and why', () => {
  assert.equal(settleKey(base({ own: undefined })), { why: NO_KEY_WHY.unknown })
  assert.equal(settleKey(base({ own: { name: 'a/b', source: 'user' } })), { why: NO_KEY_WHY.invalid('a/b', KEY_WHY.path) })
})

test('adoption, the rename answer', () => {
  assert.equal(adoptRename(' K2 '), { key: 'K2', source: 'user' })
  assert.equal(adoptRename('bad\nname'), { why: NO_KEY_WHY.invalid('bad\nname', KEY_WHY.control) })
  assert.is(renamedTo({ text: 'Session renamed to: keel-aaaa' }), 'keel-aaaa')
  assert.is(renamedTo({ text: 'Session renamed to: other\n' }), 'other')
  assert.is(renamedTo({ text: 'Session name cannot be empty' }), undefined)
  assert.is(renamedTo(undefined), undefined)
  assert.is(renamedTo({}), undefined)
})

test('store entries: valid ones kept until 30 days without a refresh; damaged ones go', () => {
  const now = 100 * 86_400_000
  const entries: [string, unknown][] = [
    ['fresh', { key: 'K', at: now - 1000 }],
    ['old', { key: 'K', at: now - KEY_STORE_TTL_MS - 1 }],
    ['edge', { key: 'K', at: now - KEY_STORE_TTL_MS }],
    ['damaged', { key: 5 }],
  ]
  assert.equal(entries.filter(([, value]) => isStaleKeyEntry(value, now)).map(([name]) => name), ['old', 'damaged'])
  assert.equal(storedKeyOf({ key: 'K', at: 1, extra: true }), { key: 'K', at: 1 })
  assert.is(storedKeyOf(null), undefined)
})

test('the config root: CLAUDE_CONFIG_DIR, else CLAUDE_PLUGIN_DATA cut at /plugins/data/, else $HOME/.claude', () => {
  assert.is(configRootOf({ configDir: '/cfg/', pluginData: '/h/.claude/plugins/data/keel-inline', home: '/h' }), '/cfg')
  assert.is(configRootOf({ configDir: '  ', pluginData: '/h/.claude/plugins/data/keel-inline' }), '/h/.claude')
  assert.is(configRootOf({ pluginData: '/nowhere', home: '/h/' }), '/h/.claude')
  assert.is(configRootOf({}), undefined)
  assert.is(keelHomeOf('/h/.claude'), '/h/.claude/keel')
  assert.is(spoolRootOf('/h/.claude'), '/h/.claude/keel/mailbox')
  assert.is(sessionsDirOf('/h/.claude'), '/h/.claude/sessions')
  assert.is(registryPathOf('/h/.claude', '4242'), '/h/.claude/sessions/4242.json')
})

test('the registry record: its name and source; ListAgents; two holders', () => {
  const text = JSON.stringify({ pid: 1, sessionId: 'S', name: 'keel-B', nameSource: 'auto', status: 'idle', peerProtocol: 1 })
  assert.equal(parseSessionRecord(text), JSON.parse(text), 'the engine\'s other fields pass')
  assert.is(parseSessionRecord('{oops'), undefined)
  assert.is(parseSessionRecord('[1]'), undefined)
  assert.is(parseSessionRecord('{"name":5}'), undefined)
  assert.equal(ownNameOf(parseSessionRecord(text)), { name: 'keel-B', source: 'auto' })
  assert.equal(ownNameOf({ name: 'x', nameSource: 'future' }), { name: 'x', source: 'unknown' })
  assert.is(ownNameOf({ nameSource: 'user' }), undefined)
  assert.is(ownNameOf(undefined), undefined)
  const listing = 'This session is keel-B [a1b2c3] — the name other sessions use to message it (it is not listed below; …).\n\nPeer sessions (1):'
  assert.equal(ownNameFromListAgents(listing), { name: 'keel-B', source: 'unknown' })
  assert.is(ownNameFromListAgents('Peer sessions (0):'), undefined)
  assert.is(ownNameFromListAgents(undefined), undefined)
  assert.is(holdersOf([{ name: 'K' }, undefined, { name: 'K' }, { name: 'L' }], 'K'), 2)
})

test.run()
