// The one way a feature registers a tool the model calls (timing's and reconnect's levers, the mailbox,
// recall): `$.tool.register`, answered with the tool's full name, `mcp__<pkg>__<name>`, which the
// feature's `tool.call` hook then serves, ahead of the permission check.
import type { EngineInterface, ToolSpec } from 'claude-code'

export type RegisterTool = (spec: ToolSpec) => Promise<string>

export function bindRegisterTool($: EngineInterface): RegisterTool {
  return async (spec) => (await $.tool.register(spec)).tool
}
