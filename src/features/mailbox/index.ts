// The mailbox: cross-session mail between the sessions of one config root. Live delivery is the
// engine's; this binds what keel adds (NOTES.md, design §3.1): the key (settled at start, carried
// across /clear, adopted at /rename), the spool under keel's home (durable before anything is sent),
// dedupe of the live and the spooled copy, and the spooled mail's delivery (delivery.ts) from the
// start, /clear, /rename, every main turn end and an idle timer. Hooks stay off the path where their
// answer does not depend on the work: a turn end with nothing queued makes no `$` call on its path.
import { configRootOf } from '../../lib/keel-home.ts'
import { messageOf } from '../../lib/message.ts'
import { sweepTemps, writeSafely } from '../../lib/safe-write.ts'
import type { Feature, FeatureContext } from '../../registry.ts'
import type { MailboxPort as Port } from './bind.ts'
import {
  DAY_MS, HEADLESS_IDLE_MS, NAMING_DEFAULT, NAMING_OPTION, NEW_ID_POLL_MS, NEW_ID_POLLS, RETENTION_DAYS_DEFAULT, RETENTION_OPTION,
  SCAN_OPTION, SCAN_SECONDS_DEFAULT, SPOOL_NOTE, TOOL_NAME, type Naming,
} from './constants.ts'
import { createMailbox, type DeliveryEdges, type Mailbox, type ScanReport } from './delivery.ts'
import { adoptRename, carryAcrossClear, escapeName, folderOf, keyOfFolder, keyStoreName, renameApplied, sameKey, settleKey, staleKeyEntries, type OwnName } from './key.ts'
import { addToOutbox, outboxStoreName, parseOutbox, sentStateOf, settleOutbox, staleOutboxEntries, type OutboxRecord, type SettledOutbox } from './outbox.ts'
import { parseMailArgs, sendMail } from './send.ts'
import { ownNameFromListAgents, ownNameOf, parseSessionRecord, registryPathOf, spoolRootOf } from './sessions.ts'
import { readListing } from './spool.ts'
import { statusLines, summaryLine, type KeyFacts, type StatusFacts } from './status.ts'
import * as s from './strings.ts'

type Config = { retentionMs: number; scanSeconds: number; naming: Naming }

function configOf(ctx: FeatureContext): Config {
  const days = Number(ctx.options[RETENTION_OPTION] ?? RETENTION_DAYS_DEFAULT)
  const seconds = Number(ctx.options[SCAN_OPTION] ?? SCAN_SECONDS_DEFAULT)
  return {
    retentionMs: (Number.isFinite(days) && days > 0 ? days : RETENTION_DAYS_DEFAULT) * DAY_MS,
    scanSeconds: Number.isFinite(seconds) && seconds >= 0 ? seconds : SCAN_SECONDS_DEFAULT,
    naming: ctx.options[NAMING_OPTION] === 'off' ? 'off' : NAMING_DEFAULT,
  }
}

/** A row's text blocks, joined (keel's header sits in the first). */
function rowText(content: readonly unknown[]): string {
  return content.map((b) => (typeof (b as { text?: unknown })?.text === 'string' ? (b as { text: string }).text : '')).join('\n')
}

/** The name a `/rename` answered with (`Session renamed to: K`, measured), or undefined when it did not apply. */
function renamedTo(result: unknown): string | undefined {
  const text = (result as { text?: unknown } | undefined)?.text
  return typeof text === 'string' ? /^Session renamed to: (.+)$/m.exec(text.trim())?.[1]?.trim() : undefined
}

/** Running sessions named `key` (in any spelling the engine takes for it): this one and the peers ListAgents lists under it. */
function holdersIn(listing: unknown, key: string): number {
  const sections = (listing as { result?: { sections?: unknown } } | undefined)?.result?.sections
  if (!Array.isArray(sections)) return 1
  const rows = sections.flatMap((sec) => (Array.isArray((sec as { rows?: unknown })?.rows) ? ((sec as { rows: unknown[] }).rows) : []))
  return 1 + rows.filter((r) => sameKey(String((r as { name?: unknown })?.name), key)).length
}

/** What ListAgents answered as text (`text`, else the listing), for its first line. */
const listingText = (answer: unknown) => {
  const a = answer as { text?: unknown; result?: { listing?: unknown } } | undefined
  return typeof a?.text === 'string' ? a.text : a?.result?.listing
}

export function createMailboxFeature(): Feature<Port> {
  // Per registration: a reload starts it over (the spool and the store keep everything).
  let box: Mailbox | undefined
  let config: Config = { retentionMs: RETENTION_DAYS_DEFAULT * DAY_MS, scanSeconds: SCAN_SECONDS_DEFAULT, naming: NAMING_DEFAULT }
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

  const tick = async (port: Port) => {
    clock = await port.now().catch(() => clock)
  }

  function edgesOf(port: Port, ctx: FeatureContext): DeliveryEdges {
    return {
      ...port.files,
      list: (folder) => port.list(folder),
      submit: (text) => port.submit(text),
      append: (text) => port.append(text),
      keep: (text) => port.notice(text),
      log: (text) => ctx.log(text),
      // Work the core moves off a hook's path waits for the start's work, then reads the clock.
      after: (fn) => void port.after(0, () => void ensureBegun(port, ctx).then(() => tick(port)).then(fn)),
      now: () => clock,
      randomBytes: (n) => port.randomBytes(n),
    }
  }

  /** Runs `work` from a timer, after the hook returns; a failure is a debug line. */
  function later(port: Port, ctx: FeatureContext, work: () => Promise<unknown>, ms = 0): void {
    const run = () => void work().catch((err: unknown) => ctx.log(messageOf(err)))
    try {
      port.after(ms, run)
    } catch {
      run()
    }
  }

  /** The start's work, begun once (see `work`); resolves once the latest settling is done. */
  function ensureBegun(port: Port, ctx: FeatureContext): Promise<void> {
    work ??= begin(port, ctx)
      .catch((err: unknown) => {
        rootProblem ??= messageOf(err)
        ctx.log(s.startFailedLine(messageOf(err)))
      })
      .finally(() => {
        settled = true
      })
    return work
  }

  /** One scan of the key's mailbox, after the start's work; the first also cleans up (other keys' folders, the store). */
  const scan = async (port: Port, ctx: FeatureContext) => {
    await ensureBegun(port, ctx)
    await tick(port)
    await box?.scan()
    if (cleaned) return
    cleaned = true
    await cleanUp(port, ctx)
  }

  /**
   * A scan after a start, a /clear, a /rename or a turn end: at once where someone watches; in a
   * headless session once it has been idle for `HEADLESS_IDLE_MS` (a one-shot `-p` has exited by
   * then, and its printed result stays its prompt's answer).
   */
  function scanWhenIdle(port: Port, ctx: FeatureContext): void {
    if (interactive) return later(port, ctx, () => scan(port, ctx))
    idleAsks++
    // One timer at a time, never cancelled (each `$` call on a turn end's path costs it): one that
    // fires after a later ask waits once more, so the scan comes 1.5 s or more after the last ask.
    if (!idleTimer) armIdle(port, ctx)
  }

  function armIdle(port: Port, ctx: FeatureContext): void {
    const asked = idleAsks
    idleTimer = true
    later(port, ctx, async () => {
      idleTimer = false
      if (ended) return
      if (idleAsks !== asked) return armIdle(port, ctx)
      if (!ctx.facts.isMainTurnRunning()) await scan(port, ctx)
    }, HEADLESS_IDLE_MS)
  }

  /** The spool's real root, made (with its note) when missing: the safe writer writes only inside a real folder. */
  async function openSpool(port: Port, at: string): Promise<{ root: string } | { problem: string }> {
    const spool = spoolRootOf(at)
    let facts = await port.files.stat(spool)
    if (facts === undefined) {
      const made = await writeSafely(port.files, { within: at, path: `${spool}/${SPOOL_NOTE}`, text: s.SPOOL_NOTE_TEXT, expected: null, inPlace: true })
      facts = await port.files.stat(spool)
      if (!made.ok && facts === undefined) return { problem: s.rootRefused(spool, made.reason) }
    }
    if (facts?.realPath === undefined || facts.kind !== 'dir') return { problem: s.rootRefused(spool, s.NOT_A_FOLDER) }
    return { root: facts.realPath }
  }

  /** The session's own name and its source: the registry record first, else ListAgents' first line (NOTES §1). */
  async function readOwnName(port: Port): Promise<OwnName | undefined> {
    if (configRoot !== undefined && pid !== undefined) {
      const record = await port.files.read(registryPathOf(configRoot, pid)).then(parseSessionRecord, () => undefined)
      const own = ownNameOf(record)
      if (own) return own
    }
    return ownNameFromListAgents(listingText(await port.listAgents().catch(() => undefined)))
  }

  /** Settles the key of the session `id` and starts the machine on it; then one scan, and the idle timer. */
  async function settle(port: Port, ctx: FeatureContext, id: string): Promise<void> {
    sessionId = id
    const own = await readOwnName(port)
    ownName = own?.name
    // Measured: a plugin's /rename answers into a headless run's output (`-p` prints it as the result):
    // only a watched session is renamed, so a headless one keeps an engine-made name and has no key.
    const headless = !interactive && config.naming === 'auto'
    const plan = settleKey({
      sessionId: id, own, stored: await port.storeGet(keyStoreName(id)).catch(() => undefined),
      naming: headless ? 'off' : config.naming, cwd, now: clock, randomBytes: (n) => port.randomBytes(n),
    })
    if (plan.key === undefined) {
      const why = headless && own !== undefined && plan.why === s.NO_KEY_WHY.namingOff(own.name) ? s.NO_KEY_WHY.headless(own.name) : plan.why
      keyFacts = { why }
      ctx.log(s.noKeyLogLine(why))
    } else {
      await port.storeSet(plan.store.name, plan.store.value).catch((err: unknown) => ctx.log(messageOf(err)))
      let renameProblem: string | undefined
      if (plan.rename !== undefined) {
        // A timer's rename: the engine records it as the person's (`user`) and restores it at resume (NOTES §1).
        const answer = await port.rename(plan.rename).catch((err: unknown) => ({ text: messageOf(err) }))
        const said = String((answer as { text?: unknown } | undefined)?.text ?? '').trim()
        ctx.log(s.renameLine(plan.rename, said))
        if (!renameApplied(answer, plan.rename)) renameProblem = said || 'no answer'
      }
      keyFacts = { key: plan.key, source: plan.source, ...(renameProblem === undefined ? {} : { renameProblem }) }
      ctx.log(s.keyLogLine(plan.key, s.KEY_SOURCE[plan.source]))
    }
    box!.start(edgesOf(port, ctx), { root: root ?? '', sessionId: id, key: root === undefined ? undefined : plan.key })
    // A turn that began before the settling (a `-p` prompt) is still running.
    if (ctx.facts.isMainTurnRunning()) box!.turnStarted(undefined)
    stopIdleScan?.()
    stopIdleScan = undefined
    if (config.scanSeconds > 0 && root !== undefined) {
      // Idle: a headless session's scan never takes mail into a running turn (see scanWhenIdle).
      const tickScan = () => {
        if (interactive || !ctx.facts.isMainTurnRunning()) void scan(port, ctx).catch((err: unknown) => ctx.log(messageOf(err)))
      }
      stopIdleScan = port.every(config.scanSeconds * 1000, tickScan)
    }
  }

  /** The start's work, off the start's path: where the spool is, the key, a scan; then the clean-up. */
  async function begin(port: Port, ctx: FeatureContext): Promise<void> {
    await tick(port)
    const home = await port.homeFacts()
    messaging = home.messaging
    pid = home.pid
    configRoot = configRootOf(home)
    if (configRoot === undefined) rootProblem = s.NO_CONFIG_ROOT
    else {
      const opened = await openSpool(port, configRoot)
      if ('root' in opened) root = opened.root
      else rootProblem = opened.problem
    }
    await settle(port, ctx, await ctx.facts.sessionId())
  }

  /** After the start scan: the retention period over every other key's folder (the key's own are scanned), and stale store entries. */
  async function cleanUp(port: Port, ctx: FeatureContext): Promise<void> {
    if (root !== undefined) {
      const own = box?.facts().key
      for (const entry of await port.list(root).catch(() => [])) {
        const k = entry.kind === 'dir' && !entry.isLink ? keyOfFolder(entry.name) : undefined
        if (k !== undefined && !sameKey(k, own)) await box?.sweep(entry.name)
      }
      // The key folders sweep their own; the spool's note was written beside these.
      await sweepTemps(port.files, root, root, () => clock)
    }
    const names = await port.storeKeys().catch(() => [] as readonly string[])
    const ours = names.filter((n) => n.startsWith('mailbox-')).filter((n) => n !== keyStoreName(sessionId ?? '') && n !== outboxStoreName(sessionId ?? ''))
    const entries = await Promise.all(ours.map(async (n) => [n, await port.storeGet(n).catch(() => undefined)] as const))
    const stale = [...staleKeyEntries(entries, clock), ...staleOutboxEntries(entries, clock, config.retentionMs)]
    for (const n of stale) await port.storeDelete(n).catch(() => undefined)
    if (stale.length) ctx.log(s.storePruneLine(stale.length))
  }

  /** After a /clear or /resume: the process goes on under a new session id, with no session.start. */
  async function restart(port: Port, ctx: FeatureContext, endedId: string, reason: string): Promise<void> {
    let id = await port.sessionId().catch(() => endedId)
    for (let i = 0; id === endedId && i < NEW_ID_POLLS; i++) {
      await new Promise<void>((resolve) => port.after(NEW_ID_POLL_MS, resolve))
      id = await port.sessionId().catch(() => endedId)
    }
    ctx.log(s.newIdLine(reason, id !== endedId))
    await tick(port)
    const key = keyFacts?.key
    if (reason === 'clear' && id !== endedId) {
      // `/clear` keeps the name (A7), so the key: its entry and the outbox follow the new id.
      if (key !== undefined) {
        const carried = carryAcrossClear(key, id, clock)
        await port.storeSet(carried.name, carried.value).catch(() => undefined)
      }
      const sent = parseOutbox(await port.storeGet(outboxStoreName(endedId)).catch(() => undefined))
      if (sent.length) await port.storeSet(outboxStoreName(id), sent).catch(() => undefined)
    }
    await settle(port, ctx, id)
  }

  /** Adoption: the person's `/rename K` makes K the key, and K's mailbox is scanned. */
  async function adopt(port: Port, ctx: FeatureContext, name: string): Promise<void> {
    await ensureBegun(port, ctx)
    await tick(port)
    if (sessionId === undefined || !box) return
    const plan = adoptRename(name, sessionId, clock)
    if (plan.key === undefined) {
      keyFacts = { why: plan.why }
      box.setKey(undefined)
      return ctx.log(s.noKeyLogLine(plan.why))
    }
    await port.storeSet(plan.store.name, plan.store.value).catch(() => undefined)
    keyFacts = { key: plan.key, source: 'user' }
    box.setKey(root === undefined ? undefined : plan.key)
    ctx.log(s.adoptedLine(plan.key))
    scanWhenIdle(port, ctx)
  }

  /** `mailbox_send` and `/<pkg> mail`: the spool file first, then the native send, then the answer. */
  async function send(port: Port, ctx: FeatureContext, input: { to?: unknown; text?: unknown }): Promise<{ answer: string } | { deny: string }> {
    await ensureBegun(port, ctx)
    await tick(port)
    if (!box || sessionId === undefined) return { deny: s.NOT_STARTED }
    if (root === undefined) return { deny: s.notKept(rootProblem ?? s.NO_CONFIG_ROOT) }
    const key = box.facts().key
    const edges = { ...edgesOf(port, ctx), send: messaging ? (to: string, text: string) => port.send(to, text) : undefined }
    const sent = await sendMail(edges, { pkg: port.pkg, root, from: key ?? ownName, ownKey: key, input })
    if (!sent.ok) return { deny: sent.deny }
    ctx.log(s.sentLine(sent.mail.id, sent.mail.to, sent.outcome.kind))
    if (sent.record) {
      const name = outboxStoreName(sessionId)
      const records = parseOutbox(await port.storeGet(name).catch(() => undefined))
      await port.storeSet(name, addToOutbox(records, sent.record)).catch((err: unknown) => ctx.log(messageOf(err)))
    }
    return { answer: sent.answer }
  }

  /** The sent mail still waiting, settled against each recipient's folder (after its retention period is applied). */
  async function sentState(port: Port, persist: boolean): Promise<SettledOutbox> {
    const name = outboxStoreName(sessionId ?? '')
    const records = parseOutbox(await port.storeGet(name).catch(() => undefined))
    const listings = new Map<string, ReturnType<typeof readListing> | undefined>()
    for (const to of new Set(records.map((r) => r.to))) {
      await box?.sweep(folderOf(to))
      // Mail sent before keys were folded waits under its spelling as given (NOTES §9).
      const folders = [...new Set([folderOf(to), escapeName(to)])]
      const entries = await Promise.all(folders.map((f) => port.list(`${root}/${f}`).catch(() => [])))
      listings.set(to, readListing(entries.flat()))
    }
    const settled = settleOutbox(records, (r: OutboxRecord) => sentStateOf(r, listings.get(r.to), clock, config.retentionMs))
    if (persist && settled.keep.length !== records.length) await port.storeSet(name, settled.keep).catch(() => undefined)
    return settled
  }

  /**
   * `wait`: the person asked for the mailbox (`/<pkg> mailbox`): the start's work is begun and waited
   * for. The package's status waits only for work already begun (it makes no timer, so it ends).
   */
  async function statusFacts(port: Port, ctx: FeatureContext, persist: boolean, wait: boolean): Promise<StatusFacts | undefined> {
    if (!box) return undefined
    if (wait) await ensureBegun(port, ctx)
    else if (work) await work
    if (!settled) return undefined
    await tick(port)
    const f = box.facts()
    const key = f.key
    const scanReport: ScanReport | undefined = await box.peek()
    const holders = key === undefined ? 1 : holdersIn(await port.listAgents().catch(() => undefined), key)
    return {
      pkg: port.pkg,
      key: keyFacts,
      scan: scanReport,
      queued: f.queued,
      sent: root === undefined ? { keep: [], waiting: [], dropped: [], aside: [], missing: [] } : await sentState(port, persist),
      lastDelivery: f.lastDelivery,
      duplicates: f.duplicates,
      messaging,
      holders,
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
      'session.start': async (port, e, next, ctx) => {
        box = createMailbox(port.pkg, { retentionMs: configOf(ctx).retentionMs })
        config = configOf(ctx)
        cwd = e.cwd
        interactive = e.isInteractive
        ended = false
        tool = undefined
        toolProblem = undefined
        root = undefined
        rootProblem = undefined
        keyFacts = undefined
        sessionId = undefined
        work = undefined
        settled = false
        cleaned = false
        // Live mail that arrives before the key settles is still recorded (dedupe); its claim waits for the start's work.
        box.bind(edgesOf(port, ctx))
        try {
          // Registered before `next`, so it is listed from the first turn.
          tool = await port.registerTool({ name: TOOL_NAME, description: s.TOOL_DESCRIPTION, inputSchema: s.TOOL_SCHEMA as never, isDeferred: false })
        } catch (err) {
          toolProblem = messageOf(err)
          ctx.log(s.toolFailedLine(toolProblem))
        }
        const result = await next(e)
        // The start's work and its scan: at once where someone watches, else once idle (scanWhenIdle).
        scanWhenIdle(port, ctx)
        return result
      },

      // A failing hook refuses the tool's own call, never another tool's.
      'tool.call': {
        onFailure: { deny: (e) => (tool !== undefined && e.tool === tool ? s.HOOK_FAILED : undefined) },
        run: async (port, e, next, ctx) => {
          if (tool === undefined || e.tool !== tool) {
            const result = await next(e)
            // A model's main-thread call just ended: mail queued for the running turn joins it here, as one row.
            await box?.toolCompleted({ agentId: e.agentId, originPlugin: String(next.origin?.plugin ?? '') })
            return result
          }
          if (e.agentId !== undefined) return { deny: s.subagentRefused(e.agentId) }
          const input = e as { to?: unknown; text?: unknown }
          const sent = await send(port, ctx, { to: input.to, text: input.text })
          await box?.toolCompleted({ originPlugin: String(next.origin?.plugin ?? '') })
          return 'deny' in sent ? sent : { result: sent.answer }
        },
      },

      'session.receive': async (_port, e, next) => {
        if (!box || e.origin.kind !== 'peer') return next(e)
        return (await box.receive({ text: e.text, agentId: e.agentId })) ?? next(e)
      },

      // Matched in main.ts to rows of door prompt/delivery from a peer: a live mail's row, stored once `next` resolved.
      'session.append': async (_port, e, next) => {
        const result = await next(e)
        if (box && e.origin.kind === 'peer') box.rowStored({ door: e.door, originKind: e.origin.kind, agentId: e.agentId, text: rowText(e.message.content) })
        return result
      },

      'turn.start': (_port, e, next) => {
        box?.turnStarted(e.agentId)
        return next(e)
      },

      'turn.complete': (port, e, next, ctx) => {
        if (box && e.agentId === undefined) {
          box.turnCompleted(undefined)
          scanWhenIdle(port, ctx)
        }
        return next(e)
      },

      // The person's `/rename K`, heard after it applied (the plugin's own rename is not heard: re-entry).
      'command.run': async (port, e, next, ctx) => {
        const result = await next(e)
        const name = e.command === 'rename' ? renamedTo(result) : undefined
        if (name !== undefined && box) later(port, ctx, () => adopt(port, ctx, name))
        return result
      },

      'session.end': async (port, e, next, ctx) => {
        stopIdleScan?.()
        stopIdleScan = undefined
        ended = e.reason !== 'clear' && e.reason !== 'resume'
        // Queued mail goes back to the mailbox: the next start (or the conversation a /clear begins) takes it.
        await box?.end(e.reason)
        if (box && (e.reason === 'clear' || e.reason === 'resume')) {
          const endedId = e.sessionId
          const prior = ensureBegun(port, ctx)
          settled = false
          work = prior
            .then(() => new Promise<void>((resolve) => later(port, ctx, () => restart(port, ctx, endedId, e.reason).finally(resolve))))
            .finally(() => {
              settled = true
            })
          void work.then(() => scanWhenIdle(port, ctx))
        }
        return next(e)
      },
    },

    verbs: {
      mail: {
        usage: s.MAIL_VERB_USAGE,
        run: async (port, args, ctx) => {
          const parsed = parseMailArgs(args)
          if (!parsed) return s.mailUsage(port.pkg)
          const sent = await send(port, ctx, parsed)
          return 'deny' in sent ? s.forPerson(port.pkg, sent.deny) : sent.answer
        },
      },
      mailbox: {
        usage: s.MAILBOX_VERB_USAGE,
        run: async (port, _args, ctx) => {
          const facts = await statusFacts(port, ctx, true, true)
          return [...problemLines(), ...(facts ? statusLines(facts) : [s.NOT_STARTED_LINE])].join('\n')
        },
      },
    },

    async status(port, ctx) {
      const facts = await statusFacts(port, ctx, false, false)
      return [facts ? summaryLine(facts) : box ? (interactive ? s.STARTING_LINE : s.NOT_READ_LINE(port.pkg)) : s.NOT_STARTED_LINE, ...problemLines()]
    },
  }
}
