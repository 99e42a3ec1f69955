// The reconnect lever's `$` binder: the command it runs, the tool list and connection state it
// proves a reconnect by, the prompts it reports with.
import type { EngineInterface, McpConnectResult } from 'claude-code'
import { bindCommonEdges, type CommonEdges, bindRegisterTool, type RegisterTool } from '../../lib/bind.ts'
import { MCP_COMMAND } from './constants.ts'

/** The common edges it uses: the clock, a notice, the report's prompt, the usage (the servers the session lists). */
export type ReconnectPort = Pick<CommonEdges, 'now' | 'after' | 'notice' | 'submitPrompt' | 'usage'> & {
  readonly pkg: string
  /** Queues `/mcp reconnect <server>` (`$.command.run`); settles with its turn, with the command's answer. */
  reconnect(server: string): Promise<{ text?: string } | undefined>
  /** The tools the model can call now (built-in and MCP), by name. */
  listTools(): Promise<string[]>
  /** `$.mcp.connect`: the server as /mcp lists it when connected, or why not (a failure at once is a rejection). */
  connection(server: string): Promise<McpConnectResult>
  readonly registerTool: RegisterTool
}

export function bindReconnect($: EngineInterface): ReconnectPort {
  return {
    ...bindCommonEdges($),
    reconnect: (server) => $.command.run({ command: MCP_COMMAND, args: `reconnect ${server}` }),
    listTools: async () => (await $.tool.list()).map((t) => t.name),
    connection: async (server) => $.mcp.connect(server),
    registerTool: bindRegisterTool($),
  }
}
