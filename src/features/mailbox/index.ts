// The mailbox: cross-session mail between the sessions of one config root. Live delivery is the
// engine's; this binds what keel adds (NOTES.md, design §3.1): the key (settled at start, carried
// across /clear, adopted at /rename), the spool under keel's home (durable before anything is sent),
// dedupe of the live and the spooled copy, and the spooled mail's delivery (delivery.ts) from the
// start, /clear, /rename, every main turn end and an idle timer. Hooks stay off the path where their
// answer does not depend on the work: a turn end with nothing queued makes no `$` call on its path.
import { configRootOf } from '../../lib/keel-home.ts'
import { messageOf, toUndefined } from '../../lib/message.ts'
import { sweepTemps, writeSafely } from '../../lib/safe-write.ts'
import type { Feature, FeatureContext } from '../../registry.ts'
import type { MailboxPort as Port } from './bind.ts'
import { DAY_MS, HEADLESS_IDLE_MS, KEY_STORE_PREFIX, NAMING_OPTION, NEW_ID_POLL_MS, NEW_ID_POLLS, OUTBOX_STORE_PREFIX, RETENTION_OPTION, SCAN_OPTION, SPOOL_NOTE, TOOL_NAME, type Naming } from './constants.ts'
import { createMailbox, type DeliveryEdges, type Mailbox } from './delivery.ts'
import { adoptRename, escapeName, folderOf, isStaleKeyEntry, keyOfFolder, keyStoreName, renamedTo, sameKey, settleKey, type OwnName } from './key.ts'
import { addToOutbox, isStaleOutbox, outboxStoreName, parseOutbox, sentStateOf, settleOutbox, type SettledOutbox } from './outbox.ts'
import { parseMailArgs, sendMail } from './send.ts'
import { ownNameFromListAgents, ownNameOf, parseSessionRecord, registryPathOf, spoolRootOf } from './sessions.ts'
import { readListing, type Listing } from './spool.ts'
import { statusLines, summaryLine, type KeyFacts, type StatusFacts } from './status.ts'
import * as s from './strings.ts'
import { isString } from '../../lib/shape.ts'

type Config = { retentionMs: number; scanSeconds: number; naming: Naming }

/** A row's text blocks, joined (keel's header sits in the first). */
function rowText(content: readonly unknown[]): string {
  return content.map((b) => (typeof (b as { text?: unknown })?.text === 'string' ? (b as { text: string }).text : '')).join('\n')
}

/** Running sessions named `key` (in any spelling the engine takes for it): this one and the peers ListAgents lists under it. */
function holdersIn(listing: unknown, key: string): number {
  const sections = (listing as { result?: { sections?: { rows?: { name?: unknown }[] }[] } } | undefined)?.result?.sections ?? []
  return 1 + sections.flatMap((sec) => sec.rows ?? []).filter((r) => sameKey(String(r.name), key)).length
}

/** What ListAgents answered as text (`text`, else the listing), for its first line. */
const listingText = (answer: unknown) => {
  const a = answer as { text?: unknown; result?: { listing?: unknown } } | undefined
  return isString(a?.text) ? a.text : a?.result?.listing
}

/** A `$` call whose failure changes nothing: it resolves undefined instead. */
const quietly = <T>(call: Promise<T>) => call.catch(toUndefined)

export function createMailboxFeature(): Feature<Port> {
  // Per registration: a reload starts it over (the spool and the store keep everything).
  let box: Mailbox | undefined
  let config: Config
  /** The load's port and context: bound once a load (main.ts), so every hook is handed these same two. */
  let port: Port
  let ctx: FeatureContext
  /** The engine's clock, read before each piece of work: the cores read time synchronously. */
  let clock = 0
  /**
   * The start's work (the spool's root, the key), then each /clear's, chained; undefined until it
   * begins: at once where someone watches, else once the session is idle or something needs it (a
   * send, /<pkg> mailbox, a live mail's claim), so a one-shot `-p` run does none of it.
   */
  let work: Promise<void> | undefined
  /** The latest of that work is done: the status shows the mailbox only then. */
  let settled = false
  /** The retention sweep of other keys' folders and the store's clean-up ran in this load. */
  let cleaned = false
  let tool: string | undefined
  let toolProblem: string | undefined
  let cwd = ''
  let configRoot: string | undefined
  /** The spool's real path, once it exists. */
  let root: string | undefined
  let rootProblem: string | undefined
  let pid: string | undefined
  let messaging = false
  let sessionId: string | undefined
  let keyFacts: KeyFacts | undefined
  /** The session's engine name: the reply address of a session with no key. */
  let ownName: string | undefined
  let stopIdleScan: (() => void) | undefined
  /** A person watches the session (the terminal UI): only then does it take spooled mail at once, and rename. */
  let interactive = false
  /** The session ended for good (not a /clear): a pending scan is not made. */
  let ended = false
  /** A headless session's scan waiting for it to have been idle (`HEADLESS_IDLE_MS`): its timer is set, and the asks so far. */
  let idleTimer = false
  let idleAsks = 0

  const log = (line: string) => ctx.log(line)
  const logError = (err: unknown) => log(messageOf(err))

  /** The session's key entry, `at` now: refreshed at every settle, so an entry in use is never pruned. */
  const storeKey = (id: string, key: string) => port.storeSet(keyStoreName(id), { key, at: clock })

  const tick = async () => {
    clock = await port.now().catch(() => clock)
  }

  /** Where each piece of work begins: the start's work done, then the clock read. */
  const ready = async () => {
    await ensureBegun()
    await tick()
  }

  function edgesOf(): DeliveryEdges {
    return {
      ...port.files,
      // A turn of its own once the session is idle.
      submit: port.submitPrompt,
      append: port.append,
      keep: port.notice,
      log,
      // Work the core moves off a hook's path waits for the start's work, then reads the clock.
      after: (fn) => void port.after(0, () => void ready().then(fn)),
      now: () => clock,
      randomBytes: port.randomBytes,
    }
  }

  /** Runs `work` from a timer, after the hook returns; a failure is a debug line. */
  function later(work: () => Promise<unknown>, ms = 0): void {
    const run = () => void work().catch(logError)
    try {
      port.after(ms, run)
    } catch {
      run()
    }
  }

  /** The start's work, begun once (see `work`); resolves once the latest settling is done. */
  function ensureBegun(): Promise<void> {
    return (work ??= begin()
      .catch((err: unknown) => {
        rootProblem ??= messageOf(err)
        log(s.startFailedLine(messageOf(err)))
      })
      .finally(() => {
        settled = true
      }))
  }

  /** One scan of the key's mailbox, after the start's work; the first also cleans up (other keys' folders, the store). */
  const scan = async () => {
    await ready()
    await box!.scan()
    if (cleaned) return
    cleaned = true
    await cleanUp()
  }

  /**
   * A scan after a start, a /clear, a /rename or a turn end: at once where someone watches; in a
   * headless session once it has been idle for `HEADLESS_IDLE_MS` (a one-shot `-p` has exited by
   * then, and its printed result stays its prompt's answer).
   */
  function scanWhenIdle(): void {
    if (interactive) return later(() => scan())
    idleAsks++
    // One timer at a time, never cancelled (each `$` call on a turn end's path costs it): one that
    // fires after a later ask waits once more, so the scan comes 1.5 s or more after the last ask.
    if (!idleTimer) armIdle()
  }

  function armIdle(): void {
    const asked = idleAsks
    idleTimer = true
    later(async () => {
      idleTimer = false
      if (ended) return
      if (idleAsks !== asked) return armIdle()
      if (!ctx.facts.isMainTurnRunning()) await scan()
    }, HEADLESS_IDLE_MS)
  }

  /** The spool's real root (`root`), made with its note when missing, since the safe writer writes only inside a real folder; else why not (`rootProblem`). */
  async function openSpool(at: string): Promise<void> {
    const spool = spoolRootOf(at)
    let facts = await port.files.stat(spool)
    let why = s.NOT_A_FOLDER
    if (facts === undefined) {
      const made = await writeSafely(port.files, { within: at, path: `${spool}/${SPOOL_NOTE}`, text: s.SPOOL_NOTE_TEXT, expected: null, inPlace: true })
      facts = await port.files.stat(spool)
      if (!made.ok && facts === undefined) why = made.reason
    }
    if (facts?.realPath !== undefined && facts.kind === 'dir') root = facts.realPath
    else rootProblem = s.rootRefused(spool, why)
  }

  /** The session's own name and its source: the registry record first, else ListAgents' first line (NOTES §1). */
  async function readOwnName(): Promise<OwnName | undefined> {
    const record = configRoot === undefined || pid === undefined ? undefined : await port.files.read(registryPathOf(configRoot, pid)).then(parseSessionRecord, toUndefined)
    return ownNameOf(record) ?? ownNameFromListAgents(listingText(await quietly(port.listAgents())))
  }

  /** Settles the key of the session `id` and starts the machine on it; then one scan, and the idle timer. */
  async function settle(id: string): Promise<void> {
    sessionId = id
    const own = await readOwnName()
    ownName = own?.name
    const plan = settleKey({
      own, stored: await quietly(port.storeGet(keyStoreName(id))), naming: config.naming, cwd, randomBytes: port.randomBytes,
      // Measured: a plugin's /rename answers into a headless run's output (`-p` prints it as the result):
      // only a watched session is renamed, so a headless one keeps an engine-made name and has no key.
      headless: !interactive,
    })
    if (plan.key === undefined) {
      keyFacts = { why: plan.why }
      log(s.noKeyLogLine(plan.why))
    } else {
      await storeKey(id, plan.key).catch(logError)
      let renameProblem: string | undefined
      if (plan.rename !== undefined) {
        // A timer's rename: the engine records it as the person's (`user`) and restores it at resume (NOTES §1).
        const answer = await port.rename(plan.rename).catch((err: unknown) => ({ text: messageOf(err) }))
        const said = String((answer as { text?: unknown } | undefined)?.text ?? '').trim()
        log(s.renameLine(plan.rename, said))
        if (renamedTo(answer) !== plan.rename) renameProblem = said || 'no answer'
      }
      keyFacts = { key: plan.key, source: plan.source, renameProblem }
      log(s.keyLogLine(plan.key, s.KEY_SOURCE[plan.source]))
    }
    box!.start({ root, sessionId: id, key: root === undefined ? undefined : plan.key })
    // A turn that began before the settling (a `-p` prompt) is still running.
    if (ctx.facts.isMainTurnRunning()) box!.turnStarted(undefined)
    stopIdleScan?.()
    // Idle: a headless session's scan never takes mail into a running turn (see scanWhenIdle).
    stopIdleScan = config.scanSeconds > 0 && root !== undefined
      ? port.every(config.scanSeconds * 1000, () => {
        if (interactive || !ctx.facts.isMainTurnRunning()) void scan().catch(logError)
      })
      : undefined
  }

  /** The start's work, off the start's path: where the spool is, the key, a scan; then the clean-up. */
  async function begin(): Promise<void> {
    await tick()
    const home = await port.homeFacts()
    messaging = home.messaging
    pid = home.pid
    configRoot = configRootOf(home)
    if (configRoot === undefined) rootProblem = s.NO_CONFIG_ROOT
    else await openSpool(configRoot)
    await settle(await ctx.facts.sessionId())
  }

  /** After the start scan: the retention period over every other key's folder (the key's own are scanned), and stale store entries. */
  async function cleanUp(): Promise<void> {
    if (root !== undefined) {
      const own = box!.facts().key
      for (const entry of await port.files.list(root).catch(() => [])) {
        const k = entry.kind === 'dir' && !entry.isLink ? keyOfFolder(entry.name) : undefined
        if (k !== undefined && !sameKey(k, own)) await box!.sweep(entry.name)
      }
      // The key folders sweep their own; the spool's note was written beside these.
      await sweepTemps(port.files, root, root, () => clock)
    }
    const id = sessionId ?? ''
    const names = await port.storeKeys().catch(() => [] as readonly string[])
    const ours = names.filter((n) => n.startsWith('mailbox-') && n !== keyStoreName(id) && n !== outboxStoreName(id))
    const entries = await Promise.all(ours.map(async (n) => [n, await quietly(port.storeGet(n))] as const))
    const stale = entries.filter(([n, value]) =>
      n.startsWith(KEY_STORE_PREFIX) ? isStaleKeyEntry(value, clock) : n.startsWith(OUTBOX_STORE_PREFIX) && isStaleOutbox(value, clock, config.retentionMs))
    for (const [n] of stale) await quietly(port.storeDelete(n))
    if (stale.length) log(s.storePruneLine(stale.length))
  }

  /** After a /clear or /resume: the process goes on under a new session id, with no session.start. */
  async function restart(endedId: string, reason: string): Promise<void> {
    let id = endedId
    for (let i = 0; id === endedId && i <= NEW_ID_POLLS; i++) {
      if (i) await new Promise<void>((resolve) => port.after(NEW_ID_POLL_MS, resolve))
      id = await port.sessionId().catch(() => endedId)
    }
    log(s.newIdLine(reason, id !== endedId))
    await tick()
    const key = keyFacts?.key
    if (reason === 'clear' && id !== endedId) {
      // `/clear` keeps the name (A7), so the key: its entry and the outbox follow the new id.
      if (key !== undefined) await quietly(storeKey(id, key))
      const sent = parseOutbox(await quietly(port.storeGet(outboxStoreName(endedId))))
      if (sent.length) await quietly(port.storeSet(outboxStoreName(id), sent))
    }
    await settle(id)
  }

  /** Adoption: the person's `/rename K` makes K the key, and K's mailbox is scanned. */
  async function adopt(name: string): Promise<void> {
    await ready()
    if (sessionId === undefined || !box) return
    const plan = adoptRename(name)
    if (plan.key === undefined) {
      keyFacts = { why: plan.why }
      box.setKey(undefined)
      return log(s.noKeyLogLine(plan.why))
    }
    await quietly(storeKey(sessionId, plan.key))
    keyFacts = { key: plan.key, source: 'user' }
    box.setKey(root === undefined ? undefined : plan.key)
    log(s.adoptedLine(plan.key))
    scanWhenIdle()
  }

  /** `mailbox_send` and `/<pkg> mail`: the spool file first, then the native send, then the answer. */
  async function send(input: { to?: unknown; text?: unknown }): Promise<{ answer: string } | { deny: string }> {
    // No start ran (the package yields the mailbox to another), or its work failed before the session was known.
    if (!box) return { deny: s.NOT_STARTED }
    await ready()
    if (sessionId === undefined) return { deny: s.NOT_STARTED }
    if (root === undefined) return { deny: s.notKept(rootProblem!) }
    const key = box.facts().key
    const sent = await sendMail({ ...edgesOf(), send: messaging ? port.send : undefined }, { pkg: port.pkg, root, from: key ?? ownName, ownKey: key, input })
    if (!sent.ok) return { deny: sent.deny }
    log(s.sentLine(sent.mail.id, sent.mail.to, sent.outcome.kind))
    if (sent.record) {
      const name = outboxStoreName(sessionId)
      const records = parseOutbox(await quietly(port.storeGet(name)))
      await port.storeSet(name, addToOutbox(records, sent.record)).catch(logError)
    }
    return { answer: sent.answer }
  }

  /** The sent mail still waiting, settled against each recipient's folder (after its retention period is applied). */
  async function sentState(persist: boolean): Promise<SettledOutbox> {
    const name = outboxStoreName(sessionId ?? '')
    const records = parseOutbox(await quietly(port.storeGet(name)))
    const listings = new Map<string, Listing>()
    for (const to of new Set(records.map((r) => r.to))) {
      await box!.sweep(folderOf(to))
      // Mail sent before keys were folded waits under its spelling as given (NOTES §9).
      const folders = [...new Set([folderOf(to), escapeName(to)])]
      const entries = await Promise.all(folders.map((f) => port.files.list(`${root}/${f}`).catch(() => [])))
      listings.set(to, readListing(entries.flat()))
    }
    const outbox = settleOutbox(records, (r) => sentStateOf(r, listings.get(r.to), clock, config.retentionMs))
    if (persist && outbox.keep.length !== records.length) await quietly(port.storeSet(name, outbox.keep))
    return outbox
  }

  /**
   * `wait`: the person asked for the mailbox (`/<pkg> mailbox`): the start's work is begun and waited
   * for. The package's status waits only for work already begun (it makes no timer, so it ends).
   */
  async function statusFacts(persist: boolean, wait: boolean): Promise<StatusFacts | undefined> {
    if (!box) return
    if (wait) await ensureBegun()
    else if (work) await work
    if (!settled) return
    await tick()
    const f = box.facts()
    return {
      pkg: port.pkg,
      key: keyFacts,
      scan: await box.peek(),
      holders: f.key === undefined ? 1 : holdersIn(await quietly(port.listAgents()), f.key),
      queued: f.queued,
      // With no spool nothing was kept, so nothing was sent that waits.
      sent: root === undefined ? settleOutbox([], () => 'waiting') : await sentState(persist),
      lastDelivery: f.lastDelivery,
      duplicates: f.duplicates,
      messaging,
      commands: await port.files.hasCommands().catch(() => false),
      scanSeconds: config.scanSeconds,
    }
  }

  const problemLines = () => [...(rootProblem === undefined ? [] : [s.rootProblemLine(rootProblem)]), ...(toolProblem === undefined ? [] : [s.toolProblemLine(toolProblem)])]

  return {
    name: 'mailbox',
    sessionActing: true,
    logPrefix: s.noticePrefixOf,
    commands: ['rename'],
    hooks: {
      'session.start': async (loadPort, e, next, context) => {
        port = loadPort
        ctx = context
        // As the runtime checked them against plugin.json: whole numbers within their bounds, a naming of its list.
        config = {
          retentionMs: (ctx.options[RETENTION_OPTION] as number) * DAY_MS,
          scanSeconds: ctx.options[SCAN_OPTION] as number,
          naming: ctx.options[NAMING_OPTION] as Naming,
        }
        // Live mail that arrives before the key settles is still recorded (dedupe); its claim waits for the start's work.
        box = createMailbox(port.pkg, config, edgesOf())
        cwd = e.cwd
        interactive = e.isInteractive
        // What an earlier start of this load knew is forgotten.
        ended = settled = cleaned = false
        tool = toolProblem = root = rootProblem = keyFacts = sessionId = work = undefined
        try {
          // Registered before `next`, so it is listed from the first turn.
          tool = await port.registerTool({ name: TOOL_NAME, description: s.TOOL_DESCRIPTION, inputSchema: s.TOOL_SCHEMA as never, isDeferred: false })
        } catch (err) {
          toolProblem = messageOf(err)
          log(s.toolFailedLine(toolProblem))
        }
        const result = await next(e)
        // The start's work and its scan: at once where someone watches, else once idle (scanWhenIdle).
        scanWhenIdle()
        return result
      },

      // A failing hook refuses the tool's own call, never another tool's.
      'tool.call': {
        onFailure: { deny: (e) => (e.tool === tool ? s.HOOK_FAILED : undefined) },
        run: async (_port, e, next) => {
          let result
          if (e.tool !== tool) result = await next(e)
          else if (e.agentId !== undefined) return { deny: s.subagentRefused(e.agentId) }
          else {
            const sent = await send(e as { to?: unknown; text?: unknown })
            result = 'deny' in sent ? sent : { result: sent.answer }
          }
          // A model's main-thread call just ended: mail queued for the running turn joins it here, as one row.
          await box?.toolCompleted({ agentId: e.agentId, originPlugin: next.origin.plugin })
          return result
        },
      },

      // Matched in main.ts to a peer's deliveries.
      'session.receive': async (_port, e, next) => (await box?.receive({ text: e.text, agentId: e.agentId })) ?? next(e),

      // Matched in main.ts to rows of door prompt/delivery from a peer: a live mail's row, stored once `next` resolved.
      'session.append': async (_port, e, next) => {
        const result = await next(e)
        box?.rowStored({ agentId: e.agentId, text: rowText(e.message.content) })
        return result
      },

      'turn.start': (_port, e, next) => {
        box?.turnStarted(e.agentId)
        return next(e)
      },

      'turn.complete': (_port, e, next) => {
        if (box && e.agentId === undefined) {
          box.turnCompleted(undefined)
          scanWhenIdle()
        }
        return next(e)
      },

      // The person's `/rename K`, heard after it applied (the plugin's own rename is not heard: re-entry).
      'command.run': async (_port, e, next) => {
        const result = await next(e)
        const name = e.command === 'rename' ? renamedTo(result) : undefined
        if (name !== undefined && box) later(() => adopt(name))
        return result
      },

      'session.end': async (_port, e, next) => {
        stopIdleScan?.()
        const goesOn = e.reason === 'clear' || e.reason === 'resume'
        ended = !goesOn
        // Queued mail goes back to the mailbox: the next start (or the conversation a /clear begins) takes it.
        await box?.end(e.reason)
        if (box && goesOn) {
          work = ensureBegun()
            .then(() => new Promise<void>((resolve) => later(() => restart(e.sessionId, e.reason).finally(resolve))))
            .finally(() => {
              settled = true
            })
          settled = false
          void work.then(() => scanWhenIdle())
        }
        return next(e)
      },
    },

    verbs: {
      mail: {
        usage: s.MAIL_VERB_USAGE,
        // The load's port, handed to the verb also where no session.start ran (a package that yields the mailbox).
        run: async ({ pkg }, args) => {
          const parsed = parseMailArgs(args)
          if (!parsed) return s.mailUsage(pkg)
          const sent = await send(parsed)
          return 'deny' in sent ? s.forPerson(pkg, sent.deny) : sent.answer
        },
      },
      mailbox: {
        usage: s.MAILBOX_VERB_USAGE,
        run: async () => {
          const facts = await statusFacts(true, true)
          return [...problemLines(), ...(facts ? statusLines(facts) : [s.NOT_STARTED_LINE])].join('\n')
        },
      },
    },

    async status(port) {
      const facts = await statusFacts(false, false)
      return [facts ? summaryLine(facts) : box ? (interactive ? s.STARTING_LINE : s.NOT_READ_LINE(port.pkg)) : s.NOT_STARTED_LINE, ...problemLines()]
    },
  }
}
