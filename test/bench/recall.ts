// Recall's search time over a 200 MB transcript (issue 22: within 2 s on these 2 cores, never read
// whole into memory), measured two ways in one run:
//   1. in the engine: a superheroes session whose transcript file gets ~200 MB of realistic rows
//      appended after its first turn (the engine only appends to it), then the model's own recall
//      calls; the time is the package's `tool.call settled in` of the debug log, the CPU the engine
//      process's over the turn;
//   2. the floor: a bare probe plugin in the same session reading the same file in the same ranges
//      through `$.fs.read`, nothing searched (what the engine's reads alone cost);
// and the engine process's peak resident memory before and after (never the file's size more).
// Rows mix as a long session's do: prompts, replies with tool calls, tool results, the engine's
// attachment and request-record rows (most of the bytes), a few non-ASCII words.
// Run alone: node build.mjs && node --import ./test/tools/ts-loader.mjs test/bench/recall.ts
//   (RECALL_BENCH_MB, default 200; RECALL_BENCH_ROUNDS, default 3)
import { appendFileSync, readFileSync, statSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { cleanupTmp, findFiles, hookSettles, packageCopy, tmpDir, writePlugin } from '../e2e/engine.ts'
import { startLive } from '../e2e/live.ts'
import { lastUserText, startMockModel, type RecordedRequest, type Reply } from '../e2e/mock-model.ts'
import { cpuMs } from '../e2e/multi.ts'
import { RECALL_CHUNK_BYTES } from '../../src/features/checkpoint/constants.ts'

const MB = Number(process.env.RECALL_BENCH_MB ?? 200)
const ROUNDS = Number(process.env.RECALL_BENCH_ROUNDS ?? 3)
const LIMIT_MS = 2000
const PKG = 'superheroes'
const TOOL = `mcp__${PKG}__recall`
const FACT = 'Naming rule from the person: every module name is a noun (규칙 코알라-17), never a verb.'
/** A rare word, a phrase, and common words that hit most rows (the parse-heavy case). */
const QUERIES = ['코알라', '"module name is a noun"', 'parser error config']

const median = (xs: number[]) => { const s = [...xs].sort((a, b) => a - b); return (s[Math.floor((s.length - 1) / 2)]! + s[Math.ceil((s.length - 1) / 2)]!) / 2 }
const line = (label: string, value: string) => console.log(`${label.padEnd(64)} ${value}`)
/** A process's peak resident memory so far, in MiB (Linux). */
const peakMiB = (pid: number) => Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024

/** ~`mb` MB of rows in the shapes the engine writes (measured: test/e2e/recall.test.ts, NOTES.md). */
function appendRows(path: string, mb: number, sessionId: string): void {
  const words = 'the parser lexer token config build test failing error file path module function value session compact summary notes charter window model request reply tool result read write edit bash grep commit branch review design naming rule 정의 위치 확인 naïve'.split(' ')
  let seed = 7
  const text = (n: number) => Array.from({ length: n }, () => words[(seed = (seed * 1103515245 + 12345) % 2147483648) % words.length]).join(' ')
  const base = { isSidechain: false, userType: 'external', entrypoint: 'sdk-cli', cwd: '/w', sessionId, version: '2.1.328' }
  const target = mb * 1024 * 1024
  let written = 0
  for (let i = 0; written < target; ) {
    const rows: string[] = []
    for (let k = 0; k < 100; k++, i++) {
      const timestamp = new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString()
      const kind = i % 10
      const row = kind === 0 ? { ...base, type: 'user', message: { role: 'user', content: text(30) }, timestamp }
        : kind < 4 ? { ...base, type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: text(80) }, { type: 'tool_use', id: `t${i}`, name: 'Bash', input: { command: `grep -rn "${text(2)}" src` } }] }, timestamp }
          : kind < 7 ? { ...base, type: 'user', message: { role: 'user', content: [{ tool_use_id: `t${i}`, type: 'tool_result', content: text(600) }] }, toolUseResult: { stdout: text(600) }, timestamp }
            : kind === 7 ? { ...base, type: 'attachment', attachment: { type: 'prompt_snapshot', systemPrompt: [text(6000)] }, timestamp }
              : { type: 'api-request-shape', sessionId, shape: { system: text(4000), messages: [{ role: 'user', content: [{ type: 'text', text: text(200) }] }] }, timestamp }
      rows.push(JSON.stringify(row))
    }
    const chunk = rows.join('\n') + '\n'
    appendFileSync(path, chunk)
    written += Buffer.byteLength(chunk)
  }
}

/** The floor: the same ranges read in order, nothing searched. */
const READER = `
export function register(on) {
  on('session.start', async ($, e, next) => {
    await $.tool.register({ name: 'read', description: 'reads a file in ranges', inputSchema: { type: 'object' } })
    return next(e)
  })
  on('tool.call', { tool: 'mcp__reader__read' }, async ($, e, next) => {
    const { size } = await $.fs.stat(e.path)
    let chars = 0
    for (let at = 0; at < size; at += ${RECALL_CHUNK_BYTES}) chars += (await $.fs.read(e.path, { offset: at, length: ${RECALL_CHUNK_BYTES} })).length
    return { result: 'read ' + chars }
  })
}
`

function script(req: RecordedRequest): Reply | undefined {
  if (req.kind !== 'main') return undefined
  const last = req.body?.messages?.at(-1)
  if (Array.isArray(last?.content) && last.content.some((b: any) => b.type === 'tool_result')) return { text: 'done' }
  const text = lastUserText(req.body)
  const ask = /\bASK (.+)$/m.exec(text)
  if (ask) return { toolUse: { name: TOOL, input: { query: ask[1] } } }
  const read = /\bREAD (\S+)/.exec(text)
  return read ? { toolUse: { name: 'mcp__reader__read', input: { path: read[1] } } } : { text: 'ok' }
}

async function main(): Promise<void> {
  const mock = await startMockModel(script)
  const reader = writePlugin(join(tmpDir('reader'), 'reader'), 'reader', READER)
  const live = await startLive({ mode: 'stream-json', pluginDirs: [packageCopy(PKG), reader], mock, extraArgs: ['--allowedTools', 'mcp__reader__read'] })
  const results = () => live.output().split('\n').filter((l) => l.startsWith('{') && l.includes('"type":"result"')).map((l) => JSON.parse(l))
  const turn = async (text: string) => {
    const n = results().length + 1
    await live.send(text)
    await live.waitFor(`the result of ${text}`, () => results().length >= n, 120_000)
  }
  try {
    await turn(FACT)
    const sessionId = results()[0].session_id as string
    const [path] = findFiles(live.home, `${sessionId}.jsonl`)
    if (!path) throw new Error('no transcript file')
    appendRows(path, MB, sessionId)
    const size = statSync(path).size
    console.log(`\nRecall over a ${(size / 1048576).toFixed(0)} MiB transcript (${ROUNDS} rounds per query; load average ${loadavg().map((x) => x.toFixed(1)).join(' ')})`)
    const engine: Record<string, { ms: number[]; cpu: number[] }> = {}
    /** One turn's tool call: the longest `tool.call` settle of `plugin` it logged, and the engine's CPU over the turn. */
    const measure = async (label: string, prompt: string, plugin: string) => {
      const settles = () => hookSettles(live.debugLog()).filter((s) => s.event === 'tool.call' && s.plugins.includes(plugin))
      const before = settles().length
      const cpu = cpuMs(live.pid()!)
      await turn(prompt)
      const got = (engine[label] ??= { ms: [], cpu: [] })
      got.ms.push(settles().slice(before).reduce((max, s) => Math.max(max, s.ms), 0))
      got.cpu.push(cpuMs(live.pid()!) - cpu)
    }
    const peakBefore = peakMiB(live.pid()!)
    // Rounds alternate the queries with the floor, so the machine's drifting load falls on each alike.
    for (let round = 0; round < ROUNDS; round++) {
      await measure('floor', `READ ${path}`, 'reader')
      for (const query of QUERIES) await measure(query, `ASK ${query}`, PKG)
    }
    const found = mock.messages('main').map((r) => JSON.stringify(r.body.messages.at(-1))).filter((t) => t.includes('tool_result') && t.includes('코알라-17')).length
    const floor = engine.floor!
    line(`  engine, the floor: $.fs.read of every ${RECALL_CHUNK_BYTES / 1048576} MiB range (min / median)`, `${Math.min(...floor.ms).toFixed(0)} / ${median(floor.ms).toFixed(0)} ms, engine CPU ${median(floor.cpu).toFixed(0)} ms`)
    for (const query of QUERIES) {
      const { ms, cpu } = engine[query]!
      const best = Math.min(...ms)
      line(`  engine, recall ${query} (min / median)`, `${best.toFixed(0)} / ${median(ms).toFixed(0)} ms (${(median(ms) / median(floor.ms)).toFixed(2)}x the floor), engine CPU ${median(cpu).toFixed(0)} ms ${best <= LIMIT_MS ? 'OK' : 'OVER'} (<= ${LIMIT_MS} ms)`)
    }
    line('  engine: the fact said before the 200 MB found', found >= ROUNDS * 2 ? 'yes' : `NO (${found})`)
    line('  engine: peak resident memory, before and after the searches', `${peakBefore.toFixed(0)} -> ${peakMiB(live.pid()!).toFixed(0)} MiB`)

  } finally {
    await live.stop()
    await mock.close()
    cleanupTmp()
  }
}

await main()
