// Whole-process measurement of one headless turn (`claude -p hello --output-format json` against the
// mock model): wall time, CPU of the process tree and peak RSS from GNU time, plus the debug log's
// own milestones. Configurations alternate run by run, so the noise of a shared machine falls on
// all of them alike. Used by whole.ts (the goals) and experiments.ts (where the time goes).
import { existsSync, readFileSync } from 'node:fs'
import { hookSettles, runClaude } from '../e2e/engine.ts'
import type { MockModel } from '../e2e/mock-model.ts'

export const GNU_TIME = '/usr/bin/time'

export type Config = {
  label: string
  pluginDirs: string[]
  settings?: object
  /** The plugin whose session.start settle is read (by name). */
  plugin?: string
  env?: Record<string, string>
}

export type Sample = {
  wallMs: number
  /** GNU time's elapsed, user and system seconds, max RSS KiB (of the engine and its reaped children). */
  elapsedS: number
  cpuS: number
  userS: number
  sysS: number
  rssMiB: number
  /** The plugin's session.start `settled in` ms. */
  startMs?: number
  /** Debug-log milestones, ms from the log's first line. */
  marks: Record<string, number>
  describeHops: number
  code: number | null
  /** The plugin's own `$.ui.log` debug lines (experiments log stamps this way). */
  pluginLines: string[]
  /** The MCP tools the run's first main model request listed (a tool registered too late is missing). */
  mcpToolsListed: string[]
  /** The debug log's epoch ms of its first line (to place a module's own stamps). */
  logStart: number
  /** CPU seconds the whole machine spent during the run beyond the engine's own (other agents, the mock): the noise. */
  otherCpuS: number
}

const MARKS: [string, RegExp][] = [
  // The last line before the user plugin's options are resolved (with or without settings), then the first
  // builtin's options line: the loader's work on the user plugin's module sits between.
  ['opts', /\] cc-plugin-sec-default@builtin not seated/],
  ['builtinOpts', /\] plugin cc-plugin-agents-md: /],
  ['worker', /\] hooks worker spawned/],
  ['loaded', /\] hooks module \S+ loaded \(worker/],
  ['raised', /\] session\.start: raised/],
  ['started', /\] hooks module \S+@inline session\.start settled in/],
  ['turn', /\] \[engine\] turn 1 start/],
  ['request', /\] \[API REQUEST\] \/v1\/messages/],
  ['turnEnd', /\] \[engine\] turn 1 end/],
]

function stampOf(line: string): number {
  return Date.parse(line.slice(0, 24))
}

export function marksOf(log: string): Record<string, number> {
  const lines = log.split('\n').filter((l) => /^\d{4}-\d\d-\d\dT/.test(l))
  if (!lines.length) return {}
  const t0 = stampOf(lines[0]!)
  const out: Record<string, number> = { last: stampOf(lines[lines.length - 1]!) - t0 }
  for (const [name, re] of MARKS) {
    const hit = lines.find((l) => re.test(l))
    if (hit) out[name] = stampOf(hit) - t0
  }
  return out
}

/** Busy CPU seconds of the whole machine so far (/proc/stat: every state but idle and iowait). */
function machineBusyS(): number {
  try {
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number)
    const busy = cpu.reduce((a, b) => a + b, 0) - cpu[3]! - cpu[4]!
    return busy / 100 // USER_HZ
  } catch {
    return NaN
  }
}

export async function runOnce(mock: MockModel, c: Config): Promise<Sample> {
  const from = mock.requests.length
  const busy0 = machineBusyS()
  const wrap = existsSync(GNU_TIME) ? [GNU_TIME, '-f', 'KEELTIME %e %U %S %M'] : []
  const r = await runClaude({ prompt: 'hello', pluginDirs: c.pluginDirs, mock, settings: c.settings, env: c.env, wrap, timeoutMs: 120_000 })
  const busy = machineBusyS() - busy0
  const t = /KEELTIME ([\d.]+) ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr)
  if (r.code !== 0 || !t) throw new Error(`${c.label}: the engine exited ${r.code} ${r.signal ?? ''}: ${r.stderr.slice(-500)}`)
  const settle = c.plugin ? hookSettles(r.debugLog).find((h) => h.event === 'session.start' && h.plugins.includes(c.plugin!)) : undefined
  const prefix = c.plugin ? `[${c.plugin}] $.ui.log (to debug): ` : undefined
  return {
    wallMs: r.durationMs,
    elapsedS: Number(t[1]), userS: Number(t[2]), sysS: Number(t[3]), cpuS: Number(t[2]) + Number(t[3]), rssMiB: Number(t[4]) / 1024,
    startMs: settle?.ms,
    marks: marksOf(r.debugLog),
    describeHops: hookSettles(r.debugLog).filter((h) => h.event === 'tool.describe').length,
    code: r.code,
    mcpToolsListed: ((mock.requests.slice(from).find((q) => q.kind === 'main')?.body?.tools ?? []) as { name: string }[]).map((t) => t.name).filter((n) => n.startsWith('mcp__')),
    otherCpuS: busy - Number(t[2]) - Number(t[3]),
    logStart: stampOf(r.debugLog.split('\n').find((l) => /^\d{4}-/.test(l)) ?? ''),
    pluginLines: prefix ? r.debugLog.split('\n').flatMap((l) => { const i = l.indexOf(prefix); return i < 0 ? [] : [l.slice(i + prefix.length)] }) : [],
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Waits (up to BENCH_QUIET_MAX_S, default 20 s) for a moment the machine's other work leaves its cores
 * free: the busy CPU over 500 ms below BENCH_QUIET_CORES (default 0.8) cores. BENCH_QUIET=0 skips it.
 * Returns the busy cores last seen.
 */
export async function waitQuiet(): Promise<number> {
  if (process.env.BENCH_QUIET === '0') return NaN
  const limit = Number(process.env.BENCH_QUIET_CORES ?? 0.8)
  const until = Date.now() + Number(process.env.BENCH_QUIET_MAX_S ?? 20) * 1000
  for (;;) {
    const b0 = machineBusyS()
    await sleep(500)
    const cores = (machineBusyS() - b0) / 0.5
    if (!(cores > limit) || Date.now() > until) return cores
  }
}

/** `rounds` rounds, each running every configuration once, in an order rotated per round. */
export async function alternate(mock: MockModel, configs: Config[], rounds: number, onSample?: (c: Config, s: Sample, round: number) => void): Promise<Map<string, Sample[]>> {
  const out = new Map<string, Sample[]>(configs.map((c) => [c.label, []]))
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < configs.length; i++) {
      const c = configs[(i + round) % configs.length]!
      await waitQuiet()
      const s = await runOnce(mock, c)
      out.get(c.label)!.push(s)
      onSample?.(c, s, round)
    }
  }
  return out
}

export const median = (xs: number[]) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b)
  return s.length ? (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2 : NaN
}
export const quantile = (xs: number[], q: number) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b)
  if (!s.length) return NaN
  const pos = (s.length - 1) * q
  const lo = Math.floor(pos)
  return s[lo]! + (s[Math.ceil(pos)]! - s[lo]!) * (pos - lo)
}

export type Stat = { median: number; p25: number; p75: number; min: number; max: number; n: number }
export function stat(xs: number[]): Stat {
  const f = xs.filter((x) => Number.isFinite(x))
  return { median: median(f), p25: quantile(f, 0.25), p75: quantile(f, 0.75), min: Math.min(...f), max: Math.max(...f), n: f.length }
}

export type Metric = 'wallMs' | 'cpuS' | 'rssMiB' | 'startMs'
export const metricOf = (s: Sample, m: Metric | string): number => (m in s ? (s as any)[m] : s.marks[m]) ?? NaN

/**
 * The ratio of medians a/b, with a spread from the rounds: the interquartile range of the per-round
 * ratios (each round ran a and b back to back, so a round's ratio shares its noise).
 */
export function pairRatio(a: Sample[], b: Sample[], m: Metric | string): { ratio: number; p25: number; p75: number } {
  const per = a.map((s, i) => (b[i] ? metricOf(s, m) / metricOf(b[i]!, m) : NaN)).filter(Number.isFinite)
  return { ratio: median(a.map((s) => metricOf(s, m))) / median(b.map((s) => metricOf(s, m))), p25: quantile(per, 0.25), p75: quantile(per, 0.75) }
}
export function pairDiff(a: Sample[], b: Sample[], m: Metric | string): { diff: number; p25: number; p75: number } {
  const per = a.map((s, i) => (b[i] ? metricOf(s, m) - metricOf(b[i]!, m) : NaN)).filter(Number.isFinite)
  return { diff: median(a.map((s) => metricOf(s, m))) - median(b.map((s) => metricOf(s, m))), p25: quantile(per, 0.25), p75: quantile(per, 0.75) }
}

export const fmt = (x: number, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : '-')
export const fmtStat = (s: Stat, d = 0) => `${fmt(s.median, d)} [${fmt(s.min, d)}-${fmt(s.max, d)}]`

/** A markdown table of every configuration's medians (and ranges) over the samples. */
export function table(results: Map<string, Sample[]>): string {
  const rows = [
    '| configuration | runs | wall ms | CPU s (user+sys) | peak RSS MiB | session.start ms | loader on the module ms | log: start -> raised | raised -> turn 1 | turn 1 | turn end -> exit | other CPU s (noise) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ]
  for (const [label, xs] of results) {
    const gap = (a: string, b: string) => fmt(median(xs.map((s) => (s.marks[b] ?? NaN) - (s.marks[a] ?? NaN))))
    rows.push(`| ${label} | ${xs.length} | ${fmtStat(stat(xs.map((s) => s.wallMs)))} | ${fmtStat(stat(xs.map((s) => s.cpuS)), 2)} | ${fmtStat(stat(xs.map((s) => s.rssMiB)), 1)} | ${fmtStat(stat(xs.map((s) => s.startMs ?? NaN)), 1)} | ${gap('opts', 'builtinOpts')} | ${fmt(median(xs.map((s) => s.marks.raised ?? NaN)))} | ${gap('raised', 'turn')} | ${gap('turn', 'turnEnd')} | ${gap('turnEnd', 'last')} | ${fmt(median(xs.map((s) => s.otherCpuS)), 2)} |`)
  }
  return rows.join('\n')
}
