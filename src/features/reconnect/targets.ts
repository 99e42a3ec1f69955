// Which MCP servers the lever may reconnect, and what a call asks for. Pure.
//
// The targets are the package's own MCP server (when it declares one) plus what the option
// `reconnectServers` names: a comma-separated list of server names as /mcp lists them, or `*` for
// any server of the session. Names are settled at session start and kept while a server is down,
// because a dead server can no longer be read from the session.
import { ANY_SERVER } from './constants.ts'
import { allowedPhrase, badServer, NO_SERVER_SEEN, notAllowed, serverNeeded, subagentDenied } from './strings.ts'
import { isString } from '../../lib/shape.ts'

export type ServerRule = { readonly any: true } | { readonly any: false; readonly names: readonly string[] }

/** `"*"` (alone or in the list) allows any server of the session; otherwise the trimmed, de-duplicated names. */
export function parseServerRule(option: string): ServerRule {
  const names = [...new Set(option.split(',').map((n) => n.trim()).filter(Boolean))]
  return names.includes(ANY_SERVER) ? { any: true } : { any: false, names }
}

export type Targets = {
  readonly rule: ServerRule
  /** The package's own server, as /mcp lists it, when it declares one. */
  readonly own?: string
  /** Servers the session listed (at its start, and since): what `*` allows. Only grows. */
  readonly seen: readonly string[]
}

/**
 * The servers a call may name, the own server first. `hostName` is the server the engine runs the
 * package's registered tools on (named after the package): never a target, since the mod serves
 * this very tool from it.
 */
export function allowedServers(t: Targets, hostName: string): string[] {
  return [...new Set([t.own, ...(t.rule.any ? t.seen : t.rule.names)])].filter((s): s is string => s !== undefined && s !== hostName)
}

/**
 * Whether the package has a target: its own server, a named one, or `*`. `*` counts by itself,
 * because the session's servers connect in the background and are not listed yet at its start
 * (measured: NOTES.md); which servers it allows is read as the session goes.
 */
export function hasTarget(t: Targets, hostName: string): boolean {
  return t.rule.any || allowedServers(t, hostName).length > 0
}

/** Adds servers the session lists now to those seen; the same object when nothing is new. */
export function withSeen(t: Targets, listed: readonly string[]): Targets {
  const fresh = listed.filter((s) => !t.seen.includes(s))
  return fresh.length ? { ...t, seen: [...t.seen, ...fresh] } : t
}

export function describeAllowed(t: Targets, hostName: string): string {
  return allowedPhrase(allowedServers(t, hostName), t.rule.any)
}

export type Call = { readonly server: string; readonly resume: boolean }

/**
 * A call's request, or its refusal: a subagent is refused, a named server must be allowed, and an
 * unnamed one is the only allowed server. `continue` counts only as the boolean true.
 */
export function checkCall(agentId: string | undefined, input: { server?: unknown; continue?: unknown }, allowed: readonly string[], any: boolean): Call | { deny: string } {
  if (agentId !== undefined) return { deny: subagentDenied(agentId) }
  if (allowed.length === 0) return { deny: NO_SERVER_SEEN }
  const resume = input.continue === true
  const given = input.server
  if (given === undefined) return allowed.length === 1 ? { server: allowed[0]!, resume } : { deny: serverNeeded(allowed) }
  const asked = isString(given) ? given.trim() : ''
  if (!asked) return { deny: badServer }
  const server = resolveServer(asked, allowed)
  return server ? { server, resume } : { deny: notAllowed(asked, allowed, any) }
}

/**
 * A server's name as the engine spells it in tool names (`audit.fix-2` -> `audit_fix-2`,
 * `plugin:p:s` -> `plugin_p_s`): the model sees this spelling, while `/mcp` and `$.mcp.connect`
 * know only the real one (measured).
 */
export const toolSpelling = (server: string) => server.replace(/[^A-Za-z0-9_-]/g, '_')

/** The prefix of a server's tool names as the model sees them: `mcp__<tool spelling>__`. */
export function toolPrefix(server: string): string {
  return `mcp__${toolSpelling(server)}__`
}

/** The allowed server a name means: the name /mcp uses, or the tool-name spelling of one. */
export function resolveServer(name: string, allowed: readonly string[]): string | undefined {
  return allowed.includes(name) ? name : allowed.find((s) => toolSpelling(s) === name)
}

/**
 * The real name of the MCP server a tool comes from, read off the engine's description of it
 * (`tool.describe`): a configured server's tool is provided by `mcp:<name>` (the name /mcp lists);
 * a plugin's server's tool by the plugin (`<plugin>@<source>`), and /mcp lists that server as
 * `plugin:<plugin>:<key>`, with the key read off the tool name (exact where the key has no
 * punctuation, which the tool spelling would have replaced). Anything else (a built-in, a tool a
 * plugin registers itself, this package's own host) is no server: undefined.
 */
export function serverOfTool(tool: string, provider: string | undefined, hostName: string): string | undefined {
  if (!provider || !tool.startsWith('mcp__') || tool.startsWith(toolPrefix(hostName))) return
  if (provider.startsWith('mcp:')) return provider.slice('mcp:'.length) || undefined
  const plugin = provider.split('@')[0]!
  const head = `mcp__plugin_${toolSpelling(plugin)}_`
  if (!plugin || !tool.startsWith(head)) return
  const key = tool.slice(head.length).split('__')[0]
  return key ? `plugin:${plugin}:${key}` : undefined
}

/** The session's listed servers (tool spelling) under the real names known for them. */
export function realNames(listed: readonly string[], known: readonly string[]): string[] {
  return listed.map((name) => known.find((real) => toolSpelling(real) === name) ?? name)
}
