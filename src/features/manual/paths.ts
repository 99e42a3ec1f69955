// Paths as the manual feature compares them: lexically normalized, `/`-separated, so a real path
// the engine answers and a spelling the model gave compare alike. Pure; no file system here.
import * as s from './strings.ts'
import { isString } from '../../lib/shape.ts'

/** A drive (`C:`) before the first separator: the path is absolute on it. */
const DRIVE = /^[A-Za-z]:(?=\/)/

/**
 * `\` read as `/`, repeated separators and `.` dropped, `..` applied; no trailing separator. An
 * absolute path (`/x`, `C:/x`) never climbs above its root; a relative one keeps leading `..`.
 */
export function normalizePath(path: string): string {
  const unified = path.replace(/\\/g, '/')
  const drive = DRIVE.exec(unified)?.[0] ?? ''
  const absolute = drive !== '' || unified.startsWith('/')
  const out: string[] = []
  for (const segment of unified.slice(drive.length).split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment !== '..') out.push(segment)
    else if (out.length && out.at(-1) !== '..') out.pop()
    else if (!absolute) out.push('..')
  }
  const body = out.join('/')
  return absolute ? `${drive}/${body}` : body || '.'
}

/** A folder normalized, with the separator its entries follow it by. */
function asFolder(folder: string): string {
  const base = normalizePath(folder)
  return base.endsWith('/') ? base : `${base}/`
}

/** Whether `path` lies strictly beneath `folder` (both normalized here), at any depth: past its separator. */
export function isUnder(folder: string, path: string): boolean {
  const base = asFolder(folder)
  const target = normalizePath(path)
  return target.length > base.length && target.startsWith(base)
}

/** The folder holding `path` (normalized). */
export function folderOf(path: string): string {
  const normal = normalizePath(path)
  const cut = normal.lastIndexOf('/')
  if (cut < 0) return '.'
  // A root (`/`, `C:/`) keeps its separator.
  return normal.slice(0, cut === 0 || normal[cut - 1] === ':' ? cut + 1 : cut)
}

/** `from` and each folder above it, nearest first, up to `stop` (left out) or the file system's root. */
export function foldersUp(from: string, stop: string): string[] {
  const end = normalizePath(stop)
  const out: string[] = []
  for (let dir = normalizePath(from); dir !== end && !out.includes(dir); dir = folderOf(dir)) out.push(dir)
  return out
}

/** `name` (normalized, relative) under `folder`. */
export const joinPath = (folder: string, name: string) => asFolder(folder) + name

export type ManualLocation = { readonly path: string; readonly display: string } | { readonly problem: string }

/**
 * Where the manual is: `manualFile` joined to the project root. The option must be a path inside
 * the root (not absolute, not climbing out with `..`); `display` is how texts name it.
 */
export function manualLocation(root: string, manualFile: unknown): ManualLocation {
  const spelled = isString(manualFile) ? manualFile.trim() : ''
  if (!spelled) return { problem: s.LOCATION_EMPTY }
  if (/^([\\/]|[A-Za-z]:)/.test(spelled)) return { problem: s.locationAbsolute(spelled) }
  const display = normalizePath(spelled)
  if (display === '.' || display === '..' || display.startsWith('../')) return { problem: s.locationOutside(spelled) }
  return { path: joinPath(root, display), display }
}
