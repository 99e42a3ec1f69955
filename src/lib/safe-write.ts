// Every file keel writes goes through here, so no write can hurt a file that is not keel's own,
// whatever the disk, a crash, a second writer or a symbolic link does. Pure: the world comes in as
// edges (the port binds them to `$.fs` and, where the engine runs commands, `$.process`).
//
// Measured on 2.1.328 (safe-writes e2e): `$.fs.write` follows symbolic links (it writes through a
// link, creates the target of a dangling one, and writes through a linked folder), is not atomic
// (open, one write, truncate, close: a kill before the truncate leaves the new text over the old
// tail), and a failed write leaves the file emptied. `$.fs` has no rename or delete; `/bin/mv` and
// `/bin/rm` run through `$.process.run` in 3-17 ms. So:
//  - a write lands only on a real path inside the folder that owns it: no link anywhere between
//    that folder and the file, and the file itself no link or folder (refused with the reason);
//  - where the host runs commands, the text goes to a fresh temporary file beside the target, is
//    read back, and is renamed over the target (rename is atomic): a failure or a crash at any point
//    leaves the target as it was or whole with the new text, and a temporary file at worst;
//  - a write that names the text it read (`expected`) is not made when the file changed meanwhile,
//    so a second writer's change is never overwritten with an older picture of the file;
//  - measured: `$.fs.stat` answers no mode, `$.fs.write` makes a new file 0600 whatever the umask
//    (and, as root, writes through a 0444 file), and the rename replaces a 0444 file like any
//    other. So where the host runs commands the file's mode is read first (`ls -ld`): a file whose
//    owner may not write it is left as it is (refused with the reason), and the new text gets the
//    old file's mode before the rename;
//  - a crash between the temporary file and its rename leaves that file behind: `sweepTemps`
//    removes one older than any live write, in each folder keel writes into.
import { messageOf, toUndefined } from './message.ts'
import { trimSlash } from './text.ts'

export type PathFacts = {
  kind: 'file' | 'dir' | 'other'
  /** The path itself is a symbolic link. */
  isLink: boolean
  /** Where the path lands, every link followed; absent when it leads nowhere. */
  realPath?: string
}

export type SafeWriteEdges = {
  /** The path's facts, undefined when nothing is there (a dangling link is there: `isLink`). */
  stat(path: string): Promise<PathFacts | undefined>
  read(path: string): Promise<string>
  /** `$.fs.write`: in place, following links, creating folders. */
  write(path: string, text: string): Promise<void>
  /** Whether the host runs commands (`$.process`, the CLI): only then are `move` and `remove` there. */
  hasCommands(): Promise<boolean>
  /** An atomic rename over `to` (`/bin/mv`). */
  move(from: string, to: string): Promise<unknown>
  /** Removes a file (`/bin/rm`). */
  remove(path: string): Promise<unknown>
  /** A file's permission bits (`/bin/ls -ld`); rejects when they cannot be read. Only where the host runs commands. */
  mode(path: string): Promise<number>
  /** Sets a file's permission bits (`/bin/chmod`). */
  chmod(path: string, mode: number): Promise<unknown>
  /** `$.fs.list(folder)`: every entry, a link not followed; rejects for a missing folder. */
  list(folder: string): Promise<readonly { name: string; kind: PathFacts['kind']; size: number; mtimeMs: number; isLink: boolean }[]>
  /** A short random token for a temporary name. */
  token(): string
}

export type WriteRequest = {
  /** The folder that owns the write: the file must land inside its real path. */
  within: string
  /** The file, absolute, under `within` as spelled (links are checked on the way down). */
  path: string
  text: string
  /** The file's text this write was computed from (null: no file); a file that no longer holds it is left alone. */
  expected?: string | null
  /**
   * Where no atomic rename is available, write in place all the same: for a file whose torn or
   * empty state costs nothing (a crash-safe slot the reader checks, a record), never for a file
   * a person keeps (settings). Default false: without a rename, such a write is refused.
   */
  inPlace?: boolean
}

export type WriteOutcome = { ok: true; path: string; atomic: boolean } | { ok: false; reason: string }

/** A write (or a removal) made on the real path `path`; `atomic`: never torn on the way (a rename; for a removal, the file gone, not emptied). */
const written = (path: string, atomic: boolean): WriteOutcome => ({ ok: true, path, atomic })
/** A write (or a removal) not made, and why. */
const notWritten = (reason: string): WriteOutcome => ({ ok: false, reason })
/** An outcome as a caller that tells a failed write by a throw takes it: a refusal or a failure throws its reason. */
export function orThrow(outcome: WriteOutcome): void {
  if (!outcome.ok) throw new Error(outcome.reason)
}

/** Why a path is not keel's to write, in words; one home each. */
export const REFUSED = {
  ownerMissing: (within: string) => `its folder ${within} cannot be resolved`,
  link: (path: string) => `${path} is a symbolic link, and keel writes only to a real path inside the folder it owns`,
  notFolder: (path: string) => `${path} is not a folder`,
  folder: (path: string) => `${path} is a folder`,
  outside: (path: string, within: string) => `${path} is not inside ${within}`,
  changed: (path: string) => `${path} changed while keel was writing it, so keel left it as the other writer made it`,
  readBack: (path: string) => `the text written to ${path} did not read back whole`,
  noRename: (path: string) => `this surface runs no commands, so ${path} cannot be replaced atomically and keel does not write it in place`,
  readOnly: (path: string) => `${path} is read-only, so keel leaves it as it is; to let keel write it, make it writable (chmod u+w "${path}")`,
  failed: (path: string, why: string) => `${path} could not be written (${why}); it holds what it held before`,
}

/** A temporary file's name: dotted, so it sorts apart; `keel-` and `.tmp`, so a sweep can find one left by a crash. */
export const TEMP_PATTERN = /^\..+\.keel-[A-Za-z0-9]+\.tmp$/
const tempName = (name: string, token: string) => `.${name}.keel-${token}.tmp`
/**
 * A temporary file older than this is a crashed write's leftover: a live one lives for a write, a
 * read-back and a rename (milliseconds; each command is bounded at 10 s), so no writer still at
 * work holds one this old.
 */
export const STALE_TEMP_MS = 60 * 60 * 1000
/** Measured: the mode `$.fs.write` gives a new file; a rewrite of a file with this mode needs no chmod. */
const NEW_FILE_MODE = 0o600
/** The owner's write bit: without it, a person made the file read-only. */
const OWNER_WRITE = 0o200

/**
 * The real path the file would land on, or why not: `within`'s real path, then each part of the
 * path below it, none of which may be a link (a folder that is missing is created by the write).
 */
export async function resolveTarget(io: Pick<SafeWriteEdges, 'stat'>, within: string, path: string): Promise<{ target: string } | { refused: string }> {
  const owner = trimSlash(within)
  const facts = await io.stat(owner).catch(toUndefined)
  if (!facts?.realPath || facts.kind !== 'dir') return { refused: REFUSED.ownerMissing(owner) }
  // The parts of the path below the owner: none for a path that is not under it.
  const parts = path.startsWith(owner + '/') ? path.slice(owner.length + 1).split('/') : []
  if (!parts.length || parts.some((part) => part === '' || part === '.' || part === '..')) return { refused: REFUSED.outside(path, owner) }
  let real = facts.realPath
  let spelled = owner
  for (const [i, part] of parts.entries()) {
    real = `${real}/${part}`
    spelled = `${spelled}/${part}`
    const here = await io.stat(real).catch(toUndefined)
    // Missing: the write creates it, and every part below it.
    if (here === undefined) return { target: [real, ...parts.slice(i + 1)].join('/') }
    if (here.isLink) return { refused: REFUSED.link(spelled) }
    const isLast = i === parts.length - 1
    if (isLast && here.kind === 'dir') return { refused: REFUSED.folder(spelled) }
    if (!isLast && here.kind !== 'dir') return { refused: REFUSED.notFolder(spelled) }
  }
  return { target: real }
}

/** The file's text now; null when there is none. A read that fails is a failure: nothing is decided on it. */
async function current(io: SafeWriteEdges, target: string): Promise<string | null> {
  return (await io.stat(target)) === undefined ? null : io.read(target)
}

/** Writes one file by the rules above. Never throws: a refusal or a failure is an outcome with its reason. */
export async function writeSafely(io: SafeWriteEdges, req: WriteRequest): Promise<WriteOutcome> {
  const { path, text, expected } = req
  let resolved: { target: string } | { refused: string }
  try {
    resolved = await resolveTarget(io, req.within, path)
  } catch (err) {
    return notWritten(REFUSED.failed(path, messageOf(err)))
  }
  if ('refused' in resolved) return notWritten(resolved.refused)
  const target = resolved.target
  if (!(await io.hasCommands().catch(() => false))) {
    if (!req.inPlace) return notWritten(REFUSED.noRename(path))
    try {
      if (expected !== undefined && (await current(io, target)) !== expected) return notWritten(REFUSED.changed(path))
      await io.write(target, text)
      return (await io.read(target)) === text ? written(target, false) : notWritten(REFUSED.readBack(path))
    } catch (err) {
      return notWritten(`${path} could not be written (${messageOf(err)})`)
    }
  }
  const slash = target.lastIndexOf('/')
  const temp = `${target.slice(0, slash)}/${tempName(target.slice(slash + 1), io.token())}`
  let outcome: WriteOutcome
  try {
    const mode = (await io.stat(target)) ? await io.mode(target) : undefined
    if (mode !== undefined && !(mode & OWNER_WRITE)) return notWritten(REFUSED.readOnly(path))
    await io.write(temp, text)
    if ((await io.read(temp)) !== text) outcome = notWritten(REFUSED.readBack(path))
    else if (expected !== undefined && (await current(io, target)) !== expected) outcome = notWritten(REFUSED.changed(path))
    else {
      if (mode !== undefined && mode !== NEW_FILE_MODE) await io.chmod(temp, mode)
      await io.move(temp, target)
      return written(target, true)
    }
  } catch (err) {
    outcome = notWritten(REFUSED.failed(path, messageOf(err)))
  }
  await io.remove(temp).catch(toUndefined)
  return outcome
}

/** Removes a file keel owns (a real path inside `within`); where the host runs no commands, empties it instead. */
export async function removeSafely(io: SafeWriteEdges, within: string, path: string): Promise<WriteOutcome> {
  try {
    const resolved = await resolveTarget(io, within, path)
    if ('refused' in resolved) return notWritten(resolved.refused)
    const { target } = resolved
    if ((await io.stat(target)) === undefined) return written(target, true)
    const removes = await io.hasCommands().catch(() => false)
    if (removes) await io.remove(target)
    else await io.write(target, '')
    return written(target, removes)
  } catch (err) {
    return notWritten(`${path} could not be removed (${messageOf(err)})`)
  }
}

/**
 * Removes the temporary files a crash left in `folder` (under `within`), each older than any live
 * write (`STALE_TEMP_MS` by its modification time, on the engine's clock `now`), so a copy of a
 * person's file never stays beside it; a link or a folder of that name is refused by `removeSafely`.
 * Nothing where the host runs no commands (no temporary file is made there) or the folder cannot be
 * listed. Never throws.
 */
export async function sweepTemps(io: SafeWriteEdges, within: string, folder: string, now: () => number | Promise<number>): Promise<void> {
  try {
    if (!(await io.hasCommands())) return
    const at = await now()
    for (const e of await io.list(folder)) if (isStaleTemp(e, at)) await removeSafely(io, within, `${folder}/${e.name}`)
  } catch {
    // Nothing to list, or no clock: the next sweep tries again.
  }
}

/** A folder's entry named as this writer's temporary file, older than any live write. */
export const isStaleTemp = (entry: { name: string; mtimeMs: number }, now: number) => TEMP_PATTERN.test(entry.name) && now - entry.mtimeMs > STALE_TEMP_MS
