// The window feature's `$` binder: what it reads and writes of the world, as plain closures.
import type { EngineInterface } from 'claude-code'
import { bindCommonEdges, type CommonEdges, bindFiles, readHomeDir, readWindowEnv, setWindowEnv } from '../../lib/bind.ts'
import type { SafeWriteEdges } from '../../lib/safe-write.ts'

/** The common edges it uses: the clock (a crashed write's leftovers are aged by it), a notice, the harness's figures. */
export type WindowPort = Pick<CommonEdges, 'now' | 'notice' | 'usage'> & {
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
}

export function bindWindow($: EngineInterface): WindowPort {
  return {
    ...bindCommonEdges($),
    projectRoot: () => $.session.root(),
    homeDir: () => readHomeDir($),
    fileExists: (path) => $.fs.exists(path),
    readFile: (path) => $.fs.read(path),
    files: bindFiles($),
    windowEnv: () => readWindowEnv($),
    setWindowEnv: async (value) => (await setWindowEnv($, value)) as { deny?: string },
  }
}
