// Where keel's time and memory go, each cause a measured experiment: plugin variants (variants.ts,
// bare.ts) run alternately, one headless turn each, with the whole-process measures of measure.ts and
// the debug log's milestones.
//   node --import ./test/tools/ts-loader.mjs test/bench/experiments.ts
//   EXP=A,B,C (groups)   EXP_RUNS=8 (runs of each variant)   EXP_OUT=<file.json> (raw samples)
// A: the loader and module evaluation (nothing registered): none, an empty module, an empty module
//    padded to the bundle's size with comments, the bundle with register returning at once, the same minified.
// B: the bare module's parts: in parallel or serial, without its tool, without tool and command,
//    session.start alone, without the skills folder.
// C: keel's own variants against the bare module: as built, with time stamps, with its start off the
//    start's path, minified, without the tool.describe hook, with a host-side describe matcher, without
//    reconnect's usage read at start, and both.
// D: what the loader's time scales with (every module inert): plain code of the bundle's size and half
//    of it, the same with `$` helpers, bundles of fewer features, the bundle's code in an imported file.
// E: every feature on: keel, stamped, and with its start off the start's path, against its bare module.
// F: the loader's cost against the size of plain code (10 to 155 kB), and of 155 kB of string constants.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cleanupTmp, repoRoot, tmpDir } from '../e2e/engine.ts'
import { startMockModel } from '../e2e/mock-model.ts'
import { manifestOf, probeSpec, settingsFor, writeBare } from './bare.ts'
import { alternate, fmt, median, stat, type Config, type Sample } from './measure.ts'
import { bundle, deferredStart, describeMatcher, EMPTY, noStartUsageRead, stringConstants, inert, minified, packageWith, packageWithFiles, padded, splitFiles, stamped, subsetBundle, syntheticCode, withoutEvent } from './variants.ts'

const RUNS = Number(process.env.EXP_RUNS ?? 8)
const GROUPS = (process.env.EXP ?? 'A,B,C,D,E,F').split(',')
const PKG = 'keel'
const pkgDir = join(repoRoot(), 'packages', PKG)

const gap = (s: Sample, a: string, b: string) => (s.marks[b] ?? NaN) - (s.marks[a] ?? NaN)
const COLUMNS: [string, (s: Sample) => number, number][] = [
  ['wall ms', (s) => s.wallMs, 0],
  ['CPU s', (s) => s.cpuS, 2],
  ['RSS MiB', (s) => s.rssMiB, 1],
  ['session.start ms', (s) => s.startMs ?? NaN, 1],
  ['loader: options -> next plugin ms', (s) => gap(s, 'opts', 'builtinOpts'), 0],
  ['worker spawn -> loaded ms', (s) => gap(s, 'worker', 'loaded'), 0],
  ['log start -> raised ms', (s) => s.marks.raised ?? NaN, 0],
  ['raised -> turn 1 ms', (s) => gap(s, 'raised', 'turn'), 0],
  ['turn 1 ms', (s) => gap(s, 'turn', 'turnEnd'), 0],
  ['turn end -> exit ms', (s) => gap(s, 'turnEnd', 'last'), 0],
  ['describe hops', (s) => s.describeHops, 0],
  ['other CPU s (noise)', (s) => s.otherCpuS, 2],
]

function report(title: string, results: Map<string, Sample[]>, base: string): void {
  console.log(`\n## ${title} (${RUNS} alternating runs each; medians [min-max]; diff: median of the per-round differences vs ${base})\n`)
  console.log(`| variant | ${COLUMNS.map(([c]) => c).join(' | ')} | MCP tools in the first request |`)
  console.log(`| --- | ${COLUMNS.map(() => '---').join(' | ')} | --- |`)
  const b = results.get(base)!
  for (const [label, xs] of results) {
    const cells = COLUMNS.map(([, f, d]) => {
      const s = stat(xs.map(f))
      const per = xs.map((x, i) => (b[i] ? f(x) - f(b[i]!) : NaN)).filter(Number.isFinite)
      const diff = label === base || !per.length ? '' : ` (${median(per) >= 0 ? '+' : ''}${fmt(median(per), d)})`
      return `${fmt(s.median, d)} [${fmt(s.min, d)}-${fmt(s.max, d)}]${diff}`
    })
    const listed = [...new Set(xs.map((x) => x.mcpToolsListed.length))].join('/')
    console.log(`| ${label} | ${cells.join(' | ')} | ${listed} |`)
  }
}

/** The stamps the stamped bundle logs, as ms spans, medians over runs. */
function stampReport(xs: Sample[]): void {
  const spans: Record<string, number[]> = {}
  const calls: Record<string, number[]> = {}
  for (const s of xs) {
    const line = s.pluginLines.find((l) => l.startsWith('stamps '))
    if (!line) continue
    const { t, calls: cs } = JSON.parse(line.slice(7)) as { t: Record<string, number>; calls: [string, number, number][] }
    const add = (k: string, v: number) => (spans[k] ??= []).push(v)
    add('module evaluation (top of file -> last statement)', t.evalEnd! - t.top!)
    add('evaluated -> register called', t.registerIn! - t.evalEnd!)
    add('register (options parsed, runtime made, on() calls)', t.registerOut! - t.registerIn!)
    add('register returned -> session.start hook entered', t.hookIn! - t.registerOut!)
    add("keel's start before next (claims, command, features' start)", t.nextIn! - t.hookIn!)
    add('next (builtins and core)', t.nextOut! - t.nextIn!)
    add('after next -> hook returns', t.hookOut! - t.nextOut!)
    add('hook entered -> hook returns', t.hookOut! - t.hookIn!)
    add('log start -> module top (engine startup, loader, worker spawn; Date.now())', t.epochTop! - s.logStart)
    for (const [name, t0, ms] of cs) if (t0 >= t.hookIn! && t0 <= t.nextIn!) (calls[`edge ${name}`] ??= []).push(ms)
  }
  console.log(`\n### keel's own stamps (stamped bundle, ${xs.length} runs; ms medians [min-max])\n`)
  console.log('| span | ms |\n| --- | --- |')
  for (const [k, v] of Object.entries(spans)) console.log(`| ${k} | ${fmt(median(v), 1)} [${fmt(Math.min(...v), 1)}-${fmt(Math.max(...v), 1)}] |`)
  console.log('\n| port edge awaited before next (start offset in one run) | ms |\n| --- | --- |')
  for (const [k, v] of Object.entries(calls)) if (k.startsWith('edge ')) console.log(`| ${k.slice(5)} | ${fmt(median(v), 1)} [${fmt(Math.min(...v), 1)}-${fmt(Math.max(...v), 1)}] (n=${v.length}) |`)
  const one = xs.map((s) => s.pluginLines.find((l) => l.startsWith('stamps '))).find(Boolean)
  if (one) {
    const { t, calls: cs } = JSON.parse(one.slice(7)) as { t: Record<string, number>; calls: [string, number, number][] }
    console.log(`\none run's start, ms from the hook's entry: ${cs.filter(([, t0]) => t0 >= t.hookIn! && t0 <= t.hookOut!).map(([n, t0, ms]) => `${n} @${fmt(t0 - t.hookIn!, 0)} for ${fmt(ms, 1)}`).join('; ')}; next @${fmt(t.nextIn! - t.hookIn!, 0)}`)
  }
}

const all: Record<string, Record<string, Sample[]>> = {}

async function group(mock: Awaited<ReturnType<typeof startMockModel>>, name: string, title: string, configs: Config[], base: string): Promise<Map<string, Sample[]>> {
  const results = await alternate(mock, configs, RUNS, (c, s, round) => {
    if (process.env.EXP_VERBOSE) console.log(`  ${name} round ${round} ${c.label}: ${s.wallMs} ms ${s.cpuS.toFixed(2)} s ${s.rssMiB.toFixed(1)} MiB start ${s.startMs ?? '-'} ${JSON.stringify(s.marks)}`)
  })
  report(title, results, base)
  all[name] = Object.fromEntries(results)
  return results
}

console.log(`# keel experiments (${new Date().toISOString()}, ${RUNS} runs each, groups ${GROUPS.join(',')})`)
const mock = await startMockModel()
try {
  const src = bundle()
  const spec = await probeSpec(mock, PKG)
  const bareDir = writeBare(join(tmpDir('bare'), PKG), spec)
  if (GROUPS.includes('A')) {
    const keelMin = minified(src)
    console.log(`\nbundle ${(src.length / 1024).toFixed(1)} kB; minified (whitespace+syntax) ${(keelMin.length / 1024).toFixed(1)} kB`)
    await group(mock, 'A', 'A. Loader and module evaluation: nothing registered, nothing hooked', [
      { label: 'no plugin', pluginDirs: [] },
      { label: 'empty module', pluginDirs: [packageWith('empty', EMPTY)], plugin: PKG },
      { label: `empty module + ${(src.length / 1024).toFixed(0)} kB of comments`, pluginDirs: [packageWith('padded', padded(EMPTY, src.length))], plugin: PKG },
      { label: 'keel bundle, register returns at once', pluginDirs: [packageWith('inert', inert(src))], plugin: PKG },
      { label: 'keel bundle minified, register returns at once', pluginDirs: [packageWith('inert-min', inert(keelMin))], plugin: PKG },
    ], 'empty module')
  }
  if (GROUPS.includes('B')) {
    await group(mock, 'B', "B. The bare module's parts (keel as installed's spec)", [
      { label: 'bare (tool + command in parallel, 7 events)', pluginDirs: [bareDir], plugin: PKG },
      { label: 'bare, serial', pluginDirs: [writeBare(join(tmpDir('bare-serial'), PKG), spec, { order: 'serial' })], plugin: PKG },
      { label: 'bare, no tool', pluginDirs: [writeBare(join(tmpDir('bare-notool'), PKG), spec, { noTools: true })], plugin: PKG },
      { label: 'bare, no tool, no command', pluginDirs: [writeBare(join(tmpDir('bare-none'), PKG), spec, { noTools: true, noCommand: true })], plugin: PKG },
      { label: 'bare, session.start only', pluginDirs: [writeBare(join(tmpDir('bare-start'), PKG), spec, { startOnly: true })], plugin: PKG },
      { label: 'bare, no skills folder', pluginDirs: [writeBare(join(tmpDir('bare-noskills'), PKG), spec, { skills: false })], plugin: PKG },
    ], 'bare (tool + command in parallel, 7 events)')
  }
  if (GROUPS.includes('C')) {
    const c = await group(mock, 'C', "C. keel's variants against the bare module", [
      { label: 'bare', pluginDirs: [bareDir], plugin: PKG },
      { label: 'keel as installed', pluginDirs: [pkgDir], plugin: PKG },
      { label: 'keel, stamped', pluginDirs: [packageWith('stamped', stamped(src))], plugin: PKG },
      { label: "keel, start's work after next (clock)", pluginDirs: [packageWith('deferred', deferredStart(src))], plugin: PKG },
      { label: 'keel minified', pluginDirs: [packageWith('min', minified(src))], plugin: PKG },
      { label: 'keel without tool.describe', pluginDirs: [packageWith('nodescribe', withoutEvent(src, 'tool.describe'))], plugin: PKG },
      { label: 'keel, tool.describe matcher { mcpServer: {} }', pluginDirs: [packageWith('mcpserver', describeMatcher(src))], plugin: PKG },
      { label: "keel, no usage read in reconnect's start", pluginDirs: [packageWith('nousage', noStartUsageRead(src))], plugin: PKG },
      { label: 'keel, both of the above', pluginDirs: [packageWith('both', describeMatcher(noStartUsageRead(src)))], plugin: PKG },
    ], 'bare')
    stampReport(c.get('keel, stamped')!)
  }
  if (GROUPS.includes('D')) {
    const kb = (t: string) => `${(t.length / 1024).toFixed(0)} kB`
    const reconnectOnly = await subsetBundle(['reconnect'])
    const twoFeatures = await subsetBundle(['checkpoint', 'reconnect'])
    const split = splitFiles(inert(src))
    const plain = syntheticCode(src.length)
    const plainHalf = syntheticCode(src.length / 2)
    const dollar = syntheticCode(src.length, true)
    await group(mock, 'D', "D. What the loader's time scales with (register returns at once in every module)", [
      { label: 'empty module', pluginDirs: [packageWith('d-empty', EMPTY)], plugin: PKG },
      { label: `keel bundle (${kb(src)})`, pluginDirs: [packageWith('d-inert', inert(src))], plugin: PKG },
      { label: `plain code (${kb(plain)})`, pluginDirs: [packageWith('d-plain', plain)], plugin: PKG },
      { label: `plain code (${kb(plainHalf)})`, pluginDirs: [packageWith('d-half', plainHalf)], plugin: PKG },
      { label: `plain code with $ helpers (${kb(dollar)})`, pluginDirs: [packageWith('d-dollar', dollar)], plugin: PKG },
      { label: `bundle of reconnect alone (${kb(reconnectOnly)})`, pluginDirs: [packageWith('d-reconnect', inert(reconnectOnly))], plugin: PKG },
      { label: `bundle of checkpoint + reconnect (${kb(twoFeatures)})`, pluginDirs: [packageWith('d-two', inert(twoFeatures))], plugin: PKG },
      { label: 'keel bundle in an imported file', pluginDirs: [packageWithFiles('d-split', { 'hooks.js': split.hooksJs, 'impl.js': split.implJs })], plugin: PKG },
    ], 'empty module')
  }
  if (GROUPS.includes('F')) {
    const sizes = [10, 20, 40, 80, 155]
    await group(mock, 'F', "F. The loader's cost against the size of plain code (inert modules)", [
      { label: 'empty module', pluginDirs: [packageWith('f-empty', EMPTY)], plugin: PKG },
      ...sizes.map((kb) => ({ label: `plain code, ${kb} kB`, pluginDirs: [packageWith(`f-${kb}`, syntheticCode(kb * 1024))], plugin: PKG })),
      { label: 'string constants, 155 kB', pluginDirs: [packageWith('f-strings', stringConstants(155 * 1024))], plugin: PKG },
    ], 'empty module')
  }
  if (GROUPS.includes('E')) {
    const allOn = Object.fromEntries(Object.entries(manifestOf(PKG).userConfig ?? {}).filter(([, f]: [string, any]) => Array.isArray(f.options) && f.options.includes('on') && f.options.includes('off')).map(([k]) => [k, 'on']))
    const settings = settingsFor(PKG, allOn)
    const onSpec = await probeSpec(mock, PKG, allOn)
    const e = await group(mock, 'E', 'E. Every feature on: keel against its bare module', [
      { label: 'bare, every-on spec', pluginDirs: [writeBare(join(tmpDir('bare-on'), PKG), onSpec)], plugin: PKG, settings },
      { label: 'bare, every-on spec, serial', pluginDirs: [writeBare(join(tmpDir('bare-on-serial'), PKG), onSpec, { order: 'serial' })], plugin: PKG, settings },
      { label: 'keel as installed (no settings)', pluginDirs: [pkgDir], plugin: PKG },
      { label: 'keel every feature on', pluginDirs: [pkgDir], plugin: PKG, settings },
      { label: 'keel every feature on, stamped', pluginDirs: [packageWith('on-stamped', stamped(src))], plugin: PKG, settings },
      { label: "keel every feature on, start's work after next (clock)", pluginDirs: [packageWith('on-deferred', deferredStart(src))], plugin: PKG, settings },
    ], 'bare, every-on spec')
    stampReport(e.get('keel every feature on, stamped')!)
  }
  if (process.env.EXP_OUT) writeFileSync(process.env.EXP_OUT, JSON.stringify({ date: new Date().toISOString(), runs: RUNS, spec, groups: all }, null, 1))
} finally {
  await mock.close()
  cleanupTmp()
}
