// Options a person can store, in the real engine. Measured on 2.1.328 and pinned here: the engine
// refuses the whole module when a stored value does not fit its declaration (another JSON type, a
// number outside min/max), and a picker takes every value, reading one outside its list as the
// default and naming it. So keel declares each feature switch as an on/off picker and its numbers
// without bounds (build.mjs), and checks the rest itself: whatever is stored, the package loads and
// says which value it did not take.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel } from './mock-model.ts'
import { cleanupTmp, debugLines, loadRefusals, packageCopy, runClaude, tmpDir, writePlugin } from './engine.ts'

let mock: MockModel
test.before(async () => { mock = await startMockModel() })
test.after(async () => { await mock.close(); cleanupTmp() })

const PROBE = `let seen
export function register(on, options) {
  seen = options
  on('session.start', async ($, e, next) => { $.ui.log('OPTS ' + JSON.stringify(seen), { to: 'debug' }); return next(e) })
}
`
const FIELDS = {
  text: { type: 'string', title: 'Text', description: 'd', default: 'x' },
  count: { type: 'number', title: 'Count', description: 'd', default: 5 },
  bounded: { type: 'number', title: 'Bounded', description: 'd', default: 5, min: 1, max: 10 },
  flag: { type: 'boolean', title: 'Flag', description: 'd', default: false },
  pick: { type: 'string', title: 'Pick', description: 'd', default: 'on', options: ['on', 'off'] },
}

async function probeWith(options: Record<string, unknown>) {
  const dir = writePlugin(tmpDir('probe'), 'probe', PROBE)
  const manifest = join(dir, '.claude-plugin/plugin.json')
  writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, 'utf8')), userConfig: FIELDS }))
  const r = await runClaude({ prompt: 'x', pluginDirs: [dir], mock, settings: { pluginConfigs: { 'probe@inline': { options } } } })
  const seen = debugLines(r.debugLog, 'probe').find((l) => l.startsWith('OPTS '))
  return { refused: loadRefusals(r.debugLog)[0]?.reason, options: seen && JSON.parse(seen.slice(5)), log: r.debugLog }
}

test('the engine: a value of another JSON type, or a number past its bounds, unloads the whole module', async () => {
  for (const [field, value, why] of [['text', 50, 'Text must be a string'], ['count', '5000', 'Count must be a number'], ['flag', 'true', 'Flag must be a boolean'], ['bounded', 50, 'Bounded must be at most 10']] as const) {
    const r = await probeWith({ [field]: value })
    assert.ok(r.refused?.includes(why), `${field}=${JSON.stringify(value)}: ${r.refused}`)
    assert.is(r.options, undefined, 'nothing of the module ran')
  }
})

test('the engine: a picker takes every stored value, reading one outside its list as the default and naming it', async () => {
  for (const value of [true, 'true', '', 'AUTO', 7]) {
    const r = await probeWith({ pick: value, count: -5, text: '' })
    assert.is(r.refused, undefined, `pick=${JSON.stringify(value)}`)
    assert.is(r.options.pick, 'on', `pick=${JSON.stringify(value)} reads as the default`)
    assert.is(r.options.count, -5, `a number without bounds passes as stored`)
    assert.match(r.log, /option pick in settings is not one of on, off; it reads as the default, on/)
  }
})

test('the engine: a null, a list or an object stored for any option drops every stored option of the package (it loads on its defaults)', async () => {
  for (const value of [null, [1], { a: 1 }]) {
    const r = await probeWith({ text: value, count: -5 })
    assert.is(r.refused, undefined)
    assert.equal(r.options, { text: 'x', count: 5, bounded: 5, flag: false, pick: 'on' }, JSON.stringify(value))
  }
})

const status = async (options: Record<string, unknown>) => {
  const r = await runClaude({ prompt: '/keel status', pluginDirs: [packageCopy('keel')], mock, settings: { pluginConfigs: { 'keel@inline': { options } } } })
  assert.equal(loadRefusals(r.debugLog), [], 'the package loaded')
  return { text: String(r.json?.result), log: r.debugLog }
}

test('keel: switches stored as anything but on/off leave those features at the package default, named by the engine', async () => {
  const { text, log } = await status({ captions: true, checkpoint: 'true', reconnect: '', window: 1, timing: 'AUTO' })
  assert.match(text, /^keel: keel \d/)
  for (const off of ['captions', 'checkpoint', 'window', 'timing']) assert.match(text, new RegExp(`\\n${off}: off \\(profile\\)`), text)
  assert.match(text, /\nreconnect: runs \(profile\)/, text)
  for (const field of ['captions', 'checkpoint', 'reconnect', 'window', 'timing']) assert.match(log, new RegExp(`option ${field} in settings is not one of on, off`), field)
})

// Issue 14 #5: an empty switch read as off, while the status said "off (option)".
test('superheroes: an empty or mistyped switch keeps the package default (checkpoint runs), and a mode outside its list is named', async () => {
  for (const value of ['', 'AUTO', false]) {
    const r = await runClaude({ prompt: '/superheroes status', pluginDirs: [packageCopy('superheroes')], mock, settings: { pluginConfigs: { 'superheroes@inline': { options: { checkpoint: value, autoCheckpointMode: 'AUTO' } } } } })
    assert.equal(loadRefusals(r.debugLog), [])
    assert.match(String(r.json?.result), /\ncheckpoint: runs \(profile\)/, String(r.json?.result))
    assert.match(r.debugLog, /option autoCheckpointMode in settings is not one of auto, click-only, off; it reads as the default, auto/)
  }
})

test('keel: every value field stored out of range or unreadable loads, and the status names each with the default in force', async () => {
  const { text } = await status({
    captions: 'on', checkpoint: 'on', window: 'on', timing: 'on',
    autoCheckpointTokens: 10, autoCheckpointAllowance: 2000000, autoCheckpointMode: 'AUTO',
    captionsContextTokens: -5, compactWindowTokens: 5, compactionAdvisory: 'abc',
  })
  assert.match(text, /Problem: option autoCheckpointTokens: 10 is below 50000; the default 150000 applies/, text)
  assert.match(text, /Problem: option autoCheckpointAllowance: 2000000 is above 200000; the default 20000 applies/, text)
  assert.match(text, /automatic checkpoint: auto, /, 'the mode picker read as its default')
  assert.match(text, /captionsContextTokens.*-5/, text)
  assert.match(text, /advisory point: 50% \(compactionAdvisory "abc" is not valid/, text)
  assert.match(text, /compactWindowTokens/, text)
  const empty = await status({ checkpoint: 'on', autoCheckpointTokens: '', captionsContextTokens: '' })
  assert.match(empty.text, /Problem: option autoCheckpointTokens: "" is not a number; the default 150000 applies/, empty.text)
})

test.run()
