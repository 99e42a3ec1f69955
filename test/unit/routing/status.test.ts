// What `/<pkg> status` says of routing (§3.8): the config in each state, each provider (approval,
// key source and state, never the key), each alias, main, the counts, the last failure, and curl.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readConfig, type Provider } from '../../../src/features/routing/config.ts'
import type { KeyState } from '../../../src/features/routing/keys.ts'
import { routingStatus, type RoutingStatusFacts } from '../../../src/features/routing/status.ts'

const PATH = '/home/me/.claude/keel/routing.json'
const facts = (over: Partial<RoutingStatusFacts>): RoutingStatusFacts => ({
  configPath: PATH,
  read: { state: 'missing' },
  approvals: {},
  keyState: () => 'not read yet',
  main: undefined,
  counts: { steps: 0, requests: 0, failures: 0 },
  auto: 'auto mode: no classifier (off); passed 0, refused 0',
  lastFailure: undefined,
  curl: undefined,
  curlPath: '/usr/bin/curl',
  ...over,
})

test('a missing config, nothing sent yet, curl not checked', () => {
  assert.equal(routingStatus(facts({})), [
    `config: ${PATH} (not there: routing is off until it exists)`,
    'this session: 0 routed steps, 0 other routed requests, 0 failed',
    'auto mode: no classifier (off); passed 0, refused 0',
    'curl: /usr/bin/curl (checked at the first routed request)',
  ])
})

test('an unreadable config, main native, a failure, and curl\'s problem', () => {
  const read = readConfig('{"providers": ')
  assert.is(read.state, 'unreadable')
  const lines = routingStatus(facts({
    read,
    main: { model: 'opus', routedTo: undefined },
    counts: { steps: 1, requests: 1, failures: 1 },
    lastFailure: 'klyth: GPT-5 failed: curl was not found at /opt/curl',
    curl: { problem: 'curl was not found at /opt/curl (set the routingCurl option to its path)' },
    curlPath: '/opt/curl',
  }))
  assert.match(lines[0]!, new RegExp(`^config: ${PATH} \\(unreadable: the file is not valid JSON: .+\\)$`))
  assert.equal(lines.slice(1), [
    'main: opus (native)',
    'this session: 1 routed step, 1 other routed request, 1 failed',
    'auto mode: no classifier (off); passed 0, refused 0',
    'last failure: klyth: GPT-5 failed: curl was not found at /opt/curl',
    'curl: curl was not found at /opt/curl (set the routingCurl option to its path)',
  ])
})

test('a loaded config: counts, its errors and warnings, each provider with its approval and key state, each alias, main routed, curl\'s version', () => {
  const read = readConfig(JSON.stringify({
    providers: {
      example: { api: 'openai-chat', baseUrl: 'https://api.example.com/v1', auth: { env: 'EXAMPLE_KEY' } },
      moon: { api: 'anthropic-messages', baseUrl: 'http://moon.lan:8080/anthropic', auth: { helper: ['/usr/bin/pass', 'show', 'moon'] } },
      local: { api: 'openai-chat', baseUrl: 'http://127.0.0.1:11434/v1', auth: 'none' },
      disk: { api: 'openai-chat', baseUrl: 'https://disk.example/v1', auth: { file: '/home/me/.disk-key' } },
    },
    models: {
      'gpt-5': { provider: 'example', model: 'gpt-5-2025', context: 400000, label: 'GPT-5' },
      kimi: { provider: 'moon', model: 'kimi-k2', context: 128000 },
      broken: { provider: 'nowhere', model: 'x', context: 1 },
    },
  }))
  const states: Record<string, KeyState> = { example: 'ok', moon: 'failed: /usr/bin/pass exited 1 (no such entry)', local: 'none' }
  const lines = routingStatus(facts({
    read,
    approvals: { example: true, local: true },
    keyState: (p: Provider) => states[p.id] ?? 'not read yet',
    main: { model: 'gpt-5', routedTo: 'GPT-5' },
    counts: { steps: 12, requests: 3, failures: 0 },
    curl: { argv: ['/usr/bin/curl', '-q'], path: '/usr/bin/curl', version: '7.88.1', mode: 'json' },
  }))
  assert.equal(lines, [
    `config: ${PATH} (4 providers, 2 aliases, 1 error)`,
    '  error: models.broken.provider: no provider "nowhere" in "providers"',
    '  warning: providers.moon.baseUrl: plain http to another machine sends the conversation and the key unencrypted',
    'provider example: openai-chat at https://api.example.com/v1; approved; key from $EXAMPLE_KEY (ok)',
    '  no preset, and no known provider at this base URL: plain OpenAI or Anthropic format',
    'provider moon: anthropic-messages at http://moon.lan:8080/anthropic; not approved; key from the command /usr/bin/pass (failed: /usr/bin/pass exited 1 (no such entry))',
    '  no preset, and no known provider at this base URL: plain OpenAI or Anthropic format',
    'provider local: openai-chat at http://127.0.0.1:11434/v1; approved; key none (none)',
    '  no preset; recognised as ollama by its base URL',
    'provider disk: openai-chat at https://disk.example/v1; not approved; key from the file /home/me/.disk-key (not read yet)',
    '  no preset, and no known provider at this base URL: plain OpenAI or Anthropic format',
    'alias gpt-5: GPT-5 = example gpt-5-2025, window 400000',
    'alias kimi: kimi = moon kimi-k2, window 128000',
    'main: gpt-5 (routed to GPT-5)',
    'this session: 12 routed steps, 3 other routed requests, 0 failed',
    'auto mode: no classifier (off); passed 0, refused 0',
    'curl: /usr/bin/curl 7.88.1 (body sent as json pieces)',
  ])
})

test('a loaded config with one of everything, and an old curl sending the body from a file', () => {
  const read = readConfig(JSON.stringify({
    providers: { example: { api: 'openai-chat', baseUrl: 'https://api.example.com/v1', auth: 'none' } },
    models: { 'gpt-5': { provider: 'example', model: 'gpt-5-2025', context: 400000 } },
  }))
  const lines = routingStatus(facts({ read, curl: { argv: [], path: '/usr/local/bin/curl', version: '7.81.0', mode: 'file' } }))
  assert.equal(lines, [
    `config: ${PATH} (1 provider, 1 alias)`,
    'provider example: openai-chat at https://api.example.com/v1; not approved; key none (not read yet)',
    '  no preset, and no known provider at this base URL: plain OpenAI or Anthropic format',
    'alias gpt-5: gpt-5 = example gpt-5-2025, window 400000',
    'this session: 0 routed steps, 0 other routed requests, 0 failed',
    'auto mode: no classifier (off); passed 0, refused 0',
    'curl: /usr/local/bin/curl 7.81.0 (body sent as a file in the plugin data folder)',
  ])
  const two = readConfig(JSON.stringify({ providers: {}, models: { a: { provider: 'x', model: 'm', context: 1 }, b: { provider: 'y', model: 'm', context: 1 } } }))
  assert.is(routingStatus(facts({ read: two }))[0], `config: ${PATH} (0 providers, 0 aliases, 2 errors)`)
})

test.run()
