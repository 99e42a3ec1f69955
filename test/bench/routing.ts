// The routing bench (`npm run bench` prints it; alone: node --import ./test/tools/ts-loader.mjs test/bench/routing.ts).
// One mock provider (test/e2e/mock-provider.ts) answers every arm, streaming PIECES text pieces PIECE_MS apart after
// FIRST_BYTE_MS; one clock (this process's Date.now()) times the provider's writes and the engine's stdout.
//   (a) the provider alone: a request from this process straight to its OpenAI endpoint;
//   (b) direct: the engine with ANTHROPIC_BASE_URL = the provider's own Anthropic endpoint (no router: the floor);
//   (c) keel: packages/klyth, `--model gpt-5` routed to the provider's OpenAI endpoint through curl;
//   (d) ccr: @musistudio/claude-code-router 2.0.0 (`ccr start`, a config under a temp HOME) in front of the same endpoint.
// Engine arms run `claude -p … --output-format stream-json --include-partial-messages --verbose`; the arms alternate,
// their order rotated per round. Then: klyth's per-turn hooks on a native session vs a bare module (settle.ts), and a
// correctness probe (a tool call streamed in pieces, a subagent on another model) through keel and through ccr.
// The loop part: a provider charging each new connection CONNECT_MS (reused ones nothing), a 10-request Bash tool loop
// through direct, keel and ccr; each request's time to first token (stdout `requesting` to its first text delta).
// The ledger part: a routed session's per-turn hooks (main `--model gpt-5`, the provider approved), klyth as built
// vs klyth with the usage ledger off (variants.ts withoutLedger), alternating (settle.ts): what counting costs a turn.
//   BENCH_ROUTING_ROUNDS=6   BENCH_ROUTING_SETTLE_ROUNDS=6   BENCH_ROUTING_LOOP_ROUNDS=3   BENCH_ROUTING_PARTS=latency,loop,correctness,hooks,ledger
//   BENCH_ROUTING_VERBOSE=1 (every run)   BENCH_QUIET=0 (no wait for a quiet machine)   BENCH_ROUTING=0 (bench.ts leaves it out)
import { spawn } from 'node:child_process'
import { cpSync, mkdirSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { claudeBin, cleanEnv, cleanupTmp, packageCopy, repoRoot, tmpDir } from '../e2e/engine.ts'
import { startMockModel, type MockModel } from '../e2e/mock-model.ts'
import { startMockProvider, type MockProvider, type ProviderNetwork, type ProviderReply, type ProviderRequest, type Rule } from '../e2e/mock-provider.ts'
import { fmt, median, stat, waitQuiet, type Stat } from './measure.ts'
import { engineSettle } from './settle.ts'
import { bundle, packageWith, withoutLedger } from './variants.ts'

const ROUNDS = Number(process.env.BENCH_ROUTING_ROUNDS ?? 6)
const SETTLE_ROUNDS = Number(process.env.BENCH_ROUTING_SETTLE_ROUNDS ?? 6)
const VERBOSE = !!process.env.BENCH_ROUTING_VERBOSE
const PARTS = new Set((process.env.BENCH_ROUTING_PARTS ?? 'latency,loop,correctness,hooks,ledger').split(','))
const LOOP_ROUNDS = Number(process.env.BENCH_ROUTING_LOOP_ROUNDS ?? 3)
/** A new connection's cost on a 30 ms link: two round trips and a TLS handshake, before the request is read. */
const CONNECT_MS = 70
const LOOP_REQUESTS = 10
const LOOP_PROMPT = 'routing bench: run the loop'
const GOAL = { addedTtftMs: 50, stream: 1.02, hooks: 1.05 }
const FIRST_BYTE_MS = 300
const PIECE_MS = 100
const PIECES = 10
export const PROMPT = 'routing bench: say the pieces'
export const ALIAS = 'gpt-5'
const PROVIDER_MODEL = 'gpt-5-mock'
const SUB_ALIAS = 'gpt-mini'
const SUB_MODEL = 'gpt-mini-mock'
const CCR_CLI = 'node_modules/@musistudio/claude-code-router/dist/cli.js'

export const REPLY: ProviderReply = { text: Array.from({ length: PIECES }, (_, i) => `piece-${String(i).padStart(2, '0')} `), firstByteMs: FIRST_BYTE_MS, pieceMs: PIECE_MS }
const EXPECTED = (REPLY.text as string[]).join('')

const line = (label: string, value: string) => console.log(`${label.padEnd(58)} ${value}`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })
}

// ---- The provider's own writes ----

/** Whether a written SSE piece carries answer text (OpenAI `delta.content` or Anthropic `text_delta`). */
function isTextPiece(piece: string): boolean {
  for (const l of piece.split('\n')) {
    if (!l.startsWith('data: ')) continue
    try {
      const d = JSON.parse(l.slice(6))
      if (typeof d?.choices?.[0]?.delta?.content === 'string' && d.choices[0].delta.content !== '') return true
      if (d?.type === 'content_block_delta' && d.delta?.type === 'text_delta' && d.delta.text) return true
    } catch { /* [DONE] */ }
  }
  return false
}

type Written = { arrivedAt: number; firstByteAt: number; firstTextAt: number; lastTextAt: number }
export function writtenOf(req: ProviderRequest): Written {
  const texts = req.writes.filter((w) => isTextPiece(w.text))
  if (!texts.length || req.firstByteAt === undefined) throw new Error(`provider: no text written for ${req.path}`)
  return { arrivedAt: req.arrivedAt, firstByteAt: req.firstByteAt, firstTextAt: texts[0]!.at, lastTextAt: texts.at(-1)!.at }
}

/** The run's main request: streamed, with tools, asking for the pieces. */
export const mainRequestOf = (provider: MockProvider, from: number) =>
  provider.requests.slice(from).find((r) => r.body?.stream && Array.isArray(r.body?.tools) && r.body.tools.length > 0 && r.raw.toString("utf8").includes(PROMPT))

// ---- The engine, its stdout timed line by line ----

type StreamRun = { code: number | null; stderr: string; lines: { at: number; json: any }[]; result?: any; startedAt: number }

/** One headless engine run in stream-json; every stdout line stamped when it arrived here. */
export function streamRun(o: { prompt: string; home: string; cwd: string; baseUrl: string; args?: string[]; timeoutMs?: number }): Promise<StreamRun> {
  const env = { ...cleanEnv(), HOME: o.home, ANTHROPIC_API_KEY: 'dummy', ANTHROPIC_BASE_URL: o.baseUrl, DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' }
  const args = ['-p', o.prompt, '--output-format', 'stream-json', '--include-partial-messages', '--verbose', ...(o.args ?? [])]
  const startedAt = Date.now()
  const child = spawn(claudeBin(), args, { cwd: o.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  const killGroup = () => { try { process.kill(-child.pid!, 'SIGKILL') } catch { /* gone */ } }
  const run: StreamRun = { code: null, stderr: '', lines: [], startedAt }
  let buf = ''
  child.stdout.setEncoding('utf8').on('data', (c: string) => {
    const at = Date.now()
    buf += c
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const text = buf.slice(0, i)
      buf = buf.slice(i + 1)
      try { run.lines.push({ at, json: JSON.parse(text) }) } catch { /* not a JSON line */ }
    }
  })
  child.stderr.setEncoding('utf8').on('data', (c: string) => { run.stderr += c })
  const timer = setTimeout(killGroup, o.timeoutMs ?? 90_000)
  process.once('exit', killGroup)
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code) => {
      clearTimeout(timer)
      process.removeListener('exit', killGroup)
      killGroup()
      run.code = code
      run.result = run.lines.find((l) => l.json?.type === 'result')?.json
      resolve(run)
    })
  })
}

/** Main's text deltas (not a subagent's), and the engine's `requesting` status before the first of them. */
export function stdoutTimes(run: StreamRun): { requestingAt: number; firstTextAt: number; lastTextAt: number; text: string } {
  const deltas = run.lines.filter((l) => l.json?.type === 'stream_event' && l.json.parent_tool_use_id == null && l.json.event?.type === 'content_block_delta' && l.json.event.delta?.type === 'text_delta')
  if (!deltas.length) throw new Error(`no text delta on stdout (exit ${run.code}): ${run.stderr.slice(-400)} ${JSON.stringify(run.result ?? {}).slice(0, 300)}`)
  const requesting = run.lines.filter((l) => l.json?.type === 'system' && l.json.subtype === 'status' && l.json.status === 'requesting' && l.at <= deltas[0]!.at).at(-1)
  return { requestingAt: requesting?.at ?? NaN, firstTextAt: deltas[0]!.at, lastTextAt: deltas.at(-1)!.at, text: deltas.map((d) => d.json.event.delta.text).join('') }
}

// ---- claude-code-router ----

type Ccr = { url: string; pid: number; stop(): Promise<void> }

/**
 * `ccr start` (it serves in the foreground and writes its pid file) with its config under a temp HOME (and TMPDIR, where it
 * keeps a reference count): one provider at the mock's OpenAI endpoint, the router's default on `models[0]`. Stopped by pid.
 */
export async function startCcr(providerUrl: string, models: string[]): Promise<Ccr> {
  const home = tmpDir('ccr-home')
  const tmp = tmpDir('ccr-tmp')
  const port = await freePort()
  mkdirSync(join(home, '.claude-code-router'), { recursive: true })
  writeFileSync(join(home, '.claude-code-router/config.json'), JSON.stringify({
    PORT: port, HOST: '127.0.0.1', LOG: false, API_TIMEOUT_MS: 60_000,
    Providers: [{ name: 'mock', api_base_url: `${providerUrl}/v1/chat/completions`, api_key: 'sk-bench-ccr', models }],
    Router: { default: `mock,${models[0]}` },
  }, null, 2))
  const child = spawn(process.execPath, [join(repoRoot(), CCR_CLI), 'start'], { cwd: home, env: { ...cleanEnv(), HOME: home, TMPDIR: tmp }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (c: string) => { out += c })
  child.stderr.setEncoding('utf8').on('data', (c: string) => { out += c })
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()))
  const stop = async () => {
    try { process.kill(child.pid!, 'SIGTERM') } catch { return }
    if (await Promise.race([closed.then(() => true), sleep(3000).then(() => false)])) return
    try { process.kill(child.pid!, 'SIGKILL') } catch { /* gone */ }
    await closed
  }
  process.once('exit', () => { try { process.kill(child.pid!, 'SIGKILL') } catch { /* gone */ } })
  const url = `http://127.0.0.1:${port}`
  for (const until = Date.now() + 30_000; Date.now() < until;) {
    if (child.exitCode !== null) break
    try {
      if ((await fetch(`${url}/health`)).ok) return { url, pid: child.pid!, stop }
    } catch { /* not yet */ }
    await sleep(100)
  }
  await stop()
  throw new Error(`ccr did not start: ${out.slice(-500)}`)
}

// ---- keel's side: a HOME with klyth's routing.json and the provider approved ----

/** A HOME whose keel/routing.json routes the aliases to the provider's OpenAI endpoint, approved by `/klyth route trust mock`. */
export async function keelHome(provider: MockProvider, klyth: string, mock: MockModel): Promise<{ home: string; cwd: string }> {
  const home = tmpDir('route-home')
  const cwd = tmpDir('route-proj')
  writeRoutingJson(home, provider)
  const trust = await streamRun({ prompt: '/klyth route trust mock', home, cwd, baseUrl: mock.url, args: ['--plugin-dir', klyth] })
  if (!/approved provider mock/.test(String(trust.result?.result))) throw new Error(`klyth trust failed: ${JSON.stringify(trust.result ?? {}).slice(0, 300)} ${trust.stderr.slice(-300)}`)
  return { home, cwd }
}

export function writeRoutingJson(home: string, provider: MockProvider): void {
  mkdirSync(join(home, '.claude/keel'), { recursive: true })
  writeFileSync(join(home, '.claude/keel/routing.json'), JSON.stringify({
    providers: { mock: { api: 'openai-chat', baseUrl: `${provider.url}/v1`, auth: 'none' } },
    models: {
      [ALIAS]: { provider: 'mock', model: PROVIDER_MODEL, context: 400000, label: 'GPT-5 (mock)' },
      [SUB_ALIAS]: { provider: 'mock', model: SUB_MODEL, context: 128000 },
    },
  }, null, 2))
}

// ---- (a) the provider alone ----

/** A streamed request from this process straight to the provider: its own time to first text, and what reading it costs here. */
function providerAlone(provider: MockProvider): Promise<{ firstTextSeenAt: number; lastTextSeenAt: number }> {
  const body = JSON.stringify({ model: PROVIDER_MODEL, stream: true, messages: [{ role: 'user', content: PROMPT }], tools: [{ type: 'function', function: { name: 'noop', parameters: { type: 'object' } } }] })
  return new Promise((resolve, reject) => {
    const seen: number[] = []
    let buf = ''
    const req = request(`${provider.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.setEncoding('utf8')
      res.on('data', (c: string) => {
        const at = Date.now()
        buf += c
        for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
          if (isTextPiece(buf.slice(0, i))) seen.push(at)
          buf = buf.slice(i + 2)
        }
      })
      res.on('end', () => (seen.length ? resolve({ firstTextSeenAt: seen[0]!, lastTextSeenAt: seen.at(-1)! }) : reject(new Error('provider alone: no text'))))
    })
    req.on('error', reject)
    req.end(body)
  })
}

// ---- One run of an arm ----

type Sample = {
  /** Provider: arrival to its first text piece written (its own time to first token). */
  providerTtft: number
  /** Provider: first byte to its last text piece written. */
  providerStream: number
  /** stdout's `requesting` status to the request's arrival at the provider (engine arms). */
  requestPath: number
  /** The provider's first text piece written to the first text delta on stdout. */
  responsePath: number
  /** The brief's reading: the provider's first byte to stdout's first text delta (includes the provider's own PIECE_MS before its first text). */
  firstByteToText: number
  /** The engine's time to first token (stdout `requesting` to the first text delta) less the provider's own. */
  addedTtft: number
  /** The provider's last text piece to stdout's last text delta. */
  tail: number
  /** (provider first byte to stdout's last text) / (provider first byte to its last text piece). */
  streamRatio: number
}

type Arm = 'provider alone' | 'direct (engine -> provider, Anthropic API)' | 'keel (klyth, curl)' | 'ccr 2.0.0'

type ArmContext = { provider: MockProvider; mock: MockModel; keel: { home: string; cwd: string }; klyth: string; ccr: Ccr; directHome: { home: string; cwd: string } }

async function runArm(arm: Arm, ctx: ArmContext): Promise<Sample> {
  const from = ctx.provider.requests.length
  const native = ctx.mock.requests.length
  if (arm === 'provider alone') {
    const seen = await providerAlone(ctx.provider)
    const w = writtenOf(ctx.provider.requests[from]!)
    return {
      providerTtft: w.firstTextAt - w.arrivedAt, providerStream: w.lastTextAt - w.firstByteAt, requestPath: NaN,
      responsePath: seen.firstTextSeenAt - w.firstTextAt, firstByteToText: seen.firstTextSeenAt - w.firstByteAt, addedTtft: NaN,
      tail: seen.lastTextSeenAt - w.lastTextAt, streamRatio: (seen.lastTextSeenAt - w.firstByteAt) / (w.lastTextAt - w.firstByteAt),
    }
  }
  const run = arm === 'keel (klyth, curl)'
    ? await streamRun({ prompt: PROMPT, ...ctx.keel, baseUrl: ctx.mock.url, args: ['--plugin-dir', ctx.klyth, '--model', ALIAS] })
    : arm === 'ccr 2.0.0'
      ? await streamRun({ prompt: PROMPT, ...ctx.directHome, baseUrl: ctx.ccr.url })
      : await streamRun({ prompt: PROMPT, ...ctx.directHome, baseUrl: ctx.provider.url })
  const req = mainRequestOf(ctx.provider, from)
  if (!req) throw new Error(`${arm}: the provider got no main request (exit ${run.code}): ${run.stderr.slice(-400)}`)
  const w = writtenOf(req)
  const out = stdoutTimes(run)
  if (out.text !== EXPECTED) throw new Error(`${arm}: stdout text ${JSON.stringify(out.text)} is not the provider's`)
  if (run.code !== 0) throw new Error(`${arm}: exit ${run.code}`)
  if (ctx.mock.requests.length !== native) throw new Error(`${arm}: a request reached the native model`)
  return {
    providerTtft: w.firstTextAt - w.arrivedAt,
    providerStream: w.lastTextAt - w.firstByteAt,
    requestPath: w.arrivedAt - out.requestingAt,
    responsePath: out.firstTextAt - w.firstTextAt,
    firstByteToText: out.firstTextAt - w.firstByteAt,
    addedTtft: out.firstTextAt - out.requestingAt - (w.firstTextAt - w.arrivedAt),
    tail: out.lastTextAt - w.lastTextAt,
    streamRatio: (out.lastTextAt - w.firstByteAt) / (w.lastTextAt - w.firstByteAt),
  }
}

const ms = (s: Stat) => `${fmt(s.median)} ms [${fmt(s.min)}..${fmt(s.max)}]`
const ratio = (s: Stat) => `${fmt(s.median, 3)}x [${fmt(s.min, 3)}-${fmt(s.max, 3)}]`
const ok = (good: boolean) => (good ? 'OK' : 'OVER')

/** Time to first token and stream time: the four arms, alternating. */
async function latency(provider: MockProvider, mock: MockModel, klyth: string): Promise<void> {
  const ccr = await startCcr(provider.url, [PROVIDER_MODEL, SUB_MODEL])
  try {
    const keel = await keelHome(provider, klyth, mock)
    const directHome = { home: tmpDir('direct-home'), cwd: tmpDir('direct-proj') }
    mkdirSync(join(directHome.home, '.claude'), { recursive: true })
    const arms: Arm[] = ['provider alone', 'direct (engine -> provider, Anthropic API)', 'keel (klyth, curl)', 'ccr 2.0.0']
    const samples = new Map<Arm, Sample[]>(arms.map((a) => [a, []]))
    // One unmeasured run of each engine arm: the first start after a build pays for cold files.
    for (const arm of arms.slice(1)) await runArm(arm, { provider, mock, keel, klyth, ccr, directHome })
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < arms.length; i++) {
        const arm = arms[(i + round) % arms.length]!
        await waitQuiet()
        const s = await runArm(arm, { provider, mock, keel, klyth, ccr, directHome })
        samples.get(arm)!.push(s)
        if (VERBOSE) console.log(`  round ${round} ${arm}: ${JSON.stringify(Object.fromEntries(Object.entries(s).map(([k, v]) => [k, Math.round(v * 1000) / 1000])))}`)
      }
    }
    const of = (arm: Arm, k: keyof Sample) => stat(samples.get(arm)!.map((s) => s[k]))
    console.log(`\nRouting: time to first token and stream time (${ROUNDS} alternating rounds of each arm; provider: first byte after ${FIRST_BYTE_MS} ms, ${PIECES} text pieces ${PIECE_MS} ms apart; medians [min..max])`)
    line('  provider alone: arrival -> first text piece written', ms(of('provider alone', 'providerTtft')))
    line('  provider alone: its first text piece -> read here', ms(of('provider alone', 'responsePath')))
    for (const arm of arms.slice(1)) {
      line(`  ${arm}: request path (requesting -> provider)`, ms(of(arm, 'requestPath')))
      line(`  ${arm}: response path (provider text -> stdout)`, ms(of(arm, 'responsePath')))
      line(`  ${arm}: added TTFT (engine TTFT - provider's)`, ms(of(arm, 'addedTtft')))
      line(`  ${arm}: stream time / provider's`, `${ratio(of(arm, 'streamRatio'))} (last text: +${fmt(of(arm, 'tail').median)} ms)`)
    }
    const direct = samples.get('direct (engine -> provider, Anthropic API)')!
    const over = (arm: Arm, k: keyof Sample) => stat(samples.get(arm)!.map((s, i) => s[k] - (direct[i]?.[k] ?? NaN)))
    const keelAdded = of('keel (klyth, curl)', 'addedTtft').median
    const ccrAdded = of('ccr 2.0.0', 'addedTtft').median
    const keelResp = of('keel (klyth, curl)', 'responsePath').median
    const ccrResp = of('ccr 2.0.0', 'responsePath').median
    console.log('  goals')
    line('  keel: added TTFT, response path (provider -> stdout)', `${fmt(keelResp)} ms vs ccr ${fmt(ccrResp)} ms ${ok(keelResp <= GOAL.addedTtftMs && keelResp < ccrResp)} (<= ${GOAL.addedTtftMs} ms and below ccr's)`)
    line('  keel: added TTFT, whole (requesting -> stdout)', `${fmt(keelAdded)} ms vs ccr ${fmt(ccrAdded)} ms; over direct: keel ${fmt(over('keel (klyth, curl)', 'addedTtft').median)} ms, ccr ${fmt(over('ccr 2.0.0', 'addedTtft').median)} ms ${ok(keelAdded - median(direct.map((s) => s.addedTtft)) <= GOAL.addedTtftMs && keelAdded < ccrAdded)} (<= ${GOAL.addedTtftMs} ms over direct and below ccr's)`)
    const keelStream = of('keel (klyth, curl)', 'streamRatio').median
    line('  keel: stream time / provider\'s', `${fmt(keelStream, 3)}x (ccr ${fmt(of('ccr 2.0.0', 'streamRatio').median, 3)}x) ${ok(keelStream <= GOAL.stream)} (<= ${GOAL.stream}x)`)
  } finally {
    await ccr.stop()
  }
}

// ---- Correctness: a tool call streamed in pieces, a subagent on another model ----

const has = (req: ProviderRequest, text: string) => req.raw.toString('utf8').includes(text)
const TOOL_MARK = 'tool-marker-42'
const CHILD_MARK = 'child-answer-77'

/** The provider's script: a Bash call in 3 argument pieces, then a text on its result; an Agent call to `worker`, its child's answer, main's reply. */
function probeRules(): Rule[] {
  return [
    // The command prints the marker without spelling it: only a request carrying the tool's output has it.
    { match: (r) => has(r, TOOL_MARK), reply: { text: 'TOOL RAN' } },
    { match: (r) => has(r, 'run the broken echo') && (has(r, '"role":"tool"') || has(r, '"tool_result"')), reply: { text: 'AFTER THE BROKEN CALL' } },
    { match: (r) => has(r, 'run the broken echo'), reply: { text: 'Running it. ', toolCalls: [{ name: 'Bash', arguments: ['{"comm', 'and": "echo bro', 'ken'] }], pieceMs: 20 } },
    { match: (r) => has(r, 'run the echo'), reply: { text: 'Running it. ', toolCalls: [{ name: 'Bash', arguments: ['{"comm', `and": "echo tool-marker-`, `$((6*7))"}`] }], pieceMs: 20 } },
    { match: (r) => has(r, CHILD_MARK), reply: { text: 'MAIN SAW THE CHILD' } },
    { match: (r) => has(r, 'CHILD-TASK'), reply: { text: `${CHILD_MARK} ` } },
    { match: (r) => has(r, 'delegate please'), reply: { text: 'Delegating. ', toolCalls: [{ name: 'Agent', arguments: ['{"description": "probe task", ', '"prompt": "CHILD-TASK: answer", ', '"subagent_type": "worker", "run_in_background": false}'] }] } },
  ]
}

type Probe = { result: string; requests: { model: string; child: boolean; toolOutput: boolean; billing: boolean }[] }

async function probeRun(provider: MockProvider, o: { home: string; cwd: string; baseUrl: string; args?: string[] }, prompt: string): Promise<Probe> {
  const from = provider.requests.length
  const run = await streamRun({ prompt, ...o, args: [...(o.args ?? []), '--allowedTools', 'Bash'] })
  const requests = provider.requests.slice(from).filter((r) => r.body?.stream).map((r) => ({
    model: String(r.body.model), child: has(r, 'CHILD-TASK') && !has(r, 'delegate please'), toolOutput: has(r, TOOL_MARK), billing: has(r, 'x-anthropic-billing-header'),
  }))
  return { result: String(run.result?.result ?? `(exit ${run.code}) ${run.stderr.slice(-200)}`).trim(), requests }
}

/** A project whose `.claude/agents/worker.md` names `model` (and starts its prompt with `body`). */
function projectWith(model: string, body = ''): string {
  const cwd = tmpDir('route-agents')
  mkdirSync(join(cwd, '.claude/agents'), { recursive: true })
  writeFileSync(join(cwd, '.claude/agents/worker.md'), `---\nname: worker\ndescription: A worker for probe tasks\nmodel: ${model}\ntools: Read, Bash\n---\n${body}You are a worker.\n`)
  return cwd
}

/**
 * Does each get tool calls and subagents right? The provider streams a Bash call in 3 argument pieces (then
 * answers its output), a Bash call whose arguments never close, and an Agent call to a project definition
 * meant for the second model: through keel (`model: gpt-mini`, the alias) and through ccr (the same file, its
 * documented `<CCR-SUBAGENT-MODEL>` marker, and its `provider,model` name).
 */
async function correctness(provider: MockProvider, mock: MockModel, klyth: string): Promise<void> {
  provider.setRules(probeRules())
  const ccr = await startCcr(provider.url, [PROVIDER_MODEL, SUB_MODEL])
  try {
    const keel = await keelHome(provider, klyth, mock)
    const keelRun = (prompt: string, cwd = keel.cwd) => probeRun(provider, { home: keel.home, cwd, baseUrl: mock.url, args: ['--plugin-dir', klyth, '--model', ALIAS] }, prompt)
    const ccrHome = tmpDir('ccr-engine-home')
    mkdirSync(join(ccrHome, '.claude'), { recursive: true })
    const ccrRun = (prompt: string, cwd = tmpDir('ccr-proj')) => probeRun(provider, { home: ccrHome, cwd, baseUrl: ccr.url }, prompt)
    const native = mock.requests.length
    console.log(`\nRouting: correctness probe (one run each; the provider scripts the calls)`)

    const toolLine = (p: Probe) => (p.result === 'TOOL RAN' && p.requests.some((r) => r.toolOutput) ? 'ran (the provider got its output)' : `not run: ${JSON.stringify(p.result.slice(0, 100))}`)
    const [kt, ct] = [await keelRun('run the echo please'), await ccrRun('run the echo please')]
    line('  a Bash call in 3 argument pieces: keel', toolLine(kt))
    line('  a Bash call in 3 argument pieces: ccr', toolLine(ct))
    const brokenLine = (p: Probe) => p.result === 'AFTER THE BROKEN CALL'
      ? `not run; the engine's InputValidationError went back to the model, which answered (${p.requests.length} requests)`
      : `not run; the turn ended: ${JSON.stringify(p.result.split('\n').pop()!.slice(0, 90))} (${p.requests.length} request)`
    const [kb, cb] = [await keelRun('run the broken echo please'), await ccrRun('run the broken echo please')]
    line('  a Bash call whose arguments never close: keel', brokenLine(kb))
    line('  a Bash call whose arguments never close: ccr', brokenLine(cb))

    const childLine = (p: Probe, want: string) => {
      const child = p.requests.find((r) => r.child)
      if (!child) return `no child request (${JSON.stringify(p.result.slice(0, 80))})`
      return `child on ${child.model}${child.model === want ? ' (right)' : ` (WRONG: meant ${want})`}; main got its answer: ${p.result === 'MAIN SAW THE CHILD' ? 'yes' : 'no'}`
    }
    line(`  subagent, definition model: ${SUB_ALIAS}: keel`, childLine(await keelRun('delegate please', projectWith(SUB_ALIAS)), SUB_MODEL))
    line(`  subagent, the same definition: ccr`, childLine(await ccrRun('delegate please', projectWith(SUB_ALIAS)), SUB_MODEL))
    line(`  subagent, ccr's marker atop the definition: ccr`, childLine(await ccrRun('delegate please', projectWith(SUB_ALIAS, `<CCR-SUBAGENT-MODEL>mock,${SUB_MODEL}</CCR-SUBAGENT-MODEL>\n`)), SUB_MODEL))
    line(`  subagent, definition model: mock,${SUB_MODEL}: ccr`, childLine(await ccrRun('delegate please', projectWith(`mock,${SUB_MODEL}`)), SUB_MODEL))
    line('  the engine\'s billing header sent to the provider', `keel ${kt.requests.some((r) => r.billing) ? 'yes' : 'no'}, ccr ${ct.requests.some((r) => r.billing) ? 'yes' : 'no'}`)
    if (mock.requests.length !== native) line('  requests that reached the native model', `${mock.requests.length - native} (expected 0)`)
  } finally {
    await ccr.stop()
    provider.setRules([], REPLY)
  }
}


// ---- A tool loop where a new connection costs what it costs on a network ----

/** How many tool results the request carries (either API): the loop's step. */
const toolResults = (req: ProviderRequest) => (req.raw.toString('utf8').match(/"role":"tool"|"type":"tool_result"/g) ?? []).length

/** Nine Bash calls, one per request (each its own id: the engine keeps one result per id), then a text answer: LOOP_REQUESTS requests. */
const loopRules = (): Rule[] => [
  { match: (r) => has(r, LOOP_PROMPT) && toolResults(r) >= LOOP_REQUESTS - 1, reply: { text: ['loop ', 'done'], firstByteMs: 100, pieceMs: 20 } },
  ...Array.from({ length: LOOP_REQUESTS - 1 }, (_, k): Rule => ({
    match: (r) => has(r, LOOP_PROMPT) && toolResults(r) === k,
    reply: { text: ['step ', 'on '], toolCalls: [{ id: `toolu_loop_${k}`, name: 'Bash', arguments: ['{"command": ', `"echo loop-step-${k}"}`] }], firstByteMs: 100, pieceMs: 20 },
  })),
]

/** Each request's time to first token on stdout: a `requesting` status to the first text delta of main after it. */
function requestTtfts(run: StreamRun): number[] {
  const out: number[] = []
  let requestingAt: number | undefined
  for (const l of run.lines) {
    if (l.json?.type === 'system' && l.json.subtype === 'status' && l.json.status === 'requesting') requestingAt = l.at
    else if (requestingAt !== undefined && l.json?.type === 'stream_event' && l.json.parent_tool_use_id == null && l.json.event?.delta?.type === 'text_delta') {
      out.push(l.at - requestingAt)
      requestingAt = undefined
    }
  }
  return out
}

type LoopArm = 'direct' | 'keel' | 'ccr'
type LoopSample = { ttft: number[]; providerTtft: number[]; wallMs: number; connections: number }

/** direct, keel and ccr over a LOOP_REQUESTS-request tool loop, against a provider whose new connections cost CONNECT_MS. */
async function toolLoop(mock: MockModel, klyth: string): Promise<void> {
  const network: ProviderNetwork = { connectMs: CONNECT_MS, keepAliveMs: 60_000 }
  const provider = await startMockProvider(loopRules(), REPLY, network)
  const ccr = await startCcr(provider.url, [PROVIDER_MODEL, SUB_MODEL])
  try {
    const keel = await keelHome(provider, klyth, mock)
    const directHome = { home: tmpDir('loop-direct-home'), cwd: tmpDir('loop-direct-proj') }
    mkdirSync(join(directHome.home, '.claude'), { recursive: true })
    const args = ['--allowedTools', 'Bash']
    const runOf: Record<LoopArm, () => Promise<StreamRun>> = {
      direct: () => streamRun({ prompt: LOOP_PROMPT, ...directHome, baseUrl: provider.url, args }),
      keel: () => streamRun({ prompt: LOOP_PROMPT, ...keel, baseUrl: mock.url, args: [...args, '--plugin-dir', klyth, '--model', ALIAS] }),
      ccr: () => streamRun({ prompt: LOOP_PROMPT, ...directHome, baseUrl: ccr.url, args }),
    }
    const arms = Object.keys(runOf) as LoopArm[]
    const samples = new Map<LoopArm, LoopSample[]>(arms.map((a) => [a, []]))
    const once = async (arm: LoopArm): Promise<LoopSample> => {
      const from = provider.requests.length
      const run = await runOf[arm]()
      const reqs = provider.requests.slice(from).filter((r) => r.body?.stream && has(r, LOOP_PROMPT))
      const ttft = requestTtfts(run)
      if (run.code !== 0 || reqs.length !== LOOP_REQUESTS || ttft.length !== LOOP_REQUESTS) throw new Error(`loop ${arm}: exit ${run.code}, ${reqs.length} provider requests, ${ttft.length} first tokens (want ${LOOP_REQUESTS}): ${run.stderr.slice(-300)}`)
      const connections = new Set(reqs.map((r) => r.remotePort)).size
      return { ttft, providerTtft: reqs.map((r) => writtenOf(r).firstTextAt - r.arrivedAt), wallMs: Date.now() - run.startedAt, connections }
    }
    for (const arm of arms) await once(arm)
    for (let round = 0; round < LOOP_ROUNDS; round++) {
      for (let i = 0; i < arms.length; i++) {
        const arm = arms[(i + round) % arms.length]!
        await waitQuiet()
        const s = await once(arm)
        samples.get(arm)!.push(s)
        if (VERBOSE) console.log(`  loop round ${round} ${arm}: ttft ${s.ttft.join(' ')} provider ${s.providerTtft.join(' ')} wall ${s.wallMs} connections ${s.connections}`)
      }
    }
    const added = (arm: LoopArm) => stat(samples.get(arm)!.flatMap((s) => s.ttft.map((t, i) => t - s.providerTtft[i]!)))
    const first = (arm: LoopArm) => stat(samples.get(arm)!.map((s) => s.ttft[0]! - s.providerTtft[0]!))
    const later = (arm: LoopArm) => stat(samples.get(arm)!.flatMap((s) => s.ttft.slice(1).map((t, i) => t - s.providerTtft[i + 1]!)))
    const sum = (arm: LoopArm) => median(samples.get(arm)!.map((s) => s.ttft.reduce((a, b) => a + b, 0)))
    console.log(`\nRouting: a ${LOOP_REQUESTS}-request tool loop, each new connection to the provider costing ${CONNECT_MS} ms (${LOOP_ROUNDS} alternating rounds; per request: stdout requesting -> first text delta, less the provider's own)`)
    for (const arm of arms) {
      const conns = samples.get(arm)!.map((s) => s.connections)
      line(`  ${arm}: added TTFT per request`, `${ms(added(arm))}; first ${fmt(first(arm).median)} ms, later ${fmt(later(arm).median)} ms; connections per loop ${fmt(median(conns))}; loop wall ${fmt(median(samples.get(arm)!.map((s) => s.wallMs)))} ms`)
    }
    line('  first tokens, the loop summed: keel / ccr, keel / direct', `${fmt(sum('keel') / sum('ccr'), 3)}x, ${fmt(sum('keel') / sum('direct'), 3)}x (ccr / direct ${fmt(sum('ccr') / sum('direct'), 3)}x) ${ok(sum('keel') <= sum('ccr'))} (keel <= ccr)`)
  } finally {
    await ccr.stop()
    await provider.close()
  }
}

export async function routingBench(mock: MockModel): Promise<void> {
  const provider = await startMockProvider([], REPLY)
  const klyth = packageCopy('klyth')
  try {
    if (PARTS.has('latency')) await latency(provider, mock, klyth)
    if (PARTS.has('loop')) await toolLoop(mock, klyth)
    if (PARTS.has('correctness')) await correctness(provider, mock, klyth)
    // klyth installed, its routing.json in place, main native (the mock model): what routing costs a session it does not route.
    if (PARTS.has('hooks')) await engineSettle({ mock, pkg: 'klyth', rounds: SETTLE_ROUNDS, label: 'on a native session (routing.json with two aliases; main is the mock Claude model)', optionsOf: () => undefined, prepareHome: (home) => writeRoutingJson(home, provider) })
    if (PARTS.has('ledger')) await ledger(provider, mock)
  } finally {
    await provider.close()
  }
}

/** The same routed session's per-turn hooks with the ledger on (klyth as built) and off: the ratio on / off. */
async function ledger(provider: MockProvider, mock: MockModel): Promise<void> {
  // Both sides copied from dist/ at the start (a build during the run changes neither); one approved HOME copied for every session of both (the approval lives under HOME).
  const src = bundle()
  const on = packageWith('ledger-on', src, 'klyth')
  const approved = await keelHome(provider, on, mock)
  const from = { provider: provider.requests.length, native: mock.requests.length }
  const ratio = await engineSettle({
    mock, pkg: 'klyth', dir: on, rounds: SETTLE_ROUNDS, label: `on a routed session (--model ${ALIAS}), the usage ledger on`, optionsOf: () => undefined,
    prepareHome: (home) => cpSync(approved.home, home, { recursive: true }), extraArgs: ['--model', ALIAS],
    against: { dir: packageWith('no-ledger', withoutLedger(src), 'klyth'), label: 'the ledger off' },
  })
  // Both sides routed every turn: each run's main request reached the provider, none the native model.
  const steps = provider.requests.slice(from.provider).filter((r) => r.path.endsWith('/chat/completions')).length
  if (mock.requests.length !== from.native || steps < SETTLE_ROUNDS * 4) throw new Error(`ledger part: not every turn was routed (${steps} provider requests, ${mock.requests.length - from.native} native)`)
  line('routing: per-turn hooks, ledger on / off', `${ratio.toFixed(3)}x ${ratio <= GOAL.hooks ? 'OK' : 'OVER'} (<= ${GOAL.hooks}x)`)
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  console.log(`keel routing bench (${new Date().toISOString()}, node ${process.version})`)
  const mock = await startMockModel()
  try {
    await routingBench(mock)
  } finally {
    await mock.close()
    cleanupTmp()
  }
}
