// The workflow manual (design mailbox-and-manual.md §3.2, wsflow §5): a project's manual carried as
// one session section of the main system prompt, and full Reads whose content is already in front of
// the model answered with a one-line pointer. This file binds the cores' edges to the port and the
// hooks to the cores; the snapshot (snapshot.ts), the reads (reads.ts) and the status (status.ts)
// hold the rules. Elsewhere (no manual file) every hook passes at once, with no `$` call per turn.
import type { Feature, FeatureContext } from '../../registry.ts'
import { messageOf, toUndefined } from '../../lib/message.ts'
import type { ManualPort as Port } from './bind.ts'
import { CLEAR_REASON, MANUAL_FILE_OPTION, READ_TOOL, sectionIdOf } from './constants.ts'
import { inspectManual, type ManualFs } from './file.ts'
import { foldersUp, joinPath, manualLocation } from './paths.ts'
import { createReads, type ReadEdges, type Reads } from './reads.ts'
import { withSection } from './section.ts'
import { createSnapshot, type Edges, type Snapshot } from './snapshot.ts'
import { statusLines } from './status.ts'
import * as s from './strings.ts'

/**
 * Where a path leads (`$.fs.stat`), undefined when nothing is there: the stat answers a missing path
 * with a rejection naming ENOENT (measured: `$.fs.stat(<path>) failed: ENOENT`); any other rejects.
 */
const statOf = (port: Port, path: string) =>
  port.stat(path).catch((err: unknown) => {
    if (/\bENOENT\b/.test(messageOf(err))) return
    throw err
  })

/**
 * The top of the git working tree the session runs in. `$.session.repo().root` is the main
 * checkout's for a linked worktree (measured), so the nearest folder from the session's root up
 * that holds `.git` (a linked worktree's is a file) is the top; the repository's root when none is.
 */
async function workTree(port: Port, repo: string): Promise<string> {
  for (const dir of foldersUp(await port.sessionRoot(), repo)) {
    if (await port.stat(joinPath(dir, '.git')).catch(toUndefined)) return dir
  }
  return repo
}

/**
 * The project root the manual is found under (wsflow §1.4): the git working tree's top (a linked
 * worktree's own), else the nearest folder above the session's that holds the manual
 * (`$.fs.ancestors`), else the session's root (where the manual is then missing). Resolved at most
 * once per reset.
 */
async function projectRoot(port: Port, file: string): Promise<string> {
  const repo = await port.repoRoot().catch(toUndefined)
  if (repo) return workTree(port, repo).catch(() => repo)
  const found = await port.ancestors(file).catch(() => [])
  return found.at(-1) ?? (await port.sessionRoot())
}

/** Where the project is: its root as found, and that root resolved (a root that is itself a link is fine). */
type Place = { readonly root: string; readonly realRoot: string }

/** The binding of one registration: the cores, their edges, and where the project is. */
type Bound = {
  readonly file: string
  readonly snapshot: Snapshot
  readonly reads: Reads
  readonly fs: ManualFs
  readonly edges: Edges
  readonly readEdges: ReadEdges
  /**
   * At a reset: the project root is looked up afresh (a `/cd` may have moved it), off the hook's
   * path, so the first compose after it has only the manual itself to read.
   */
  relocate(): void
}

function bindCores(port: Port, ctx: FeatureContext, file: string): Bound {
  let place: Promise<Place> | undefined
  /** Looks the project up afresh; a lookup that fails is made again when next needed. */
  const relocate = () => {
    const finding = (async () => {
      const root = await projectRoot(port, file)
      return { root, realRoot: (await port.stat(root).catch(toUndefined))?.realPath ?? root }
    })()
    finding.catch(() => {
      if (place === finding) place = undefined
    })
    return (place = finding)
  }
  const placeOnce = () => place ?? relocate()
  const fs: ManualFs = {
    // `file` is the option as manualLocation spelled it: under the root, joined as it is.
    async stat() {
      const found = await statOf(port, joinPath((await placeOnce()).root, file))
      return found ? { realPath: found.realPath, isFile: found.kind === 'file', bytes: found.size } : null
    },
    realRoot: async () => (await placeOnce()).realRoot,
    read: port.read,
  }
  const snapshot = createSnapshot({ pkg: ctx.pkg, file })
  // The clock and the store: the port's own.
  const edges: Edges = { ...port, fs, sessionId: ctx.facts.sessionId, log: ctx.log }
  snapshot.bind(edges)
  const readEdges: ReadEdges = {
    realPath: async (path) => (await statOf(port, path))?.realPath,
    messages: port.apiMessages,
    log: ctx.log,
  }
  return { file, snapshot, reads: createReads({ pkg: ctx.pkg, file }, snapshot), fs, edges, readEdges, relocate }
}

export function createManualFeature(): Feature<Port> {
  // Per registration: a reload starts over (inert until the next refresh: it saw no start).
  let bound: Bound | undefined
  /** Why `manualFile` names no file the project may hold: then the feature adds nothing. */
  let problem: string | undefined
  /** The session start's own work (the rows read that tells a resume): a hook that needs it awaits it. */
  let starting: Promise<void> | undefined

  /** The cores for this registration, made at the first hook; undefined when the option is unusable. */
  function coresOf(port: Port, ctx: FeatureContext): Bound | undefined {
    if (bound || problem) return bound
    // The option alone decides whether it names a place inside the root; the root joins it later.
    // The runtime fills it (its default where none was given) and checks it is a text (runtime/options.ts).
    const location = manualLocation('/', ctx.options[MANUAL_FILE_OPTION])
    if ('problem' in location) {
      problem = location.problem
      ctx.log(s.statusLocation(problem))
      return
    }
    return (bound = bindCores(port, ctx, location.display))
  }

  return {
    name: 'manual',
    // The section and the pointers act on the session: two packages would add two sections
    // (their ids differ, `<pkg>:workflow-manual`), so one package runs it (the first to claim it).
    sessionActing: true,
    hooks: {
      'session.start': (port, e, next, ctx) => {
        const cores = coresOf(port, ctx)
        if (!cores) return next(e)
        cores.relocate()
        // A conversation with rows at its start was resumed (--resume, --continue, a fork): the
        // engine replays its recorded prompt. Read off the start's path; the first compose waits
        // for it. A failed read counts as resumed: with no record that collapses nothing, where
        // reading it as fresh could point at a copy the prompt lacks.
        starting = port.hasHistory().catch(() => true).then((resumed) => cores.snapshot.start(cores.edges, { resumed }))
        return next(e)
      },

      // The section is the session's last; the engine sends only the first compose after a reset
      // (design C2, C3), which the snapshot answers with its copy and every later one with the same text.
      'prompt.compose': async (port, e, next, ctx) => {
        const cores = coresOf(port, ctx)
        if (!cores) return next(e)
        await starting
        const [result, text] = await Promise.all([next(e), cores.snapshot.compose(e.traits)])
        if (!text) return result
        const sections = withSection(result.sections, { id: sectionIdOf(ctx.pkg), text })
        return sections ? { sections } : result
      },

      'session.compact': async (port, e, next, ctx) => {
        const result = await next(e)
        const cores = coresOf(port, ctx)
        if (cores) {
          await starting
          cores.snapshot.compacted({ trigger: e.trigger, agentId: e.agentId, skipped: 'skip' in result && result.skip !== undefined })
          cores.relocate()
        }
        return result
      },

      'session.end': async (port, e, next, ctx) => {
        const cores = coresOf(port, ctx)
        if (cores) {
          await starting
          cores.snapshot.ended(e.reason)
          if (e.reason === CLEAR_REASON) cores.relocate()
        }
        return next(e)
      },

      // After `next`: the tool runs, so the engine's file state stays current (design C5). Only the
      // main thread's own Reads of a manual project are examined; anything else passes untouched.
      'tool.call': async (port, e, next, ctx) => {
        if (e.tool !== READ_TOOL || e.agentId !== undefined) return next(e)
        const cores = coresOf(port, ctx)
        if (!cores?.snapshot.carried().manual) return next(e)
        const result = await next(e)
        if (next.origin?.plugin !== 'engine') return result
        const out = await cores.reads.read(cores.readEdges, { toolUseId: e.tool_use_id, args: e, res: result })
        return out.kind === 'pass' ? result : out.answer
      },
    },

    async status(port, ctx) {
      const cores = coresOf(port, ctx)
      // No cores: the option names no place the project may hold, and that is all there is to say.
      if (!cores) return [s.statusLocation(problem ?? '')]
      return statusLines({ file: cores.file, now: await inspectManual(cores.fs), prompt: cores.snapshot.view(), reads: cores.reads.counts() })
    },
  }
}
