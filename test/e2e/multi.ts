// Multi-process helpers for the mailbox measurements (test/e2e/mailbox-engine-*.test.ts): several engine
// processes on one HOME against one mock model. Wraps the shared harness (engine.ts, live.ts,
// mock-model.ts) without changing it:
//  - a front server before the mock that stamps every request with its arrival time and its
//    `x-claude-code-session-id` header, and can hold a chosen request back (a delaying proxy);
//  - a probe plugin, driven by environment variables and by the mock, that logs each observation as
//    one debug line `<TAG> <json>`;
//  - a mock script read from prompt text (`DO {json}`, `DO-BUSY n secs`, `DO-BASH cmd`);
//  - readers for the probe's lines, the session registry and an engine's CPU time.
import { createServer, request as httpRequest } from 'node:http'
import type { AddressInfo } from 'node:net'
import { execFileSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { debugLines } from './engine.ts'
import { classify, lastUserMessage, lastUserText, startMockModel, type MockModel, type RecordedRequest, type Reply, type RequestKind, type Script } from './mock-model.ts'

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** One request as it reached the front server. */
export interface Stamp {
  /** Arrival at the front (ms since the epoch, this machine's clock: the probe's `Date.now()` too). */
  at: number
  /** When it was passed on to the mock (after any hold). */
  sentAt: number
  sid: string | undefined
  kind: RequestKind
  path: string
  body: any
}

export interface StampedMock extends MockModel {
  stamps: Stamp[]
  /** The `/v1/messages` stamps of one session (by its `x-claude-code-session-id`), optionally of one kind. */
  of(sid: string, kind?: RequestKind): Stamp[]
  /** Holds each later request this many ms before passing it on (0: none). */
  setHold(hold: ((s: Stamp) => number) | undefined): void
}

/**
 * The mock behind a stamping, delaying front. `url` is the front's, so `runClaude`/`startLive` take it as
 * any mock. `requests`/`messages()` are the mock's own records (in the order they were passed on).
 */
export async function startStampedMock(script?: Script, hold?: (s: Stamp) => number): Promise<StampedMock> {
  const inner = await startMockModel(script)
  const stamps: Stamp[] = []
  let holdFn = hold
  const target = new URL(inner.url)
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', async () => {
      const raw = Buffer.concat(chunks)
      let body: any
      try { body = raw.length ? JSON.parse(raw.toString('utf8')) : undefined } catch { body = undefined }
      const path = req.url ?? '/'
      const sidHeader = req.headers['x-claude-code-session-id']
      const stamp: Stamp = {
        at: Date.now(), sentAt: 0, sid: Array.isArray(sidHeader) ? sidHeader[0] : sidHeader,
        kind: classify(path, body), path, body,
      }
      if (path.split('?')[0] === '/v1/messages') stamps.push(stamp)
      const ms = path.split('?')[0] === '/v1/messages' ? holdFn?.(stamp) ?? 0 : 0
      if (ms > 0) await sleep(ms)
      stamp.sentAt = Date.now()
      const fwd = httpRequest({ host: target.hostname, port: target.port, method: req.method, path, headers: req.headers }, (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers)
        up.pipe(res)
      })
      fwd.on('error', (err) => { if (!res.headersSent) res.writeHead(502); res.end(String(err)) })
      fwd.end(raw)
    })
  })
  server.keepAliveTimeout = 1000
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const { port } = server.address() as AddressInfo
  return {
    ...inner,
    url: `http://127.0.0.1:${port}`,
    stamps,
    of: (sid, kind) => stamps.filter((s) => s.sid === sid && (!kind || s.kind === kind)),
    setHold: (h) => { holdFn = h },
    close: async () => {
      server.closeAllConnections()
      await new Promise<void>((r) => server.close(() => r()))
      await inner.close()
    },
  }
}

// ---- The mock's script, read from prompt text ----

export const PROBE_TOOL = 'mcp__probe__probe'

/** The tool_use ids the last user message answers (tool results). */
function answeredIds(req: RecordedRequest): string[] {
  const content = lastUserMessage(req.body)?.content
  if (!Array.isArray(content)) return []
  return content.filter((b: any) => b?.type === 'tool_result').map((b: any) => String(b.tool_use_id))
}

let seq = 0
/**
 * The probe script. On a main request whose last user message:
 *  - answers a tool call: `toolu_busy_<k>_<n>_<secs>_<x>` goes on to call k+1 of n, anything else ends with `done`;
 *  - holds `DO {json}` (the json on one line): calls the probe's tool with that input;
 *  - holds `DO-BUSY <n> <secs>`: n `Bash sleep <secs>` calls, one after another;
 *  - holds `DO-BASH <command>` (to the end of the line): one Bash call;
 *  - holds `DO-TOOL <name> {json}`: one call of that tool with that input (e.g. SendMessage);
 *  - anything else: `ok`.
 * `extra` answers first when it returns a reply.
 */
export function probeScript(extra?: (req: RecordedRequest) => Reply | undefined): Script {
  return (req) => {
    const own = extra?.(req)
    if (own) return own
    if (req.kind !== 'main') return undefined
    const ids = answeredIds(req)
    if (ids.length) {
      const busy = /^toolu_busy_(\d+)_(\d+)_(\d+)_/.exec(ids[ids.length - 1]!)
      if (busy && Number(busy[1]) < Number(busy[2])) {
        const k = Number(busy[1]) + 1
        return { toolUse: { name: 'Bash', input: { command: `sleep ${busy[3]}`, description: `busy ${k}` }, id: `toolu_busy_${k}_${busy[2]}_${busy[3]}_${++seq}` } }
      }
      return { text: 'done' }
    }
    const text = lastUserText(req.body)
    const busy = /DO-BUSY (\d+) (\d+)/.exec(text)
    if (busy) return { toolUse: { name: 'Bash', input: { command: `sleep ${busy[2]}`, description: 'busy 1' }, id: `toolu_busy_1_${busy[1]}_${busy[2]}_${++seq}` } }
    const bash = /DO-BASH ([^\n]+)/.exec(text)
    if (bash) return { toolUse: { name: 'Bash', input: { command: bash[1]!.trim(), description: 'probe bash' }, id: `toolu_bash_${++seq}` } }
    const tool = /DO-TOOL (\S+) (\{[^\n]*\})/.exec(text)
    if (tool) return { toolUse: { name: tool[1]!, input: JSON.parse(tool[2]!), id: `toolu_tool_${++seq}` } }
    const call = /DO (\{[^\n]*\})/.exec(text)
    if (call) return { toolUse: { name: PROBE_TOOL, input: JSON.parse(call[1]!), id: `toolu_probe_${++seq}` } }
    return { text: 'ok' }
  }
}

/** A prompt that makes the mock call the probe tool with `input`. */
export const DO = (input: object) => `DO ${JSON.stringify(input)}`

// ---- The probe plugin ----

/**
 * The probe. Always: logs `START` (hook env, config dir, HOME, socket, session id), `REG` reads of the
 * session registry (`<config root>/sessions/<CLAUDE_PID>.json`, the root cut from CLAUDE_PLUGIN_DATA)
 * before and after `next` at session.start and until a record is present (`REG-SEEN`), every
 * `session.receive`, `prompt.submit`, `session.append`, `turn.start`, `turn.complete`, `command.run`.
 * It registers the tool `probe` (served at tool.call) with ops: `send` `{ to | sid, text }`, `agents`,
 * `submit` `{ text }` (not awaited), `rename` `{ name }` (from a timer), `queue` `{ text }` (appended after the next main tool call), `fs`
 * `{ dir }` (the $.fs facts), `proc` `{ argvs }` (each run in turn), `reg`.
 * Ops `send` takes `gen: { unit, count, prefix }` for a text made in the probe; `RECEIVE` logs where a
 * text holds U+FFFD (`damage`); op `fsround` `{ path, gens, files }` writes and reads texts back with $.fs.
 * Environment: PROBE_TOKEN=1 logs the inbox's auth token at START; PROBE_RENAME=<name> renames from a `$.clock.after(0)` at start; PROBE_AGENTS=1 calls
 * ListAgents there; PROBE_SUBMIT=<text> submits a prompt there; PROBE_CONSUME=1 answers every
 * receive `{ consumed }`; PROBE_POLL=<ms> runs `$.clock.every(ms)` with one `$.fs.list` of the
 * config root; PROBE_FSWRITE=<path> / PROBE_FSREAD=<path> loop over-writes / reads of one file for 3 s at
 * start; PROBE_FSCREATE=<dir> writes new 200 kB files there for 3 s, PROBE_FSSCAN=<dir> lists it and reads each
 * new file once as soon as it is listed, from the first file until none came for 1.5 s; PROBE_CLAIM=<dir> claims each `*.json` there by `mv` to
 * `<name>.claimed-<pid>` (a rename: one claimant wins).
 */
export const PROBE = String.raw`
const T = () => Date.now()
let startAt = 0
let regFile = ''
let root = ''
let queued = undefined
const short = (s, n) => typeof s === 'string' && s.length > n ? s.slice(0, n) + '…(' + s.length + ')' : s
// A long text made here, so it reaches the send through no other transport: prefix + unit x count.
const gen = (g) => (g.prefix || '') + g.unit.repeat(g.count)
// Where a text holds U+FFFD (a broken UTF-8 sequence), by character and by UTF-8 byte offset.
function damage(text) {
  const at = text.indexOf('\uFFFD')
  return { chars: text.length, bytes: new TextEncoder().encode(text).length, fffd: text.split('\uFFFD').length - 1, at, atByte: at < 0 ? -1 : new TextEncoder().encode(text.slice(0, at)).length }
}
// The debug log redacts values under keys that name a session id or tokens: such keys are logged with a '_'
// inside (sessionId -> sessionI_d, CLAUDE_CODE_SESSION_ID -> CLAUDE_CODE_SESSION_I_D, tokens -> toke_ns).
function log($, tag, x) { $.ui.log(tag + ' ' + JSON.stringify(x).replace(/(ession_?I)(d|D)"/g, '$1_$2"').replace(/(oke)(ns?)"/g, '$1_$2"'), { to: 'debug' }) }
async function readReg($) {
  try { return JSON.parse(await $.fs.read(regFile)) } catch (err) { return { error: String(err).slice(0, 200) } }
}
async function settle(p) {
  const t = T()
  try { return { value: await p, ms: T() - t } } catch (err) { return { error: String(err).slice(0, 300), ms: T() - t } }
}
function textOf(c) {
  if (typeof c === 'string') return c
  if (Array.isArray(c)) return c.map((b) => b && typeof b.text === 'string' ? b.text : b && b.content !== undefined ? textOf(b.content) : '').join('|')
  return ''
}
async function fsFacts($, dir) {
  const out = {}
  out.list = await settle($.fs.list(dir))
  out.listMissing = await settle($.fs.list(dir + '/no-such-dir'))
  for (const name of ['file.txt', 'link-to-file', 'dangling', 'linkdir', 'no-such']) {
    out['stat:' + name] = await settle($.fs.stat(dir + '/' + name))
    out['statR:' + name] = await settle($.fs.stat(dir + '/' + name, { resolve: true }))
    out['exists:' + name] = await settle($.fs.exists(dir + '/' + name))
  }
  out.statDir = await settle($.fs.stat(dir, { resolve: true }))
  out.writeLink = await settle($.fs.write(dir + '/link-to-file', 'via-link'))
  out.writeDangling = await settle($.fs.write(dir + '/dangling', 'via-dangling'))
  out.writeLinkDir = await settle($.fs.write(dir + '/linkdir/inside.txt', 'via-linkdir'))
  out.writeNewDeep = await settle($.fs.write(dir + '/new/a/b.txt', 'deep'))
  out.readDir = await settle($.fs.read(dir))
  return out
}
export function register(on) {
  on('session.start', async ($, e, next) => {
    startAt = T()
    const env = await $.process.hookEnv()
    const data = env.CLAUDE_PLUGIN_DATA || ''
    root = data.indexOf('/plugins/data/') >= 0 ? data.slice(0, data.indexOf('/plugins/data/')) : ''
    regFile = root + '/sessions/' + env.CLAUDE_PID + '.json'
    const claudeEnv = {}
    for (const k of Object.keys(env)) if (/^CLAUDE/.test(k)) claudeEnv[k] = env[k]
    log($, 'START', {
      at: startAt, hookEnv: claudeEnv, hookEnvKeys: Object.keys(env).length, root, regFile,
      cfg: await $.env.get('CLAUDE_CONFIG_DIR'), home: await $.env.get('HOME'),
      sock: await $.env.get('CLAUDE_CODE_MESSAGING_SOCKET'), id: await $.session.id(),
      // The inbox's auth token (the engine gives it to the session's own commands), for a test's own writer.
      ...(await $.env.get('PROBE_TOKEN') ? { tok: await $.env.get('CLAUDE_CODE_MESSAGING_TOKEN') } : {}),
    })
    log($, 'REG-BEFORE', { at: T(), exists: await $.fs.exists(regFile), reg: await readReg($) })
    await $.tool.register({ name: 'probe', description: 'the probe', inputSchema: { type: 'object', properties: { op: { type: 'string' } }, additionalProperties: true } })
    const r = await next(e)
    log($, 'REG-AFTER', { at: T(), exists: await $.fs.exists(regFile), reg: await readReg($) })
    let polls = 0
    const watch = $.clock.every(20, async () => {
      polls++
      if (await $.fs.exists(regFile)) { watch.cancel(); log($, 'REG-SEEN', { ms: T() - startAt, polls, reg: await readReg($) }) }
      else if (polls > 500) watch.cancel()
    })
    const rename = await $.env.get('PROBE_RENAME')
    const agents = await $.env.get('PROBE_AGENTS')
    const submit = await $.env.get('PROBE_SUBMIT')
    const poll = Number(await $.env.get('PROBE_POLL') || 0)
    const fsw = await $.env.get('PROBE_FSWRITE')
    const fsr = await $.env.get('PROBE_FSREAD')
    const fsc = await $.env.get('PROBE_FSCREATE')
    const fss = await $.env.get('PROBE_FSSCAN')
    const claim = await $.env.get('PROBE_CLAIM')
    $.clock.after(0, async () => {
      log($, 'REG-T0', { at: T(), reg: await readReg($) })
      if (rename) {
        const t = T()
        const res = await settle($.command.run({ command: 'rename', args: rename }))
        log($, 'RENAME', { res, sinceStart: t - startAt })
        const t2 = T()
        for (let i = 0; i < 300; i++) {
          const reg = await readReg($)
          if (reg.name === rename) { log($, 'RENAME-FILE', { ms: T() - t2, reads: i + 1, reg }); break }
          await $.clock.sleep(10)
        }
      }
      if (agents) {
        const res = await settle($.tool.call({ tool: 'ListAgents' }))
        log($, 'AGENTS', res)
        const res2 = await settle($.tool.call({ tool: 'ListAgents' }))
        log($, 'AGENTS2', { ms: res2.ms })
      }
      if (submit) {
        log($, 'SUBMIT-CALL', { at: T() })
        log($, 'SUBMIT', await settle($.prompt.submit({ text: submit })))
      }
      if (poll > 0) {
        let n = 0
        $.clock.every(poll, async () => { n++; await $.fs.list(root) })
      }
      if (fsw) {
        const long = JSON.stringify({ v: 1, pad: 'L'.repeat(20000) })
        const shortText = JSON.stringify({ v: 1, pad: 's' })
        let n = 0
        const until = T() + 3000
        while (T() < until) { await $.fs.write(fsw, n % 2 ? shortText : long); n++ }
        log($, 'FSWRITE', { n })
      }
      if (fsr) {
        const counts = { long: 0, short: 0, empty: 0, bad: 0, missing: 0 }
        const until = T() + 3000
        while (T() < until) {
          let t
          try { t = await $.fs.read(fsr) } catch { counts.missing++; continue }
          if (t === '') counts.empty++
          else { try { const j = JSON.parse(t); counts[j.pad.length > 1 ? 'long' : 'short']++ } catch { counts.bad++ } }
        }
        log($, 'FSREAD', counts)
      }
      if (fsc) {
        const body = JSON.stringify({ v: 1, pad: 'C'.repeat(200000) })
        let n = 0
        const until = T() + 3000
        while (T() < until) { await $.fs.write(fsc + '/c-' + String(n).padStart(6, '0') + '.json', body); n++ }
        log($, 'FSCREATE', { n })
      }
      if (claim) {
        const pid = (await $.process.hookEnv()).CLAUDE_PID
        const won = []
        const ms = []
        let lost = 0
        for (const entry of await $.fs.list(claim)) {
          if (!entry.name.endsWith('.json')) continue
          const t = T()
          const r = await $.process.run(['/bin/mv', claim + '/' + entry.name, claim + '/' + entry.name + '.claimed-' + pid])
          ms.push(T() - t)
          if (r.exitCode === 0) won.push(entry.name)
          else lost++
        }
        log($, 'CLAIM', { pid, won, lost, ms })
      }
      if (fss) {
        const seen = {}
        const counts = { ok: 0, empty: 0, bad: 0, lists: 0 }
        // From the first file on, until no new one came for 1.5 s (the creator may start later, and a loaded
        // machine slows either); at most 60 s.
        const giveUp = T() + 60000
        let lastNew = 0
        while (T() < giveUp && (lastNew === 0 || T() - lastNew < 1500)) {
          counts.lists++
          let names
          try { names = await $.fs.list(fss) } catch { continue }
          for (const entry of names) {
            if (seen[entry.name]) continue
            seen[entry.name] = true
            lastNew = T()
            const t = await $.fs.read(fss + '/' + entry.name)
            if (t === '') counts.empty++
            else { try { JSON.parse(t); counts.ok++ } catch { counts.bad++ } }
          }
        }
        log($, 'FSSCAN', counts)
      }
    })
    return r
  })
  on('tool.call', { tool: 'mcp__probe__probe' }, async ($, e, next) => {
    const op = e.op
    const t = T()
    let out
    if (op === 'send') {
      const to = e.sid ? { sessionId: e.sid } : e.to
      out = await settle($.session.send({ to, text: e.gen ? gen(e.gen) : e.text }))
      log($, 'SEND', { at: t, to, ...out })
    } else if (op === 'agents') {
      out = await settle($.tool.call({ tool: 'ListAgents' }))
      log($, 'AGENTS', out)
    } else if (op === 'submit') {
      log($, 'SUBMIT-CALL', { at: t })
      $.prompt.submit({ text: e.text }).then((r) => log($, 'SUBMIT', { value: r, ms: T() - t, at: T() }), (err) => log($, 'SUBMIT', { error: String(err), ms: T() - t }))
      out = { value: 'submitted' }
    } else if (op === 'queue') {
      queued = e.text
      out = { value: 'queued' }
    } else if (op === 'fs') {
      out = { value: await fsFacts($, e.dir) }
      log($, 'FS', out.value)
    } else if (op === 'proc') {
      const runs = []
      for (const argv of e.argvs) runs.push({ argv, ...(await settle($.process.run(argv))) })
      out = { value: runs }
      log($, 'PROC', runs)
    } else if (op === 'rename') {
      // command.run is refused inside a hook the turn waits on: from a timer instead.
      $.clock.after(0, async () => log($, 'RENAME', { res: await settle($.command.run({ command: 'rename', args: e.name })), sinceStart: T() - startAt }))
      out = { value: 'scheduled' }
    } else if (op === 'fsround') {
      // Each text written by $.fs.write and read back by $.fs.read; a file the test wrote is read too.
      const bad = []
      let n = 0
      for (const g of e.gens || []) {
        const text = gen(g)
        await $.fs.write(e.path, text)
        const back = await $.fs.read(e.path)
        n++
        if (back !== text) bad.push({ g: { ...g, unit: undefined, u: g.unit }, written: damage(text), read: damage(back) })
      }
      for (const f of e.files || []) {
        const back = await $.fs.read(f.path)
        n++
        if (back !== gen(f.gen)) bad.push({ file: f.path, read: damage(back) })
      }
      out = { value: { n, bad } }
      log($, 'FSROUND', out.value)
    } else if (op === 'reg') {
      out = { value: await readReg($) }
      log($, 'REG', out.value)
    } else out = { error: 'unknown op ' + op }
    return { result: JSON.stringify(out).slice(0, 20000) }
  })
  on('tool.call', async ($, e, next) => {
    const r = await next(e)
    if (queued !== undefined && e.agentId === undefined) {
      const text = queued
      queued = undefined
      const t = T()
      const res = await settle($.session.append({ message: { type: 'user', content: [{ type: 'text', text }] } }))
      log($, 'APPEND', { at: t, tool: e.tool, origin: next.origin, res: { ms: res.ms, error: res.error, uuid: res.value && res.value.uuid } })
    }
    return r
  })
  on('session.receive', async ($, e, next) => {
    log($, 'RECEIVE', { at: T(), origin: e.origin, agentId: e.agentId, text: short(e.text, 600), damage: damage(e.text) })
    if (await $.env.get('PROBE_CONSUME')) return { consumed: 'probe took it' }
    const r = await next(e)
    log($, 'RECEIVED', { at: T(), keys: Object.keys(r) })
    return r
  })
  on('prompt.submit', async ($, e, next) => {
    log($, 'PSUBMIT', { at: T(), origin: e.origin, isMeta: e.isMeta, turnId: e.turnId, command: e.command, text: short(e.text, 400) })
    const r = await next(e)
    log($, 'PSUBMITTED', { at: T(), drop: r.drop, origin: r.origin })
    return r
  })
  on('session.append', async ($, e, next) => {
    const at = T()
    const r = await next(e)
    log($, 'APPENDROW', { at, done: T(), door: e.door, origin: e.origin, agentId: e.agentId, type: e.message.type, role: e.message.role, name: e.message.name, isMeta: e.message.isMeta, text: short(textOf(e.message.content), 300) })
    return r
  })
  on('turn.start', async ($, e, next) => {
    log($, 'TSTART', { at: T(), turnId: e.turnId, agentId: e.agentId, text: short(e.text, 200) })
    return next(e)
  })
  on('turn.complete', async ($, e, next) => {
    log($, 'TDONE', { at: T(), turnId: e.turnId, agentId: e.agentId, reason: e.reason })
    return next(e)
  })
  on('command.run', async ($, e, next) => {
    const r = await next(e)
    log($, 'COMMAND', { at: T(), command: e.command, args: e.args, origin: e.origin, result: short(JSON.stringify(r), 300) })
    return r
  })
  on('session.end', async ($, e, next) => {
    log($, 'END', { at: T(), reason: e.reason })
    return next(e)
  })
}
`

// ---- Readers ----

/** The probe's `<tag> <json>` lines of one debug log, parsed. */
export function probe(log: string, tag: string, plugin = 'probe'): any[] {
  return debugLines(log, plugin).filter((l) => l.startsWith(tag + ' ')).map((l) => JSON.parse(l.slice(tag.length + 1)))
}

/** The session registry files under `<config root>/sessions/`. */
export function registry(configRoot: string): any[] {
  const dir = join(configRoot, 'sessions')
  if (!existsSync(dir)) return []
  return readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => {
    try { return JSON.parse(readFileSync(join(dir, f), 'utf8')) } catch { return { file: f, unreadable: true } }
  })
}

let ticks: number | undefined
/** user + system CPU of a process, in ms, from /proc/<pid>/stat. */
export function cpuMs(pid: number): number {
  ticks ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  // After the name: state is field 3, utime 14 and stime 15 (1-based over the whole line).
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticks
}

/** The median and range of some numbers, for notes. */
export function spread(xs: number[]): { median: number; min: number; max: number; n: number } {
  const s = [...xs].sort((a, b) => a - b)
  return { median: s[Math.floor((s.length - 1) / 2)]!, min: s[0]!, max: s[s.length - 1]!, n: s.length }
}
