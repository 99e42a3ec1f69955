// The bare module: a throwaway plugin that does, at the engine's edge, what a keel package does in
// one configuration (the same tools and package command registered at session.start, the same events
// hooked with pass-throughs and the same matchers, the same userConfig, the same skills folder), and
// nothing else. `npm run bench`'s whole-process ratios are keel over this: the engine's own costs of
// what keel asks for (the loopback MCP host of a registered tool, option handling, the worker) are on
// both sides.
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import template from '../../plugin.json'
import { FEATURES } from '../../src/features/index.ts'
import type { Template } from '../../src/runtime/activation.ts'
import { STATUS_VERB } from '../../src/runtime/command.ts'
import { COMMAND_DESCRIPTION, createRuntime } from '../../src/runtime/runtime.ts'
import { loadedModules, repoRoot, runClaude, writePlugin, type RunResult } from '../e2e/engine.ts'
import type { MockModel, RecordedRequest } from '../e2e/mock-model.ts'

export type ToolSpec = { name: string; description: string; inputSchema: unknown; isDeferred: boolean }
export type CommandSpec = { name: string; description: string; argumentHint: string }

/** What a keel package registers and hooks in one configuration. */
export type BareSpec = {
  pkg: string
  /** In the order keel registers them (the log's `$.tool.register (<pkg>): mcp__… ` lines). */
  tools: ToolSpec[]
  command: CommandSpec
  /** The events the package's module hooks (the loader's `loaded … events:` line), each once. */
  events: string[]
}

/** The matchers src/main.ts hooks these events with (the loader's log line names events only). */
export const MAIN_MATCHERS: Record<string, string> = {
  'command.run': `{ command: ['keel', 'superheroes', 'ws', 'klyth'] }`,
  'tool.describe': `{ provider: { tier: ['prepend', 'user', 'append'] } }`,
  'session.append': `{ door: ['prompt', 'delivery'], origin: { kind: 'peer' } }`,
  'session.receive': `{ origin: { kind: 'peer' } }`,
}

/** The options the engine hands `register`: each userConfig default, then the settings' values over them. */
export function optionsGiven(manifest: any, options: Record<string, unknown> | undefined): Record<string, unknown> {
  const defaults = Object.fromEntries(Object.entries(manifest.userConfig ?? {}).map(([k, f]: [string, any]) => [k, f.default ?? (f.type === 'number' ? 0 : f.type === 'boolean' ? false : '')]))
  return { ...defaults, ...options }
}

/** The package command as src/runtime/runtime.ts registers it: its verbs are those of the features on. */
export function commandOf(pkg: string, raw: Record<string, unknown>): CommandSpec {
  const rt = createRuntime(FEATURES, template as unknown as Template, raw)
  const verbs = rt.registry.features.flatMap((f) => Object.values(f.verbs ?? {}).map((v) => v.usage))
  return { name: pkg, description: COMMAND_DESCRIPTION, argumentHint: [STATUS_VERB, ...verbs].join(' | ') }
}

/**
 * Reads a probe run of the package: the tools it registered (named by the debug log, in order) as
 * the model saw them (the first main request's tool list carries each one's description and schema),
 * and the events its module hooks.
 */
export function specOf(pkg: string, run: RunResult, requests: RecordedRequest[], raw: Record<string, unknown>): BareSpec {
  const registered = [...run.debugLog.matchAll(/\$\.tool\.register \([^)]+\): (mcp__\S+) \(\d+ tool/g)].map((m) => m[1]!)
  const main = requests.find((r) => r.kind === 'main')
  const listed: any[] = main?.body?.tools ?? []
  const prefix = `mcp__${pkg}__`
  const tools = registered.map((full) => {
    const t = listed.find((x) => x.name === full)
    if (!t) throw new Error(`${full} is registered but not in the model's tool list (deferred?)`)
    return { name: full.slice(prefix.length), description: t.description, inputSchema: t.input_schema, isDeferred: false }
  })
  const events = [...new Set(loadedModules(run.debugLog).find((m) => m.plugin === pkg)?.events ?? [])]
  if (!events.length) throw new Error(`no loaded module of ${pkg} in the probe's debug log`)
  return { pkg, tools, command: commandOf(pkg, raw), events }
}

export type BareVariant = {
  /** How session.start registers: all at once (default) or one after the other, as keel does. */
  order?: 'parallel' | 'serial'
  /** Register no tool (the loopback MCP host never starts). */
  noTools?: boolean
  /** Register no command. */
  noCommand?: boolean
  /** Hook session.start only (no per-turn pass-throughs). */
  startOnly?: boolean
  /** Log performance.now() stamps of the start's work to the debug log. */
  stamps?: boolean
}

/** The bare hooks module's source. */
const STREAMING_EVENTS = new Set(['turn.step'])

export function bareSource(spec: BareSpec, v: BareVariant = {}): string {
  const calls = [
    ...(v.noCommand ? [] : [`$.command.register(${JSON.stringify(spec.command)})`]),
    ...(v.noTools ? [] : spec.tools.map((t) => `$.tool.register(${JSON.stringify(t)})`)),
  ]
  const body = v.order === 'serial'
    ? calls.map((c) => `    await ${c}`).join('\n')
    : calls.length ? `    await Promise.all([\n${calls.map((c) => `      ${c},`).join('\n')}\n    ])` : ''
  const stamp = (what: string) => v.stamps ? `    $.ui.log('bare: ${what} ' + performance.now().toFixed(1) + ' ' + Date.now(), { to: 'debug' })\n` : ''
  const lines = [
    `// A bare module for ${spec.pkg}: what it registers and hooks, nothing more (test/bench/bare.ts).`,
    `export function register(on, options) {`,
    `  on('session.start', async ($, e, next) => {`,
    stamp('start') + body,
    stamp('registered') + `    return next(e)`,
    `  })`,
  ]
  if (!v.startOnly) {
    for (const event of spec.events) {
      if (event === 'session.start') continue
      const matcher = MAIN_MATCHERS[event]
      // A streaming event takes an async generator: the loader refuses the whole module for a plain function there.
      const hook = STREAMING_EVENTS.has(event) ? 'async function* ($, e, next) { return yield* next(e) }' : '($, e, next) => next(e)'
      lines.push(`  on(${JSON.stringify(event)}, ${matcher ? `${matcher}, ` : ''}${hook})`)
    }
  }
  lines.push(`}`, ``)
  return lines.filter((l) => l !== '').join('\n') + '\n'
}

/**
 * Writes the bare plugin into `dir` (made): writePlugin's folder, under the package's own name (so the
 * tools are `mcp__<pkg>__…`, the command `/<pkg>`, and the same pluginConfigs entry reaches it), with the
 * package's userConfig and, unless `skills` is false, a copy of its skills folder.
 */
export function writeBare(dir: string, spec: BareSpec, v: BareVariant & { skills?: boolean } = {}): string {
  mkdirSync(dir, { recursive: true })
  writePlugin(dir, spec.pkg, bareSource(spec, v))
  const pkgDir = join(repoRoot(), 'packages', spec.pkg)
  const manifest = JSON.parse(readFileSync(join(pkgDir, '.claude-plugin/plugin.json'), 'utf8'))
  const path = join(dir, '.claude-plugin/plugin.json')
  const own = JSON.parse(readFileSync(path, 'utf8'))
  writeFileSync(path, JSON.stringify({ ...own, userConfig: manifest.userConfig }, null, 2))
  if (v.skills !== false && existsSync(join(pkgDir, 'skills'))) cpSync(join(pkgDir, 'skills'), join(dir, 'skills'), { recursive: true })
  return dir
}

/** The package's manifest (packages/<pkg>/.claude-plugin/plugin.json). */
export function manifestOf(pkg: string): any {
  return JSON.parse(readFileSync(join(repoRoot(), 'packages', pkg, '.claude-plugin/plugin.json'), 'utf8'))
}

/** Settings that hand the package these options (a --plugin-dir plugin reads `<name>@inline`). */
export const settingsFor = (pkg: string, options?: Record<string, unknown>) => (options ? { pluginConfigs: { [`${pkg}@inline`]: { options } } } : undefined)

/** A probe run of packages/<pkg> with these options, read into the bare module's spec. */
export async function probeSpec(mock: MockModel, pkg: string, options?: Record<string, unknown>): Promise<BareSpec> {
  const from = mock.requests.length
  const run = await runClaude({ prompt: 'hello', pluginDirs: [join(repoRoot(), 'packages', pkg)], mock, settings: settingsFor(pkg, options) })
  if (run.code !== 0) throw new Error(`probe of ${pkg} exited ${run.code}: ${run.stderr.slice(-400)}`)
  return specOf(pkg, run, mock.requests.slice(from), optionsGiven(manifestOf(pkg), options))
}
