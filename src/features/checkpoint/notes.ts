// The session's checkpoint notes, saved crash-safely without rename (spec B.18.2): two slot files
// per session, and a store pointer naming the committed one. A save writes the other slot, reads it
// back, then moves the pointer: the pointer's write is the commit, so a crash or a torn write
// before it leaves the previous notes in force. Readers check the pointer's length and digest.
// The slots alternate, so neither is a path a summary can name for long: after each commit the
// notes are copied to one stable file, `<session>.notes.md`, the path the model is given. The copy
// is not the truth (the committed slot is): a copy that lags (a crash between the commit and the
// copy) is rewritten before its path is given out again.
import { toUndefined } from '../../lib/message.ts'
import { isStaleTemp } from '../../lib/safe-write.ts'
import { byteLength } from '../../lib/text.ts'
import { NOTES_CAP_BYTES, NOTES_FOLDER, NOTES_KEY_PREFIX, SESSIONS_KEPT, STABLE_ENDING } from './constants.ts'
import { ERR_NOTES_TOO_LARGE, ERR_READ_BACK, ERR_SAVE_HELD } from './strings.ts'
import { isString } from '../../lib/shape.ts'

export type Slot = 'a' | 'b'
export type Pointer = { slot: Slot; length: number; digest: string; savedAt: number }

/** A file of the notes folder, as the folder lists it. */
export type FolderEntry = { name: string; mtimeMs: number }

/** What the notes need of the world: the plugin's data folder, files, the store and the clock. */
export type NotesEdges = {
  dataDir(): Promise<string>
  read(path: string): Promise<string>
  /** Replaces a file of the data folder (lib/safe-write.ts: never through a link; atomic where the host allows). */
  write(path: string, text: string): Promise<void>
  /** Removes a file of the data folder (emptied where the host runs no commands). */
  remove(path: string): Promise<void>
  /** The notes folder's files; none when it does not exist. */
  list(folder: string): Promise<readonly FolderEntry[]>
  storeGet(key: string): Promise<unknown>
  storeSet(key: string, value: unknown): Promise<void>
  storeKeys(): Promise<string[]>
  storeDelete(key: string): Promise<void>
  now(): Promise<number>
}

/** Unreadable notes are `undefined`, no notes `null`: the checkpoint tells the two apart (B.8.3). */
export type NotesRead = string | null | undefined

/** FNV-1a, 32 bits, over the UTF-16 code units: a cheap check that a slot holds what was committed. */
export function fnv1a32(text: string): string {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(16).padStart(8, '0')
}

/** A stored pointer, or null for anything else (anything but an object has no slot). */
function pointerOf(value: unknown): Pointer | null {
  const p = value as Partial<Pointer> | null | undefined
  return (p?.slot === 'a' || p?.slot === 'b') && typeof p.length === 'number' && isString(p.digest) && typeof p.savedAt === 'number' ? (p as Pointer) : null
}

export { byteLength }

/** When a stored value says it was last used (saved, or touched by `touch`); one that says nothing counts as the oldest. */
const savedAtOf = (value: unknown) => {
  const at = (value as { savedAt?: number } | null)?.savedAt
  return Number.isFinite(at) ? at! : 0
}

/**
 * The keys under `prefix` beyond the `kept` last used, by the `savedAt` each value carries: the
 * store keeps a key's first place when it is set again, so its order is not the order of use.
 * `current`'s key is never among them. Values are read only when there are too many keys.
 */
export async function staleKeys(edges: Pick<NotesEdges, 'storeKeys' | 'storeGet'>, prefix: string, kept: number, current: string): Promise<string[]> {
  const keys = (await edges.storeKeys()).filter((k) => k.startsWith(prefix))
  if (keys.length <= kept) return []
  const dated = await Promise.all(keys.map(async (key, order) => ({ key, order, at: key === prefix + current ? Infinity : savedAtOf(await edges.storeGet(key)) })))
  // Newest first; of two saved at the same time, the one set later (one key at most is Infinity).
  dated.sort((a, b) => b.at - a.at || b.order - a.order)
  return dated.slice(kept).map((d) => d.key)
}

/** The notes of the sessions over `edges`: each session's two slots, its stable copy, its store pointer. */
export function createNotes(edges: NotesEdges) {
  /** The notes folder, under the plugin's data folder. */
  async function notesFolder(): Promise<string> {
    return `${await edges.dataDir()}/${NOTES_FOLDER}`
  }

  /**
   * A file of the session's in the folder, by its ending (sessionOfFile reads them back): a slot,
   * `.notes.a.md`; the stable copy, `.notes.md`, the one path the model is told, always holding
   * the committed notes; the skip record, `.skip`.
   */
  async function fileOf(sessionId: string, ending: string): Promise<string> {
    return `${await notesFolder()}/${sessionId}${ending}`
  }

  /** The committed pointer, null when nothing was saved; throws when the store cannot be read. */
  async function committedPointer(sessionId: string): Promise<Pointer | null> {
    return pointerOf(await edges.storeGet(NOTES_KEY_PREFIX + sessionId))
  }

  /**
   * Where the model finds the committed notes, or null when none were saved: the stable copy,
   * rewritten first when it lags; the committed slot itself when the copy cannot be made current.
   */
  async function path(sessionId: string): Promise<string | null> {
    const pointer = await committedPointer(sessionId)
    if (!pointer) return null
    const slot = await fileOf(sessionId, `.notes.${pointer.slot}.md`)
    const committed = await read(sessionId)
    if (typeof committed !== 'string') return slot
    const stable = await fileOf(sessionId, STABLE_ENDING)
    return (await edges.read(stable).catch(toUndefined)) === committed || (await publish(sessionId, committed)) ? stable : slot
  }

  /** Copies `text` to the stable path; true when it reads back whole. Never throws: the commit stands either way. */
  async function publish(sessionId: string, text: string): Promise<boolean> {
    try {
      const stable = await fileOf(sessionId, STABLE_ENDING)
      await edges.write(stable, text)
      return (await edges.read(stable)) === text
    } catch {
      return false
    }
  }

  /** The committed notes; `undefined` when the store, the file or the check fails. */
  async function read(sessionId: string): Promise<NotesRead> {
    try {
      const pointer = await committedPointer(sessionId)
      if (!pointer) return null
      const text = await edges.read(await fileOf(sessionId, `.notes.${pointer.slot}.md`))
      return text.length === pointer.length && fnv1a32(text) === pointer.digest ? text : undefined
    } catch {
      return
    }
  }

  /**
   * Replaces the notes, or throws with the previous notes still in force. Returns the pointer
   * committed. A save `givenUp` meanwhile (the disk held it past its bound) commits nothing.
   */
  async function save(sessionId: string, body: string, givenUp?: () => boolean): Promise<Pointer> {
    if (byteLength(body) > NOTES_CAP_BYTES) throw new Error(ERR_NOTES_TOO_LARGE)
    const slot: Slot = (await committedPointer(sessionId))?.slot === 'a' ? 'b' : 'a'
    const path = await fileOf(sessionId, `.notes.${slot}.md`)
    await edges.write(path, body)
    if ((await edges.read(path)) !== body) throw new Error(ERR_READ_BACK)
    if (givenUp?.()) throw new Error(ERR_SAVE_HELD)
    const pointer: Pointer = { slot, length: body.length, digest: fnv1a32(body), savedAt: await edges.now() }
    await edges.storeSet(NOTES_KEY_PREFIX + sessionId, pointer)
    await publish(sessionId, body)
    return pointer
  }

  /**
   * Store hygiene: at most SESSIONS_KEPT sessions keep notes, the least recently used evicted,
   * never `current`; their files go with them (`sweep`). Returns the sessions evicted.
   */
  async function evict(current: string): Promise<string[]> {
    const evicted = await staleKeys(edges, NOTES_KEY_PREFIX, SESSIONS_KEPT, current)
    for (const key of evicted) await edges.storeDelete(key)
    await sweep(current)
    return evicted.map(sessionOfKey)
  }

  /**
   * Keeps the folder bounded: the files of every session whose notes the store keeps (at most
   * SESSIONS_KEPT, by `evict`) and `current`'s stay, then the most recently written others up to
   * SESSIONS_KEPT sessions in all; the rest, and a temporary file a crash left behind, are removed.
   * Returns the names removed.
   */
  async function sweep(current: string): Promise<string[]> {
    const folder = await notesFolder()
    const entries = await edges.list(folder)
    const kept = new Set([current, ...(await edges.storeKeys()).filter((k) => k.startsWith(NOTES_KEY_PREFIX)).map(sessionOfKey)])
    const now = await edges.now()
    const newest = new Map<string, number>()
    for (const entry of entries) {
      const id = sessionOfFile(entry.name)
      if (id) newest.set(id, Math.max(newest.get(id) ?? 0, entry.mtimeMs))
    }
    // Then the others, most recently written first, while room is left.
    for (const id of [...newest.keys()].sort((a, b) => newest.get(b)! - newest.get(a)!)) if (kept.size < SESSIONS_KEPT) kept.add(id)
    // A temporary file's name (dotted) is never a session's.
    const gone = entries.filter((e) => {
      const id = sessionOfFile(e.name)
      return isStaleTemp(e, now) || (!!id && !kept.has(id))
    })
    for (const entry of gone) await edges.remove(`${folder}/${entry.name}`)
    return gone.map((e) => e.name)
  }

  return { folder: notesFolder, fileOf, pointer: committedPointer, path, read, save, evict, sweep }
}

export type Notes = ReturnType<typeof createNotes>

/** The session a notes pointer's store key names. */
const sessionOfKey = (key: string) => key.slice(NOTES_KEY_PREFIX.length)

/** The session a file of the folder belongs to: `<id>.notes.a.md`, `<id>.notes.md`, `<id>.skip`; undefined for anything else. */
export function sessionOfFile(name: string): string | undefined {
  return /^([^.][^/]*?)\.(notes\.[ab]\.md|notes\.md|skip)$/.exec(name)?.[1]
}
