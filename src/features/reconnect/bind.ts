// The reconnect lever's `$` binder: the command it runs, the tool list and connection state it
// proves a reconnect by, the prompts it reports with.
import type { EngineInterface, McpConnectResult, SessionUsage } from 'claude-code'
import { bindRegisterTool, type RegisterTool } from '../../lib/bind.ts'

export type ReconnectPort = {
  readonly pkg: string
  /** Queues a slash command (`$.command.run`); settles with its turn. */
  runCommand(command: string, args: string): Promise<unknown>
  /** The tools the model can call now (built-in and MCP), by name. */
  listTools(): Promise<string[]>
  /** `$.mcp.connect`: the server as /mcp lists it when connected, or why not. */
  connectMcp(server: string): Promise<McpConnectResult>
  submitPrompt(text: string): Promise<unknown>
  /** A dim transcript row the model never reads. */
  notice(line: string): void
  after(ms: number, fn: () => void): void
  now(): Promise<number>
  /** The context breakdown: the MCP servers the session lists, in their tool spelling. */
  usage(): Promise<SessionUsage>
  readonly registerTool: RegisterTool
}

export function bindReconnect($: EngineInterface): ReconnectPort {
  return {
    pkg: $.plugin.name,
    runCommand: (command, args) => $.command.run({ command, args }),
    listTools: async () => (await $.tool.list()).map((t) => t.name),
    connectMcp: (server) => $.mcp.connect(server),
    submitPrompt: (text) => $.prompt.submit({ text }),
    notice: (line) => $.ui.log(line),
    after: (ms, fn) => void $.clock.after(ms, fn),
    now: () => $.clock.now(),
    usage: () => $.session.usage({ breakdown: 'summary' }),
    registerTool: bindRegisterTool($),
  }
}
