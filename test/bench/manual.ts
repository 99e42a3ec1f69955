// The manual feature's costs and savings, in the real engine against the mock model:
//   1. Per-turn hooks: the `settled in` times the debug log gives for the package's hooks (keel with
//      the manual alone on) against a bare pass-through module hooking the same events, over the same
//      multi-turn stream-json session (plain turns and Reads), the two alternating, each round's keel
//      run against the bare run beside it (the machine's load drifts); in a manual project and in a
//      project with none. The first prompt.compose of a process takes the copy (one
//      per reset, like session.start): reported apart from the per-turn ones.
//   2. Tokens: a scripted session of repeated reads (the manual and a playbook under its folder) with
//      the feature on and off (ws), counted from the mock's recorded requests (system prompt and
//      messages, characters over four), and the feature's own count from its status.
// Run: node build.mjs && node --import ./test/tools/ts-loader.mjs test/bench/manual.ts
//      (BENCH_ROUNDS, default 4; BENCH_TURNS, default 8).
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { cleanupTmp, hookSettles, loadedModules, packageCopy, tmpDir, writePlugin } from '../e2e/engine.ts'
import { startLive } from '../e2e/live.ts'
import { lastUserText, requestText, startMockModel, type MockModel, type RecordedRequest, type Reply } from '../e2e/mock-model.ts'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4)
const TURNS = Number(process.env.BENCH_TURNS ?? 8)
const LIMIT = 1.05
const MANUAL = 'ai-docs/WORKFLOW.md'
const MANUAL_TEXT = `# Workflow\n\n## Steps\n${'Take one step at a time, and check each before the next one starts.\n'.repeat(60)}`
const PLAYBOOK = `# Release\n## Checklist\n${'- tag the commit, build the packages, publish them, announce the release\n'.repeat(50)}`
const SOURCE = `export const answer = 42\n${'// a line of source\n'.repeat(80)}`

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return s.length ? (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2 : NaN }
const line = (label: string, value: string) => console.log(`${label.padEnd(64)} ${value}`)

function script(req: RecordedRequest): Reply | undefined {
  if (req.kind !== 'main') return undefined
  const msgs: any[] = req.body?.messages ?? []
  const last = msgs[msgs.length - 1]
  if (Array.isArray(last?.content) && last.content.some((b: any) => b.type === 'tool_result')) return { text: 'done' }
  const read = /READ (\S+)/.exec(lastUserText(req.body))
  return read ? { toolUse: { name: 'Read', input: { file_path: read[1] } } } : { text: 'ok' }
}

function project(withManual: boolean): string {
  const cwd = tmpDir('bench-proj')
  const files: Record<string, string> = { 'ai-docs/playbooks/release.md': PLAYBOOK, 'src/answer.ts': SOURCE, ...(withManual ? { [MANUAL]: MANUAL_TEXT } : {}) }
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(cwd, name)), { recursive: true })
    writeFileSync(join(cwd, name), text)
  }
  return cwd
}

/** One stream-json session of `prompts`, each waited for; answers the debug log and the last result text. */
async function session(mock: MockModel, pluginDir: string, cwd: string, prompts: string[], settings?: object): Promise<{ log: string; result: string }> {
  const live = await startLive({ mode: 'stream-json', pluginDirs: [pluginDir], mock, cwd, ...(settings ? { settings } : {}), extraArgs: ['--allowedTools', 'Read'] })
  const results = () => live.output().split('\n').filter((l) => l.startsWith('{') && l.includes('"type":"result"'))
  try {
    for (let i = 0; i < prompts.length; i++) {
      await live.send(prompts[i]!)
      await live.waitFor(`turn ${i + 1}`, () => results().length > i, 60_000)
    }
    return { log: live.debugLog(), result: String(JSON.parse(results().at(-1)!).result ?? '') }
  } finally {
    await live.stop()
  }
}

const bareModule = (events: string[]) => `export function register(on) {\n${events.map((e) => `  on(${JSON.stringify(e)}, ($, e, next) => next(e))`).join('\n')}\n}\n`
const ONCE = new Set(['session.start', 'session.end'])

/** The per-turn prompts: plain turns and Reads of the manual, a playbook under its folder and a source file. */
const turnsIn = (cwd: string) => Array.from({ length: TURNS }, (_, i) => [`turn ${i}`, `READ ${join(cwd, MANUAL)}`, `READ ${join(cwd, 'ai-docs/playbooks/release.md')}`, `READ ${join(cwd, 'src/answer.ts')}`][i % 4]!)

async function perTurn(mock: MockModel, label: string, withManual: boolean): Promise<void> {
  const keel = packageCopy('keel')
  const options = { manual: 'on', reconnect: 'off', checkpoint: 'off', timing: 'off', window: 'off', captions: 'off', routing: 'off' }
  const settings = { pluginConfigs: { 'keel@inline': { options } } }
  const probeCwd = project(withManual)
  const probe = await session(mock, keel, probeCwd, ['hello'], settings)
  const events = [...new Set(loadedModules(probe.log).find((m) => m.plugin === 'keel')?.events ?? [])]
  const bareDir = join(tmpDir('bare'), 'bare')
  mkdirSync(bareDir, { recursive: true })
  writePlugin(bareDir, 'bare', bareModule(events))
  type Samples = Record<string, number[]>
  const samples: Record<'keel' | 'bare', Samples> = { keel: {}, bare: {} }
  /** Per round, each event's keel median over the bare median of the run beside it: slow drift in the machine's load cancels. */
  const paired: Record<string, number[]> = {}
  for (let round = 0; round < ROUNDS; round++) {
    const mine: Record<'keel' | 'bare', Samples> = { keel: {}, bare: {} }
    for (const [who, dir] of [['keel', keel], ['bare', bareDir]] as const) {
      const cwd = project(withManual)
      const { log } = await session(mock, dir, cwd, turnsIn(cwd), who === 'keel' ? settings : undefined)
      let composes = 0
      for (const s of hookSettles(log).filter((h) => h.plugins.length === 1 && h.plugins[0] === who)) {
        // The first compose of a process takes the copy (once per reset): apart from the per-turn ones.
        const event = s.event === 'prompt.compose' && composes++ === 0 ? 'prompt.compose (first)' : s.event
        ;(samples[who][event] ??= []).push(s.ms)
        ;(mine[who][event] ??= []).push(s.ms)
      }
    }
    for (const event of Object.keys(mine.keel)) if (mine.bare[event]) (paired[event] ??= []).push(median(mine.keel[event]!) / median(mine.bare[event]!))
  }
  const perTurnEvents = Object.keys(samples.keel).filter((e) => !ONCE.has(e) && e !== 'prompt.compose (first)')
  const ratios = perTurnEvents.map((e) => median(paired[e] ?? []))
  const geomean = Math.exp(ratios.reduce((sum, r) => sum + Math.log(r), 0) / ratios.length)
  console.log(`\nEngine: keel with the manual alone on, ${label} (${ROUNDS} rounds of a ${TURNS}-turn session, alternating with a bare pass-through module on the same events: ${events.join(', ')})`)
  line(`  per-turn hooks (${perTurnEvents.join(', ')})`, `${geomean.toFixed(3)}x the bare module (geometric mean over events of the median per-round ratio) ${geomean <= LIMIT ? 'OK' : 'OVER'} (<= ${LIMIT}x)`)
  for (const e of Object.keys(samples.keel)) {
    const [k, b] = [median(samples.keel[e]!), median(samples.bare[e] ?? [])]
    const spread = [...(paired[e] ?? [])].sort((x, y) => x - y)
    line(`  ${e}${ONCE.has(e) || e.endsWith('(first)') ? ' (once per process / reset)' : ''}, ${samples.keel[e]!.length} settles`, `${k.toFixed(2)} ms vs ${b.toFixed(2)} ms; per-round ratio ${median(spread).toFixed(2)}x (${spread[0]?.toFixed(2)}..${spread[spread.length - 1]?.toFixed(2)})`)
  }
}

/** Characters the model was sent over a session: every main request's system prompt and messages. */
const sentChars = (requests: RecordedRequest[]) => requests.reduce((sum, r) => sum + requestText(r.body).length, 0)

async function tokens(): Promise<void> {
  const runs: Record<'on' | 'off', { total: number; last: number; requests: number; status: string }> = {} as never
  for (const which of ['off', 'on'] as const) {
    const mock = await startMockModel(script)
    try {
      const cwd = project(true)
      const manual = `READ ${join(cwd, MANUAL)}`
      const playbook = `READ ${join(cwd, 'ai-docs/playbooks/release.md')}`
      const prompts = [manual, 'work', playbook, 'work', manual, playbook, playbook, 'work', manual, playbook, 'work', manual]
      const settings = { pluginConfigs: { 'ws@inline': { options: { manual: which } } } }
      const { result } = await session(mock, packageCopy('ws'), cwd, [...prompts, '/ws status'], settings)
      const main = mock.messages('main')
      runs[which] = { total: sentChars(main), last: requestText(main[main.length - 1]!.body).length, requests: main.length, status: result.split('\n').find((l) => l.includes('pointers:'))?.trim() ?? '(feature off)' }
    } finally {
      await mock.close()
    }
  }
  const est = (chars: number) => Math.round(chars / 4)
  console.log(`\nTokens: a scripted ws session of repeated reads (the ${MANUAL_TEXT.length}-byte manual read 4 times, a ${PLAYBOOK.length}-byte playbook under ai-docs/ 4 times, 4 plain turns), the manual feature off and on`)
  for (const which of ['off', 'on'] as const) {
    const r = runs[which]
    line(`  manual ${which}: ${r.requests} main requests`, `sent ${est(r.total)} tokens in all (chars/4); the last request ${est(r.last)} tokens`)
  }
  const saved = runs.off.total - runs.on.total
  line('  saved by the feature, over the session', `${est(saved)} tokens (${((saved / runs.off.total) * 100).toFixed(1)}% of what was sent); the last request ${est(runs.off.last - runs.on.last)} tokens smaller`)
  line('  the feature\'s own count (status)', runs.on.status)
}

console.log(`keel manual bench (${new Date().toISOString()}, node ${process.version})`)
const mock = await startMockModel(script)
try {
  await perTurn(mock, 'in a manual project', true)
  await perTurn(mock, 'in a project with no manual', false)
} finally {
  await mock.close()
}
await tokens()
cleanupTmp()
