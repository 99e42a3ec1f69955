// lib's `$` binder: the edges several features bind alike, each in one home. The loader lets `$` be
// handed only to a function declared at a module's top and wants `$.env` names as literals, so a
// feature's binder hands `$` to these: the safe writer's file edges (checkpoint, mailbox, routing,
// window), the one way a tool is registered (timing, reconnect, mailbox, checkpoint), the harness's
// compaction-window override (window, timing) and the home folder (window).
import type { EngineInterface, ToolSpec } from 'claude-code'
import { filesOver } from './files.ts'
import type { SafeWriteEdges } from './safe-write.ts'

/** The safe writer's edges: `$.fs`'s own, and those lib/files.ts makes of a command run and a stat. */
export function bindFiles($: EngineInterface): SafeWriteEdges {
  return {
    ...filesOver({ run: (argv, timeoutMs) => $.process.run(argv, { timeoutMs }), stat: (path) => $.fs.stat(path, { resolve: true }) }),
    read: (path) => $.fs.read(path),
    write: (path, text) => $.fs.write(path, text),
    list: (folder) => $.fs.list(folder),
  }
}

export type RegisterTool = (spec: ToolSpec) => Promise<string>

/**
 * The one way a feature registers a tool the model calls (timing's and reconnect's levers, the
 * mailbox, recall): `$.tool.register`, answered with the tool's full name, `mcp__<pkg>__<name>`,
 * which the feature's `tool.call` hook then serves, ahead of the permission check.
 */
export function bindRegisterTool($: EngineInterface): RegisterTool {
  return async (spec) => (await $.tool.register(spec)).tool
}

/** The harness's compaction-window override as the running process holds it (settings env rows land here too). */
export function readWindowEnv($: EngineInterface): Promise<string | undefined> {
  return $.env.get('CLAUDE_CODE_AUTO_COMPACT_WINDOW')
}

/** Sets (or, with undefined, unsets) the override for the running session: measured to take effect at once. */
export function setWindowEnv($: EngineInterface, value: string | undefined): ReturnType<EngineInterface['env']['set']> {
  return $.env.set('CLAUDE_CODE_AUTO_COMPACT_WINDOW', value)
}

/** The person's home folder: HOME, or USERPROFILE on Windows. */
export async function readHomeDir($: EngineInterface): Promise<string | undefined> {
  return (await $.env.get('HOME')) || (await $.env.get('USERPROFILE')) || undefined
}
