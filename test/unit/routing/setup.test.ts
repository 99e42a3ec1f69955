// `route setup` (setup.ts): a line becomes a provider and an alias, merged into routing.json without
// replacing anything there, every bad field named by routing's own parser, and the key's step.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { mergeSetup, parseSetup, type SetupLine } from '../../../src/features/routing/setup.ts'
import { readConfig } from '../../../src/features/routing/config.ts'

const line = (text: string): SetupLine => {
  const parsed = parseSetup(text)
  if ('problems' in parsed) throw new Error(`refused: ${parsed.problems.join('; ')}`)
  return parsed
}
const problemsOf = (text: string, file?: string): readonly string[] => {
  const parsed = parseSetup(text)
  if ('problems' in parsed) return parsed.problems
  const merged = mergeSetup(file, parsed)
  return 'problems' in merged ? merged.problems : []
}
const mergedText = (text: string, file?: string): string => {
  const merged = mergeSetup(file, line(text))
  if ('problems' in merged) throw new Error(`refused: ${merged.problems.join('; ')}`)
  return merged.text
}

test('a preset line: its entries, the base URL the preset knows, the key from the environment', () => {
  const parsed = line('deepseek ds deepseek-v4-flash 1000000 key=env:DEEPSEEK_API_KEY')
  assert.equal(parsed.provider, { preset: 'deepseek', baseUrl: undefined, auth: { env: 'DEEPSEEK_API_KEY' } })
  assert.equal(parsed.model, { provider: 'ds', model: 'deepseek-v4-flash', context: 1000000 })
  assert.match(parsed.keyStep, "export DEEPSEEK_API_KEY='<your key>'")
  const read = readConfig(mergedText('deepseek ds deepseek-v4-flash 1000000 key=env:DEEPSEEK_API_KEY'))
  assert.is(read.state, 'loaded')
  if (read.state !== 'loaded') return
  assert.equal(read.errors, [])
  assert.is(read.config.providers.ds!.baseUrl, 'https://api.deepseek.com')
  assert.equal(read.config.models.ds!.context, 1000000)
})

test('the base URL is the word with :// wherever it stands; a key command keeps its spaces; other kinds take an API', () => {
  const parsed = line('openai-compatible q:8b qwen3:8b http://localhost:9000/v1 32768 key=cmd:security find-generic-password -s my key -w')
  assert.equal(parsed.provider, { api: 'openai-chat', baseUrl: 'http://localhost:9000/v1', auth: { helper: ['security', 'find-generic-password', '-s', 'my', 'key', '-w'] } })
  assert.is(parsed.providerId, 'q-8b', 'a provider id has no ":"')
  assert.equal(parsed.model, { provider: 'q-8b', model: 'qwen3:8b', context: 32768 })
  assert.match(parsed.keyStep, 'security find-generic-password -s my key -w prints')
  assert.equal(line('anthropic-compatible k kimi-k2 https://api.moonshot.ai/anthropic 256000 key=file:/home/me/.keys/kimi').provider, {
    api: 'anthropic-messages', baseUrl: 'https://api.moonshot.ai/anthropic', auth: { file: '/home/me/.keys/kimi' },
  })
  assert.match(line('ollama local llama3 8192 key=none').keyStep, 'no key')
  assert.equal(line('ollama local llama3 8192 key=none').provider.auth, 'none')
})

test('the file step stores the key with no echo, no history, mode 0600', () => {
  assert.match(line('groq g llama 8192 key=file:/home/me/.keys/groq').keyStep, `(umask 077; read -rs k && printf '%s\\n' "$k" > '/home/me/.keys/groq')`)
})

test('the form: a missing or unknown key source, a relative key file, too many fields', () => {
  assert.match(problemsOf('deepseek ds m 1000').join('\n'), 'key= is missing')
  assert.match(problemsOf('deepseek ds m 1000 key=vault:x').join('\n'), 'key= is missing or not one of')
  assert.match(problemsOf('deepseek ds m 1000 key=file:~/.keys/ds').join('\n'), 'absolute path')
  assert.match(problemsOf('deepseek ds m 1000 extra key=env:K').join('\n'), 'more fields than the form has: extra')
})

test('each bad field is named by the parser: kind, alias, model, context, base URL, env name, empty command', () => {
  const cases: [string, string][] = [
    ['deepsek ds m 1000 key=env:K', 'providers.ds.preset: must be one of openai,'],
    ['deepseek Big m 1000 key=env:K', 'models.Big: an alias is lower-case'],
    ['deepseek opus m 1000 key=env:K', 'models.opus: "opus" is Claude\'s own model name'],
    ['deepseek ds key=env:K', 'models.ds.model: missing'],
    ['deepseek ds m key=env:K', 'models.ds.context: missing'],
    ['deepseek ds m lots key=env:K', 'models.ds.context: must be a positive whole number'],
    ['deepseek ds m 0 key=env:K', 'models.ds.context: must be a positive whole number'],
    ['openai-compatible ds m 1000 key=env:K', 'providers.ds.baseUrl: missing'],
    ['openai-compatible ds m http//x/v1 1000 key=env:K', 'providers.ds.baseUrl: must be an http:// or https:// URL'],
    ['openai-compatible ds m ftp://x/v1 1000 key=env:K', 'providers.ds.baseUrl: must be an http:// or https:// URL'],
    ['deepseek ds m 1000 key=env:1BAD', 'providers.ds.auth.env: must be an environment variable name'],
    ['deepseek ds m 1000 key=cmd:', 'providers.ds.auth.helper: must be'],
  ]
  for (const [text, problem] of cases) assert.match(problemsOf(text).join('\n'), problem, text)
})

test('merging: every entry already there stays as it was, and the file keeps its other keys', () => {
  const file = JSON.stringify({ providers: { mine: { api: 'openai-chat', baseUrl: 'https://x.example/v1', auth: 'none', headers: { 'X-A': '1' } } }, models: { m1: { provider: 'mine', model: 'm', context: 9 } } })
  const out = JSON.parse(mergedText('deepseek ds m 1000 key=env:K', file))
  const before = JSON.parse(file)
  assert.equal(out.providers.mine, before.providers.mine)
  assert.equal(out.models.m1, before.models.m1)
  assert.equal(Object.keys(out.providers), ['mine', 'ds'])
  assert.equal(out.models.ds, { provider: 'ds', model: 'm', context: 1000 })
  // A missing file starts empty.
  assert.equal(Object.keys(JSON.parse(mergedText('deepseek ds m 1000 key=env:K')).models), ['ds'])
})

test('merging refuses: an alias or provider id already there, a file routing cannot read; the file\'s own errors are not the line\'s', () => {
  const file = JSON.stringify({ providers: { ds: { api: 'openai-chat', baseUrl: 'https://x.example/v1', auth: 'none' } }, models: {} })
  assert.equal(problemsOf('deepseek ds m 1000 key=env:K', file), ['providers.ds is already in routing.json; pick another alias (setup never replaces an entry)'])
  assert.match(problemsOf('deepseek other m 1000 key=env:K', JSON.stringify({ models: { other: { bad: 1 } } })).join('\n'), 'models.other is already in routing.json')
  assert.match(problemsOf('deepseek ds m 1000 key=env:K', '{"providers": {').join('\n'), /^routing.json cannot be read \(the file is not valid JSON/)
  // A broken entry elsewhere stays the file's problem: the new alias is added beside it.
  const broken = JSON.stringify({ providers: {}, models: { old: { provider: 'gone', model: 'm', context: 5 } } })
  assert.equal(problemsOf('deepseek ds m 1000 key=env:K', broken), [])
  // A section that is no object is never mended.
  assert.ok(problemsOf('deepseek ds m 1000 key=env:K', '{"providers": ["x"]}').length)
})

test.run()
