// The engine's loader on the bundle at a start: the debug-log gap from the last line before the user
// plugin's options are resolved to the first builtin's (measure.ts MARKS `opts` -> `builtinOpts`),
// keel as installed against a bare module that registers the same tools, command and events (bare.ts),
// over alternating headless runs of `claude -p hello` against the mock model.
import { join } from 'node:path'
import { cleanupTmp, repoRoot, tmpDir } from '../e2e/engine.ts'
import { startMockModel } from '../e2e/mock-model.ts'
import { probeSpec, writeBare } from './bare.ts'
import { alternate, median, type Config } from './measure.ts'

const PKG = 'keel'

export async function loaderGap(rounds = Number(process.env.BENCH_LOADER_ROUNDS ?? 5)): Promise<{ keel: number; bare: number; rounds: number }> {
  const mock = await startMockModel()
  try {
    const bareDir = writeBare(join(tmpDir('loader-bare'), PKG), await probeSpec(mock, PKG))
    const configs: Config[] = [
      { label: 'bare', pluginDirs: [bareDir], plugin: PKG },
      { label: 'keel', pluginDirs: [join(repoRoot(), 'packages', PKG)], plugin: PKG },
    ]
    const results = await alternate(mock, configs, rounds)
    const gapOf = (label: string) => median(results.get(label)!.map((s) => (s.marks.builtinOpts ?? NaN) - (s.marks.opts ?? NaN)).filter(Number.isFinite))
    return { keel: gapOf('keel'), bare: gapOf('bare'), rounds }
  } finally {
    await mock.close()
    cleanupTmp()
  }
}
