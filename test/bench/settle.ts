// The real engine's per-event hook settle times: a package's hooks vs a bare pass-through module
// hooking the same events, over the same scripted headless session (two turns, the second a resume),
// alternating run by run. Used by bench.ts (keel's configurations) and routing.ts (klyth on a native session).
import { mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { hookSettles, loadedModules, repoRoot, runClaude, tmpDir, writePlugin } from '../e2e/engine.ts'
import type { MockModel } from '../e2e/mock-model.ts'

export const ENGINE_LIMIT = 1.05

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length ? (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2 : NaN }
const line = (label: string, value: string) => console.log(`${label.padEnd(58)} ${value}`)

/** Streaming events take an async generator (the loader refuses a plain function on them). */
const STREAMING = new Set(['turn.step'])

/**
 * A module hooking `events` with pass-throughs and no matchers: what the engine costs without keel's work.
 * (Without a matcher its tool.describe hops for every tool, where keel's matcher hops for plugin tools only:
 * the per-hop settle times compare; their counts do not.)
 */
export function bareModule(events: string[]): string {
  const hook = (event: string) => (STREAMING.has(event) ? 'async function* ($, e, next) { return yield* next(e) }' : '($, e, next) => next(e)')
  return `export function register(on) {\n${events.map((e) => `  on(${JSON.stringify(e)}, ${hook(e)})`).join('\n')}\n}\n`
}

/** Events raised once per engine process (a headless run is one process): reported apart from the per-turn hooks. */
const ONCE_PER_PROCESS = new Set(['session.start', 'session.end'])
type Samples = Record<string, number[]>

export type SettleOptions = {
  mock: MockModel
  /** packages/<pkg>. */
  pkg: string
  /** The package's folder, when not packages/<pkg> itself (a copy of it). */
  dir?: string
  label: string
  rounds: number
  /** The package's options (settings `pluginConfigs["<pkg>@inline"].options`), from its manifest. */
  optionsOf: (manifest: any) => Record<string, string> | undefined
  /** Lays files into a fresh HOME before a session's first run (both sides get the same). */
  prepareHome?: (home: string) => void
  extraArgs?: string[]
  /** The other side: another copy of the package (the same name: the settle lines name it alike), in place of the bare module. */
  against?: { dir: string; label: string }
}

/** One configuration of the package against a bare module hooking the same events (or `against`), alternating runs. Returns the headline ratio. */
export async function engineSettle(o: SettleOptions): Promise<number> {
  const dir = o.dir ?? join(repoRoot(), 'packages', o.pkg)
  const manifest = JSON.parse(readFileSync(join(dir, '.claude-plugin/plugin.json'), 'utf8'))
  const options = o.optionsOf(manifest)
  const settings = options ? { pluginConfigs: { [`${o.pkg}@inline`]: { options } } } : {}
  const home = () => {
    const h = tmpDir('home')
    o.prepareHome?.(h)
    return h
  }
  const extraArgs = o.extraArgs ?? []
  const other = o.against ? { ...o.against, name: o.pkg } : { dir: join(tmpDir('bare'), 'bare'), label: 'the bare module', name: 'bare' }
  if (!o.against) {
    const probe = await runClaude({ prompt: 'hello', pluginDirs: [dir], mock: o.mock, settings, home: home(), extraArgs })
    const events = [...new Set(loadedModules(probe.debugLog).find((m) => m.plugin === o.pkg)?.events ?? [])]
    mkdirSync(other.dir, { recursive: true })
    writePlugin(other.dir, 'bare', bareModule(events))
  }
  const samples: Record<'keel' | 'bare', Samples> = { keel: {}, bare: {} }
  for (let round = 0; round < o.rounds; round++) {
    // Which side runs first alternates by round, so a machine that warms or cools over a round weighs on both alike.
    const sides = [['keel', dir, o.pkg], ['bare', other.dir, other.name]] as const
    for (const [who, pluginDir, name] of round % 2 ? [...sides].reverse() : sides) {
      const first = await runClaude({ prompt: 'hello', pluginDirs: [pluginDir], mock: o.mock, settings, home: home(), extraArgs })
      const second = await runClaude({ prompt: 'and again', pluginDirs: [pluginDir], mock: o.mock, settings, home: first.home, cwd: first.cwd, resume: first.sessionId, extraArgs })
      for (const run of [first, second]) {
        for (const settle of hookSettles(run.debugLog).filter((h) => h.plugins.length === 1 && h.plugins[0] === name)) {
          ;(samples[who][settle.event] ??= []).push(settle.ms)
        }
      }
    }
  }
  // The headline: the geometric mean over the per-turn events of each event's median ratio. A median
  // over every settle mixes events an order of magnitude apart (turn.start waits on the model).
  // An event the bare side never settled (nothing of its kind came) has no ratio: it is listed, not averaged.
  const perTurnEvents = Object.keys(samples.keel).filter((event) => !ONCE_PER_PROCESS.has(event) && samples.bare[event]?.length)
  const ratios = perTurnEvents.map((event) => median(samples.keel[event]!) / median(samples.bare[event] ?? []))
  const geomean = Math.exp(ratios.reduce((sum, r) => sum + Math.log(r), 0) / ratios.length)
  console.log(`\nEngine: ${o.pkg} ${o.label} (${o.rounds} rounds of a two-turn session, alternating with ${o.against ? other.label : 'a bare pass-through module on the same events'})`)
  if (perTurnEvents.length === 0) line('  per-turn hooks', 'none registered: no per-turn event costs anything')
  else line(`  per-turn hooks (${perTurnEvents.join(', ')})`, `${geomean.toFixed(3)}x ${other.label} (geometric mean of the per-event median ratios) ${geomean <= ENGINE_LIMIT ? 'OK' : 'OVER'} (<= ${ENGINE_LIMIT}x)`)
  for (const event of Object.keys(samples.keel)) {
    const [ke, be] = [median(samples.keel[event]!), median(samples.bare[event] ?? [])]
    line(`  ${event}${ONCE_PER_PROCESS.has(event) ? ' (once per process)' : ''}, ${samples.keel[event]!.length} settles`, `${ke.toFixed(2)} ms vs ${be.toFixed(2)} ms (${(ke / be).toFixed(2)}x)`)
  }
  return geomean
}
