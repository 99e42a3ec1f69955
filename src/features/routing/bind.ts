// The routing feature's `$` binder: where the config and keys are read, curl is started, approvals
// are kept, and the window and status line are set. `$.env` names are literals (the loader's rule).
import type { EngineInterface, ModelCompleteRequest, ModelCompleteResult, RenderInput } from 'claude-code'
import { PANE_ROWS } from './constants.ts'
import { bindCommonEdges, bindFiles, bindRegisterTool, bindStore, pluginDataDirOf, type RegisterTool } from '../../lib/bind.ts'
import type { SafeWriteEdges } from '../../lib/safe-write.ts'
import type { SpawnEnd, SpawnPiece } from './transport.ts'

export type RoutingPort = {
  readonly pkg: string
  /** What names keel's home: `CLAUDE_CONFIG_DIR`, `HOME`, and the plugin's data folder. */
  homeFacts(): Promise<{ configDir?: string | undefined; home?: string | undefined; pluginData?: string | undefined }>
  /** A file's text, or undefined when there is no file there; rejects when it cannot be read. */
  readText(path: string): Promise<string | undefined>
  /** The main loop's model, as `/model` shows it. */
  mainModel(): Promise<string>
  /** Whether managed settings (the policy source) hold any key. */
  managed(): Promise<boolean>
  /** The window the engine assumes for a model it does not know (`CLAUDE_CODE_MAX_CONTEXT_TOKENS`): routing NOTES §1. */
  setUnknownModelWindow(tokens: number): Promise<void>
  storeGet(key: string): Promise<unknown>
  storeSet(key: string, value: unknown): Promise<void>
  /** The engine's question dialog; rejects in a `-p` run (no one to ask) and when dismissed. */
  ask(question: string, options: readonly string[]): Promise<string>
  toast(text: string): void
  /** The status line (undefined clears it). */
  status(text: string | undefined): void
  run(argv: readonly string[], timeoutMs: number): Promise<{ exitCode: number | null; stdout: string; stderr: string }>
  spawn(argv: readonly string[], input: string): AsyncGenerator<SpawnPiece, SpawnEnd>
  /** Out of the hook's own budget; rejects when `signal` aborts. */
  sleep(ms: number, signal: AbortSignal): Promise<void>
  every(ms: number, fn: () => void): () => void
  after(ms: number, fn: () => void): () => void
  now(): Promise<number>
  randomBytes(length: number): Uint8Array
  registerTool: RegisterTool
  /** A prompt of the plugin's own, queued until main is idle (`$.prompt.submit`). */
  submit(text: string): Promise<unknown>
  /** A subagent started by this plugin (`$.agent.spawn`): its id once it started, or the engine's refusal. */
  spawnAgent(args: { prompt: string; description: string }): Promise<{ agentId: string } | { deny: string }>
  /** This session's transcript file, and whether a path exists (a usage file's session is kept while its transcript is there). */
  transcriptPath(): Promise<string>
  exists(path: string): Promise<boolean>
  /** A small GET's body (`$.http.fetch`, buffered); rejects on a status other than 2xx. */
  fetchText(url: string): Promise<string>
  readonly files: SafeWriteEdges
  pluginDataDir(): Promise<string>
  /** The session's folder (`$.session.cwd()`). */
  cwd(): Promise<string>
  /** One completion (`$.model.complete`): its text, or why there is none. */
  complete(request: ModelCompleteRequest): Promise<ModelCompleteResult>
  /** A transcript line. */
  notice(line: string): void
  /** Opens a pane (setup's, usage's, the review's), with the keyboard, Esc closing it; false where no surface places it (headless, the SDK), the pane closed again. */
  openPane(pane: { id: string; title: string; rows?: number }): Promise<boolean>
  closePane(id: string): Promise<void>
  /** Whether this plugin's pane `id` is up and shown (the person's Esc closes it). */
  paneShown(id: string): Promise<boolean>
  /** Asks every ui.render site to draw again (the pane's fields or answer changed). */
  redraw(): void
  /** The element table of the surface a ui.render event draws on. */
  elements(e: RenderInput): unknown
}

export function bindRouting($: EngineInterface): RoutingPort {
  return {
    ...bindCommonEdges($),
    ...bindStore($),
    homeFacts: async () => {
      // The plugin data folder only names the config root when neither variable does: its absence is no failure.
      const [configDir, home, hookEnv] = await Promise.all([$.env.get('CLAUDE_CONFIG_DIR'), $.env.get('HOME'), $.process.hookEnv().catch(() => ({}) as Record<string, string | undefined>)])
      return { configDir, home, pluginData: hookEnv.CLAUDE_PLUGIN_DATA }
    },
    readText: async (path) => {
      let exists = true
      try {
        await $.fs.stat(path)
      } catch {
        exists = false
      }
      return exists ? $.fs.read(path) : undefined
    },
    mainModel: () => $.session.model(),
    managed: async () => Object.keys(await $.settings.read({ source: 'policy' })).length > 0,
    setUnknownModelWindow: async (tokens) => {
      const r = await $.env.set('CLAUDE_CODE_MAX_CONTEXT_TOKENS', String(tokens))
      if (r?.deny) throw new Error(r.deny)
    },
    ask: (question, options) => $.ui.ask(question, options),
    toast: (text) => $.ui.toast(text),
    status: (text) => $.ui.status(text),
    run: (argv, timeoutMs) => $.process.run(argv, { timeoutMs }),
    spawn: (argv, input) => $.process.spawn({ argv, input }),
    sleep: (ms, signal) => $.clock.sleep(ms, { signal }),
    after: (ms, fn) => {
      const timer = $.clock.after(ms, fn)
      return () => timer.cancel()
    },
    randomBytes: (length) => crypto.getRandomValues(new Uint8Array(length)),
    registerTool: bindRegisterTool($),
    submit: (text) => $.prompt.submit({ text }),
    spawnAgent: async (args) => {
      const r = await $.agent.spawn(args)
      return 'deny' in r && r.deny ? { deny: r.deny } : { agentId: String(r.agentId) }
    },
    transcriptPath: async () => (await $.session.info()).transcriptPath,
    exists: (path) => $.fs.exists(path),
    fetchText: async (url) => {
      const r = await $.http.fetch(url, { method: 'GET' })
      if (!r.ok) throw new Error(`${url} answered ${r.status}`)
      return r.text
    },
    files: bindFiles($),
    pluginDataDir: () => pluginDataDirOf($),
    cwd: () => $.session.cwd(),
    complete: (request) => $.model.complete(request),
    openPane: async (pane) => {
      const { isPlaced } = await $.ui.open({ rows: PANE_ROWS, ...pane, focus: true, closeOnEscape: true })
      if (!isPlaced) await $.ui.close({ id: pane.id })
      return isPlaced
    },
    closePane: (id) => $.ui.close({ id }),
    paneShown: async (id) => (await $.ui.panes()).some((p) => p.id === id && p.isShown),
  }
}
