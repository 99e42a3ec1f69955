// The checkpoint feature: binds each hook to one session's state machine (session.ts) over the port's
// edges. Every hook fails open: a failure is logged and the event goes on as it came.
import type { Feature, FeatureContext } from '../../registry.ts'
import { createLane } from '../../lib/lane.ts'
import { logFailure, messageOf, toUndefined } from '../../lib/message.ts'
import { orThrow, removeSafely, writeSafely } from '../../lib/safe-write.ts'
import { bandTree, type BandElements } from './band.ts'
import type { CheckpointPort as Port } from './bind.ts'
import { CHECKPOINT_ARGS, CHECKPOINT_SKILL, COMPACT_COMMAND, RECALL_OPTION, RECALL_TOOL } from './constants.ts'
import { createCheckpointSession, type CheckpointSession, type Edges } from './session.ts'
import { isAttended, isDesktopStarted, settingsFrom } from './decide.ts'
import { BUNDLE_FENCES, extractCheckpointBlock } from './fence.ts'
import { byteLength } from '../../lib/text.ts'
import { createNotes } from './notes.ts'
import { recall } from './recall.ts'
import { statusLines } from './status.ts'
import {
  CHARTER_NONE, CHARTER_USAGE, charterSet, damagedStore, RECALL_DESCRIPTION, RECALL_OFF, RECALL_SCHEMA, RECALL_USAGE, recallFailed,
} from './strings.ts'
import { isString } from '../../lib/shape.ts'

export function createCheckpointFeature(): Feature<Port> {
  // What one registration of the feature holds (a reload starts it over; the store and files keep the rest).
  /** Each session this process has seen, by id: a /clear starts another in the same process. */
  const sessions = new Map<string, CheckpointSession>()
  /**
   * Facts of the process, not of one conversation: read at session.start, and carried into each
   * session a /clear starts (no session.start fires for it).
   */
  const processFacts = { isInteractive: false, isDesktopStarted: false }
  /** The session the presence signal names now. */
  let announcedFor: string | undefined
  /** The plugin's data folder: it does not move while the process lives. */
  let dataDir: Promise<string> | undefined
  /**
   * The work of the observing hooks (a measurement, a turn start, a turn end with no block), run off
   * their path in order. Whatever reads the state it writes drains it first: the steering, a turn end
   * with a block, the band's Now, the compaction timer.
   */
  const lane = createLane()
  /**
   * The session in force, as its start or the last main turn start resolved it: a turn start marks it
   * busy and a turn end with nothing to do clears the mark, with no `$` call. A session end forgets it.
   */
  let current: CheckpointSession | undefined
  /**
   * This package's main-conversation compactions, as the session.compact hook sees each (every one
   * now runs through the package's chain): running from the hook's entry until its next settles, and
   * entered so far. No checkpoint starts while one runs, nor on a fill read before one entered.
   */
  const compactions = { running: 0, entered: 0 }
  /** The recall tool's full name, once registered (the option `recall` on). */
  let recallTool: string | undefined

  function edgesOf(port: Port, ctx: FeatureContext): Edges {
    // A failed read is not kept: the next call asks again.
    const dataDirOf = () => (dataDir ??= port.pluginDataDir().catch((err) => {
      dataDir = undefined
      throw err
    }))
    return {
      // The store, the clock, the usage reads, toasts and prompts: the port's own, as they are.
      ...port,
      log: ctx.log,
      submit: port.submitPrompt,
      runCheckpoint: (command) => port.runCommand(command, CHECKPOINT_ARGS),
      compact: ctx.compact,
      compactCommand: () => port.runCommand(COMPACT_COMMAND, ''),
      compactions: () => compactions,
      after: (ms, fn) => port.after(ms, () => void lane.drain().then(fn).catch((err) => logFailure(ctx, 'compact state', err))),
      sleep: (ms) => new Promise((resolve) => {
        try {
          port.after(ms, resolve)
        } catch {
          // No clock: no bound, the save takes what it takes.
        }
      }),
      dataDir: dataDirOf,
      // The data folder is the one folder these writes may land in: never through a link out of it.
      write: async (path, text) => orThrow(await writeSafely(port.files, { within: await dataDirOf(), path, text, inPlace: true })),
      remove: async (path) => orThrow(await removeSafely(port.files, await dataDirOf(), path)),
      read: port.files.read,
      list: (folder) => port.files.list(folder).catch(() => []),
      recallTool: () => recallTool,
    }
  }

  async function sessionOf(port: Port, ctx: FeatureContext): Promise<CheckpointSession> {
    const id = await ctx.facts.sessionId()
    // The process's facts hold for each session it runs, a /clear's too (only the current one is looked up).
    const session = Object.assign(sessions.get(id) ?? createCheckpointSession(id, `${port.pkg}:${CHECKPOINT_SKILL}`, BUNDLE_FENCES), processFacts)
    sessions.set(id, session)
    return session
  }

  /** B.14: the skill reads the signal to know its block is saved here. A deny is logged (part C.9). */
  async function announce(port: Port, ctx: FeatureContext, sessionId: string): Promise<void> {
    announcedFor = sessionId
    const result = await port.announcePresence(sessionId)
    if (isString(result?.deny)) ctx.log(`presence signal refused (${result.deny}); the skill will not know its block is saved`)
  }

  /** A failure is the answer's to say: the model or the person reads why. */
  const recallFor = (port: Port, { query, limit }: { query?: unknown; limit?: unknown }) =>
    recall(port, String(query ?? ''), limit, recallTool!).catch((err) => recallFailed(messageOf(err)))

  return {
  name: 'checkpoint',
  sessionActing: true,
  // The heads-up band above the prompt.
  draws: ['AbovePrompt'],
  hooks: {
    'session.start': async (port, e, next, ctx) => {
      try {
        processFacts.isInteractive = e.isInteractive
        try {
          processFacts.isDesktopStarted = isDesktopStarted(...(await port.desktopSignal()))
        } catch (err) {
          logFailure(ctx, 'session.start desktop signal', err)
          processFacts.isDesktopStarted = false
        }
        const session = (current = await sessionOf(port, ctx))
        // In use from its start, not only from its first save, and the folder kept bounded: off the start's path.
        lane.defer(port, ctx, 'session.start', async () => {
          const edges = edgesOf(port, ctx)
          await session.touch(edges)
          await createNotes(edges).sweep(session.sessionId).catch((err) => logFailure(ctx, 'sweep', err))
        })
        await announce(port, ctx, session.sessionId)
        if (ctx.options[RECALL_OPTION] === 'on') {
          recallTool = await port.registerTool({ name: RECALL_TOOL, description: RECALL_DESCRIPTION, inputSchema: RECALL_SCHEMA, isDeferred: false })
        }
      } catch (err) {
        logFailure(ctx, 'session.start', err)
      }
      return next(e)
    },

    // L0: every main-conversation compaction is steered; a subagent's is left alone.
    'session.compact': async (port, e, next, ctx) => {
      if (e.agentId !== undefined) return next(e)
      // Marked before anything is awaited: the lane drained below may hold a decision to start a checkpoint.
      compactions.running++
      compactions.entered++
      try {
        const edges = edgesOf(port, ctx)
        let session: CheckpointSession | undefined
        let isOwn: boolean | undefined
        let steered = e
        try {
          await lane.drain()
          session = await sessionOf(port, ctx)
          isOwn = session.isOwn(e.trigger, e.instructions)
          steered = { ...e, instructions: await session.steer(edges, e.instructions) }
        } catch (err) {
          // The compaction goes on with the owner's own text.
          logFailure(ctx, 'session.compact', err)
        }
        const result = await next(steered)
        if (session && typeof result.skip !== 'string') session.compacted(edges, e.trigger, isOwn)
        return result
      } finally {
        compactions.running--
      }
    },

    // Observes only: the turn goes on at once, the binding follows from the lane. The busy mark is
    // set here, so a decision still waiting in the lane does not start a checkpoint beside this turn.
    'turn.start': (port, e, next, ctx) => {
      if (e.agentId === undefined) {
        if (current) current.activeTurn = e.turnId
        lane.defer(port, ctx, 'turn.start', async () => {
          const session = (current = await sessionOf(port, ctx))
          // A /clear starts a new session id with no session.start: the signal follows it here.
          if (announcedFor !== session.sessionId) await announce(port, ctx, session.sessionId)
          await session.turnStarted(edgesOf(port, ctx), e.turnId, e.text)
        })
      }
      return next(e)
    },

    // L1: a main reply ending with the block replaces the notes; a subagent's never does.
    'turn.complete': async (port, e, next, ctx) => {
      if (e.agentId !== undefined) return next(e)
      const turnCompleted = async () => (await sessionOf(port, ctx)).turnCompleted(edgesOf(port, ctx), settingsFrom(ctx.options), e)
      // Only a failed save changes the answer, so a reply with no block is observed: at once when
      // it only clears the busy mark, else off the path.
      if (!extractCheckpointBlock(e.answer, BUNDLE_FENCES)) {
        if (!(lane.idle() && current?.endQuietTurn(e.turnId))) lane.defer(port, ctx, 'turn.complete', turnCompleted)
        return next(e)
      }
      const result = await next(e)
      // The turn's start binds the checkpoint this block finishes.
      const warning = await lane.drain().then(turnCompleted).catch((err) => (logFailure(ctx, 'turn.complete', err), null))
      // Headless output shows no toast: the failed save is said beneath the answer too. The engine
      // shows a changed text as a capped note of its own under the answer (measured), so the line
      // goes alone: the answer above it is the transcript's already.
      return warning ? { ...result, text: warning } : result
    },

    // Observes only: the decision runs off the path, on the main turn's summary read (the facts',
    // which reconnect's note of the turn's servers shares), started here while the session is bound
    // (a print-mode run unbinds before the decision runs: the harness threshold read then is gone,
    // and the skip record would name the option's value instead). The fill is this measurement's.
    'session.measure': (port, e, next, ctx) => {
      const measured = e.context.tokens
      const reading = ctx.facts.summary().then(({ context }) => ({ ...context, tokens: measured ?? context.tokens }))
      reading.catch(toUndefined) // its failure is the decision's to report
      lane.defer(port, ctx, 'session.measure', async () => (await sessionOf(port, ctx)).evaluate(edgesOf(port, ctx), settingsFrom(ctx.options), measured, reading))
      return next(e)
    },

    // What the last measurement started lands before the session ends: a print-mode run ends right
    // after it. Then the ending session's checkpoint goes: a /clear must not compact the new one.
    'session.end': async (port, e, next, ctx) => {
      await lane.drain()
      const ending = sessions.get(e.sessionId)
      ending?.ended(edgesOf(port, ctx))
      sessions.delete(e.sessionId)
      if (current === ending) current = undefined
      return next(e)
    },

    // Served ahead of the permission check, as the levers are: it only reads the session's own transcript.
    'tool.call': (port, e, next) => (e.tool === recallTool ? recallFor(port, e as { query?: unknown; limit?: unknown }).then((result) => ({ result })) : next(e)),

    'ui.render': async (port, e, next, ctx) => {
      // Drawn at every render: with no band up in any session, nothing is asked of the host.
      if (e.component !== 'AbovePrompt' || ![...sessions.values()].some((s) => s.band)) return next(e)
      try {
        const session = await sessionOf(port, ctx)
        if (!session.band || (e.props as { hasSurvey?: boolean }).hasSurvey) return next(e)
        const edges = edgesOf(port, ctx)
        return bandTree(
          port.elements(e) as unknown as BandElements,
          settingsFrom(ctx.options).mode,
          // Now waits for a turn start still in the lane: a running turn makes it wait.
          () => void lane.drain().then(() => session.start(edges, true)),
          () => void session.snoozeNow(edges),
        ) as Awaited<ReturnType<typeof next>>
      } catch (err) {
        logFailure(ctx, 'ui.render', err)
        return next(e)
      }
    },
  },

  verbs: {
    charter: {
      usage: CHARTER_USAGE,
      async run(port, args, ctx) {
        const session = await sessionOf(port, ctx)
        const edges = edgesOf(port, ctx)
        if (!args) return (await session.charter(edges))?.text ?? CHARTER_NONE
        return charterSet((await session.setCharter(edges, args, 'verb')).text.split('\n')[0]!)
      },
    },
    recall: {
      usage: RECALL_USAGE,
      run: (port, args) => (recallTool ? recallFor(port, { query: args }) : RECALL_OFF),
    },
  },

  async status(port, ctx) {
    const session = await sessionOf(port, ctx)
    const io = edgesOf(port, ctx)
    const notes = createNotes(io)
    const charter = await session.charter(io).catch(toUndefined)
    const folder = await notes.folder().catch(toUndefined)
    const text = await notes.read(session.sessionId)
    const path = await notes.path(session.sessionId).catch(() => null)
    return statusLines({
      pkg: port.pkg,
      charter,
      notes: isString(text) && path ? { bytes: byteLength(text), path } : text === null ? null : undefined,
      folder,
      settings: settingsFrom(ctx.options),
      trigger: session.lastTrigger,
      fill: await io.fill().catch(toUndefined),
      attended: isAttended(session.isInteractive, session.isDesktopStarted, await io.surfaces().catch(() => null)),
      lastSkip: await session.lastSkipRecord(io),
      store: await io.storeKeys().then(toUndefined, damagedStore),
    })
  },
  }
}
