// The mailbox's `$` binder: the spool's files (the safe writer's edges, a listing among them), where the
// config root and the session's own registry record are, the native send, the two ways mail is
// put before the model (a prompt, a row), the rename that applies a minted key, the store, and the
// clock. `$.env` names are literals (the loader's rule).
import type { EngineInterface } from 'claude-code'
import { bindCommonEdges, bindFiles, bindRegisterTool, bindStore, type CommonEdges, type RegisterTool, type StoreEdges } from '../../lib/bind.ts'
import type { SafeWriteEdges } from '../../lib/safe-write.ts'

/** What names the config root and this session's registry record, read once a start. */
export type HomeFacts = {
  configDir?: string
  home?: string
  pluginData?: string
  /** `CLAUDE_PID`: the registry record is `<config root>/sessions/<pid>.json`. */
  pid?: string
  /** `CLAUDE_CODE_MESSAGING_SOCKET` is set: `$.session.send` reaches running peers. */
  messaging: boolean
}

/** The shared edges (the clock, a transcript line the person sees and the model does not) and the store, and: */
export type MailboxPort = CommonEdges & StoreEdges & {
  readonly pkg: string
  readonly files: SafeWriteEdges
  homeFacts(): Promise<HomeFacts>
  /** `$.session.id()` read afresh (after a /clear the runtime's cached id may be read too soon). */
  sessionId(): Promise<string>
  readonly registerTool: RegisterTool
  /** `$.session.send({ to, text })`. */
  send(to: string, text: string): Promise<unknown>
  /** A user row the model reads at its next request (`$.session.append`). */
  append(text: string): Promise<unknown>
  /** `/rename <name>` (`$.command.run`): from a timer only (refused inside a hook the turn waits on). */
  rename(name: string): Promise<unknown>
  /** `$.tool.call({ tool: 'ListAgents' })`: this session's name, and the running peers by name. */
  listAgents(): Promise<unknown>
  randomBytes(length: number): Uint8Array
}

export function bindMailbox($: EngineInterface): MailboxPort {
  return {
    ...bindCommonEdges($),
    files: bindFiles($),
    homeFacts: async () => {
      const [configDir, home, socket, env] = await Promise.all([
        $.env.get('CLAUDE_CONFIG_DIR'),
        $.env.get('HOME'),
        $.env.get('CLAUDE_CODE_MESSAGING_SOCKET'),
        $.process.hookEnv().catch(() => ({}) as Record<string, string>),
      ])
      return { configDir, home, pluginData: env.CLAUDE_PLUGIN_DATA, pid: env.CLAUDE_PID, messaging: !!socket }
    },
    sessionId: () => $.session.id(),
    registerTool: bindRegisterTool($),
    send: (to, text) => $.session.send({ to, text }),
    append: (text) => $.session.append({ message: { type: 'user', content: [{ type: 'text', text }] } }),
    rename: (name) => $.command.run({ command: 'rename', args: name }),
    listAgents: () => $.tool.call({ tool: 'ListAgents' }),
    ...bindStore($),
    randomBytes: (length) => crypto.getRandomValues(new Uint8Array(length)),
  }
}
