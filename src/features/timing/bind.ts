// The timing feature's `$` binder: what its wake prompts and its lever need of the world.
import type { EngineInterface, SessionUsage } from 'claude-code'
import { bindCommonEdges, bindRegisterTool, readWindowEnv, type RegisterTool } from '../../lib/bind.ts'

export type TimingPort = {
  readonly pkg: string
  /** Queues a prompt as its own turn once the session is idle. */
  submitPrompt(text: string): Promise<unknown>
  /** A dim transcript row the model never reads. */
  notice(line: string): void
  /** Calls `fn` once after `ms` on the engine's clock. */
  after(ms: number, fn: () => void): void
  /** The context fill (the harness's own threshold comes from the facts' summary read). */
  usage(): Promise<SessionUsage>
  /** The harness's window override as the running process holds it. */
  windowEnv(): Promise<string | undefined>
  /** Declares a tool the mod serves at tool.call; resolves its full name `mcp__<pkg>__<name>`. */
  readonly registerTool: RegisterTool
}

export function bindTiming($: EngineInterface): TimingPort {
  return {
    ...bindCommonEdges($),
    usage: () => $.session.usage(),
    windowEnv: () => readWindowEnv($),
    registerTool: bindRegisterTool($),
  }
}
