// The checkpoint feature's `$` binder: what its notes, its band and its automatic checkpoint need
// of the world. The compaction it asks for goes through the runtime (`ctx.compact`), not `$`.
import type { Elements, EngineInterface, RenderInput, RenderSurface, SessionContextUsage } from 'claude-code'
import { bindCommonEdges, type CommonEdges, bindFiles, bindRegisterTool, type RegisterTool, bindStore, pluginDataDirOf, type StoreEdges } from '../../lib/bind.ts'
import type { SafeWriteEdges } from '../../lib/safe-write.ts'
import type { RecallEdges } from './recall.ts'

/** The port: named as the checkpoint's edges name what it needs (session.ts), so the feature hands most of it on as it is. */
export type CheckpointPort = RecallEdges & StoreEdges & Pick<CommonEdges, 'now' | 'after' | 'submitPrompt'> & {
  readonly pkg: string
  /** The context window, read with the `summary` breakdown: the fill and the harness's own threshold. */
  usage(): Promise<SessionContextUsage>
  /** The fill alone: the plain usage read, which costs nothing. */
  fill(): Promise<number | undefined>
  /** The surfaces drawing the session (`desktop` among them when the app is attached). */
  surfaces(): Promise<readonly string[]>
  /** Queues a slash command (`$.command.run`); settles with its turn. */
  runCommand(command: string, args: string): Promise<unknown>
  toast(text: string): void
  /** Draws the renders again (`ui.render`). */
  redraw(): void
  elements(e: RenderInput): Elements[RenderSurface]
  /** The safe writer's edges (lib/files.ts), whose `read` and `list` the notes read with too. */
  readonly files: SafeWriteEdges
  /** This plugin's data folder, kept across updates (CLI only: rejects elsewhere). */
  pluginDataDir(): Promise<string>
  /** What says the desktop app started this session: its entrypoint, and the child-session marker a launcher sets. */
  desktopSignal(): Promise<[entrypoint: string | undefined, child: string | undefined]>
  /**
   * The presence signal (spec B.14): the session id of the session whose checkpoint blocks a mod of
   * the bundle saves, exported to the session's Bash children, where the checkpoint skill reads it.
   * One name for every package (the original's), since one package at most runs the feature in a
   * session. Resolves `{ deny }` when refused.
   */
  announcePresence(sessionId: string): Promise<{ deny?: string }>
  readonly registerTool: RegisterTool
}

export function bindCheckpoint($: EngineInterface): CheckpointPort {
  return {
    ...bindCommonEdges($),
    usage: async () => (await $.session.usage({ breakdown: 'summary' })).context,
    fill: async () => (await $.session.usage()).context.tokens,
    surfaces: () => $.session.surfaces(),
    runCommand: (command, args) => $.command.run({ command, args }),
    toast: (text) => $.ui.toast(text),
    files: bindFiles($),
    ...bindStore($),
    pluginDataDir: () => pluginDataDirOf($),
    desktopSignal: () => Promise.all([$.env.get('CLAUDE_CODE_ENTRYPOINT'), $.env.get('CLAUDE_CODE_CHILD_SESSION')]),
    announcePresence: (sessionId) => $.env.set('SUPERHEROES_COMPACT_MOD', sessionId) as Promise<{ deny?: string }>,
    registerTool: bindRegisterTool($),
    // Measured: a subagent's call reads the main conversation's transcript too; empty where none is kept.
    transcript: async () => {
      const path = (await $.session.info()).transcriptPath
      return { path, size: path ? (await $.fs.stat(path)).size : 0 }
    },
    readRange: (path, offset, length) => $.fs.read(path, { offset, length }),
  }
}
