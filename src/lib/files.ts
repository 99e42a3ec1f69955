// The safe writer's edges over `$` (lib/safe-write.ts): every feature that writes binds its file
// edges here, so there is one way a file is written. `mv` and `rm` are absolute, so a project's
// PATH cannot slip in its own.
import type { EngineInterface } from 'claude-code'
import type { PathFacts, SafeWriteEdges } from './safe-write.ts'

const MV = '/bin/mv'
const RM = '/bin/rm'
const COMMAND_TIMEOUT_MS = 10_000

async function hostRun($: EngineInterface, argv: readonly string[]): Promise<void> {
  const r = await $.process.run(argv, { timeoutMs: COMMAND_TIMEOUT_MS })
  if (r.exitCode !== 0) throw new Error(`${argv[0]} exited ${r.exitCode}: ${r.stderr.trim().split('\n')[0] ?? ''}`)
}

/** Whether `mv` starts here: `$.process.run` rejects only when it cannot (no `$.process` on this surface, no `/bin/mv`). */
async function runsCommands($: EngineInterface): Promise<boolean> {
  try {
    await $.process.run([MV, '--version'], { timeoutMs: COMMAND_TIMEOUT_MS })
    return true
  } catch {
    return false
  }
}

async function statOf($: EngineInterface, path: string): Promise<PathFacts | undefined> {
  try {
    const s = await $.fs.stat(path, { resolve: true })
    return { kind: s.kind, isLink: s.isLink, ...(s.realPath === undefined ? {} : { realPath: s.realPath }) }
  } catch {
    return undefined // nothing there (or nothing this plugin may see): the writer treats it as missing
  }
}

/** The safe writer's edges; whether the host runs commands is asked once, by starting `mv` itself. */
export function bindFiles($: EngineInterface): SafeWriteEdges {
  let commands: Promise<boolean> | undefined
  return {
    stat: (path) => statOf($, path),
    read: (path) => $.fs.read(path),
    write: (path, text) => $.fs.write(path, text),
    hasCommands: () => (commands ??= runsCommands($)),
    move: (from, to) => hostRun($, [MV, '-f', '--', from, to]),
    remove: (path) => hostRun($, [RM, '-f', '--', path]),
    token: () => crypto.randomUUID().replace(/-/g, '').slice(0, 12),
  }
}
