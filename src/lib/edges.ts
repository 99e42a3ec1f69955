// The edges several features bind the same way over `$`: the engine's clock, a transcript notice, a
// prompt the plugin submits, the session's usage with its summary breakdown. One home, so a feature's
// binder spreads them instead of spelling its own copy; each feature's port names the ones it uses.
import type { EngineInterface, SessionUsage } from 'claude-code'

export type CommonEdges = {
  now(): Promise<number>
  /** Calls `fn` once after `ms` (`$.clock.after`). */
  after(ms: number, fn: () => void): void
  /** A dim transcript row the model never reads. */
  notice(line: string): void
  submitPrompt(text: string): Promise<unknown>
  /** The usage with its summary breakdown: the harness's compaction figures, the MCP servers listed. */
  usage(): Promise<SessionUsage>
}

export function bindCommonEdges($: EngineInterface): CommonEdges {
  return {
    now: () => $.clock.now(),
    after: (ms, fn) => void $.clock.after(ms, fn),
    notice: (line) => $.ui.log(line),
    submitPrompt: (text) => $.prompt.submit({ text }),
    usage: () => $.session.usage({ breakdown: 'summary' }),
  }
}
