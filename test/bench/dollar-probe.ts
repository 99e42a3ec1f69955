// What each `$` call keel makes at session.start costs in the real engine: a hooks module (under
// keel's manifest and name, so the `$.env` names and the package's MCP server name are keel's) that
// times each call, sequentially and `REPS` times, inside session.start, and logs the times.
//   node --import ./test/tools/ts-loader.mjs test/bench/dollar-probe.ts   (PROBE_RUNS=3)
import { cleanupTmp, debugLines, runClaude } from '../e2e/engine.ts'
import { startMockModel } from '../e2e/mock-model.ts'
import { median } from './measure.ts'
import { packageWith } from './variants.ts'

const REPS = 6
const RUNS = Number(process.env.PROBE_RUNS ?? 3)

// Each entry: a label and the statement timed (`$` in scope). Order: as keel's start meets them.
const CALLS: [string, string][] = [
  ['$.clock.now()', `$.clock.now()`],
  ['$.session.id()', `await $.session.id()`],
  ['$.env.get(x)', `await $.env.get('KEEL_CLAIMS_KEEL')`],
  ['3x $.env.get in parallel', `await Promise.all([$.env.get('KEEL_CLAIMS_KEEL'), $.env.get('KEEL_CLAIMS_SUPERHEROES'), $.env.get('KEEL_CLAIMS_WS')])`],
  ['$.env.set(x, v)', `await $.env.set('KEEL_CLAIMS_KEEL', '{"session":"x","features":["reconnect"]}')`],
  ['$.session.usage()', `await $.session.usage()`],
  ["$.session.usage({ breakdown: 'summary' })", `await $.session.usage({ breakdown: 'summary' })`],
  ["$.mcp.connect('keel') (no such server)", `await $.mcp.connect('keel')`],
  ['$.process.hookEnv()', `await $.process.hookEnv()`],
  ['$.session.root()', `await $.session.root()`],
  ['$.fs.exists(path)', `await $.fs.exists('/tmp')`],
  ['$.store.get(k)', `await $.store.get('probe')`],
  ['$.session.surfaces()', `await $.session.surfaces()`],
  ['$.tool.list()', `await $.tool.list()`],
]

function probeModule(): string {
  const timed = CALLS.map(([label, stmt]) => `    out[${JSON.stringify(label)}] = []\n    for (let i = 0; i < ${REPS}; i++) { const t0 = performance.now(); ${stmt}; out[${JSON.stringify(label)}].push(performance.now() - t0) }`).join('\n')
  return `// $ call costs at session.start (test/bench/dollar-probe.ts)
export function register(on, options) {
  on('session.start', async ($, e, next) => {
    const out = {}
${timed}
    let t0 = performance.now()
    await $.command.register({ name: 'keel', description: 'probe', argumentHint: 'status' })
    out['$.command.register (first)'] = [performance.now() - t0]
    t0 = performance.now()
    await $.tool.register({ name: 'probe_a', description: 'probe a', inputSchema: { type: 'object', properties: {} }, isDeferred: false })
    out['$.tool.register (first tool: the loopback host starts)'] = [performance.now() - t0]
    t0 = performance.now()
    await $.tool.register({ name: 'probe_b', description: 'probe b', inputSchema: { type: 'object', properties: {} }, isDeferred: false })
    out['$.tool.register (second tool, serial)'] = [performance.now() - t0]
    t0 = performance.now()
    await Promise.all([
      $.tool.register({ name: 'probe_c', description: 'probe c', inputSchema: { type: 'object', properties: {} }, isDeferred: false }),
      $.tool.register({ name: 'probe_d', description: 'probe d', inputSchema: { type: 'object', properties: {} }, isDeferred: false }),
    ])
    out['2x $.tool.register in parallel (third and fourth)'] = [performance.now() - t0]
    t0 = performance.now()
    const r = await next(e)
    out['next(e) (builtin plugins and core)'] = [performance.now() - t0]
    $.ui.log('probe ' + JSON.stringify(out), { to: 'debug' })
    return r
  })
}
`
}

const mock = await startMockModel()
try {
  const dir = packageWith('dollar', probeModule())
  const all: Record<string, number[][]> = {}
  for (let run = 0; run < RUNS; run++) {
    const r = await runClaude({ prompt: 'hello', pluginDirs: [dir], mock })
    const line = debugLines(r.debugLog, 'keel').find((l) => l.startsWith('probe '))
    if (!line) throw new Error(`no probe line (exit ${r.code}): ${r.debugLog.split('\n').filter((l) => /keel|ERROR/.test(l)).slice(-8).join('\n')}`)
    for (const [k, v] of Object.entries(JSON.parse(line.slice(6)) as Record<string, number[]>)) (all[k] ??= []).push(v)
  }
  console.log(`$ call round trips at session.start, ${RUNS} engine runs x ${REPS} sequential calls (ms: first call median over runs; later calls median)`)
  console.log('| call | first | later |\n| --- | --- | --- |')
  for (const [k, runs] of Object.entries(all)) {
    const first = median(runs.map((r) => r[0]!))
    const later = runs.flatMap((r) => r.slice(1))
    console.log(`| ${k} | ${first.toFixed(2)} | ${later.length ? median(later).toFixed(2) : '-'} |`)
  }
} finally {
  await mock.close()
  cleanupTmp()
}
