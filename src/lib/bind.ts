// lib's `$` binder: the edges several features bind alike, each in one home. The loader lets `$` be
// handed only to a function declared at a module's top and wants `$.env` names as literals, so a
// feature's binder hands `$` to these: the safe writer's file edges (checkpoint, mailbox, routing,
// window), the one way a tool is registered (timing, reconnect, mailbox, checkpoint), the harness's
// compaction-window override (window, timing) and the home folder (window).
import type { Elements, EngineInterface, RenderInput, RenderSurface, SessionUsage, ToolSpec } from 'claude-code'
import { filesOver } from './files.ts'
import type { SafeWriteEdges } from './safe-write.ts'

/** The safe writer's edges: `$.fs`'s own, and those lib/files.ts makes of a command run and a stat. */
export function bindFiles($: EngineInterface): SafeWriteEdges {
  return {
    ...filesOver({ run: (argv, timeoutMs) => $.process.run(argv, { timeoutMs }), stat: (path) => $.fs.stat(path, { resolve: true }) }),
    read: (path) => $.fs.read(path),
    write: (path, text) => $.fs.write(path, text),
    list: (folder) => $.fs.list(folder),
  }
}

export type RegisterTool = (spec: ToolSpec) => Promise<string>

/**
 * The one way a feature registers a tool the model calls (timing's and reconnect's levers, the
 * mailbox, recall): `$.tool.register`, answered with the tool's full name, `mcp__<pkg>__<name>`,
 * which the feature's `tool.call` hook then serves, ahead of the permission check.
 */
export function bindRegisterTool($: EngineInterface): RegisterTool {
  return async (spec) => (await $.tool.register(spec)).tool
}

/** The harness's compaction-window override as the running process holds it (settings env rows land here too). */
export function readWindowEnv($: EngineInterface): Promise<string | undefined> {
  return $.env.get('CLAUDE_CODE_AUTO_COMPACT_WINDOW')
}

/** Sets (or, with undefined, unsets) the override for the running session: measured to take effect at once. */
export function setWindowEnv($: EngineInterface, value: string | undefined): ReturnType<EngineInterface['env']['set']> {
  return $.env.set('CLAUDE_CODE_AUTO_COMPACT_WINDOW', value)
}

/** The person's home folder: HOME, or USERPROFILE on Windows. */
export async function readHomeDir($: EngineInterface): Promise<string | undefined> {
  return (await $.env.get('HOME')) || (await $.env.get('USERPROFILE')) || undefined
}

// The edges several features bind the same way over `$`: the package's name, the engine's clock
// (once, or every so often), a transcript notice, a prompt the plugin submits, the session's usage
// with its summary breakdown, the drawing's redraw and elements. One home, so a feature's binder
// spreads them instead of spelling its own copy; each feature's port names the ones it uses.
export type CommonEdges = {
  /** The package this copy runs in (`$.plugin.name`). */
  readonly pkg: string
  now(): Promise<number>
  /** Calls `fn` once after `ms` (`$.clock.after`). */
  after(ms: number, fn: () => void): void
  /** Calls `fn` every `ms` on the engine's clock (`$.clock.every`: mockable, stopped by a reload); returns what stops it. */
  every(ms: number, fn: () => void): () => void
  /** A dim transcript row the model never reads. */
  notice(line: string): void
  submitPrompt(text: string): Promise<unknown>
  /** The usage with its summary breakdown: the harness's compaction figures, the MCP servers listed. */
  usage(): Promise<SessionUsage>
  /** Asks every ui.render site to draw again: a hook's own drawing state changed. */
  redraw(): void
  /** The elements a render draws with, for its input's surface (`$.ui.resolve`). */
  elements(e: RenderInput): Elements[RenderSurface]
}

export function bindCommonEdges($: EngineInterface): CommonEdges {
  return {
    pkg: $.plugin.name,
    now: () => $.clock.now(),
    after: (ms, fn) => void $.clock.after(ms, fn),
    every: (ms, fn) => {
      const timer = $.clock.every(ms, fn)
      return () => timer.cancel()
    },
    notice: (line) => $.ui.log(line),
    submitPrompt: (text) => $.prompt.submit({ text }),
    usage: () => $.session.usage({ breakdown: 'summary' }),
    redraw: () => $.ui.invalidate('ui.render'),
    elements: (e) => $.ui.resolve(e),
  }
}

// What the engine keeps for this plugin across sessions: its store (`$.store`) and its data folder
// (`CLAUDE_PLUGIN_DATA`). A feature that keeps records binds them here, so each is bound once
// (checkpoint does; routing and mailbox bind the same store calls, routing the same folder).
/** The plugin's store, keyed by string: what a feature keeps beside a session, across sessions. */
export type StoreEdges = {
  storeGet(key: string): Promise<unknown>
  storeSet(key: string, value: unknown): Promise<void>
  storeKeys(): Promise<string[]>
  storeDelete(key: string): Promise<void>
}

export function bindStore($: EngineInterface): StoreEdges {
  return {
    storeGet: (key) => $.store.get(key),
    storeSet: (key, value) => $.store.set(key, value),
    storeKeys: () => $.store.keys(),
    storeDelete: (key) => $.store.delete(key),
  }
}

/** This plugin's data folder, kept across updates (CLI only: rejects elsewhere, and where none is set). */
export async function pluginDataDirOf($: EngineInterface): Promise<string> {
  const dir = (await $.process.hookEnv()).CLAUDE_PLUGIN_DATA
  if (!dir) throw new Error('no plugin data folder')
  return dir
}
