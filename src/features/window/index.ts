// The window feature: keeps the harness's auto-compact window (CLAUDE_CODE_AUTO_COMPACT_WINDOW in
// the project's .claude/settings.local.json) on the number the person chose, with provenance,
// opt-out, reset and the home-folder guard (spec part A). Binds the core to the port's edges.
import type { Feature, FeatureContext } from '../../registry.ts'
import { messageOf, toUndefined } from '../../lib/message.ts'
import { sweepTemps, writeSafely } from '../../lib/safe-write.ts'
import type { WindowPort as Port } from './bind.ts'
import { SETTINGS_RELATIVE_PATH, WINDOW_OPTION } from './constants.ts'
import {
  decideDisable, decideEnable, decideReset, decideSync, isHomeRoot, parseSettings, parseWindowTokens, readWindow,
  type Decision, type SettingsFile, type SyncResult, type WindowLocation,
} from './core.ts'
import {
  describeDisable, describeEnable, describeReset, describeState, describeSync, ENV_SET_REFUSED, NOT_MANAGED, NOT_WRITTEN,
  RESET_ENV_CLEARED, RESET_ENV_KEPT, syncWarning, UNKNOWN_SUBVERB, VERB_USAGE,
  type HarnessWindow, type Names,
} from './strings.ts'
import { isString } from '../../lib/shape.ts'

/** What one registration of the feature remembers. */
type State = {
  /** The latest sync, for the status lines; a sentence when its write was not made. */
  lastSync: SyncResult | string | undefined
  /** Notices already shown: a warning that stands is shown once. */
  readonly noticed: Set<string>
}

const namesOf = (port: Port): Names => ({ who: port.pkg, cmd: `/${port.pkg} window` })
/** The window asked for: the runtime fills the option and checks it is a whole number (runtime/options.ts). */
const requestedOf = (ctx: FeatureContext) => ctx.options[WINDOW_OPTION] as number

/** The last sync as the status says it; an option of 0 manages nothing. */
const lastSyncLine = (port: Port, ctx: FeatureContext, state: State) =>
  requestedOf(ctx) === 0 ? NOT_MANAGED(namesOf(port)) : describeSync(state.lastSync, namesOf(port))

type Located = WindowLocation & { readonly root: string }

async function locate(port: Port): Promise<Located> {
  const root = await port.projectRoot()
  const home = await port.homeDir()
  // Real paths settle a link to the home folder; where one cannot be read, the spelling decides.
  const real = async (path: string | undefined) => (path === undefined ? undefined : (await port.files.stat(path))?.realPath)
  const [rootReal, homeReal] = await Promise.all([root, home].map(real))
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
 * One change of the person's settings file: read (with `guarded`, not at the home folder: the home
 * guard comes before any file access), decided, and written the one way this feature writes it
 * (lib/safe-write.ts): a real path inside the project, replaced atomically or not at all, and only
 * while it still holds the text the change was made from. The decision's result, or the sentence
 * that says why its write was not made (the file is as it was).
 */
async function change<R>(port: Port, guarded: boolean, decide: (location: Located, file: SettingsFile | undefined) => Decision<R> | Promise<Decision<R>>): Promise<R | string> {
  const location = await locate(port)
  const read = guarded && location.projectIsHome ? undefined : await readSettings(port, location.settingsPath)
  const { result, write } = await decide(location, read?.file)
  if (!write || !read) return result
  const outcome = await writeSafely(port.files, { within: location.root, path: location.settingsPath, text: write, expected: read.text })
  return outcome.ok ? result : NOT_WRITTEN(outcome.reason)
}

/** Sets (undefined: unsets) the running session's value; the reason when that was refused. */
const setRunning = async (port: Port, value: string | undefined) =>
  (await port.setWindowEnv(value).catch((err: unknown) => ({ deny: messageOf(err) }))).deny

/** A line in the debug log, and where `notify`, a notice: once per text, so a warning that stands is shown once. */
function report(port: Port, ctx: FeatureContext, state: State, text: string, notify: boolean): string {
  ctx.log(text)
  if (notify && !state.noticed.has(text)) {
    state.noticed.add(text)
    port.notice(text)
  }
  return text
}

/** Sync at every session start (a change of the option reloads the module, so it starts again). */
async function sync(port: Port, ctx: FeatureContext, state: State): Promise<string> {
  const names = namesOf(port)
  const requested = requestedOf(ctx)
  if (requested === 0) {
    state.lastSync = undefined
    return report(port, ctx, state, NOT_MANAGED(names), false)
  }
  const result = await change(port, true, async (location, file) => {
    // A crashed write's temporary file (a whole copy of the settings, easy to commit) goes at the next start.
    if (file) await sweepTemps(port.files, location.root, location.settingsPath.slice(0, location.settingsPath.lastIndexOf('/')), port.now)
    // A value the process already runs with counts as a pin where the file has none (A-I6).
    return decideSync(location, file, requested, await port.windowEnv().catch(toUndefined))
  })
  state.lastSync = result
  if (isString(result)) return report(port, ctx, state, result, true)
  let text = describeSync(result, names)
  if (result.action === 'written') {
    // Measured: the harness applies a changed settings file a second or two later, but a set
    // variable at once, so the running session compacts on the new window from its first turn.
    const refused = await setRunning(port, String(requested))
    if (refused) text += ` (${ENV_SET_REFUSED(refused)})`
  }
  const warning = syncWarning(result, names)
  report(port, ctx, state, text, result.action === 'written' || warning !== null)
  if (warning) ctx.log(warning)
  return text
}

async function harnessWindow(port: Port): Promise<HarnessWindow | undefined> {
  try {
    const b = (await port.usage()).context.breakdown
    return b && { ...b, source: b.autocompactSource }
  } catch {
    return
  }
}

async function status(port: Port, ctx: FeatureContext, state: State): Promise<string> {
  const location = await locate(port)
  const { file } = await readSettings(port, location.settingsPath)
  const requested = requestedOf(ctx)
  const read = file.kind === 'unreadable' ? undefined : readWindow(file, await port.windowEnv())
  const lines = describeState(requested, read, location.settingsPath, await harnessWindow(port), namesOf(port))
  // An unreadable file: the sentence a sync says of it.
  if (!read) lines.push(describeSync(decideSync(location, file, requested).result, namesOf(port)))
  lines.push(`last sync: ${lastSyncLine(port, ctx, state)}`)
  return lines.join('\n')
}

async function reset(port: Port, ctx: FeatureContext, state: State): Promise<string> {
  const result = await change(port, false, (location, file) => decideReset(location.settingsPath, file!))
  if (isString(result)) return result
  state.lastSync = undefined
  const text = describeReset(result, namesOf(port))
  if (result.action !== 'removed') return text
  // The harness does not unset a variable whose row left the file: the running session keeps
  // it until it restarts, unless it is the value just removed, which this feature unsets.
  const running = await port.windowEnv()
  if (!running) return text
  const ours = result.previousTokens !== null && parseWindowTokens(running) === result.previousTokens
  return `${text} ${ours && (await setRunning(port, undefined)) === undefined ? RESET_ENV_CLEARED : RESET_ENV_KEPT(running)}`
}

async function disable(port: Port): Promise<string> {
  const result = await change(port, true, decideDisable)
  return isString(result) ? result : describeDisable(result, namesOf(port))
}

async function enable(port: Port, ctx: FeatureContext, state: State): Promise<string> {
  const result = await change(port, false, (location, file) => decideEnable(location.settingsPath, file!))
  if (isString(result)) return result
  const text = describeEnable(result, requestedOf(ctx), namesOf(port))
  // Sync at once rather than at the next start: enabling means "manage it again".
  return result.action === 'reenabled' && requestedOf(ctx) !== 0 ? `${text}\n${await sync(port, ctx, state)}` : text
}

/** The window verb's actions, by name. */
const ACTIONS = new Map([['status', status], ['reset', reset], ['disable', disable], ['enable', enable]])

export function createWindowFeature(): Feature<Port> {
  const state: State = { lastSync: undefined, noticed: new Set() }
  return {
    name: 'window',
    sessionActing: true,
    hooks: {
      'session.start': async (port, e, next, ctx) => {
        await sync(port, ctx, state).catch((err) => ctx.log(`sync failed (${messageOf(err)}); the harness window is left as it was`))
        return next(e)
      },
    },
    verbs: {
      window: {
        usage: VERB_USAGE,
        run: (port, args, ctx) => {
          const action = args.trim().toLowerCase() || 'status'
          return ACTIONS.get(action)?.(port, ctx, state) ?? UNKNOWN_SUBVERB(namesOf(port).cmd, action)
        },
      },
    },
    status: (port, ctx) => [lastSyncLine(port, ctx, state)],
  }
}
