// The safe writer's edges (lib/safe-write.ts) that are more than one `$` call, made of two host calls
// lib/bind.ts binds to `$`: every feature that writes binds its file edges there, so there is one
// way a file is written.
// The commands are absolute, so a project's PATH cannot slip in its own; `ls` and `chmod` with these
// arguments are the same on Linux and macOS.
import type { PathFacts, SafeWriteEdges } from './safe-write.ts'

const MV = '/bin/mv'
const RM = '/bin/rm'
const LS = '/bin/ls'
const CHMOD = '/bin/chmod'
const COMMAND_TIMEOUT_MS = 10_000

/** The host calls these edges are made of, each one `$` call (lib/bind.ts). */
export type HostFiles = {
  /** `$.process.run`: rejects where the host runs no commands (no `$.process` on this surface, no such command). */
  run(argv: readonly string[], timeoutMs: number): Promise<{ exitCode: number | null; stdout: string; stderr: string }>
  /** `$.fs.stat(path, { resolve: true })`: rejects where nothing is there (or nothing this plugin may see). */
  stat(path: string): Promise<PathFacts>
}

/** The safe writer's edges made here; `read`, `write` and `list` are `$.fs`'s own (lib/bind.ts). */
export type CommandEdges = Omit<SafeWriteEdges, 'read' | 'write' | 'list'>

/**
 * The permission bits `ls -l` spells at the head of its line (`-rw-r--r--`, maybe a `.`, `@` or `+`
 * after): each letter but `S` and `T` sets its bit (setuid, setgid and sticky are not kept).
 */
export function modeOfListing(line: string): number {
  const letters = /^.([-rwxsStT]{9})/.exec(line)?.[1]
  if (letters === undefined) throw new Error(`no mode in ${JSON.stringify(line.slice(0, 40))}`)
  return parseInt(letters.replace(/[^-ST]/g, '1').replace(/\D/g, '0'), 2)
}

/** The safe writer's edges over `host`; whether the host runs commands is asked once, by starting `mv` itself. */
export function filesOver(host: HostFiles): CommandEdges {
  let commands: Promise<boolean> | undefined
  /** A command's output; one that exits other than 0 rejects with the first line it wrote to stderr. */
  async function run(argv: readonly string[]): Promise<string> {
    const r = await host.run(argv, COMMAND_TIMEOUT_MS)
    if (r.exitCode !== 0) throw new Error(`${argv[0]} exited ${r.exitCode}: ${r.stderr.trim().split('\n')[0]!}`)
    return r.stdout
  }
  /** Whether `mv` starts here (its exit code aside: BSD's `mv` has no `--version`). */
  async function runsCommands(): Promise<boolean> {
    try {
      await host.run([MV, '--version'], COMMAND_TIMEOUT_MS)
      return true
    } catch {
      return false
    }
  }
  return {
    async stat(path) {
      try {
        const s = await host.stat(path)
        return { kind: s.kind, isLink: s.isLink, ...(s.realPath === undefined ? {} : { realPath: s.realPath }) }
      } catch {
        return // nothing there (or nothing this plugin may see): the writer treats it as missing
      }
    },
    hasCommands: () => (commands ??= runsCommands()),
    move: (from, to) => run([MV, '-f', '--', from, to]),
    remove: (path) => run([RM, '-f', '--', path]),
    mode: async (path) => modeOfListing(await run([LS, '-ld', '--', path])),
    chmod: (path, mode) => run([CHMOD, '--', mode.toString(8), path]),
    token: () => crypto.randomUUID().replace(/-/g, '').slice(0, 12),
  }
}
