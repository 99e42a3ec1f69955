// The route table (§3.1, §4 rule 1): which model names are routing's. A configured alias routes; a
// name a file of this process named stays routing's after an edit drops or breaks it, failing
// visibly; every other name is the engine's.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readConfig, type ConfigRead } from '../../../src/features/routing/config.ts'
import { createRouteTable } from '../../../src/features/routing/routes.ts'
import { aliasBroken, aliasNotConfigured } from '../../../src/features/routing/strings.ts'

const PATH = '/home/me/.claude/keel/routing.json'
const EXAMPLE = { api: 'openai-chat', baseUrl: 'https://api.example.com/v1', auth: 'none' }
const GPT5 = { provider: 'example', model: 'gpt-5-2025', context: 400000, label: 'GPT-5' }
const MINI = { provider: 'example', model: 'gpt-5-mini', context: 200000 }
const config = (models: Record<string, unknown>, providers: Record<string, unknown> = { example: EXAMPLE }) => readConfig(JSON.stringify({ providers, models }))

test('before any load: the file is missing, every name is native, nothing is mentioned or owned', () => {
  const table = createRouteTable('klyth', PATH)
  assert.equal(table.read, { state: 'missing' })
  for (const model of [undefined, 'gpt-5', 'opus', 'claude-opus-5-5']) assert.equal(table.decide(model), { kind: 'native' }, String(model))
  assert.is(table.owns('gpt-5'), false)
  assert.is(table.owns(undefined), false)
  assert.is(table.mentionedIn('{"model":"gpt-5"}'), false)
  assert.equal(table.aliases(), [])
})

test('a loaded file: its aliases route with their provider; Claude\'s names and unknown ones stay native', () => {
  const table = createRouteTable('klyth', PATH)
  table.load(config({ 'gpt-5': GPT5, 'gpt-mini': MINI }))
  assert.is(table.read.state, 'loaded')
  const decision = table.decide('gpt-5')
  assert.equal(decision, {
    kind: 'route',
    route: { alias: 'gpt-5', label: 'GPT-5', model: 'gpt-5-2025', context: 400000, vision: false, provider: { id: 'example', api: 'openai-chat', baseUrl: 'https://api.example.com/v1', auth: 'none', headers: {} } },
  })
  assert.is(table.decide('gpt-mini').kind, 'route')
  for (const model of ['opus', 'claude-sonnet-5', 'gpt-4', 'constructor', '__proto__', 'toString', undefined]) {
    assert.equal(table.decide(model), { kind: 'native' }, String(model))
    assert.is(table.owns(model), false, String(model))
  }
  assert.ok(table.owns('gpt-5') && table.owns('gpt-mini'))
  assert.equal(table.aliases(), ['gpt-5', 'gpt-mini'])
})

test('a broken entry of the file is routing\'s and fails with the "has errors" line; a good one beside it routes', () => {
  const table = createRouteTable('klyth', PATH)
  table.load(config({ 'gpt-5': GPT5, 'gpt-bad': { provider: 'nowhere', model: 'x', context: 1 }, 'gpt-nocontext': { provider: 'example', model: 'x' } }))
  assert.is(table.decide('gpt-5').kind, 'route')
  for (const alias of ['gpt-bad', 'gpt-nocontext']) {
    assert.equal(table.decide(alias), { kind: 'fail', text: aliasBroken('klyth', alias, PATH) })
    assert.is(table.owns(alias), true, 'a failing alias is owned: it never reaches Claude')
    assert.ok(table.mentionedIn(`{"model":"${alias}"}`))
  }
  assert.equal(table.aliases(), ['gpt-5'], 'only the aliases that route now')
  assert.is(aliasBroken('klyth', 'gpt-bad', PATH), `klyth: gpt-bad has errors in ${PATH} (/klyth route status names them); use /model to pick another`)
})

test('a claimed alias survives a reload that drops it, deletes the file, or breaks it: "not configured", never native', () => {
  const table = createRouteTable('klyth', PATH)
  table.load(config({ 'gpt-5': GPT5, 'gpt-mini': MINI }))
  const reloads: [string, ConfigRead][] = [
    ['dropped', config({ 'gpt-mini': MINI })],
    ['deleted', readConfig(undefined)],
    ['unreadable', readConfig('{ not json')],
    ['empty', readConfig('')],
  ]
  for (const [what, read] of reloads) {
    table.load(read)
    assert.equal(table.decide('gpt-5'), { kind: 'fail', text: aliasNotConfigured('klyth', 'gpt-5', PATH) }, what)
    assert.is(table.owns('gpt-5'), true, what)
    assert.ok(table.mentionedIn('{"messages":[],"model":"gpt-5"}'), what)
    assert.equal(table.decide('opus'), { kind: 'native' }, what)
  }
  assert.equal(table.aliases(), [], 'an unreadable file routes nothing')
  // A file whose entry comes back broken names it again: the "has errors" line.
  table.load(config({ 'gpt-5': { ...GPT5, provider: 'gone' } }))
  assert.equal(table.decide('gpt-5'), { kind: 'fail', text: aliasBroken('klyth', 'gpt-5', PATH) })
  // Fixed, it routes again; gpt-mini, no longer in the file, still fails.
  table.load(config({ 'gpt-5': GPT5 }))
  assert.is(table.decide('gpt-5').kind, 'route')
  assert.equal(table.decide('gpt-mini'), { kind: 'fail', text: aliasNotConfigured('klyth', 'gpt-mini', PATH) })
  assert.is(aliasNotConfigured('klyth', 'gpt-mini', PATH), `klyth: gpt-mini is not configured (${PATH}); use /model to pick another`)
})

test('a name the file gives in a form that is no alias (Claude\'s, upper case) is never claimed: it stays native', () => {
  const table = createRouteTable('klyth', PATH)
  table.load(config({ opus: GPT5, 'claude-x': GPT5, 'GPT-5': GPT5 }))
  const read = table.read
  assert.ok(read.state === 'loaded' && read.errors.length === 3, JSON.stringify(read))
  for (const model of ['opus', 'claude-x', 'GPT-5']) {
    assert.equal(table.decide(model), { kind: 'native' }, model)
    assert.is(table.owns(model), false, model)
  }
  assert.is(table.mentionedIn('{"model":"opus"}'), false)
})

test('mentionedIn: a quoted name anywhere in the text, the claimed ones and the configured ones; a longer name is not a mention', () => {
  const table = createRouteTable('klyth', PATH)
  table.load(config({ 'gpt-5': GPT5 }))
  assert.ok(table.mentionedIn('{"tags":["gpt-5"],"model":"claude-opus-5-5"}'), 'the cheap test: any quoted JSON string, wherever it stands')
  assert.is(table.mentionedIn('{"messages":[{"role":"user","content":"use \\"gpt-5\\""}]}'), false, 'a name quoted inside a message is escaped: no mention')
  assert.ok(table.mentionedIn('"gpt-5"'))
  assert.is(table.mentionedIn('{"model":"gpt-5-mini"}'), false)
  assert.is(table.mentionedIn('{"model":"xgpt-5"}'), false)
  assert.is(table.mentionedIn('gpt-5 unquoted'), false)
  assert.is(table.mentionedIn(''), false)
  // A loaded read whose configured models were not among those claimed (a read built by hand): the configured names count too.
  const bare = createRouteTable('klyth', PATH)
  const read = config({ 'gpt-5': GPT5 })
  assert.ok(read.state === 'loaded')
  bare.load({ ...read, claimed: [] })
  assert.ok(bare.mentionedIn('{"model":"gpt-5"}'))
  assert.ok(bare.owns('gpt-5'))
  assert.is(bare.mentionedIn('{"model":"opus"}'), false)
})

test('the table\'s texts name its own package and path', () => {
  const table = createRouteTable('keel', 'routing.json')
  table.load(config({ 'gpt-5': GPT5 }))
  table.load(readConfig(undefined))
  assert.equal(table.decide('gpt-5'), { kind: 'fail', text: 'keel: gpt-5 is not configured (routing.json); use /model to pick another' })
})

test.run()
