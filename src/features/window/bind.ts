// The window feature's `$` binder: what it reads and writes of the world, as plain closures.
import type { EngineInterface, SessionUsage } from 'claude-code'
import { bindFiles } from '../../lib/files.ts'
import { readHomeDir, readWindowEnv, setWindowEnv } from '../../lib/harness-window.ts'
import type { SafeWriteEdges } from '../../lib/safe-write.ts'

export type WindowPort = {
  readonly pkg: string
  /** The session's project root, absolute. */
  projectRoot(): Promise<string>
  /** The person's home folder (HOME, else USERPROFILE). */
  homeDir(): Promise<string | undefined>
  fileExists(path: string): Promise<boolean>
  readFile(path: string): Promise<string>
  /** The safe writer's edges; its `stat` also tells where a path lands, every link followed. */
  readonly files: SafeWriteEdges
  /** The harness's window override as the running process holds it (`CLAUDE_CODE_AUTO_COMPACT_WINDOW`). */
  windowEnv(): Promise<string | undefined>
  /** Sets (undefined: unsets) that override for the running session; resolves `{ deny }` when refused. */
  setWindowEnv(value: string | undefined): Promise<{ deny?: string }>
  /** A dim transcript row the model never reads. */
  notice(line: string): void
  /** The harness's own compaction figures (a summary usage read). */
  usage(): Promise<SessionUsage>
  now(): Promise<number>
}

export function bindWindow($: EngineInterface): WindowPort {
  return {
    pkg: $.plugin.name,
    projectRoot: () => $.session.root(),
    homeDir: () => readHomeDir($),
    fileExists: (path) => $.fs.exists(path),
    readFile: (path) => $.fs.read(path),
    files: bindFiles($),
    windowEnv: () => readWindowEnv($),
    setWindowEnv: async (value) => (await setWindowEnv($, value)) as { deny?: string },
    notice: (line) => $.ui.log(line),
    usage: () => $.session.usage({ breakdown: 'summary' }),
    now: () => $.clock.now(),
  }
}
