// What keel costs a person, as a whole process: one headless turn (`claude -p hello`, the mock model)
// with no plugin, with the bare module (the same tools, command, events and userConfig, nothing else:
// bare.ts), with packages/keel as installed, and with every feature on (against its own bare module).
// Alternating runs, medians.
//   node --import ./test/tools/ts-loader.mjs test/bench/whole.ts
//   BENCH_RUNS=10 (runs of each configuration)   BENCH_OUT=<file.json> (raw samples)
//   BENCH_PACKAGE=keel   BENCH_ORDER=parallel|serial (how the bare module registers)
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cleanupTmp, repoRoot, tmpDir } from '../e2e/engine.ts'
import { startMockModel } from '../e2e/mock-model.ts'
import { manifestOf, probeSpec as probe, settingsFor, writeBare } from './bare.ts'
import { alternate, fmt, pairDiff, pairRatio, stat, table, type Config, type Sample } from './measure.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 10)
const PKG = process.env.BENCH_PACKAGE ?? 'keel'
const ORDER = (process.env.BENCH_ORDER ?? 'parallel') as 'parallel' | 'serial'
const GOAL = { start: 1.3, wall: 1.05, cpu: 1.05, rssMiB: 10 }

const pkgDir = join(repoRoot(), 'packages', PKG)
const manifest = manifestOf(PKG)
/** Every switch (a feature's on/off picker) on. */
const allOn = Object.fromEntries(Object.entries(manifest.userConfig ?? {}).filter(([, f]: [string, any]) => Array.isArray(f.options) && f.options.includes('on') && f.options.includes('off')).map(([k]) => [k, 'on']))
const settingsOf = (options?: Record<string, unknown>) => settingsFor(PKG, options)

function line(label: string, value: string) {
  console.log(`${label.padEnd(52)} ${value}`)
}

function compare(results: Map<string, Sample[]>, a: string, b: string): void {
  const [xa, xb] = [results.get(a)!, results.get(b)!]
  const wall = pairRatio(xa, xb, 'wallMs')
  const cpu = pairRatio(xa, xb, 'cpuS')
  const rss = pairDiff(xa, xb, 'rssMiB')
  const start = pairRatio(xa, xb, 'startMs')
  const ok = (good: boolean) => (good ? 'OK' : 'OVER')
  console.log(`\n${a} vs ${b} (ratio of medians; [IQR of the per-round ratios])`)
  line('  wall time', `${fmt(wall.ratio, 3)}x [${fmt(wall.p25, 2)}-${fmt(wall.p75, 2)}] ${ok(wall.ratio <= GOAL.wall)} (<= ${GOAL.wall}x)`)
  line('  CPU (user+sys, process tree)', `${fmt(cpu.ratio, 3)}x [${fmt(cpu.p25, 2)}-${fmt(cpu.p75, 2)}] ${ok(cpu.ratio <= GOAL.cpu)} (<= ${GOAL.cpu}x)`)
  line('  peak RSS', `${rss.diff >= 0 ? '+' : ''}${fmt(rss.diff, 1)} MiB [${fmt(rss.p25, 1)}..${fmt(rss.p75, 1)}] ${ok(rss.diff <= GOAL.rssMiB)} (<= +${GOAL.rssMiB} MiB)`)
  if (Number.isFinite(start.ratio)) line('  session.start settle', `${fmt(start.ratio, 2)}x [${fmt(start.p25, 2)}-${fmt(start.p75, 2)}] ${ok(start.ratio <= GOAL.start)} (<= ${GOAL.start}x)`)
}

async function main(): Promise<void> {
  console.log(`keel whole-process bench (${new Date().toISOString()}, ${RUNS} alternating runs each, package ${PKG}, bare registers ${ORDER})`)
  const mock = await startMockModel()
  try {
    const installed = await probe(mock, PKG)
    const everyOn = await probe(mock, PKG, allOn)
    for (const [label, s] of [['as installed', installed], ['every feature on', everyOn]] as const) {
      line(`${PKG} ${label}: registers`, `tools ${s.tools.map((t) => t.name).join(', ') || 'none'}; /${s.command.name} [${s.command.argumentHint}]; events ${s.events.join(',')}`)
    }
    const bareDir = writeBare(join(tmpDir('bare'), PKG), installed, { order: ORDER })
    const bareOnDir = writeBare(join(tmpDir('bare-on'), PKG), everyOn, { order: ORDER })
    const configs: Config[] = [
      { label: 'no plugin', pluginDirs: [] },
      { label: 'bare', pluginDirs: [bareDir], plugin: PKG },
      { label: `${PKG} as installed`, pluginDirs: [pkgDir], plugin: PKG },
      { label: 'bare, every-on spec', pluginDirs: [bareOnDir], plugin: PKG, settings: settingsOf(allOn) },
      { label: `${PKG} every feature on`, pluginDirs: [pkgDir], plugin: PKG, settings: settingsOf(allOn) },
    ]
    const results = await alternate(mock, configs, RUNS, (c, s, round) => {
      if (process.env.BENCH_VERBOSE) console.log(`  round ${round} ${c.label}: ${s.wallMs} ms, ${s.cpuS.toFixed(2)} s CPU, ${s.rssMiB.toFixed(1)} MiB, start ${s.startMs ?? "-"} ms ${JSON.stringify(s.marks)}`)
    })
    console.log('')
    console.log(table(results))
    compare(results, `${PKG} as installed`, 'bare')
    compare(results, `${PKG} every feature on`, 'bare, every-on spec')
    compare(results, `${PKG} as installed`, 'no plugin')
    compare(results, 'bare', 'no plugin')
    const spread = [...results].map(([label, xs]) => { const w = stat(xs.map((s) => s.wallMs)); return `${label} ${fmt(((w.p75 - w.p25) / w.median) * 100)}%` })
    console.log(`\nnoise: wall-time IQR / median per configuration: ${spread.join(', ')}`)
    if (process.env.BENCH_OUT) writeFileSync(process.env.BENCH_OUT, JSON.stringify({ date: new Date().toISOString(), runs: RUNS, order: ORDER, specs: { installed, everyOn }, results: Object.fromEntries(results) }, null, 1))
  } finally {
    await mock.close()
    cleanupTmp()
  }
}

await main()
