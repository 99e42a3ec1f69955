// The engine's file world for kit tests, over one map: `$.fs` reads, writes, stats and lists, and the
// `mv`/`rm`/`ls -ld`/`chmod` the safe writer runs through `$.process.run` (lib/safe-write.ts). A folder
// is any prefix of a file's path, or one named in `dirs`; there are no links here (the e2e tests have
// real ones). Modes as the engine gives them (measured): a file the test set up is 0644 unless `modes`
// says otherwise, one `$.fs.write` makes is 0600, a rename carries the moved file's mode.
import type { TestBody } from 'claude-code/testing'

type On = Parameters<TestBody>[1]

/** `landed` hears each file a write ends in: the target a temporary file is moved over, or one written in place. */
export function filesWorld(on: On, files: Map<string, string>, opts: { dirs?: string[]; fail?: (op: string) => void; landed?: (path: string) => void; modes?: Map<string, number> } = {}) {
  const fail = opts.fail ?? (() => undefined)
  const modes = opts.modes ?? new Map<string, number>()
  for (const path of files.keys()) if (!modes.has(path)) modes.set(path, 0o644)
  const letters = (mode: number) => [...'rwxrwxrwx'].map((c, i) => (mode & (0o400 >> i) ? c : '-')).join('')
  const isDir = (p: string) => (opts.dirs ?? []).some((d) => d === p || d.startsWith(`${p}/`)) || [...files.keys()].some((f) => f.startsWith(`${p}/`))
  on('fs.read', (_, e) => {
    fail('fs.read')
    const text = files.get(e.path)
    if (text === undefined) throw new Error(`ENOENT ${e.path}`)
    if (e.offset === undefined && e.length === undefined) return { value: text }
    // A range, cut as the host cuts it: bytes, a cut character read as U+FFFD.
    const from = e.offset ?? 0
    return { value: new TextDecoder().decode(new TextEncoder().encode(text).slice(from, from + (e.length ?? Infinity))) }
  })
  on('fs.write', (_, e) => {
    fail('fs.write')
    if (!files.has(e.path)) modes.set(e.path, 0o600)
    files.set(e.path, e.text)
    if (!/\/\.[^/]+\.keel-[A-Za-z0-9]+\.tmp$/.test(e.path)) opts.landed?.(e.path)
    return { value: undefined }
  })
  on('fs.exists', (_, e) => ({ value: files.has(e.path) || isDir(e.path) }))
  on('fs.stat', (_, e) => {
    if (files.has(e.path)) return { value: { kind: 'file', size: new TextEncoder().encode(files.get(e.path)!).length, mtimeMs: 0, isLink: false, realPath: e.path } }
    if (isDir(e.path)) return { value: { kind: 'dir', size: 0, mtimeMs: 0, isLink: false, realPath: e.path } }
    return { deny: `ENOENT ${e.path}` }
  })
  on('fs.list', (_, e) => ({
    value: [...files.keys()].filter((f) => f.startsWith(`${e.path}/`) && !f.slice(e.path.length + 1).includes('/'))
      .map((f) => ({ name: f.slice(e.path.length + 1), kind: 'file', size: files.get(f)!.length, mtimeMs: 0, isLink: false })),
  }))
  on('process.run', (_, e) => {
    const [cmd, ...args] = e.argv
    const paths = args.filter((a) => a !== '-f' && a !== '-ld' && a !== '--')
    if (cmd === '/bin/ls' && files.has(paths[0]!)) return { value: { exitCode: 0, stdout: `-${letters(modes.get(paths[0]!)!)} 1 u g ${files.get(paths[0]!)!.length} Jan  1 00:00 ${paths[0]}\n`, stderr: '', isStdoutTruncated: false, isStderrTruncated: false } }
    if (cmd === '/bin/chmod') modes.set(paths[1]!, parseInt(paths[0]!, 8))
    if (cmd === '/bin/mv' && paths.length === 2) {
      const text = files.get(paths[0]!)
      if (text === undefined) return { value: { exitCode: 1, stdout: '', stderr: `mv: cannot stat '${paths[0]}'`, isStdoutTruncated: false, isStderrTruncated: false } }
      files.delete(paths[0]!)
      files.set(paths[1]!, text)
      modes.set(paths[1]!, modes.get(paths[0]!) ?? 0o600)
      opts.landed?.(paths[1]!)
    } else if (cmd === '/bin/rm') for (const p of paths) files.delete(p)
    return { value: { exitCode: 0, stdout: '', stderr: '', isStdoutTruncated: false, isStderrTruncated: false } }
  })
}
