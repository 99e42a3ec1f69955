// The safe writer's edges over `$` (lib/safe-write.ts): every feature that writes binds its file
// edges here, so there is one way a file is written. The commands are absolute, so a project's
// PATH cannot slip in its own; `ls` and `chmod` with these arguments are the same on Linux and macOS.
import type { EngineInterface } from 'claude-code'
import type { PathFacts, SafeWriteEdges } from './safe-write.ts'

const MV = '/bin/mv'
const RM = '/bin/rm'
const LS = '/bin/ls'
const CHMOD = '/bin/chmod'
const COMMAND_TIMEOUT_MS = 10_000

async function hostRun($: EngineInterface, argv: readonly string[]): Promise<string> {
  const r = await $.process.run(argv, { timeoutMs: COMMAND_TIMEOUT_MS })
  if (r.exitCode !== 0) throw new Error(`${argv[0]} exited ${r.exitCode}: ${r.stderr.trim().split('\n')[0] ?? ''}`)
  return r.stdout
}

/**
 * The permission bits `ls -l` spells at the head of its line (`-rw-r--r--`, maybe a `.`, `@` or `+`
 * after): each letter but `S` and `T` sets its bit (setuid, setgid and sticky are not kept).
 */
export function modeOfListing(line: string): number {
  const letters = /^.([-rwxsStT]{9})/.exec(line)?.[1]
  if (letters === undefined) throw new Error(`no mode in ${JSON.stringify(line.slice(0, 40))}`)
  return parseInt(letters.replace(/[^-ST]/g, '1').replace(/\D/g, '0'), 2)
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
    mode: async (path) => modeOfListing(await hostRun($, [LS, '-ld', '--', path])),
    chmod: (path, mode) => hostRun($, [CHMOD, '--', mode.toString(8), path]),
    list: (folder) => $.fs.list(folder),
    token: () => crypto.randomUUID().replace(/-/g, '').slice(0, 12),
  }
}
