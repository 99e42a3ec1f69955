// Idle cost of a spool poll (mailbox NOTES.md, question 8): engine CPU (user + system from /proc/<pid>/stat,
// the engine's own threads; its child processes are listed apart) over a window of an idle stream-json
// session whose probe (a) does nothing, (b) runs `$.clock.every(1000)` with one `$.fs.list`, (c) every 5000,
// (d) every 60000. Too slow for the suite (4 variants x 3 runs x ~25 s): run it by hand,
//   node --import ./test/tools/ts-loader.mjs test/e2e/mailbox-idle-cpu.ts [runs] [windowSeconds]
// Sessions run one at a time, so the variants do not compete with each other (other agents' runs may).
import { readFileSync } from 'node:fs'
import { cleanupTmp, tmpDir, writePlugin } from './engine.ts'
import { startLive } from './live.ts'
import { cpuMs, PROBE, probe, probeScript, sleep, spread, startStampedMock } from './multi.ts'

const runs = Number(process.argv[2] ?? 3)
const windowS = Number(process.argv[3] ?? 20)
const variants: [string, number][] = [['none', 0], ['every 1000', 1000], ['every 5000', 5000], ['every 60000', 60000]]

/** The ids of a process's children (all its threads'). */
function children(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {
    return []
  }
}

const mock = await startStampedMock(probeScript())
const plug = writePlugin(tmpDir('probe'), 'probe', PROBE)
const results: Record<string, number[]> = {}
try {
  for (let r = 0; r < runs; r++) {
    for (const [name, ms] of variants) {
      const live = await startLive({ mode: 'stream-json', pluginDirs: [plug], mock, env: ms ? { PROBE_POLL: String(ms) } : {} })
      try {
        await live.waitFor('the probe started', () => probe(live.debugLog(), 'REG-SEEN').length)
        await sleep(3000) // let start-up work settle
        const pid = live.pid()!
        const kids = children(pid)
        const before = cpuMs(pid)
        await sleep(windowS * 1000)
        const used = cpuMs(pid) - before
        ;(results[name] ??= []).push(used)
        console.log(`run ${r + 1} ${name}: ${used} ms CPU in ${windowS} s (children: ${kids.length})`)
      } finally {
        await live.stop()
      }
    }
  }
} finally {
  await mock.close()
  cleanupTmp()
}
for (const [name] of variants) console.log(name, JSON.stringify(spread(results[name] ?? [])))
