// An in-memory file system behind the safe writer's edges (lib/safe-write.ts), as `$.fs` behaves
// (measured): a write follows symbolic links and creates folders; `mv` and `rm` exist only where
// the host runs commands. Links, failures and a second writer are set up by the test.
import type { PathFacts, SafeWriteEdges } from '../../src/lib/safe-write.ts'

export type FakeFiles = {
  edges: SafeWriteEdges
  files: Map<string, string>
  /** path -> target (absolute): a symbolic link; a target that does not exist makes it dangling. */
  links: Map<string, string>
  dirs: Set<string>
  /** path -> permission bits: a file set up by the test is 0644, one `write` makes is 0600 (as `$.fs.write`, measured). */
  modes: Map<string, number>
  /** path -> modification time: a write stamps `now`. */
  mtimes: Map<string, number>
  /** The clock writes are stamped with. */
  now: number
  /** Every write and move, in order, for assertions. */
  log: string[]
  /** Set by a test: a write to a path it returns true for fails (ENOSPC), after emptying the file as the engine does. */
  failWrite?: (path: string) => boolean
  failMove?: boolean
  commands: boolean
  /** Runs before the move over `to`: a second writer's chance. */
  beforeMove?: (to: string) => void
}

const parentOf = (p: string) => p.slice(0, p.lastIndexOf('/')) || '/'

export function fakeFiles(init: Record<string, string> = {}, dirs: string[] = []): FakeFiles {
  const world: FakeFiles = {
    files: new Map(Object.entries(init)),
    links: new Map(),
    dirs: new Set(['/', ...dirs]),
    modes: new Map(Object.keys(init).map((p) => [p, 0o644])),
    mtimes: new Map(),
    now: 0,
    log: [],
    commands: true,
    edges: undefined as unknown as SafeWriteEdges,
  }
  for (const path of world.files.keys()) for (let d = parentOf(path); d !== '/'; d = parentOf(d)) world.dirs.add(d)
  for (const d of [...world.dirs]) for (let p = parentOf(d); p !== '/'; p = parentOf(p)) world.dirs.add(p)

  /** Follows links in every part of the path; undefined when a link leads nowhere. */
  function real(path: string, depth = 0): string | undefined {
    if (depth > 20) return undefined
    const parts = path.split('/').filter(Boolean)
    let at = ''
    for (const part of parts) {
      at = `${at}/${part}`
      const target = world.links.get(at)
      if (target !== undefined) {
        const resolved = real(target, depth + 1)
        if (resolved === undefined) return undefined
        at = resolved
      }
    }
    return at || '/'
  }
  const exists = (p: string) => world.files.has(p) || world.dirs.has(p)

  world.edges = {
    stat: async (path): Promise<PathFacts | undefined> => {
      const isLink = world.links.has(path)
      const where = real(path)
      if (where === undefined || !exists(where)) return isLink ? { kind: 'other', isLink } : undefined
      return { kind: world.dirs.has(where) ? 'dir' : 'file', isLink, realPath: where }
    },
    read: async (path) => {
      const where = real(path)
      const text = where === undefined ? undefined : world.files.get(where)
      if (text === undefined) throw new Error(`ENOENT ${path}`)
      return text
    },
    write: async (path, text) => {
      // Like `$.fs.write`: through a link, creating a dangling link's target and any missing folder.
      const target = world.links.has(path) ? world.links.get(path)! : path
      const where = real(parentOf(target)) + '/' + target.slice(target.lastIndexOf('/') + 1)
      for (let d = parentOf(where); d !== '/' && !world.dirs.has(d); d = parentOf(d)) world.dirs.add(d)
      world.log.push(`write ${where}`)
      if (world.failWrite?.(where)) {
        if (world.files.has(where)) world.files.set(where, '')
        throw new Error(`ENOSPC: no space left on device, write '${where}'`)
      }
      if (!world.files.has(where)) world.modes.set(where, 0o600)
      world.mtimes.set(where, world.now)
      world.files.set(where, text)
    },
    hasCommands: async () => world.commands,
    move: async (from, to) => {
      if (!world.commands) throw new TypeError('no $.process here')
      world.beforeMove?.(to)
      if (world.failMove) throw new Error('/bin/mv exited 1: mv: cannot move')
      const text = world.files.get(from)
      if (text === undefined) throw new Error(`/bin/mv exited 1: no ${from}`)
      world.log.push(`move ${from} -> ${to}`)
      world.files.delete(from)
      world.links.delete(to) // rename replaces a link itself, never its target
      world.files.set(to, text)
      world.modes.set(to, world.modes.get(from) ?? 0o600)
      world.mtimes.set(to, world.mtimes.get(from) ?? world.now)
    },
    remove: async (path) => {
      if (!world.commands) throw new TypeError('no $.process here')
      world.log.push(`remove ${path}`)
      world.files.delete(path)
      world.links.delete(path)
    },
    mode: async (path) => {
      if (!world.commands) throw new TypeError('no $.process here')
      const mode = world.modes.get(path)
      if (mode === undefined) throw new Error(`/bin/ls exited 2: cannot access '${path}'`)
      return mode
    },
    chmod: async (path, mode) => {
      if (!world.commands) throw new TypeError('no $.process here')
      world.log.push(`chmod ${mode.toString(8)} ${path}`)
      world.modes.set(path, mode)
    },
    list: async (folder) => {
      const where = real(folder)
      if (where === undefined || !world.dirs.has(where)) throw new Error(`ENOENT ${folder}`)
      const names = new Set([...world.files.keys(), ...world.dirs, ...world.links.keys()].filter((p) => p !== where && parentOf(p) === where))
      return [...names].map((p) => ({
        name: p.slice(where.length + 1),
        kind: world.links.has(p) ? ('other' as const) : world.dirs.has(p) ? ('dir' as const) : ('file' as const),
        size: world.files.get(p)?.length ?? 0,
        mtimeMs: world.mtimes.get(p) ?? 0,
        isLink: world.links.has(p),
      }))
    },
    token: () => 'tok',
  }
  return world
}
