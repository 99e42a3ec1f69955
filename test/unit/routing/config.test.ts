// routing.json (§3.5): the file's states, every error named by its path, the alias rules, and a
// bad entry dropped while the valid rest still routes.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { isClaudeName, readConfig, routeFor, type ConfigRead, type RoutingConfig } from '../../../src/features/routing/config.ts'

const OPENAI = { api: 'openai-chat', baseUrl: 'https://api.example.com/v1/', auth: { env: 'EXAMPLE_KEY' } }
const GOOD = { providers: { example: OPENAI }, models: { 'gpt-5': { provider: 'example', model: 'gpt-5-2025', context: 400000 } } }

const read = (value: unknown) => readConfig(JSON.stringify(value))
function loaded(r: ConfigRead): { config: RoutingConfig; errors: readonly string[]; warnings: readonly string[] } {
  if (r.state !== 'loaded') throw new Error(`not loaded: ${JSON.stringify(r)}`)
  return r
}
const errorsOf = (value: unknown) => loaded(read(value)).errors

test('the file: missing is its own state, empty and broken JSON are unreadable with a clear message', () => {
  assert.equal(readConfig(undefined), { state: 'missing' })
  const empty = readConfig('  \n')
  assert.is(empty.state, 'unreadable')
  assert.match(empty.state === 'unreadable' ? empty.error : '', /the file is empty/)
  const broken = readConfig('{\n  "providers": {,\n}')
  assert.is(broken.state, 'unreadable')
  assert.match(broken.state === 'unreadable' ? broken.error : '', /^the file is not valid JSON: .*\(line 2, column 17\)$/)
  const truncated = readConfig('{"providers": {')
  assert.match(truncated.state === 'unreadable' ? truncated.error : '', /^the file is not valid JSON: \S/)
  for (const notObject of ['[]', '"x"', 'null', '3']) {
    const r = readConfig(notObject)
    assert.match(r.state === 'unreadable' ? r.error : '', /must hold one JSON object/, notObject)
  }
})

test('a good file: defaults filled, trailing slashes gone, the route resolves with its provider', () => {
  const { config, errors, warnings } = loaded(read(GOOD))
  assert.equal([errors, warnings], [[], []])
  assert.equal(config.providers.example, { id: 'example', api: 'openai-chat', baseUrl: 'https://api.example.com/v1', auth: { env: 'EXAMPLE_KEY' }, headers: {} })
  assert.equal(config.models['gpt-5'], { alias: 'gpt-5', providerId: 'example', model: 'gpt-5-2025', context: 400000, label: 'gpt-5', vision: false })
  const route = routeFor(config, 'gpt-5')!
  assert.is(route.provider, config.providers.example)
  assert.is(route.model, 'gpt-5-2025')
  assert.not.ok('providerId' in route)
  assert.is(routeFor(config, 'opus'), undefined)
  assert.is(routeFor(config, 'toString'), undefined, 'an inherited property is no alias')
  assert.equal(loaded(readConfig('{}')).config, { providers: {}, models: {} })
})

test('every optional field, and each auth form', () => {
  const { config, errors } = loaded(read({
    providers: {
      a: { api: 'anthropic-messages', baseUrl: 'http://127.0.0.1:8080', auth: 'none', headers: { 'X-Title': 'keel', Authorization: 'Bearer abc' } },
      b: { api: 'openai-chat', baseUrl: 'https://b.example', auth: { helper: ['/usr/bin/pass', 'show', 'b'] } },
      c: { api: 'openai-chat', baseUrl: 'https://c.example', auth: { file: '~/.keys/c' } },
    },
    models: {
      kimi: { provider: 'a', model: 'kimi-k2', context: 128000, label: 'Kimi K2', maxOutput: 8192, effort: { high: 'high', max: 'high' }, vision: true },
      'qwen3:32b': { provider: 'b', model: 'qwen3', context: 32768 },
      'x.y_z-1': { provider: 'c', model: 'x', context: 1 },
    },
  }))
  assert.equal(errors, [])
  assert.equal(config.providers.a?.headers, { 'X-Title': 'keel', Authorization: 'Bearer abc' })
  assert.equal(config.providers.b?.auth, { helper: ['/usr/bin/pass', 'show', 'b'] })
  assert.equal(config.models.kimi, { alias: 'kimi', providerId: 'a', model: 'kimi-k2', context: 128000, label: 'Kimi K2', vision: true, maxOutput: 8192, effort: { high: 'high', max: 'high' } })
  assert.equal(Object.keys(config.models), ['kimi', 'qwen3:32b', 'x.y_z-1'])
})

test('top level: unknown keys refused, sections must be objects, the rest still loads', () => {
  const r = loaded(read({ ...GOOD, model: {}, version: 2 }))
  assert.equal(r.errors, ['model: unknown key; routing.json holds "providers", "models" and "classifier"', 'version: unknown key; routing.json holds "providers", "models" and "classifier"'])
  assert.ok(routeFor(r.config, 'gpt-5'))
  assert.equal(errorsOf({ providers: [], models: 'x' }), ['providers: must be an object', 'models: must be an object'])
})

test('provider errors, each with its JSON path', () => {
  const cases: [unknown, string[]][] = [
    [5, ['providers.p: must be an object']],
    [{}, ['providers.p.api: missing', 'providers.p.baseUrl: missing', 'providers.p.auth: missing']],
    [{ ...OPENAI, api: 'openai' }, ['providers.p.api: must be "openai-chat", "openai-responses" or "anthropic-messages"']],
    [{ ...OPENAI, baseUrl: 'ftp://x.example' }, ['providers.p.baseUrl: must be an http:// or https:// URL']],
    [{ ...OPENAI, baseUrl: 'not a url' }, ['providers.p.baseUrl: must be an http:// or https:// URL']],
    [{ ...OPENAI, baseUrl: 7 }, ['providers.p.baseUrl: must be an http:// or https:// URL']],
    [{ ...OPENAI, baseUrl: 'https://u:pw@x.example' }, ['providers.p.baseUrl: must have no user, password, query or fragment (a key goes in "auth")']],
    [{ ...OPENAI, baseUrl: 'https://x.example/v1?key=1' }, ['providers.p.baseUrl: must have no user, password, query or fragment (a key goes in "auth")']],
    [{ ...OPENAI, baseUrl: 'https://x.example/v1#' }, ['providers.p.baseUrl: must have no user, password, query or fragment (a key goes in "auth")']],
    [{ ...OPENAI, auth: 'env' }, [`providers.p.auth: must be "none", {"helper": ["command", "arg", …]}, {"env": "NAME"} or {"file": "path"}`]],
    [{ ...OPENAI, auth: { helper: [] } }, [`providers.p.auth.helper: must be "none", {"helper": ["command", "arg", …]}, {"env": "NAME"} or {"file": "path"}`]],
    [{ ...OPENAI, auth: { env: 'A-B' } }, ['providers.p.auth.env: must be an environment variable name: letters, digits and "_", not starting with a digit']],
    [{ ...OPENAI, auth: { env: 'A', file: 'b' } }, [`providers.p.auth: must be "none", {"helper": ["command", "arg", …]}, {"env": "NAME"} or {"file": "path"}`]],
    [{ ...OPENAI, headers: [] }, ['providers.p.headers: must be an object']],
    [{ ...OPENAI, headers: { 'Bad Name': 'x' } }, ['providers.p.headers.Bad Name: is not a valid header name']],
    [{ ...OPENAI, headers: { 'X-A': 'line\r\nInjected: 1' } }, ['providers.p.headers.X-A: must be a string without control characters']],
    [{ ...OPENAI, headers: { 'X-A': 1 } }, ['providers.p.headers.X-A: must be a string without control characters']],
    [{ ...OPENAI, headers: { 'content-type': 'text/plain' } }, ['providers.p.headers.content-type: is set by keel itself and cannot be replaced']],
    [{ ...OPENAI, headers: { Accept: 'x' } }, ['providers.p.headers.Accept: is set by keel itself and cannot be replaced']],
    [{ ...OPENAI, key: 'sk-1' }, ['providers.p.key: unknown key']],
  ]
  for (const [entry, want] of cases) assert.equal(errorsOf({ providers: { p: entry } }), want, JSON.stringify(entry))
  assert.equal(errorsOf({ providers: { 'my provider': OPENAI } }), ['providers.my provider: a provider id is letters, digits, ".", "_" or "-", at most 64, starting with a letter or digit'])
  assert.equal(errorsOf({ providers: { OpenRouter: OPENAI, 'a.b_c-1': OPENAI } }), [], 'ids may hold capitals, dots, underscores and dashes')
})

test('plain http is a warning unless the host is this machine', () => {
  const warningsFor = (baseUrl: string) => loaded(read({ providers: { p: { ...OPENAI, baseUrl } } })).warnings
  assert.equal(warningsFor('http://10.0.0.2:11434/v1'), ['providers.p.baseUrl: plain http to another machine sends the conversation and the key unencrypted'])
  for (const local of ['http://localhost:11434/v1', 'http://127.0.0.1:8080', 'http://127.1.2.3', 'http://[::1]:9000', 'https://10.0.0.2']) assert.equal(warningsFor(local), [], local)
  assert.ok(loaded(read({ providers: { p: { ...OPENAI, baseUrl: 'http://10.0.0.2' } } })).config.providers.p, 'a warning does not drop the provider')
})

test('model errors, each with its JSON path', () => {
  const base = { provider: 'example', model: 'm', context: 1000 }
  const cases: [unknown, string[]][] = [
    ['x', ['models.m1: must be an object']],
    [{}, ['models.m1.provider: missing', 'models.m1.model: missing', 'models.m1.context: missing']],
    [{ ...base, context: 0 }, ['models.m1.context: must be a positive whole number of tokens']],
    [{ ...base, context: 1.5 }, ['models.m1.context: must be a positive whole number of tokens']],
    [{ ...base, context: '400k' }, ['models.m1.context: must be a positive whole number of tokens']],
    [{ ...base, maxOutput: -1 }, ['models.m1.maxOutput: must be a positive whole number of tokens']],
    [{ ...base, model: '' }, ['models.m1.model: must be a non-empty string without control characters']],
    [{ ...base, label: 'two\nlines' }, ['models.m1.label: must be a non-empty string without control characters']],
    [{ ...base, vision: 'yes' }, ['models.m1.vision: must be true or false']],
    [{ ...base, effort: 'high' }, ["models.m1.effort: must map low, medium, high, xhigh or max to the provider's effort name"]],
    [{ ...base, effort: { extreme: 'x' } }, ['models.m1.effort.extreme: unknown key']],
    [{ ...base, effort: { high: 3 } }, ['models.m1.effort.high: must be a non-empty string without control characters']],
    [{ ...base, window: 3 }, ['models.m1.window: unknown key']],
    [{ ...base, provider: 'nope' }, ['models.m1.provider: no provider "nope" in "providers"']],
  ]
  for (const [entry, want] of cases) assert.equal(errorsOf({ providers: GOOD.providers, models: { m1: entry } }), want, JSON.stringify(entry))
})

test('alias rules: the pattern, and never a Claude name', () => {
  const entry = GOOD.models['gpt-5']
  const aliasErrors = (alias: string) => errorsOf({ providers: GOOD.providers, models: { [alias]: entry } })
  for (const good of ['gpt-5', 'kimi', 'qwen3:32b', 'a', '0', 'x'.repeat(64), 'deepseek.v3_1-chat', 'opus-like', 'sonnetx']) assert.equal(aliasErrors(good), [], good)
  const pattern = 'an alias is lower-case letters, digits, ".", "_", ":" or "-", at most 64, starting with a letter or digit'
  for (const bad of ['GPT-5', '-gpt', '.x', 'gpt 5', 'x'.repeat(65), 'gpt/5', 'gpt@5', 'é']) assert.equal(aliasErrors(bad), [`models.${bad}: ${pattern}`], bad)
  for (const claude of ['opus', 'sonnet', 'haiku', 'fable', 'best', 'default', 'opusplan', 'claude-opus-5-5', 'claude-x']) {
    assert.equal(aliasErrors(claude), [`models.${claude}: "${claude}" is Claude's own model name; pick another alias`], claude)
    assert.ok(isClaudeName(claude))
  }
  assert.equal(aliasErrors('sonnet[1m]'), [`models.sonnet[1m]: ${pattern}`])
  assert.not.ok(isClaudeName('claude'), '"claude" alone names no Claude model')
})

test('mixed valid and invalid: each bad entry dropped with its error, the rest routes', () => {
  const r = loaded(read({
    providers: { good: OPENAI, bad: { ...OPENAI, api: 'grpc' } },
    models: {
      'gpt-5': { provider: 'good', model: 'g', context: 1000 },
      'gpt-bad': { provider: 'bad', model: 'g', context: 1000 },
      opus: { provider: 'good', model: 'g', context: 1000 },
      'gpt-mini': { provider: 'good', model: 'g-mini', context: 'big' },
      'gpt-nano': { provider: 'good', model: 'g-nano', context: 8000 },
    },
  }))
  assert.equal(r.errors, [
    'providers.bad.api: must be "openai-chat", "openai-responses" or "anthropic-messages"',
    'models.gpt-bad.provider: provider "bad" has errors, so this alias is off',
    `models.opus: "opus" is Claude's own model name; pick another alias`,
    'models.gpt-mini.context: must be a positive whole number of tokens',
  ])
  assert.equal(Object.keys(r.config.providers), ['good'])
  assert.equal(Object.keys(r.config.models), ['gpt-5', 'gpt-nano'])
  assert.is(routeFor(r.config, 'gpt-nano')?.model, 'g-nano')
})

test.run()
