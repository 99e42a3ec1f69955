// The port: every capability of `$` the runtime and the features use, as plain closures.
// The engine's loader lets `$` be passed only to functions declared at the top of the module, so
// nothing that dispatches dynamically (the registry, a feature's hook) may ever hold `$` itself:
// `portOf` is the one place `$` is turned into edges, and feature logic never sees `$`.
import type { ApiMessage, Elements, EngineInterface, McpConnectResult, ToolSpec, ModelCompleteRequest, ModelCompleteResult, RenderInput, RenderSurface, SessionCompactResult, SessionUsage } from 'claude-code'
import { clearClaims, publishClaims, readClaims, type Claims } from './claims.ts'
import { announceCheckpointPresence, readDesktopSignal } from './session-env.ts'
import { readHomeDir, readWindowEnv, setWindowEnv } from './harness-window.ts'
import type { PathFacts, SafeWriteEdges } from './safe-write.ts'

export type CommandSpec = { name: string; description: string; argumentHint?: string }

export type Port = {
  /** The package this copy runs in. */
  readonly pkg: string
  /** A line in the debug log, under the plugin's name. */
  log(line: string): void
  registerCommand(spec: CommandSpec): Promise<unknown>
  /** The session's id: the key of everything kept per session. */
  sessionId(): Promise<string>
  publishClaims(session: string, features: readonly string[]): Promise<void>
  readClaims(session: string, pkgs: readonly string[]): Promise<Claims>
  clearClaims(): Promise<void>
  /** The main conversation in Messages API form, as the next request is built from it. */
  apiMessages(): Promise<readonly ApiMessage[]>
  /** A side call to a model (`$.model.complete`): what the provider did never rejects it. */
  complete(request: ModelCompleteRequest): Promise<ModelCompleteResult>
  /** Asks every ui.render site to draw again: a hook's own drawing state changed. */
  redrawRenders(): void
  /** Calls `fn` every `ms` on the engine's clock (mockable, stopped by a reload); returns what stops it. */
  every(ms: number, fn: () => void): () => void
  /** The element table of the surface a ui.render event draws on. */
  elements(e: RenderInput): Elements[RenderSurface]
  // ---- checkpoint ----
  /** The context fill; with `summary`, the harness's own threshold in `context.breakdown` too. */
  usage(breakdown?: 'summary'): Promise<SessionUsage>
  /** The surfaces drawing the session (`desktop` among them when the app is attached). */
  surfaces(): Promise<readonly string[]>
  /**
   * `$.session.compact()`, with `instructions` when given. Called from a timer, the engine runs no
   * hook of this plugin on it (measured, 2.1.328): a caller that steers passes its instructions here.
   */
  compactSession(instructions?: string): Promise<SessionCompactResult>
  /** Queues a slash command (`$.command.run`); settles with its turn. */
  runCommand(command: string, args: string): Promise<unknown>
  /** Queues a prompt as its own turn once the session is idle. */
  submitPrompt(text: string): Promise<unknown>
  toast(text: string): void
  now(): Promise<number>
  /** Calls `fn` once after `ms` on the engine's clock. */
  after(ms: number, fn: () => void): void
  readFile(path: string): Promise<string>
  /** A folder's entries (`$.fs.list`): name, kind, size, mtime, whether a link. */
  listDir(path: string): Promise<readonly { name: string; kind: string; mtimeMs: number; isLink: boolean }[]>
  /** Every write keel makes goes through these edges, by lib/safe-write.ts's rules: there is no bare write. */
  readonly files: SafeWriteEdges
  storeGet(key: string): Promise<unknown>
  storeSet(key: string, value: unknown): Promise<void>
  storeKeys(): Promise<string[]>
  storeDelete(key: string): Promise<void>
  /** This plugin's data folder, kept across updates (CLI only: rejects elsewhere). */
  pluginDataDir(): Promise<string>
  desktopSignal(): Promise<{ entrypoint: string | undefined; child: string | undefined }>
  /** Exports the checkpoint presence signal; resolves `{ deny }` when refused. */
  announceCheckpointPresence(sessionId: string): Promise<{ deny?: string }>
  // ---- reconnect ----
  /** Declares a tool the mod serves at tool.call; resolves its full name `mcp__<pkg>__<name>`. */
  registerTool(spec: ToolSpec): Promise<string>
  /** The tools the model can call now (built-in and MCP), by name. */
  listTools(): Promise<string[]>
  /** `$.mcp.connect`: the server as /mcp lists it when connected, or why not. */
  connectMcp(server: string): Promise<McpConnectResult>
  /** A dim transcript row the model never reads. */
  notice(line: string): void
  // ---- window ----
  /** The session's project root, absolute. */
  projectRoot(): Promise<string>
  fileExists(path: string): Promise<boolean>
  /** Where a path lands, every link followed; undefined when it leads nowhere. */
  realPath(path: string): Promise<string | undefined>
  /** The person's home folder (HOME, else USERPROFILE). */
  homeDir(): Promise<string | undefined>
  /** The harness's window override as the running process holds it (`CLAUDE_CODE_AUTO_COMPACT_WINDOW`). */
  windowEnv(): Promise<string | undefined>
  /** Sets (undefined: unsets) that override for the running session; resolves `{ deny }` when refused. */
  setWindowEnv(value: string | undefined): Promise<{ deny?: string }>
}

/** The host commands the safe writer runs: absolute, so a project's PATH cannot slip in its own. */
const MV = '/bin/mv'
const RM = '/bin/rm'
const COMMAND_TIMEOUT_MS = 10_000

async function hostRun($: EngineInterface, argv: readonly string[]): Promise<void> {
  const r = await $.process.run(argv, { timeoutMs: COMMAND_TIMEOUT_MS })
  if (r.exitCode !== 0) throw new Error(`${argv[0]} exited ${r.exitCode}: ${r.stderr.trim().split('\n')[0] ?? ''}`)
}

async function statOf($: EngineInterface, path: string): Promise<PathFacts | undefined> {
  try {
    const s = await $.fs.stat(path, { resolve: true })
    return { kind: s.kind, isLink: s.isLink, ...(s.realPath === undefined ? {} : { realPath: s.realPath }) }
  } catch {
    return undefined // nothing there (or nothing this plugin may see): the writer treats it as missing
  }
}

/** Whether `mv` starts here: `$.process.run` rejects only when it cannot (no `$.process` on this surface, no `/bin/mv`). */
async function runsCommands($: EngineInterface): Promise<boolean> {
  try {
    await $.process.run([MV, '--version'], { timeoutMs: COMMAND_TIMEOUT_MS })
    return true
  } catch {
    return false
  }
}

/** The safe writer's edges over `$`; whether the host runs commands is asked once, by starting `mv` itself. */
function filesOf($: EngineInterface): SafeWriteEdges {
  let commands: Promise<boolean> | undefined
  return {
    stat: (path) => statOf($, path),
    read: (path) => $.fs.read(path),
    write: (path, text) => $.fs.write(path, text),
    hasCommands: () => (commands ??= runsCommands($)),
    move: (from, to) => hostRun($, [MV, '-f', '--', from, to]),
    remove: (path) => hostRun($, [RM, '-f', '--', path]),
    token: () => crypto.randomUUID().replace(/-/g, '').slice(0, 12),
  }
}

export function portOf($: EngineInterface): Port {
  const pkg = $.plugin.name
  return {
    pkg,
    log: (line) => $.ui.log(line, { to: 'debug' }),
    registerCommand: (spec) => $.command.register(spec),
    sessionId: () => $.session.id(),
    publishClaims: (session, features) => publishClaims($, pkg, session, features),
    readClaims: (session, pkgs) => readClaims($, session, pkgs),
    clearClaims: () => clearClaims($, pkg),
    // Without an agentId the answer is always the messages; anything else reads as none.
    apiMessages: async () => {
      const messages = await $.session.messages({ as: 'api' })
      return Array.isArray(messages) ? messages : []
    },
    complete: (request) => $.model.complete(request),
    redrawRenders: () => $.ui.invalidate('ui.render'),
    every: (ms, fn) => {
      const timer = $.clock.every(ms, fn)
      return () => timer.cancel()
    },
    elements: (e) => $.ui.resolve(e),
    usage: (breakdown) => $.session.usage(breakdown ? { breakdown } : undefined),
    surfaces: () => $.session.surfaces(),
    compactSession: (instructions) => $.session.compact(instructions === undefined ? undefined : { instructions }),
    runCommand: (command, args) => $.command.run({ command, args }),
    submitPrompt: (text) => $.prompt.submit({ text }),
    toast: (text) => $.ui.toast(text),
    now: () => $.clock.now(),
    after: (ms, fn) => void $.clock.after(ms, fn),
    readFile: (path) => $.fs.read(path),
    files: filesOf($),
    listDir: (path) => $.fs.list(path),
    storeGet: (key) => $.store.get(key),
    storeSet: (key, value) => $.store.set(key, value),
    storeKeys: () => $.store.keys(),
    storeDelete: (key) => $.store.delete(key),
    pluginDataDir: async () => {
      const dir = (await $.process.hookEnv()).CLAUDE_PLUGIN_DATA
      if (!dir) throw new Error('no plugin data folder')
      return dir
    },
    desktopSignal: () => readDesktopSignal($),
    announceCheckpointPresence: async (sessionId) => (await announceCheckpointPresence($, sessionId)) as { deny?: string },
    registerTool: async (spec) => (await $.tool.register(spec)).tool,
    listTools: async () => (await $.tool.list()).map((t) => t.name),
    connectMcp: (server) => $.mcp.connect(server),
    notice: (line) => $.ui.log(line),
    projectRoot: () => $.session.root(),
    fileExists: (path) => $.fs.exists(path),
    realPath: async (path) => (await $.fs.stat(path, { resolve: true })).realPath,
    homeDir: () => readHomeDir($),
    windowEnv: () => readWindowEnv($),
    setWindowEnv: async (value) => (await setWindowEnv($, value)) as { deny?: string },
  }
}
