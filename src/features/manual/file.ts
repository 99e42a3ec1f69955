// Looking at the manual file through the binding's file system edges: where it really is, whether
// the project may carry it, and what it holds. Every failure is an answer here, never a throw.
import { MANUAL_CAP_BYTES } from './constants.ts'
import { messageOf } from '../../lib/message.ts'
import { isUnder } from './paths.ts'
import { classifyText, contentHash, type Content } from './section.ts'

/** The file system as the manual needs it; the binding fills it from `$.fs` and the project root. */
export type ManualFs = {
  /**
   * The manual's path as `$.fs.stat(path, { resolve: true })` answers it: where it lands, whether a
   * regular file, its size; null when there is no such file (ENOENT). Rejects on anything else.
   */
  stat(): Promise<{ readonly realPath?: string; readonly isFile: boolean; readonly bytes: number } | null>
  /** The project root's real path (the root resolved the same way). */
  realRoot(): Promise<string>
  /** The file's text (`$.fs.read`, UTF-8). */
  read(realPath: string): Promise<string>
}

export type Problem =
  | { readonly kind: 'missing' }
  | { readonly kind: 'unreadable'; readonly detail: string }
  /** A link (the file or a folder on the way) that lands outside the project: refused, never read. */
  | { readonly kind: 'outside'; readonly realPath: string; readonly realRoot: string }
  | { readonly kind: 'not-a-file'; readonly realPath: string }

export type Inspection =
  | { readonly found: false; readonly problem: Problem }
  /** `hash` is the content hash of a manual the prompt may carry (`ok`), null otherwise. */
  | { readonly found: true; readonly realPath: string; readonly content: Content; readonly hash: string | null }

const problem = (p: Problem): Inspection => ({ found: false, problem: p })
const unreadable = (err: unknown) => problem({ kind: 'unreadable', detail: messageOf(err) })

/** Stat and root first: a file outside the project or over the cap is never read. */
export async function inspectManual(fs: ManualFs, cap: number = MANUAL_CAP_BYTES): Promise<Inspection> {
  let stat: Awaited<ReturnType<ManualFs['stat']>>
  let realRoot: string
  try {
    ;[stat, realRoot] = await Promise.all([fs.stat(), fs.realRoot()])
  } catch (err) {
    return unreadable(err)
  }
  // A link that leads nowhere (no real path) is no manual either.
  const realPath = stat?.realPath
  if (!stat || realPath === undefined) return problem({ kind: 'missing' })
  if (!isUnder(realRoot, realPath)) return problem({ kind: 'outside', realPath, realRoot })
  if (!stat.isFile) return problem({ kind: 'not-a-file', realPath })
  if (stat.bytes > cap) return { found: true, realPath, content: { kind: 'too-large', bytes: stat.bytes }, hash: null }
  let raw: string
  try {
    raw = await fs.read(realPath)
  } catch (err) {
    return unreadable(err)
  }
  const content = classifyText(raw, cap)
  return { found: true, realPath, content, hash: content.kind === 'ok' ? await contentHash(content.text) : null }
}
