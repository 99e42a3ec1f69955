// The mailbox feature's e2e world: several `ws` sessions (stream-json) on one HOME against one
// stamping mock (multi.ts), driven from prompt text (`DO-TOOL mcp__ws__mailbox_send {…}`, `DO-BUSY n s`)
// and by the person's commands (`/ws mail …`, `/ws mailbox`), read back from the mock's requests,
// the debug log and the spool under `<HOME>/.claude/keel/mailbox/`.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
// The key's folder name as keel writes it: the feature's own spelling, used and re-exported.
import { folderOf } from '../../src/features/mailbox/key.ts'
import { debugLines, packageCopy, tmpDir } from './engine.ts'
import { startLive, type LiveSession } from './live.ts'
import { requestText } from './mock-model.ts'
import { probeScript, startStampedMock, type Stamp, type StampedMock } from './multi.ts'

export { folderOf }
export const PKG = 'ws'
export const TOOL = `mcp__${PKG}__mailbox_send`
const ENV = { ENABLE_TOOL_SEARCH: 'false' }

export type World = {
  home: string
  mock: StampedMock
  spool: string
  /** A stream-json ws session; resolves once its mailbox settled a key (or said why not). */
  /** `keyed: false`: resolves once the session started (the mailbox is off, say). */
  start(opts?: { name?: string; sid?: string; resume?: string; args?: string[]; env?: Record<string, string>; plugins?: string[]; mode?: 'stream-json' | 'tui'; keyed?: boolean }): Promise<LiveSession>
  stop(s: LiveSession): Promise<void>
  /** Every session still running, stopped (the test's after hook). */
  close(): Promise<void>
}

export async function mailboxWorld(opts: { options?: Record<string, unknown>; script?: Parameters<typeof probeScript>[0] } = {}): Promise<World> {
  const mock = await startStampedMock(probeScript(opts.script))
  const home = tmpDir('home')
  const ws = packageCopy(PKG)
  const running: LiveSession[] = []
  const settings = opts.options ? { pluginConfigs: { [`${PKG}@inline`]: { options: opts.options } } } : undefined
  return {
    home,
    mock,
    spool: join(home, '.claude/keel/mailbox'),
    async start(o = {}) {
      const args = [...(o.name ? ['--name', o.name] : []), ...(o.sid ? ['--session-id', o.sid] : []), ...(o.resume ? ['--resume', o.resume] : []), ...(o.args ?? [])]
      const s = await startLive({ mode: o.mode ?? 'stream-json', home, pluginDirs: [ws, ...(o.plugins ?? [])], mock, env: { ...ENV, ...o.env }, extraArgs: args, ...(settings ? { settings } : {}) })
      running.push(s)
      if (o.keyed === false) await s.waitFor('the session to start', () => /ws@inline session\.start settled/.test(s.debugLog()), 30_000)
      else await s.waitFor('the mailbox to settle its key', () => mailLog(s).some((l) => /^(key |no key: )/.test(l)), 30_000)
      return s
    },
    async stop(s) {
      await s.stop()
      running.splice(running.indexOf(s), 1)
    },
    async close() {
      for (const s of running.splice(0)) await s.stop()
      await mock.close()
    },
  }
}

/** The mailbox's debug lines, without the `ws mailbox: ` prefix. */
export const mailLog = (s: LiveSession) => debugLines(s.debugLog(), PKG).filter((l) => l.startsWith(`${PKG} mailbox: `)).map((l) => l.slice(`${PKG} mailbox: `.length))

/** The stream-json `result` texts, in order. */
export function results(s: LiveSession): string[] {
  return s.output().split('\n').filter((l) => l.startsWith('{')).flatMap((l) => {
    try {
      const j = JSON.parse(l)
      return j.type === 'result' ? [String(j.result)] : []
    } catch {
      return []
    }
  })
}

/** Sends a prompt or command and resolves the first new result that `match` accepts. */
export async function answer(s: LiveSession, text: string, match: (r: string) => boolean = () => true, ms = 20_000): Promise<string> {
  const n = results(s).length
  await s.send(text)
  return s.waitFor(`an answer to ${text.slice(0, 60)}`, () => results(s).slice(n).find(match), ms)
}

/** `/ws mailbox`'s lines. */
export const mailboxStatus = async (s: LiveSession) => (await answer(s, `/${PKG} mailbox`, (r) => r.includes('key: '))).replace(/^ws: /, '').split('\n')

/** The tool results a session's model read, in request order (what `mailbox_send` answered, denials included). */
export function toolResults(mock: StampedMock, sid: string): { id: string; text: string; isError: boolean }[] {
  const seen = new Map<string, { id: string; text: string; isError: boolean }>()
  for (const st of mock.of(sid, 'main')) {
    for (const m of st.body.messages ?? []) {
      if (m.role !== 'user' || !Array.isArray(m.content)) continue
      for (const b of m.content) {
        if (b?.type !== 'tool_result') continue
        const text = typeof b.content === 'string' ? b.content : requestText({ messages: [{ content: b.content }] })
        seen.set(b.tool_use_id, { id: b.tool_use_id, text, isError: !!b.is_error })
      }
    }
  }
  return [...seen.values()]
}

/** The model calls `mailbox_send { to, text }`: resolves what the tool answered it. */
export async function toolSend(mock: StampedMock, s: LiveSession, sid: string, input: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const n = toolResults(mock, sid).length
  const turns = results(s).length
  await s.send(`DO-TOOL ${TOOL} ${JSON.stringify(input)}`)
  const got = await s.waitFor('the tool result', () => toolResults(mock, sid)[n], 20_000)
  await s.waitFor('the sending turn to end', () => results(s).length > turns, 20_000)
  return got
}

/** The file names in a key's spool folder, sorted. */
export const spoolNames = (w: World, key: string) => {
  const dir = join(w.spool, folderOf(key))
  return existsSync(dir) ? readdirSync(dir).sort() : []
}
export const spoolText = (w: World, key: string, name: string) => readFileSync(join(w.spool, folderOf(key), name), 'utf8')

/** The text blocks of a request's user-side messages, one string each (system rows included: the engine puts busy mail there). */
export function messageTexts(st: Stamp): { role: string; text: string }[] {
  return (st.body.messages ?? []).map((m: any) => ({ role: m.role, text: typeof m.content === 'string' ? m.content : requestText({ messages: [m] }) }))
}

/** How many messages of a request hold `needle`. */
export const holding = (st: Stamp, needle: string) => messageTexts(st).filter((m) => m.text.includes(needle)).length

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms))

/** A mail id from a send's answer (`… (mail <id>)` / `mail <id>, …`). */
export const mailIdOf = (answerText: string) => /mail ([a-z2-7]{16})/.exec(answerText)?.[1]

/** The terminal's text with escapes and spacing dropped (the UI places words with cursor moves). */
export const screen = (s: LiveSession) => s.output().replace(/\x1b\[[0-9;?>]*[a-zA-Z]/g, '').replace(/\x1b\][^\x07]*\x07/g, '').replace(/\s+/g, '')
