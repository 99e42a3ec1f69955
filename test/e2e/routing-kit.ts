// What the routing e2e tests share: a HOME holding keel's routing config, the provider approved the
// way a person approves it headless (`/klyth route trust <id>`), and the places a key must never be.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import * as assert from 'uvu/assert'
import { findFiles, packageCopy, runClaude, tmpDir, type RunOptions, type RunResult } from './engine.ts'
import type { MockModel } from './mock-model.ts'
import type { MockProvider } from './mock-provider.ts'

export const KEY = 'sk-test-e2e-ROUTING-KEY-0042'
export const ALIAS = 'gpt'
export const PROVIDER_MODEL = 'mock-gpt-1'
export const LABEL = 'Mock GPT'

export type ConfigExtras = { providers?: Record<string, unknown>; models?: Record<string, unknown>; provider?: Record<string, unknown>; model?: Record<string, unknown> }

/** routing.json for one openai-chat provider `mock` (key from a command) and the alias `gpt`, plus extras. */
export function routingConfig(provider: MockProvider, extras: ConfigExtras = {}): object {
  const mock = { api: 'openai-chat', baseUrl: `${provider.url}/v1`, auth: { helper: ['/bin/echo', KEY] }, ...extras.provider }
  // `<root>`: the provider's own address (an Anthropic-compatible provider's base).
  if (mock.baseUrl === '<root>') mock.baseUrl = provider.url
  return {
    providers: { mock, ...extras.providers },
    models: { [ALIAS]: { provider: 'mock', model: PROVIDER_MODEL, context: 200000, label: LABEL, ...extras.model }, ...extras.models },
  }
}

export function writeConfig(home: string, config: object | string, configRoot = join(home, '.claude')): string {
  const dir = join(configRoot, 'keel')
  mkdirSync(dir, { recursive: true })
  const file = join(dir, 'routing.json')
  writeFileSync(file, typeof config === 'string' ? config : JSON.stringify(config, null, 2))
  return file
}

/** A HOME with the config and, unless `trusted: false`, the provider approved by `/klyth route trust mock`. */
export async function routedHome(mock: MockModel, provider: MockProvider, opts: { extras?: ConfigExtras; trusted?: boolean; pkg?: string; settings?: object } = {}): Promise<{ home: string; plugin: string }> {
  const home = tmpDir('home')
  writeConfig(home, routingConfig(provider, opts.extras))
  const plugin = packageCopy(opts.pkg ?? 'klyth')
  if (opts.trusted !== false) {
    const t = await runClaude({ prompt: `/${opts.pkg ?? 'klyth'} route trust mock`, pluginDirs: [plugin], mock, home, ...(opts.settings ? { settings: opts.settings } : {}) })
    assert.is(t.code, 0, t.stderr)
    assert.match(String(t.json?.result), 'approved provider mock')
  }
  return { home, plugin }
}

export function routed(opts: Omit<RunOptions, 'extraArgs'> & { extraArgs?: string[] }): Promise<RunResult> {
  return runClaude({ ...opts, extraArgs: ['--model', ALIAS, ...(opts.extraArgs ?? [])] })
}

export const transcripts = (home: string) => findFiles(join(home, '.claude/projects'), '.jsonl').map((f) => readFileSync(f, 'utf8')).join('\n')

/** Every file under the HOME and the project (transcripts, stores, plugin data, settings) as text. */
export function everyFile(...dirs: string[]): string {
  return dirs.flatMap((d) => findFiles(d, '')).map((f) => {
    try {
      return readFileSync(f, 'utf8')
    } catch {
      return ''
    }
  }).join('\n')
}

/** How the engine words a request an http.fetch hook refused or answered with an error status (measured, NOTES §11.1). */
export const REFUSED = "A mod's http.fetch hook stopped this request: "

/**
 * A headless run that ended as the engine ends on its own API error (measured, NOTES §11.1): exit 1,
 * `is_error`, subtype `success`, and the result the engine's line around routing's.
 */
export function assertFailed(r: RunResult, line: string | RegExp): void {
  assert.equal([r.code, r.json?.is_error, r.json?.subtype], [1, true, 'success'], `${r.stdout.slice(-600)}\n${r.stderr.slice(-600)}`)
  const result = String(r.json.result)
  assert.ok(result.startsWith(REFUSED), result)
  if (typeof line === 'string') assert.is(result.slice(REFUSED.length), line)
  else assert.match(result.slice(REFUSED.length), line)
}

/** The main-loop requests the provider got (chat completions with tools), in order. */
export const stepRequests = (provider: MockProvider) => provider.requests.filter((r) => r.path === '/v1/chat/completions' && Array.isArray(r.body?.tools))
