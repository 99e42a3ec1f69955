// The manual feature's `$` binder: the file system it looks at the manual through, where the
// project's root is, the conversation it reads repeats in, the clock and the store of what each
// session's prompt carries.
import type { EngineInterface } from 'claude-code'
import { bindCommonEdges, bindStore, type CommonEdges, type StoreEdges } from '../../lib/bind.ts'
import type { ApiRow } from './reads.ts'

/** What `$.fs.stat(path, { resolve: true })` tells: what the path leads to, its size, where it lands. */
export type PathStat = { readonly kind: 'file' | 'dir' | 'other'; readonly size: number; readonly realPath?: string }

/** The common edges it uses: the clock. */
export type ManualPort = Pick<CommonEdges, 'now' | 'after'> & StoreEdges & {
  /** `$.fs.stat(path, { resolve: true })`; rejects (`… failed: ENOENT`) for a missing path. */
  stat(path: string): Promise<PathStat>
  /** `$.fs.read`: the file's text (bytes that are not UTF-8 read as U+FFFD). */
  read(path: string): Promise<string>
  /** The git repository's root the session runs in; undefined outside one. */
  repoRoot(): Promise<string | undefined>
  /** The folders above the session's directory that hold `name`, root first (`$.fs.ancestors`). */
  ancestors(name: string): Promise<string[]>
  /** The session's project root (`$.session.root()`). */
  sessionRoot(): Promise<string>
  /** Whether the main conversation holds rows already (a --resume, a --continue, a fork); a refused read rejects. */
  hasHistory(): Promise<boolean>
  /** The main conversation in api form: the text each tool result read as. */
  apiMessages(): Promise<readonly ApiRow[]>
}

export function bindManual($: EngineInterface): ManualPort {
  return {
    ...bindCommonEdges($),
    stat: (path) => $.fs.stat(path, { resolve: true }),
    read: (path) => $.fs.read(path),
    repoRoot: async () => (await $.session.repo())?.root,
    ancestors: async (name) => (await $.fs.ancestors({ names: [name] })).map((found) => found.dir),
    sessionRoot: () => $.session.root(),
    hasHistory: async () => {
      const rows = await $.session.messages({ last: 1 })
      if ('deny' in rows) throw new Error(rows.deny)
      return rows.length > 0
    },
    apiMessages: () => $.session.messages({ as: 'api' }),
    ...bindStore($),
  }
}
