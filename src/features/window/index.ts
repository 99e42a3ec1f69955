// The window feature: keeps the harness's auto-compact window (CLAUDE_CODE_AUTO_COMPACT_WINDOW in
// the project's .claude/settings.local.json) on the number the person chose, with provenance,
// opt-out, reset and the home-folder guard (spec part A). Binds the core to the port's edges.
import type { Feature, FeatureContext } from '../../registry.ts'
import { messageOf } from '../../lib/message.ts'
import { sweepTemps, writeSafely } from '../../lib/safe-write.ts'
import type { WindowPort as Port } from './bind.ts'
import { SETTINGS_RELATIVE_PATH, WINDOW_OPTION } from './constants.ts'
import {
  decideDisable, decideEnable, decideReset, decideSync, isHomeRoot, parseSettings, parseWindowTokens, readWindow,
  type SettingsFile, type SyncResult, type WindowLocation,
} from './core.ts'
import {
  describeDisable, describeEnable, describeReset, describeState, describeSync, ENV_SET_REFUSED, NOT_MANAGED, NOT_WRITTEN,
  RESET_ENV_CLEARED, RESET_ENV_KEPT, syncWarning, UNKNOWN_SUBVERB, VERB_USAGE,
  type HarnessWindow, type Names,
} from './strings.ts'

/** What one registration of the feature remembers. */
type State = {
  /** The latest sync, for the status lines; a sentence when its write was not made. */
  lastSync: SyncResult | string | undefined
  /** Notices already shown: a warning that stands is shown once. */
  readonly noticed: Set<string>
}

const namesOf = (port: Port): Names => ({ who: port.pkg, cmd: `/${port.pkg} window` })
const requestedOf = (ctx: FeatureContext): number => Number(ctx.options[WINDOW_OPTION] ?? 0)

type Located = WindowLocation & { readonly root: string }

async function locate(port: Port): Promise<Located> {
  const root = await port.projectRoot()
  const home = await port.homeDir()
  // Real paths settle a link to the home folder; where one cannot be read, the spelling decides.
  const real = async (path: string | undefined) => (path === undefined ? undefined : port.realPath(path).catch(() => undefined))
  const [rootReal, homeReal] = await Promise.all([real(root), real(home)])
  return {
    root,
    settingsPath: `${root.replace(/[\\/]+$/, '')}/${SETTINGS_RELATIVE_PATH}`,
    projectIsHome: isHomeRoot(root, home, { root: rootReal, home: homeReal }),
  }
}

/** The file as parsed, and its text as read (null: no file): a write names it, so a change made meanwhile is kept. */
type Read = { file: SettingsFile; text: string | null }

async function readSettings(port: Port, path: string): Promise<Read> {
  if (!(await port.fileExists(path))) return { file: parseSettings(undefined), text: null }
  try {
    const text = await port.readFile(path)
    return { file: parseSettings(text), text }
  } catch (err) {
    return { file: { kind: 'unreadable', why: `not readable: ${messageOf(err)}` }, text: null }
  }
}

/**
 * The one way this feature writes the person's settings file (lib/safe-write.ts): a real path inside
 * the project, replaced atomically or not at all, and only while it still holds the text the change
 * was made from. Undefined when written; else the sentence that says why not (the file is as it was).
 */
async function writeChecked(port: Port, location: Located, read: Read, text: string): Promise<string | undefined> {
  const outcome = await writeSafely(port.files, { within: location.root, path: location.settingsPath, text, expected: read.text })
  return outcome.ok ? undefined : NOT_WRITTEN(outcome.reason)
}

function report(port: Port, ctx: FeatureContext, state: State, text: string, notify: boolean): void {
  ctx.log(text)
  if (notify && !state.noticed.has(text)) {
    state.noticed.add(text)
    port.notice(text)
  }
}

/** Sync at every session start (a change of the option reloads the module, so it starts again). */
async function sync(port: Port, ctx: FeatureContext, state: State): Promise<string> {
  const names = namesOf(port)
  const requested = requestedOf(ctx)
  if (requested === 0) {
    state.lastSync = undefined
    const text = NOT_MANAGED(names)
    ctx.log(text)
    return text
  }
  const location = await locate(port)
  // The home guard comes before any file access.
  const read = location.projectIsHome ? undefined : await readSettings(port, location.settingsPath)
  // A crashed write's temporary file (a whole copy of the settings, easy to commit) goes at the next start.
  if (read) await sweepTemps(port.files, location.root, location.settingsPath.slice(0, location.settingsPath.lastIndexOf('/')), port.now)
  // A value the process already runs with counts as a pin where the file has none (A-I6).
  const running = await port.windowEnv().catch(() => undefined)
  const { result, write } = decideSync(location, read?.file, requested, running)
  if (write !== undefined && read !== undefined) {
    const problem = await writeChecked(port, location, read, write)
    if (problem) {
      state.lastSync = problem
      report(port, ctx, state, problem, true)
      return problem
    }
  }
  state.lastSync = result
  let text = describeSync(result, names)
  if (result.action === 'written') {
    // Measured: the harness applies a changed settings file a second or two later, but a set
    // variable at once, so the running session compacts on the new window from its first turn.
    const set = await port.setWindowEnv(String(requested)).catch((err: unknown) => ({ deny: messageOf(err) }))
    if (set.deny) text += ` (${ENV_SET_REFUSED(set.deny)})`
  }
  const warning = syncWarning(result, names)
  report(port, ctx, state, text, result.action === 'written' || warning !== null)
  if (warning) ctx.log(warning)
  return text
}

async function harnessWindow(port: Port): Promise<HarnessWindow | undefined> {
  try {
    const b = (await port.usage()).context.breakdown
    return b && { rawMaxTokens: b.rawMaxTokens, source: b.autocompactSource, autoCompactThreshold: b.autoCompactThreshold, isAutoCompactEnabled: b.isAutoCompactEnabled }
  } catch {
    return undefined
  }
}

async function status(port: Port, ctx: FeatureContext, state: State): Promise<string> {
  const location = await locate(port)
  const { file } = await readSettings(port, location.settingsPath)
  const read = file.kind === 'unreadable' ? undefined : readWindow(file, await port.windowEnv())
  const lines = describeState(requestedOf(ctx), read, location.settingsPath, await harnessWindow(port), namesOf(port))
  if (file.kind === 'unreadable') lines.push(describeSync({ settingsPath: location.settingsPath, action: 'skipped', reason: 'unreadable-settings', why: file.why, tokens: null, previousTokens: null, requestedTokens: requestedOf(ctx), previousRawValue: undefined, owned: false }, namesOf(port)))
  lines.push(`last sync: ${requestedOf(ctx) === 0 ? NOT_MANAGED(namesOf(port)) : describeSync(state.lastSync, namesOf(port))}`)
  return lines.join('\n')
}

async function reset(port: Port, state: State): Promise<string> {
  const location = await locate(port)
  const read = await readSettings(port, location.settingsPath)
  const { result, write } = decideReset(location.settingsPath, read.file)
  const problem = write === undefined ? undefined : await writeChecked(port, location, read, write)
  if (problem) return problem
  state.lastSync = undefined
  let text = describeReset(result, namesOf(port))
  if (result.action === 'removed') {
    // The harness does not unset a variable whose row left the file: the running session keeps
    // it until it restarts, unless it is the value just removed, which this feature unsets.
    const running = await port.windowEnv()
    if (running !== undefined && running !== '') {
      const ours = result.previousTokens !== null && parseWindowTokens(running) === result.previousTokens
      const unset = ours ? await port.setWindowEnv(undefined).catch((err: unknown) => ({ deny: messageOf(err) })) : undefined
      text += ' ' + (ours && !unset?.deny ? RESET_ENV_CLEARED : RESET_ENV_KEPT(running))
    }
  }
  return text
}

async function disable(port: Port): Promise<string> {
  const location = await locate(port)
  const read = location.projectIsHome ? undefined : await readSettings(port, location.settingsPath)
  const { result, write } = decideDisable(location, read?.file)
  const problem = write === undefined || read === undefined ? undefined : await writeChecked(port, location, read, write)
  return problem ?? describeDisable(result, namesOf(port))
}

async function enable(port: Port, ctx: FeatureContext, state: State): Promise<string> {
  const location = await locate(port)
  const read = await readSettings(port, location.settingsPath)
  const { result, write } = decideEnable(location.settingsPath, read.file)
  const problem = write === undefined ? undefined : await writeChecked(port, location, read, write)
  if (problem) return problem
  const text = describeEnable(result, requestedOf(ctx), namesOf(port))
  // Sync at once rather than at the next start: enabling means "manage it again".
  return result.action === 'reenabled' && requestedOf(ctx) !== 0 ? `${text}\n${await sync(port, ctx, state)}` : text
}

export function createWindowFeature(): Feature<Port> {
  const state: State = { lastSync: undefined, noticed: new Set() }
  return {
    name: 'window',
    sessionActing: true,
    hooks: {
      'session.start': async (port, e, next, ctx) => {
        try {
          await sync(port, ctx, state)
        } catch (err) {
          ctx.log(`sync failed (${messageOf(err)}); the harness window is left as it was`)
        }
        return next(e)
      },
    },
    verbs: {
      window: {
        usage: VERB_USAGE,
        run: async (port, args, ctx) => {
          const action = args.trim().toLowerCase() || 'status'
          if (action === 'status') return status(port, ctx, state)
          if (action === 'reset') return reset(port, state)
          if (action === 'disable') return disable(port)
          if (action === 'enable') return enable(port, ctx, state)
          return UNKNOWN_SUBVERB(namesOf(port).cmd, action)
        },
      },
    },
    status: (port, ctx) => [requestedOf(ctx) === 0 ? NOT_MANAGED(namesOf(port)) : describeSync(state.lastSync, namesOf(port))],
  }
}
