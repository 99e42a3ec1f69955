// The receiving side (design §3.1 "Delivery rules", changed by NOTES §2 and §7): live mail is the
// engine's, and keel only dedupes it and marks it done once its row is stored; spooled mail is
// scanned, claimed, and delivered by the batching rules of wsflow §2.3:
//  - idle: one `submit` (a new turn);
//  - a main turn running: queued, then ONE `append` at the next main-thread tool boundary of a
//    model's call (never a subagent's, never the plugin's own `$.tool.call`); whatever is still
//    queued at the main turn end goes as one `submit`;
//  - a batch that can be neither submitted nor appended is recorded in the transcript (`keep`).
// A spooled mail is done once its submit resolved or its row was appended; a live one once the
// engine stored its row (a `session.append` on door `prompt`/`delivery`, origin peer, after `next`).
// A live copy that differs from the mailbox's is taken at receive, and the mailbox's copy delivered
// as spooled mail is (NOTES §10): every mail reaches the model as it was sent.
import { messageOf } from '../../lib/message.ts'
import { writeSafely, type SafeWriteEdges } from '../../lib/safe-write.ts'
import { fitsBatch, formatBatch, type Delivery } from './batch.ts'
import { MAIL_FILE_MAX_BYTES, NONCE_CHARS } from './constants.ts'
import { findHeader, withHeader, type Header } from './header.ts'
import { randomBase32 } from './ids.ts'
import { folderOf, keyOfFolder } from './key.ts'
import { candidatesOf, claimName, fileName, namesOf, ownerOf, parseBody, prunePlan, readListing, stateOf, type Candidate, type Listing } from './spool.ts'
import * as s from './strings.ts'

/** The safe writer's file edges (its `list` included), and the ways mail reaches the model. */
export type DeliveryEdges = SafeWriteEdges & {
  /** `$.prompt.submit({ text })`, not awaited by a hook; resolves `{ drop }` when not taken. */
  submit(text: string): Promise<unknown>
  /** `$.session.append` of a user row; resolves `{ deny }` when refused. */
  append(text: string): Promise<unknown>
  /** A transcript notice the person sees and the model does not. */
  keep(text: string): void
  /** A debug-log line (the binding prefixes `<pkg> mailbox: `). */
  log(text: string): void
  /** Runs `fn` after the calling hook has returned (off the hook's path). */
  after(fn: () => void): void
  now(): number
  /** For each delivery's nonce. */
  randomBytes(length: number): Uint8Array
}

/** A finished tool call, as `tool.call` sees it after `next(e)`. */
export type ToolBoundary = { agentId?: string; originPlugin: string }
/** A `session.receive` of the main conversation. */
export type Received = { text: string; agentId?: string }
/**
 * A row as `session.append` stored it (`next(e)` resolved), its text blocks joined. main.ts matches
 * the hook to a peer's rows on door `prompt` or `delivery` only, so every row here is one.
 */
export type StoredRow = { agentId?: string; text: string }

export type ScanReport = {
  key: string
  at: number
  /** Mails this scan claimed and handed to delivery. */
  taken: number
  /** Mails still waiting for the key: not whole yet, over the batch's cap, or another session's fresh claim. */
  waiting: number
  oldestSentAt?: number
  notYet: number
  /** Dropped by the retention period in this scan. */
  dropped: number
  /** Never read, or set aside as corrupt, with why. */
  aside: { name: string; why: string }[]
  /** Folders an earlier keel filed under another spelling of the key, read too (NOTES §9). */
  older?: string[]
  error?: string
}

export type LastDelivery = { at: number; count: number; via: keyof typeof s.VIA }

/** A mail this load holds a claim on, until it is marked done. */
type Held = {
  id: string
  folder: string
  base: string
  /** The claim's path: the mail itself where the host renames, else an empty marker beside it. */
  path: string
  marker: boolean
  /** What to deliver; absent for a live mail (the engine delivers it). */
  delivery?: Delivery
}

export type MailboxConfig = { retentionMs: number }

/** What one scan gathers while it takes mail. */
type ScanWork = { notYet: number; aside: { name: string; why: string }[]; asideIds: Set<string> }

/** A log line of a file that could not be renamed or removed: its name, and why. */
type FailedLine = (name: string, why: string) => string

/** The machine over the load's edges (one port a load: main.ts binds `$` once). */
export function createMailbox(pkg: string, config: MailboxConfig, edges: DeliveryEdges) {
  let root: string | undefined
  let key: string | undefined
  let owner = ''
  /** Every session id this load has had (a /clear changes it): their claims are this session's own. */
  const owners = new Set<string>()
  /** Ids delivered or being delivered by this load, live or spooled. */
  const seen = new Set<string>()
  const held = new Map<string, Held>()
  /** Ids released at a session end: claimed, never shown to a model, so not framed as redelivered. */
  const released = new Set<string>()
  /** Ids set aside as corrupt where nothing renames (the file stays, and is not read again). */
  const asideIds = new Map<string, { name: string; why: string }>()
  /** Why this load set a name aside. */
  const asideWhy = new Map<string, string>()
  /** Ids the last listing of the own folder showed done: a live copy of one is a duplicate. */
  let doneIds = new Set<string>()
  let queue: Held[] = []
  let mainTurn = false
  /** A failed boundary append is not retried in the same turn: the turn end submits instead. */
  let appendBlocked = false
  let duplicates = 0
  let lastDelivery: LastDelivery | undefined
  const chains = new Map<string, Promise<unknown>>()
  let scanning: Promise<ScanReport | undefined> | undefined
  let rescan = false

  const log = edges.log
  /** Whether the host renames and removes (runs commands); a failed ask reads as no. */
  const hasCommands = () => edges.hasCommands().catch(() => false)

  /** Runs `fn` off the hook's path, after any earlier work on the same mail; resolves what it resolved (undefined: it failed, logged). */
  function schedule<T>(id: string, fn: () => Promise<T>): Promise<T | undefined> {
    return new Promise((resolve) =>
      offPath(() => {
        const next = (chains.get(id) ?? Promise.resolve()).then(fn).catch((err: unknown) => void log(messageOf(err)))
        chains.set(id, next)
        void next.then(resolve).finally(() => {
          if (chains.get(id) === next) chains.delete(id)
        })
      }))
  }

  /** Runs `fn` after the calling hook has returned; at once where there is no scheduler (the work is small and fails soft). */
  function offPath(fn: () => void): void {
    try {
      edges.after(fn)
    } catch {
      fn()
    }
  }

  async function markAll(items: Held[]): Promise<void> {
    for (const h of items) await markDone(h)
  }

  /** `undefined` when taken, else why not. */
  async function attempt(fn: () => Promise<unknown>, field: 'drop' | 'deny'): Promise<string | undefined> {
    try {
      const why = ((await fn()) as Record<string, unknown> | undefined)?.[field]
      return why === undefined ? undefined : s.notTaken(field, why)
    } catch (err) {
      return messageOf(err)
    }
  }

  /** An empty marker (a claim, done or dropped where nothing renames), written in place. */
  async function placeMarker(path: string): Promise<void> {
    const r = await writeSafely(edges, { within: root!, path, text: '', inPlace: true })
    if (!r.ok) log(s.markFailedLine(path, r.reason))
  }

  /** Renames `from` to `to`; a failure is logged (`failed`, naming `name`) and resolves false. */
  async function moved(from: string, to: string, failed: FailedLine, name: string): Promise<boolean> {
    try {
      await edges.move(from, to)
      return true
    } catch (err) {
      log(failed(name, messageOf(err)))
      return false
    }
  }

  /** Removes these files of a folder; a failure is logged and the rest go on. */
  async function removeAll(folder: string, names: readonly string[]): Promise<void> {
    for (const n of names) await edges.remove(`${folder}/${n}`).catch((err: unknown) => log(s.pruneFailedLine(n, messageOf(err))))
  }

  async function markDone(h: Held): Promise<void> {
    if (held.get(h.id) !== h) return
    held.delete(h.id)
    const done = `${h.folder}/${fileName(h.base, 'done')}`
    if (h.marker) await placeMarker(done)
    else await moved(h.path, done, s.markFailedLine, h.path)
  }

  /** The batch as one text, framed with a nonce made for this delivery. */
  const batchText = (items: Held[]) => formatBatch(pkg, items.map((h) => h.delivery!), randomBase32(edges.randomBytes, NONCE_CHARS))

  async function deliver(items: Held[]): Promise<void> {
    const text = batchText(items)
    log(s.submittingLine(items.length))
    let via: LastDelivery['via'] = 'prompt'
    const submitWhy = await attempt(() => edges.submit(text), 'drop')
    if (submitWhy !== undefined) {
      // Measured (timing): right after the person stops a turn the engine drops a plugin's submit; a row rides their next prompt.
      log(s.submitFallbackLine(submitWhy))
      const appendWhy = await attempt(() => edges.append(text), 'deny')
      via = 'row'
      if (appendWhy !== undefined) {
        edges.keep(s.keepText(pkg, s.submitFailed(submitWhy, appendWhy), text))
        via = 'transcript'
      }
    }
    lastDelivery = { at: edges.now(), count: items.length, via }
    // Recorded in the transcript counts as done too: the person has it, and a redelivery would repeat it there.
    await markAll(items)
  }

  function offer(items: Held[]): void {
    if (!items.length) return
    if (mainTurn) {
      queue.push(...items)
      log(s.queuedLine(queue.length))
    } else void deliver(items)
  }

  /**
   * Reads, judges and claims one candidate: the mail renamed to this session's claim (one winner),
   * or, where nothing renames, a marker beside it. Undefined when it is not taken now.
   */
  async function take(folder: string, k: string, c: Candidate, commands: boolean, scan: ScanWork): Promise<Held | undefined> {
    const { id, base } = c.files
    const now = edges.now()
    // A file larger than any mail is set aside unread.
    if (c.size > MAIL_FILE_MAX_BYTES) return setAside(folder, c, s.CORRUPT.tooLarge(c.size), commands, scan)
    let text: string
    try {
      text = await edges.read(`${folder}/${c.body}`)
    } catch (err) {
      log(s.claimLostLine(c.body, messageOf(err))) // claimed or removed since the listing
      return
    }
    const body = parseBody(text, { key: k, base, mtimeMs: c.mtimeMs, now })
    if ('notYet' in body) {
      scan.notYet++
      return
    }
    if ('corrupt' in body) return setAside(folder, c, body.corrupt, commands, scan)
    // Seen before the claim: a live copy that arrives meanwhile is a duplicate.
    seen.add(id)
    const path = `${folder}/${claimName(base, owner, edges.now())}`
    if (!commands) await placeMarker(path) // not exclusive here: at least once, deduped by id
    else if (!(await moved(`${folder}/${c.body}`, path, s.claimLostLine, c.body))) {
      seen.delete(id)
      return
    }
    const h: Held = { id, folder, base, path, marker: !commands, delivery: { mail: body.mail, redelivered: c.redelivered } }
    held.set(id, h)
    return h
  }

  /** Corrupt: renamed out of the scan's way where the host renames, else remembered by this load and left in place. */
  async function setAside(folder: string, c: Candidate, why: string, commands: boolean, scan: ScanWork): Promise<undefined> {
    log(s.setAsideLine(c.body, why))
    scan.asideIds.add(c.files.id)
    const to = fileName(c.files.base, 'corrupt')
    if (commands && (await moved(`${folder}/${c.body}`, `${folder}/${to}`, s.pruneFailedLine, c.body))) {
      asideWhy.set(to, why)
      scan.aside.push({ name: to, why })
    } else asideIds.set(c.files.id, { name: c.body, why }) // left in place: not read again by this load
  }

  /** The retention period applied to a folder's listing (spool.prunePlan); resolves the ids it dropped. */
  async function prune(folder: string, listing: Listing, now: number, commands: boolean): Promise<Set<string>> {
    const droppedIds = new Set<string>()
    for (const a of prunePlan(listing, { now, retentionMs: config.retentionMs, commands, held: mine() })) {
      if (a.op === 'remove') await removeAll(folder, a.names)
      else {
        droppedIds.add(a.files.id)
        log(s.droppedLine(a.body))
        const to = `${folder}/${fileName(a.files.base, 'dropped')}`
        if (!commands) await placeMarker(to)
        else if (await moved(`${folder}/${a.body}`, to, s.pruneFailedLine, a.body)) await removeAll(folder, namesOf(a.files).filter((n) => n !== a.body))
      }
    }
    return droppedIds
  }

  /** Everything in the folder that is not delivered: links and strays, corrupt files (this scan's and earlier ones). */
  function asideOf(listing: Listing, scan: ScanWork): { name: string; why: string }[] {
    const corrupt = listing.mails.filter((f) => f.corrupt).map((f) => ({ name: f.corrupt!, why: asideWhy.get(f.corrupt!) ?? s.CORRUPT.keptAside }))
    return [...listing.aside, ...corrupt, ...scan.aside, ...asideIds.values()]
  }

  /**
   * A key folder's listing; undefined when no mail was ever sent to it, or when it cannot be read
   * (a link, not a folder, a failed listing: logged, and the report's error).
   */
  async function listed(folder: string, report?: ScanReport): Promise<Listing | undefined> {
    try {
      const facts = await edges.stat(folder)
      if (facts === undefined) return
      if (facts.isLink || facts.kind !== 'dir') throw new Error(s.folderRefused(facts.isLink))
      return readListing(await edges.list(folder))
    } catch (err) {
      const why = messageOf(err)
      log(s.listFailedLine(folder, why))
      if (report) report.error = why
    }
  }

  /** The ids this load delivered, holds or set aside: never candidates, never pruned from under it. */
  const mine = () => new Set([...seen, ...held.keys(), ...asideIds.keys()])

  /**
   * One look at the key's folders. `taking`: the retention period applied, what waits claimed (one
   * batch), and handed to delivery; else only counted (the status), with this load's own queue apart.
   */
  async function survey(taking: boolean): Promise<ScanReport | undefined> {
    const k = key
    const r = root
    if (k === undefined || r === undefined) return
    const at = edges.now()
    const report: ScanReport = { key: k, at, taken: 0, waiting: 0, notYet: 0, dropped: 0, aside: [] }
    const commands = taking && (await hasCommands())
    // The key's own folder, then any an earlier keel filed under another spelling of it (read in place, NOTES §9).
    const own = folderOf(k)
    const older = (await edges.list(r).catch(() => [])).filter((x) => x.kind === 'dir' && !x.isLink && x.name !== own && folderOf(keyOfFolder(x.name) ?? '') === own).map((x) => x.name)
    const taken: Held[] = []
    const done = new Set<string>()
    let bytes = 0
    let oldest = Infinity
    for (const name of [own, ...older]) {
      const folder = `${r}/${name}`
      const listing = await listed(folder, report)
      if (listing === undefined) continue // no mail was ever sent to it, or unreadable
      const droppedIds = taking ? await prune(folder, listing, at, commands) : new Set<string>()
      const work: ScanWork = { notYet: 0, aside: [], asideIds: new Set() }
      for (const c of taking ? candidatesOf(listing, { owners, held: new Set([...mine(), ...droppedIds]), released, now: at }) : []) {
        if (!fitsBatch(taken.length, bytes, c.size)) break // the rest goes in the next batch
        // An older spelling's mail may have reached this session live under a keel that did not match it.
        const h = await take(folder, k, { ...c, redelivered: c.redelivered || name !== own }, commands, work)
        if (h) {
          taken.push(h)
          bytes += c.size
        }
      }
      const gone = new Set([...mine(), ...droppedIds, ...work.asideIds])
      for (const f of listing.mails) {
        const state = stateOf(f)
        if (state === 'done') done.add(f.id)
        else if ((state === 'waiting' || state === 'claimed') && !gone.has(f.id)) {
          report.waiting++
          oldest = Math.min(oldest, f.sentAt)
        }
      }
      report.notYet += work.notYet
      report.dropped += droppedIds.size
      report.aside.push(...asideOf(listing, work))
    }
    if (report.waiting) report.oldestSentAt = oldest
    if (older.length) report.older = older
    if (!taking) return report
    report.taken = taken.length
    doneIds = done
    log(s.scanLine(k, report.taken, report.waiting, report.notYet))
    offer(taken)
    return report
  }

  return {
    /**
     * A session start (fresh, resumed, after /clear, after a reload): the spool's real root, this
     * session's id (its claims' owner) and its key, once settled (undefined: live mail only).
     */
    start(at: { root?: string; sessionId: string; key?: string }): void {
      root = at.root
      owner = ownerOf(at.sessionId)
      owners.add(owner)
      key = at.key
      mainTurn = false
      appendBlocked = false
    },

    /** The key settled later, or changed by the person's /rename (adoption); the caller scans next. */
    setKey(next: string | undefined): void {
      key = next
    },

    /** Queued mail goes back to the mailbox (a /clear's next start delivers it into the new conversation). */
    async end(reason: string): Promise<void> {
      mainTurn = false
      const items = queue
      queue = []
      if (!items.length) return
      for (const h of items) {
        held.delete(h.id)
        seen.delete(h.id)
        released.add(h.id)
        // Where nothing renames the marker stays: this load knows the claim was never shown.
        if (!h.marker) await moved(h.path, `${h.folder}/${fileName(h.base, 'json')}`, s.releaseFailedLine, h.path)
      }
      log(s.releasedLine(items.length, reason))
    },

    turnStarted(agentId: string | undefined): void {
      if (agentId !== undefined) return
      mainTurn = true
      appendBlocked = false
    },

    /** A main turn end: what is still queued goes as one submit, after the hook returned. */
    turnCompleted(agentId: string | undefined): void {
      if (agentId !== undefined) return
      mainTurn = false
      appendBlocked = false
      if (!queue.length) return
      const items = queue
      queue = []
      offPath(() => void deliver(items))
    },

    /** After `next(e)` of a tool call, before its result returns: the queue as ONE row, at a model's main-thread call only. */
    async toolCompleted(call: ToolBoundary): Promise<void> {
      if (call.agentId !== undefined || call.originPlugin !== 'engine' || !mainTurn || appendBlocked || !queue.length) return
      const items = queue
      queue = []
      log(s.appendingLine(items.length))
      const why = await attempt(() => edges.append(batchText(items)), 'deny')
      if (why !== undefined) {
        log(s.appendFailedLine(why))
        appendBlocked = true
        queue = [...items, ...queue]
        return
      }
      lastDelivery = { at: edges.now(), count: items.length, via: 'row' }
      offPath(() => void markAll(items))
    },

    /**
     * A live delivery (`session.receive`, origin peer): a copy of a mail this load already has is
     * taken (`{ consumed }`, the model never sees it). A new one's spool copy is claimed (after the
     * start's work), so no scan delivers it again, and compared with what arrived: the same, it
     * passes; altered on the way, it is taken and the spool's copy delivered instead. Anything
     * without keel's header, or with no spool copy here, passes.
     */
    async receive(got: Received): Promise<{ consumed: string } | undefined> {
      if (got.agentId !== undefined) return
      const h = findHeader(got.text)
      if (!h) return
      if (seen.has(h.id) || doneIds.has(h.id)) {
        duplicates++
        return { consumed: s.duplicateOf(pkg, h.id) }
      }
      seen.add(h.id)
      return schedule(h.id, () => verify(h, got.text))
    },

    /** The engine stored a live mail's row: it is delivered, and its spool copy is marked done. */
    rowStored(row: StoredRow): void {
      const h = row.agentId === undefined ? findHeader(row.text) : undefined
      if (!h) return
      seen.add(h.id)
      lastDelivery = { at: edges.now(), count: 1, via: 'live' }
      void schedule(h.id, async () => {
        const x = await claimLive(h.id)
        if (!x) return
        await markDone(x)
        log(s.liveDoneLine(h.id))
      })
    },

    /** Collects the key's waiting mail into one batch and delivers it by the rules above; one scan at a time. */
    scan(): Promise<ScanReport | undefined> {
      // A scan asked for while one runs: that one looks once more when it is done.
      if (scanning) rescan = true
      else {
        scanning = (async () => {
          let report: ScanReport | undefined
          do {
            rescan = false
            report = await survey(true)
          } while (rescan)
          return report
        })().finally(() => {
          scanning = undefined
        })
      }
      return scanning
    },

    /**
     * What waits for the key now, read without taking anything (the status): mail no session took
     * yet or another session holds, and what is set aside; this load's own queue is `queued`.
     */
    peek: () => survey(false),

    /**
     * The retention period applied to another key's folder, by its name (a key whose session may
     * never start again, or the recipient of this session's sent mail): what nobody took in time is
     * dropped, a delivered or corrupt mail removed. Fresh claims and this load's own mail are left
     * alone. Resolves how many mails were dropped.
     */
    async sweep(name: string): Promise<number> {
      if (root === undefined) return 0
      const folder = `${root}/${name}`
      const listing = await listed(folder)
      if (listing === undefined) return 0
      const commands = await hasCommands()
      return (await prune(folder, listing, edges.now(), commands)).size
    },

    /** For the status lines and tests. */
    facts() {
      return { key, lastDelivery, duplicates, queued: queue.length, holding: held.size }
    },
  }

  /** A live mail's copy in this key's mailbox, read and claimed as a scan takes one; undefined when not there (another holder's, or never kept). */
  async function claimLive(id: string): Promise<Held | undefined> {
    if (key === undefined || root === undefined) return
    if (held.has(id)) return held.get(id)
    const folder = `${root}/${folderOf(key)}`
    let files
    try {
      files = readListing(await edges.list(folder)).mails.find((f) => f.id === id)
    } catch (err) {
      log(s.listFailedLine(folder, messageOf(err)))
      return
    }
    if (!files?.json || stateOf(files) !== 'waiting') return
    const h = await take(folder, key, { ...files.json, files, body: files.json.name, redelivered: false }, await hasCommands(), { notYet: 0, aside: [], asideIds: new Set() })
    seen.add(id) // a live mail stays seen even where its copy was not claimed
    if (h) log(s.liveClaimLine(id))
    return h
  }

  /** Measured (NOTES §10): the engine's live delivery does not carry every text unchanged. */
  async function verify(h: Header, arrived: string): Promise<{ consumed: string } | undefined> {
    const x = await claimLive(h.id)
    const mail = x?.delivery?.mail
    if (!mail || arrived.includes(withHeader(h.pkg, h.id, h.from, mail.text))) return
    offer([x!])
    return { consumed: s.alteredOf(pkg, h.id) }
  }
}

export type Mailbox = ReturnType<typeof createMailbox>
