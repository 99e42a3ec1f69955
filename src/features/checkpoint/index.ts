// The checkpoint feature: binds each hook to one session's state machine (core.ts) over the port's
// edges. Every hook fails open: a failure is logged and the event goes on as it came.
import type { Feature, FeatureContext } from '../../registry.ts'
import { createLane } from '../../lib/lane.ts'
import { messageOf } from '../../lib/message.ts'
import { removeSafely, writeSafely } from '../../lib/safe-write.ts'
import type { Port } from '../../lib/port.ts'
import { bandTree, type BandElements } from './band.ts'
import { CHECKPOINT_ARGS, CHECKPOINT_SKILL, COMPACT_COMMAND } from './constants.ts'
import { CheckpointSession, type Edges } from './core.ts'
import { isAttended, isDesktopStarted, settingsFrom } from './decide.ts'
import { BUNDLE_FENCES, extractCheckpointBlock } from './fence.ts'
import { byteLength, Notes } from './notes.ts'
import { statusLines } from './status.ts'
import { CHARTER_NONE, CHARTER_USAGE, charterSet, damagedStore } from './strings.ts'

/** Each session this process has seen, by id: a /clear starts another in the same process. */
const sessions = new Map<string, CheckpointSession>()
/**
 * Facts of the process, not of one conversation: read at session.start, and carried into each
 * session a /clear starts (no session.start fires for it).
 */
const facts = { isInteractive: false, isDesktopStarted: false }
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

function edgesOf(port: Port): Edges {
  const log = (line: string) => port.log(`checkpoint: ${line}`)
  const dataDirOf = () => {
    // A failed read is not kept: the next call asks again.
    dataDir ??= port.pluginDataDir().catch((err) => {
      dataDir = undefined
      throw err
    })
    return dataDir
  }
  return {
    log,
    toast: (text) => port.toast(text),
    usage: async () => {
      const { context } = await port.usage('summary')
      return { tokens: context.tokens, breakdown: context.breakdown }
    },
    fill: async () => (await port.usage()).context.tokens,
    surfaces: () => port.surfaces(),
    runCheckpoint: () => port.runCommand(`${port.pkg}:${CHECKPOINT_SKILL}`, CHECKPOINT_ARGS),
    compact: (instructions) => port.compactSession(instructions),
    compactCommand: () => port.runCommand(COMPACT_COMMAND, ''),
    compactions: () => ({ ...compactions }),
    submit: (text) => port.submitPrompt(text),
    redraw: () => port.redrawRenders(),
    after: (ms, fn) => port.after(ms, () => void lane.drain().then(fn).catch((err) => log(`compact state: ${messageOf(err)}`))),
    dataDir: dataDirOf,
    read: (path) => port.readFile(path),
    // The data folder is the one folder these writes may land in: never through a link out of it.
    write: async (path, text) => {
      const done = await writeSafely(port.files, { within: await dataDirOf(), path, text, inPlace: true })
      if (!done.ok) throw new Error(done.reason)
    },
    remove: async (path) => {
      const done = await removeSafely(port.files, await dataDirOf(), path)
      if (!done.ok) throw new Error(done.reason)
    },
    list: async (folder) => (await port.listDir(folder).catch(() => [])).map(({ name, mtimeMs }) => ({ name, mtimeMs })),
    storeGet: (key) => port.storeGet(key),
    storeSet: (key, value) => port.storeSet(key, value),
    storeKeys: () => port.storeKeys(),
    storeDelete: (key) => port.storeDelete(key),
    now: () => port.now(),
  }
}

async function sessionOf(port: Port): Promise<CheckpointSession> {
  const id = await port.sessionId()
  let session = sessions.get(id)
  if (!session) {
    session = Object.assign(new CheckpointSession(id, `${port.pkg}:${CHECKPOINT_SKILL}`, BUNDLE_FENCES), facts)
    sessions.set(id, session)
  }
  return session
}

/** B.14: the skill reads the signal to know its block is saved here. A deny is logged (part C.9). */
async function announce(port: Port, sessionId: string): Promise<void> {
  announcedFor = sessionId
  const result = await port.announceCheckpointPresence(sessionId)
  if (typeof result?.deny === 'string') port.log(`checkpoint: presence signal refused (${result.deny}); the skill will not know its block is saved`)
}

async function statusOf(port: Port, ctx: FeatureContext): Promise<string[]> {
  const session = await sessionOf(port)
  const io = edgesOf(port)
  const notes = new Notes(io)
  const settings = settingsFrom(ctx.options)
  const charter = await session.charter(io).catch(() => undefined)
  const folder = await notes.folder().catch(() => undefined)
  const text = await notes.read(session.sessionId)
  const path = await notes.path(session.sessionId).catch(() => null)
  const fill = await io.fill().catch(() => undefined)
  const surfaces = await io.surfaces().catch(() => null)
  return statusLines({
    pkg: port.pkg,
    charter,
    notes: typeof text === 'string' && path !== null ? { bytes: byteLength(text), path } : text === null ? null : undefined,
    folder,
    settings,
    trigger: session.lastTrigger,
    fill,
    attended: isAttended(session.isInteractive, session.isDesktopStarted, surfaces),
    lastSkip: await session.lastSkipRecord(io),
    store: await io.storeKeys().then(() => undefined, (err: unknown) => damagedStore(err)),
  })
}

export const checkpoint: Feature = {
  name: 'checkpoint',
  sessionActing: true,
  hooks: {
    'session.start': async (port, e, next) => {
      try {
        facts.isInteractive = e.isInteractive
        try {
          const { entrypoint, child } = await port.desktopSignal()
          facts.isDesktopStarted = isDesktopStarted(entrypoint, child)
        } catch (err) {
          port.log(`checkpoint: session.start desktop signal: ${messageOf(err)}`)
          facts.isDesktopStarted = false
        }
        const session = (current = Object.assign(await sessionOf(port), facts))
        // In use from its start, not only from its first save, and the folder kept bounded: off the start's path.
        lane.defer(port, 'checkpoint: session.start', async () => {
          const io = edgesOf(port)
          await session.touch(io)
          await new Notes(io).sweep(session.sessionId).catch((err) => port.log(`checkpoint: sweep: ${messageOf(err)}`))
        })
        await announce(port, session.sessionId)
      } catch (err) {
        port.log(`checkpoint: session.start: ${messageOf(err)}`)
      }
      return next(e)
    },

    // L0: every main-conversation compaction is steered; a subagent's is left alone.
    'session.compact': async (port, e, next) => {
      if (e.agentId !== undefined) return next(e)
      // Marked before anything is awaited: the lane drained below may hold a decision to start a checkpoint.
      compactions.running += 1
      compactions.entered += 1
      try {
        const io = edgesOf(port)
        let session: CheckpointSession | undefined
        let isOwn = false
        let steered = e
        try {
          await lane.drain()
          session = await sessionOf(port)
          isOwn = session.isOwn(e.trigger, e.instructions)
          steered = { ...e, instructions: await session.steer(io, e.instructions) }
        } catch (err) {
          // The compaction goes on with the owner's own text.
          port.log(`checkpoint: session.compact: ${messageOf(err)}`)
        }
        const result = await next(steered)
        if (session && typeof result.skip !== 'string') {
          try {
            session.compacted(io, e.trigger, isOwn)
          } catch (err) {
            port.log(`checkpoint: session.compact state: ${messageOf(err)}`)
          }
        }
        return result
      } finally {
        compactions.running -= 1
      }
    },

    // Observes only: the turn goes on at once, the binding follows from the lane. The busy mark is
    // set here, so a decision still waiting in the lane does not start a checkpoint beside this turn.
    'turn.start': (port, e, next) => {
      if (e.agentId === undefined) {
        if (current) current.activeTurn = e.turnId
        lane.defer(port, 'checkpoint: turn.start', async () => {
          const session = (current = await sessionOf(port))
          // A /clear starts a new session id with no session.start: the signal follows it here.
          if (announcedFor !== session.sessionId) await announce(port, session.sessionId)
          await session.turnStarted(edgesOf(port), e.turnId, e.text)
        })
      }
      return next(e)
    },

    // L1: a main reply ending with the block replaces the notes; a subagent's never does.
    'turn.complete': async (port, e, next, ctx) => {
      if (e.agentId !== undefined) return next(e)
      const turnCompleted = async () => (await sessionOf(port)).turnCompleted(edgesOf(port), settingsFrom(ctx.options), e)
      // Only a failed save changes the answer, so a reply with no block is observed: at once when
      // it only clears the busy mark, else off the path.
      if (extractCheckpointBlock(e.answer, BUNDLE_FENCES) === null) {
        if (!(lane.idle() && current?.endQuietTurn(e.turnId))) lane.defer(port, 'checkpoint: turn.complete', turnCompleted)
        return next(e)
      }
      const result = await next(e)
      let warning: string | null = null
      try {
        // The turn's start binds the checkpoint this block finishes.
        await lane.drain()
        warning = await turnCompleted()
      } catch (err) {
        port.log(`checkpoint: turn.complete: ${messageOf(err)}`)
      }
      // Headless output shows no toast: the failed save is said beneath the answer too. The engine
      // shows a changed text as a capped note of its own under the answer (measured), so the line
      // goes alone: the answer above it is the transcript's already.
      return warning === null ? result : { ...result, text: warning }
    },

    // Observes only: the decision runs off the path, on a usage read started here, while the
    // session is bound (a print-mode run unbinds before the decision runs: the harness threshold
    // read then is gone, and the skip record would name the option's value instead).
    'session.measure': (port, e, next, ctx) => {
      const measured = e.context.tokens
      const io = edgesOf(port)
      const reading = io.usage()
      reading.catch(() => undefined) // its failure is the decision's to report
      lane.defer(port, 'checkpoint: session.measure', async () => (await sessionOf(port)).evaluate(io, settingsFrom(ctx.options), measured, reading))
      return next(e)
    },

    // What the last measurement started lands before the session ends: a print-mode run ends right
    // after it. Then the ending session's checkpoint goes: a /clear must not compact the new one.
    'session.end': async (port, e, next) => {
      await lane.drain()
      const ending = sessions.get(e.sessionId)
      if (ending) {
        ending.ended(edgesOf(port))
        sessions.delete(e.sessionId)
      }
      if (current === ending) current = undefined
      return next(e)
    },

    'ui.render': async (port, e, next, ctx) => {
      // Drawn at every render: with no band up in any session, nothing is asked of the host.
      if (e.component !== 'AbovePrompt' || ![...sessions.values()].some((s) => s.band)) return next(e)
      try {
        const session = await sessionOf(port)
        const props = e.props as { hasSurvey?: boolean }
        if (!session.band || props.hasSurvey) return next(e)
        const io = edgesOf(port)
        const tree = bandTree(
          port.elements(e) as unknown as BandElements,
          settingsFrom(ctx.options)?.mode,
          // Now waits for a turn start still in the lane: a running turn makes it wait.
          () => void lane.drain().then(() => session.start(io, true)),
          () => void session.snoozeNow(io),
        )
        return tree as Awaited<ReturnType<typeof next>>
      } catch (err) {
        port.log(`checkpoint: ui.render: ${messageOf(err)}`)
        return next(e)
      }
    },
  },

  verbs: {
    charter: {
      usage: CHARTER_USAGE,
      async run(port, args) {
        const session = await sessionOf(port)
        const io = edgesOf(port)
        if (args === '') return (await session.charter(io))?.text ?? CHARTER_NONE
        const charter = await session.setCharter(io, args, 'verb')
        return charterSet(charter.text.split('\n')[0] ?? '')
      },
    },
  },

  status: statusOf,
}
