// One session's checkpoint, as a state machine driven through edges (spec B.6-B.13); its charter,
// record of use and skip records live in records.ts, whose object it spreads into its own:
//   idle --fire / Now--> STARTED --its command's turn starts--> BOUND
//   BOUND --turn ends, notes changed--> COMPACTING --compacted--> idle (one resume prompt follows)
//   BOUND --aborted | save failed | notes unchanged or unreadable before--> idle, re-armed
// Every value a step writes is carried forward by the step itself, never read back (part C.10):
// the state lives in this object, which is not snapshotted; the steps only its methods take are
// functions beside it.
import { logFailure, toUndefined } from '../../lib/message.ts'
import {
  COMPACT_DELAY_MS, SAVE_BOUND_MS, STALE_CHECKPOINT_MS,
} from './constants.ts'
import {
  decide, isAttended, notesChanged, rearmTo, resumesAfter, snooze, triggerOf,
  type Breakdown, type Settings, type TriggerSource,
} from './decide.ts'
import { composeInstructions } from './compose.ts'
import { extractCheckpointBlock } from './fence.ts'
import { createNotes, type NotesEdges, type NotesRead } from './notes.ts'
import { sessionRecords } from './records.ts'
import {
  CHECKPOINT_CANCELLED, CHECKPOINT_FAILED, CHECKPOINTED, COULD_NOT_COMPACT, ERR_COMPACT_COMMAND, ERR_COMPACTION_RUNNING, ERR_SAVE_HELD, ERR_TURN_RUNNING,
  NOTES_SAVED, notSaved, RESUME_PROMPT, WAIT_FOR_TURN, WHY_BASELINE_UNREADABLE, WHY_COMPACTED, WHY_SAVE_FAILED, WHY_UNCHANGED, skipped,
} from './strings.ts'

/** What a session's checkpoint needs of the world, besides its notes'. */
export type Edges = NotesEdges & {
  log(line: string): void
  toast(text: string): void
  /** The fill and the harness's own threshold: a summary usage read. */
  usage(): Promise<{ tokens?: number; breakdown?: Breakdown }>
  /** The fill alone: the plain usage read, which costs nothing. */
  fill(): Promise<number | undefined>
  surfaces(): Promise<readonly string[]>
  /** Queues `/<command> auto` (the session's `<pkg>:checkpoint`); settles with that command's turn. */
  runCheckpoint(command: string): Promise<unknown>
  /** `$.session.compact()`, carrying the steering: no hook of this plugin hears a call its timer makes. */
  compact(instructions?: string): Promise<{ skip?: string }>
  /** `/compact`, for a session where `$.session.compact()` is refused. */
  compactCommand(): Promise<unknown>
  /**
   * The main-conversation compactions of this package's chain, as its session.compact hook sees them:
   * how many run now (from the hook's entry until its next settles), and how many entered so far.
   */
  compactions(): { running: number; entered: number }
  submit(text: string): Promise<unknown>
  redraw(): void
  after(ms: number, fn: () => Promise<void>): void
  /** Resolves after `ms` on the engine's clock, waiting for nothing else; never, where there is no clock. */
  sleep(ms: number): Promise<void>
  /** The recall tool's name while it is registered: the steering tells the summarizer of it. */
  recallTool(): string | undefined
}

/** A checkpoint in force; `compactionsAt` is `compactionsDone` when it started, to tell a compaction that landed meanwhile. */
export type Running = { startedAt: number; compactionsAt: number; fill?: number; turnId?: string; notesBefore?: string | null; compacting?: boolean }

export function createCheckpointSession(
  sessionId: string,
  /** The skill's command, `<pkg>:checkpoint`: its turn binds the checkpoint. */
  command: string,
  /** The fences a block may open with: every package's of the bundle, so a manual run of any package's skill saves here. */
  fences: readonly string[],
) {
  let isStarting = false
  let isResumePending = false
  /**
   * Set while the mod's own compaction runs, with the instructions it carries: a hook that hears it
   * passes them as they are, and only it is followed by the resume prompt among `plugin` compactions
   * (`isOwn`).
   */
  let own: { steering: string | undefined } | undefined
  const session = {
  ...sessionRecords(sessionId),
  isInteractive: false,
  isDesktopStarted: false,
  /** The running main turn's id: a live mirror, read by every decision (B.8.0). */
  activeTurn: null as string | null,
  checkpoint: null as Running | null,
  snoozeUntil: null as number | null,
  band: false,
  rearmAfterCompact: false,
  compactionsDone: 0,
  lastTrigger: null as { tokens: number; source: TriggerSource; harnessAt?: number } | null,

  // ---- steering (B.8.7) ----

  /** The compaction's instructions; throws when a part cannot be read, and the caller steers nothing. */
  async instructions(io: Edges, owner: string | undefined): Promise<string> {
    await this.touch(io)
    const notes = createNotes(io)
    const charter = await this.charter(io)
    const text = await notes.read(sessionId)
    if (text === undefined) throw new Error('the notes could not be read')
    return composeInstructions({ charter: charter?.text, notes: text, notesPath: await notes.path(sessionId), owner, recall: io.recallTool() })
  },

  /** The instructions a compaction goes on with: the mod's own compaction is steered already. */
  async steer(io: Edges, owner: string | undefined): Promise<string> {
    return owner && owner === own?.steering ? owner : this.instructions(io, owner)
  },

  /**
   * Whether a compaction the hook hears, read before it runs, is the mod's own: its call is under
   * way and the compaction carries that call's instructions. Another feature's compaction that the
   * call joined (the runtime gives both one) carries that feature's, and gets no second resume.
   */
  isOwn(trigger: string, instructions: string | undefined): boolean {
    return trigger === 'plugin' && !!own && instructions === own.steering
  },

  /**
   * A main-conversation compaction completed (not skipped). A precompute installs nothing: no
   * bookkeeping (part C.6). Another feature's compaction (`plugin` too) gets no resume prompt.
   * Never throws: the compaction stands whatever its bookkeeping meets.
   */
  compacted(io: Edges, trigger: string, isOwn = false): void {
    if (trigger === 'precompute') return
    try {
      this.compactionsDone++
      this.snoozeUntil = null
      setBand(io, false)
      this.rearmAfterCompact = true
      if (this.checkpoint?.compacting) this.checkpoint = null
      if (resumesAfter(trigger, isOwn)) void submitResume(io)
    } catch (err) {
      logFailure(io, 'session.compact state', err)
    }
  },

  /** The session ended (a /clear, an exit): a checkpoint in force, or its pending compaction, goes with it. */
  ended(io: Edges): void {
    this.checkpoint = null
    setBand(io, false)
  },


  // ---- turns (B.7) ----

  /** A main turn starts: the session is busy, and the checkpoint's own command binds it. */
  async turnStarted(io: Edges, turnId: string, text: string): Promise<void> {
    this.activeTurn = turnId
    // The first turn of a session a /clear or /resume started (no session.start) marks it in use.
    if (!this.isTouched) await this.touch(io)
    // The clock is read only when a checkpoint is in force (whether it went stale): most turns make no host trip here.
    const inForce = this.checkpoint && running(await io.now())
    if (inForce && !inForce.turnId && text.includes(`<command-name>/${command}</command-name>`)) inForce.turnId = turnId
    if (!(await this.charter(io))) await this.setCharter(io, text, 'first prompt')
  },

  /**
   * A main turn that ended with no block while no checkpoint is bound: the busy mark clears, and
   * nothing is read or written. False, changing nothing, when the turn is not the one this session
   * runs or a checkpoint is in force: `turnCompleted` has the rest to do.
   */
  endQuietTurn(turnId: string): boolean {
    if (this.activeTurn !== turnId || this.checkpoint) return false
    this.activeTurn = null
    return true
  },

  /**
   * A main turn ended: its block, if it ends with one, replaces the notes, and the checkpoint bound
   * to it finishes. Returns the line to put beneath the answer when the save failed, else null.
   */
  async turnCompleted(io: Edges, settings: Settings, e: { answer: string; isAborted: boolean; turnId: string }): Promise<string | null> {
    this.activeTurn = null
    const block = extractCheckpointBlock(e.answer, fences)
    let warning: string | null = null
    if (block) {
      let givenUp = false
      try {
        // A save the disk holds is given up at its bound, and said, before the engine drops the turn's end unsaid.
        await Promise.race([
          this.serial(() => createNotes(io).save(sessionId, block, () => givenUp)),
          io.sleep(SAVE_BOUND_MS).then(() => {
            givenUp = true
            throw new Error(ERR_SAVE_HELD)
          }),
        ])
        io.toast(NOTES_SAVED)
        await createNotes(io).evict(sessionId).catch((err) => logFailure(io, 'notes eviction', err))
      } catch (err) {
        logFailure(io, 'save', err)
        warning = notSaved(err)
        io.toast(warning)
      }
    }
    // A block saved is the notes now (a failed one is never read: `saveFailed`).
    await finish(io, settings, !!warning, e.isAborted, e.turnId, block).catch((err) => abandon(io, err))
    return warning
  },

  // ---- the automatic checkpoint (B.8.3-B.8.12) ----

  /**
   * A measurement: re-arm after a compaction, decide, start or record why not. The fill comes from
   * `reading`, a usage read started while the session was bound (a print-mode session unbinds
   * right after its last measurement, before a deferred decision runs, and a read made then
   * answers no breakdown); `measured`, the fill the measurement carried, stands in when it answers none.
   */
  async evaluate(io: Edges, settings: Settings, measured?: number, reading: Promise<{ tokens?: number; breakdown?: Breakdown }> = io.usage()): Promise<void> {
    const since = io.compactions().entered
    const { tokens: read, breakdown } = await reading
    const tokens = read ?? measured
    if (tokens === undefined) return
    const now = await io.now()
    const surfaces = await io.surfaces().then(
      (s) => (Array.isArray(s) ? s : null),
      (err) => (logFailure(io, 'surfaces', err), null),
    )
    // A compaction under way, or one since the fill was read, makes that fill stale: the next measurement decides.
    if (!mayStart(io, since)) return
    const trigger = triggerOf(settings, breakdown)
    this.lastTrigger = { ...trigger, harnessAt: breakdown?.autoCompactThreshold }
    if (this.rearmAfterCompact) {
      this.snoozeUntil = rearmTo(tokens, trigger.tokens, breakdown)
      this.rearmAfterCompact = false
    }
    // Read first: a stale checkpoint frees the busy mark of the turn it lost.
    const isRunning = running(now) !== null
    const decision = decide({
      tokens,
      trigger: trigger.tokens,
      mode: settings.mode,
      isIdle: this.activeTurn === null,
      isAttended: isAttended(this.isInteractive, this.isDesktopStarted, surfaces),
      isRunning,
      snoozeUntilTokens: this.snoozeUntil,
    })
    setBand(io, decision.showBand)
    if (decision.fire) await this.start(io, false, since)
    await this.recordSkip(io, decision, tokens, trigger.tokens, { isInteractive: this.isInteractive, isDesktopStarted: this.isDesktopStarted, surfaces })
  },

  /**
   * Starts a checkpoint: the automatic run, or Now (`isNow`), which says why it waits. Never while a
   * compaction runs or after one entered since `since` (the fill it was decided on): a checkpoint
   * started inside another feature's compaction would end "skipped" and its turn cancel that one's resume.
   */
  async start(io: Edges, isNow: boolean, since = io.compactions().entered): Promise<void> {
    if (isStarting) return
    isStarting = true
    try {
      const now = await io.now()
      if (running(now)) return
      const notesBefore: NotesRead = await createNotes(io).read(sessionId)
      // An unread fill only costs the fallback snooze.
      const fill = await io.fill().catch(toUndefined)
      if (this.activeTurn !== null) {
        if (isNow) io.toast(WAIT_FOR_TURN)
        return
      }
      if (!mayStart(io, since)) return
      this.checkpoint = { startedAt: now, compactionsAt: this.compactionsDone, fill, notesBefore }
      setBand(io, false)
      // Not awaited: it settles with the checkpoint's own turn, which must not hold a hook.
      io.runCheckpoint(command).catch((err) => abandon(io, err))
    } catch (err) {
      abandon(io, err)
    } finally {
      isStarting = false
    }
  },

  /** The band's Snooze: one step past the fill, and the band goes. */
  async snoozeNow(io: Edges): Promise<void> {
    try {
      this.snoozeUntil = snooze((await io.fill()) ?? 0)
      setBand(io, false)
    } catch (err) {
      logFailure(io, 'snooze', err)
    }
  },
  }

  // ---- the steps no caller outside takes: plain functions over `session` ----

  /** One resume prompt at a time; a prompt refused is logged. */
  async function submitResume(io: Edges): Promise<void> {
    if (isResumePending) return
    isResumePending = true
    try {
      await io.submit(RESUME_PROMPT)
    } catch (err) {
      logFailure(io, 'resume prompt', err)
    } finally {
      isResumePending = false
    }
  }

  /** The checkpoint in force, or null; a stale one frees the busy mark of the turn it lost. */
  function running(now: number): Running | null {
    const value = session.checkpoint
    if (!value || now - value.startedAt < STALE_CHECKPOINT_MS) return value
    if (session.activeTurn === value.turnId) session.activeTurn = null
    return null
  }

  async function finish(io: Edges, settings: Settings, saveFailed: boolean, isAborted: boolean, turnId: string, saved: string | null): Promise<void> {
    const value = session.checkpoint
    if (!value || value.compacting || value.turnId !== turnId || !running(await io.now())) return
    // The conversation was compacted while the checkpoint ran (an auto compaction mid-turn): a second one would only repeat it.
    const isCompacted = session.compactionsDone !== value.compactionsAt
    // The block just saved is the notes now: carried, not read back; an interrupted or compacted checkpoint reads nothing.
    const notesAfter = isAborted || isCompacted || saveFailed ? null : saved ?? (await createNotes(io).read(sessionId))
    const why = isCompacted
      ? WHY_COMPACTED
      : saveFailed
        ? WHY_SAVE_FAILED
        : value.notesBefore === undefined
          ? WHY_BASELINE_UNREADABLE
          : notesChanged(value.notesBefore, notesAfter)
            ? null
            : WHY_UNCHANGED
    if (isAborted || why) {
      await endUncompacted(io, settings)
      return io.toast(isAborted ? CHECKPOINT_CANCELLED : skipped(why!))
    }
    session.checkpoint = { ...value, compacting: true }
    compactSoon(io, settings, value.startedAt, false)
  }

  /** Compacts a second after the checkpoint's turn; one retry (`isLast` then), then a toast and a re-arm. */
  function compactSoon(io: Edges, settings: Settings, startedAt: number, isLast: boolean): void {
    io.after(COMPACT_DELAY_MS, async () => {
      const pending = session.checkpoint
      // Another compaction satisfied it, or a new checkpoint replaced it: nothing to do.
      if (!pending?.compacting || pending.startedAt !== startedAt) return
      let skipReason = ''
      try {
        // A running turn, or another compaction under way (which satisfies this one, or leaves the retry when vetoed): wait.
        const waitsFor = session.activeTurn !== null ? ERR_TURN_RUNNING : io.compactions().running ? ERR_COMPACTION_RUNNING : null
        if (waitsFor) {
          if (running(await io.now())) return compactSoon(io, settings, startedAt, isLast)
          // Given up: no retry follows.
          isLast = true
          throw new Error(waitsFor)
        }
        const before = session.compactionsDone
        if (session.isInteractive) {
          // Measured (2.1.328): the engine runs none of this plugin's hooks on a `$` call its timer
          // makes (B.0 F1 no longer holds), so the call carries the steering and the bookkeeping follows it here.
          const steering = await session.instructions(io, undefined).catch((err) => void logFailure(io, 'session.compact', err))
          // A /clear while the notes were read ended this checkpoint: the new session is not compacted with the old notes.
          if (session.checkpoint !== pending) return
          own = { steering }
          try {
            const res = await io.compact(steering)
            if (typeof res?.skip === 'string') {
              skipReason = ` (${res.skip})`
              throw new Error(res.skip)
            }
            // The mod's own compaction landed unheard by its hook: the hook's bookkeeping, done here.
            if (session.compactionsDone === before) session.compacted(io, 'plugin', true)
          } finally {
            own = undefined
          }
        } else {
          await io.compactCommand()
          if (session.compactionsDone === before) throw new Error(ERR_COMPACT_COMMAND)
        }
      } catch (err) {
        if (!isLast) return compactSoon(io, settings, startedAt, true)
        logFailure(io, 'compact', err)
        io.toast(COULD_NOT_COMPACT + skipReason)
        return endUncompacted(io, settings)
      }
      session.checkpoint = null
      io.toast(CHECKPOINTED)
    })
  }

  /**
   * The checkpoint ends without compacting: re-armed from the fill now, which includes the
   * checkpoint's own turn; else from the fill it started at.
   */
  async function endUncompacted(io: Edges, settings: Settings): Promise<void> {
    const startFill = session.checkpoint?.fill
    session.checkpoint = null
    try {
      const { tokens, breakdown } = await io.usage()
      if (tokens !== undefined) {
        session.snoozeUntil = rearmTo(tokens, triggerOf(settings, breakdown).tokens, breakdown)
        return
      }
    } catch {
      // The fill it started at stands in.
    }
    if (startFill !== undefined) session.snoozeUntil = snooze(startFill)
  }

  /** No compaction runs now, and none entered since `since`. */
  function mayStart(io: Edges, since: number): boolean {
    const { running, entered } = io.compactions()
    return !running && entered === since
  }

  function abandon(io: Edges, err: unknown): void {
    logFailure(io, 'checkpoint', err)
    session.checkpoint = null
    io.toast(CHECKPOINT_FAILED)
  }

  function setBand(io: Edges, band: boolean): void {
    if (session.band === band) return
    session.band = band
    io.redraw()
  }

  return session
}

/** One session's checkpoint (createCheckpointSession). */
export type CheckpointSession = ReturnType<typeof createCheckpointSession>
