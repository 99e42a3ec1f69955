// The mailbox's costs and latencies, measured in one run (issue 12, "Performance"):
//   1. delivery latency, from the start of a send (keel's first write of the mail) to the recipient
//      model's request: live to an idle session, live to a busy one (its tool's end is the floor),
//      kept then started (headless: stream-json, which waits 1.5 s of idleness; watched: the terminal UI);
//   2. idle cost: engine CPU over 20 s of an idle, named ws session with the mailbox on against off;
//   3. per-turn hooks with nothing waiting: keel with the mailbox on against keel as it ships, and
//      against a bare module hooking the same events (the `settled in` times of the debug log).
// Run alone:  node --import ./test/tools/ts-loader.mjs test/bench/mailbox.ts
//   (MAILBOX_BENCH_RUNS, default 3; MAILBOX_BENCH_PARTS=latency,cpu,turns, default all)
// `npm run bench` runs it (test/bench/run.mjs on main names it: `node test/bench/run.mjs mailbox`).
import { randomUUID } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { cleanupTmp, hookSettles, loadedModules, packageCopy, runClaude, tmpDir, writePlugin } from '../e2e/engine.ts'
import type { LiveSession } from '../e2e/live.ts'
import { holding, mailboxWorld, mailIdOf, results, sleep, toolSend, type World } from '../e2e/mailbox-world.ts'
import { startMockModel } from '../e2e/mock-model.ts'
import { cpuMs } from '../e2e/multi.ts'

const RUNS = Number(process.env.MAILBOX_BENCH_RUNS ?? 3)
/** Which parts run: `latency`, `cpu`, `turns` (comma-separated; all by default). */
const PARTS = new Set((process.env.MAILBOX_BENCH_PARTS ?? 'latency,cpu,turns').split(',').map((p) => p.trim()))
const IDLE_WINDOW_S = 20
const IDLE_LIMIT = 1.1
const TURN_LIMIT = 1.05

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length ? (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2 : NaN }
const range = (xs: number[]) => `${Math.min(...xs).toFixed(0)}-${Math.max(...xs).toFixed(0)}`
const line = (label: string, value: string) => console.log(`${label.padEnd(58)} ${value}`)

/** When the debug log says something matching `re` (its ISO timestamp), in ms. */
function loggedAt(s: LiveSession, re: RegExp): number {
  const found = s.debugLog().split('\n').find((l) => re.test(l))
  return found ? Date.parse(found.slice(0, 24)) : NaN
}
const sendStart = (s: LiveSession, id: string) => loggedAt(s, new RegExp(`\\$\\.fs\\.write \\(ws\\): .*${id}`))
const firstRequestWith = (w: World, sid: string, needle: string) => w.mock.of(sid, 'main').find((st) => holding(st, needle) > 0)

async function withWorld<T>(run: (w: World) => Promise<T>): Promise<T> {
  const w = await mailboxWorld()
  try {
    return await run(w)
  } finally {
    await w.close()
  }
}

async function liveIdle(): Promise<number[]> {
  return withWorld(async (w) => {
    const [sidA, sidB] = [randomUUID(), randomUUID()]
    const A = await w.start({ name: 'keel-A', sid: sidA })
    const B = await w.start({ name: 'keel-B', sid: sidB })
    const out: number[] = []
    for (let i = 0; i < RUNS; i++) {
      const tag = `IDLE-${i}-${randomUUID().slice(0, 6)}`
      const sent = await toolSend(w.mock, A, sidA, { to: 'keel-B', text: tag })
      const req = await B.waitFor('the mail', () => firstRequestWith(w, sidB, tag), 20_000)
      out.push(req.at - sendStart(A, mailIdOf(sent.text)!))
      await B.waitFor('its turn', () => results(B).length > i, 20_000)
      await sleep(2000)
    }
    return out
  })
}

async function liveBusy(): Promise<{ latency: number[]; afterTool: number[] }> {
  const TOOL_MS = 4000
  return withWorld(async (w) => {
    const [sidA, sidB] = [randomUUID(), randomUUID()]
    const A = await w.start({ name: 'keel-A', sid: sidA })
    const B = await w.start({ name: 'keel-B', sid: sidB, args: ['--allowedTools', 'Bash'] })
    const latency: number[] = []
    const afterTool: number[] = []
    for (let i = 0; i < RUNS; i++) {
      const before = w.mock.of(sidB, 'main').length
      await B.send(`DO-BUSY 1 ${TOOL_MS / 1000}`)
      const started = await B.waitFor('B busy', () => w.mock.of(sidB, 'main')[before], 20_000)
      await sleep(1000)
      const tag = `BUSY-${i}-${randomUUID().slice(0, 6)}`
      const sent = await toolSend(w.mock, A, sidA, { to: 'keel-B', text: tag })
      const req = await B.waitFor('the mail', () => firstRequestWith(w, sidB, tag), 20_000)
      latency.push(req.at - sendStart(A, mailIdOf(sent.text)!))
      // The tool began as its request was answered (the mock answers at once): it ended TOOL_MS later.
      afterTool.push(req.at - (started.at + TOOL_MS))
      await B.waitFor('its turn', () => results(B).length > i, 30_000)
      await sleep(2000)
    }
    return { latency, afterTool }
  })
}

async function keptThenStarted(mode: 'stream-json' | 'tui'): Promise<{ fromStart: number[]; fromLaunch: number[] }> {
  return withWorld(async (w) => {
    const sidA = randomUUID()
    const A = await w.start({ name: 'keel-A', sid: sidA })
    const fromStart: number[] = []
    const fromLaunch: number[] = []
    for (let i = 0; i < RUNS; i++) {
      const key = `keel-C${i}`
      const tag = `KEPT-${i}-${randomUUID().slice(0, 6)}`
      await toolSend(w.mock, A, sidA, { to: key, text: tag })
      const sid = randomUUID()
      const launched = Date.now()
      const C = await w.start({ mode, name: key, sid })
      const req = await C.waitFor('the kept mail', () => firstRequestWith(w, sid, tag), 30_000)
      fromStart.push(req.at - loggedAt(C, /ws@inline session\.start settled/))
      fromLaunch.push(req.at - launched)
      await w.stop(C)
    }
    return { fromStart, fromLaunch }
  })
}

/** Engine CPU of an idle named session over the window, mailbox on and off alternating. */
async function idleCpu(): Promise<Record<'on' | 'off', number[]>> {
  const out: Record<'on' | 'off', number[]> = { on: [], off: [] }
  for (let i = 0; i < RUNS; i++) {
    for (const state of ['on', 'off'] as const) {
      const w = await mailboxWorld({ options: { mailbox: state } })
      try {
        const s = await w.start({ name: 'keel-I', sid: randomUUID(), keyed: state === 'on' })
        await sleep(3000)
        const pid = s.pid()!
        const before = cpuMs(pid)
        await sleep(IDLE_WINDOW_S * 1000)
        out[state].push(cpuMs(pid) - before)
      } finally {
        await w.close()
      }
    }
  }
  return out
}

/**
 * The settle times of each per-turn event in two-turn sessions, three modules alternating: keel as it
 * ships (reconnect on), keel with the mailbox on too, and a bare module on the same events that
 * registers one tool and one command at start as keel does. A `turn.start` settle includes the
 * engine's own turn setup (its `next`), which takes 60-110 ms under a keel module against 15-35 ms
 * under the bare one whatever the features do (measured: reconnect alone and the mailbox alone
 * alike), so the mailbox's own cost is its ratio to keel as it ships.
 */
async function perTurn(): Promise<Record<'keel' | 'mailbox' | 'bare', Record<string, number[]>>> {
  const mock = await startMockModel()
  try {
    const dir = packageCopy('keel')
    const settingsOf = (options: Record<string, string>) => ({ pluginConfigs: { 'keel@inline': { options } } })
    const first = await runClaude({ prompt: 'hello', pluginDirs: [dir], mock, settings: settingsOf({ mailbox: 'on' }), extraArgs: ['--name', 'keel-P'] })
    const events = [...new Set(loadedModules(first.debugLog).find((m) => m.plugin === 'keel')?.events ?? [])]
    const bareDir = join(tmpDir('bare'), 'bare')
    mkdirSync(bareDir, { recursive: true })
    const start = "  on('session.start', async ($, e, next) => { await Promise.all([$.command.register({ name: 'bare', description: 'a command like the package\\'s' }), $.tool.register({ name: 'mailbox_send', description: 'a tool like the mailbox\\'s', inputSchema: { type: 'object', properties: {} }, isDeferred: false })]); return next(e) })"
    writePlugin(bareDir, 'bare', `export function register(on) {\n${events.map((e) => (e === 'session.start' ? start : `  on(${JSON.stringify(e)}, ($, e, next) => next(e))`)).join('\n')}\n}\n`)
    const variants = [['keel', dir, 'keel', settingsOf({})], ['mailbox', dir, 'keel', settingsOf({ mailbox: 'on' })], ['bare', bareDir, 'bare', {}]] as const
    const samples: Record<'keel' | 'mailbox' | 'bare', Record<string, number[]>> = { keel: {}, mailbox: {}, bare: {} }
    for (let round = 0; round < 2 * RUNS; round++) {
      for (const [who, pluginDir, name, settings] of variants) {
        const one = await runClaude({ prompt: 'hello', pluginDirs: [pluginDir], mock, settings, extraArgs: ['--name', `keel-P${round}`] })
        const two = await runClaude({ prompt: 'and again', pluginDirs: [pluginDir], mock, settings, home: one.home, cwd: one.cwd, resume: one.sessionId })
        for (const run of [one, two]) {
          for (const h of hookSettles(run.debugLog).filter((x) => x.plugins.length === 1 && x.plugins[0] === name)) (samples[who][h.event] ??= []).push(h.ms)
        }
      }
    }
    return samples
  } finally {
    await mock.close()
  }
}

export async function mailboxBench(): Promise<void> {
  console.log(`\nMailbox (${RUNS} runs of each; engine sessions of one HOME against the mock model)`)
  if (PARTS.has('latency')) {
    const idle = await liveIdle()
    line('  live, idle recipient: send to its model request', `median ${median(idle).toFixed(0)} ms (${range(idle)})`)
    const busy = await liveBusy()
    line('  live, busy recipient (a 4 s tool, sent 1 s into it)', `median ${median(busy.latency).toFixed(0)} ms (${range(busy.latency)}); ${median(busy.afterTool).toFixed(0)} ms after the tool's end (${range(busy.afterTool)})`)
    const headless = await keptThenStarted('stream-json')
    line('  kept then started, headless (stream-json)', `median ${median(headless.fromStart).toFixed(0)} ms from session.start (${range(headless.fromStart)}; 1.5 s of it the idle wait), ${median(headless.fromLaunch).toFixed(0)} ms from the launch`)
    const watched = await keptThenStarted('tui')
    line('  kept then started, watched (terminal UI)', `median ${median(watched.fromStart).toFixed(0)} ms from session.start (${range(watched.fromStart)}), ${median(watched.fromLaunch).toFixed(0)} ms from the launch`)
  }
  if (PARTS.has('cpu')) {
    const cpu = await idleCpu()
    const ratio = median(cpu.on) / median(cpu.off)
    line(`  idle CPU over ${IDLE_WINDOW_S} s, mailbox on vs off`, `${median(cpu.on).toFixed(0)} vs ${median(cpu.off).toFixed(0)} ms (${ratio.toFixed(2)}x; on ${range(cpu.on)}, off ${range(cpu.off)}) ${ratio <= IDLE_LIMIT ? 'OK' : 'OVER'} (<= ${IDLE_LIMIT}x)`)
  }
  if (PARTS.has('turns')) {
    const samples = await perTurn()
    const events = Object.keys(samples.mailbox).filter((e) => e !== 'session.start' && e !== 'session.end')
    const geomean = (over: 'keel' | 'bare') => Math.exp(events.reduce((sum, e) => sum + Math.log(median(samples.mailbox[e]!) / median(samples[over][e] ?? [])), 0) / events.length)
    const [vsKeel, vsBare] = [geomean('keel'), geomean('bare')]
    line(`  per-turn hooks, nothing waiting (${events.join(', ')})`, `${vsKeel.toFixed(3)}x keel as it ships ${vsKeel <= TURN_LIMIT ? 'OK' : 'OVER'} (<= ${TURN_LIMIT}x); ${vsBare.toFixed(3)}x a bare module`)
    for (const e of Object.keys(samples.mailbox)) {
      const [m, k, b] = [median(samples.mailbox[e]!), median(samples.keel[e] ?? []), median(samples.bare[e] ?? [])]
      line(`    ${e}${e === 'session.start' || e === 'session.end' ? ' (once per process)' : ''}, ${samples.mailbox[e]!.length} settles`, `${m.toFixed(2)} ms; keel as it ships ${k.toFixed(2)} (${(m / k).toFixed(2)}x), bare ${b.toFixed(2)} (${(m / b).toFixed(2)}x)`)
    }
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    await mailboxBench()
  } finally {
    cleanupTmp()
  }
}
