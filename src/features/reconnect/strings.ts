// Every text the reconnect lever shows the model, the person or the debug log. One home each.
import { TOOL_NAME } from './constants.ts'

const quoted = (names: readonly string[]) => names.map((n) => `"${n}"`).join(', ')

/** The tool's description: what the model reads in its tool list. */
export function reconnectDescription(allowed: string): string {
  return `Call this first when an MCP server's tools have left your tool list or a call reports it not connected. ` +
    `It reconnects that server (\`/mcp reconnect\`) when the current turn ends. ` +
    `Set \`server\` to the server's name as /mcp lists it (${allowed}); it may be left unset when only one server is allowed. ` +
    `Set \`continue\` to true only when work must resume by itself after the reconnect attempt: a fixed resume prompt then follows a successful reconnect, unless another prompt has already started the next turn. ` +
    `Leave it unset when the next turn will come from the human or from a background agent's notification; a failed reconnect is always reported to you. Main session only.`
}

/** How the description names the allowed servers. */
export const ANY_SERVER_PHRASE = 'any MCP server of this session'
export const allowedPhrase = (names: readonly string[], any: boolean) =>
  any ? `${ANY_SERVER_PHRASE}${names.length ? `, e.g. ${quoted(names)}` : ''}` : `allowed: ${quoted(names)}`
/** The status line's list of servers `*` has seen so far. */
export const seenPhrase = (names: readonly string[]) => `servers seen: ${names.length ? quoted(names) : 'none yet'}`

export const SERVER_PARAM = 'The MCP server to reconnect, as /mcp lists it.'
export const CONTINUE_PARAM = 'True: a fixed resume prompt follows a successful reconnect.'

/** The tool's result with `continue`. */
export const RECONNECT_RESULT =
  'Reconnect requested. End your turn now without further tool calls; the reconnect runs when the turn ends, and a resume prompt follows a success unless another prompt has already started the next turn. A failed reconnect is reported to you in a prompt.'

/** The tool's result without `continue`. */
export const RECONNECT_RESULT_NO_RESUME =
  'Reconnect requested. End your turn now without further tool calls; the reconnect runs when the turn ends. A successful reconnect submits no prompt: the next turn comes from the human or from a background agent\'s notification. A failed reconnect is reported to you in a prompt.'

export const reconnectResult = (resume: boolean) => (resume ? RECONNECT_RESULT : RECONNECT_RESULT_NO_RESUME)

export const RESUME_SENTENCE = 'Resume the interrupted work.'

export function successText(pkg: string, servers: readonly string[]): string {
  const one = servers.length === 1
  return `[${pkg} mcp] The MCP ${one ? 'server' : 'servers'} ${quoted(servers)} reconnected; ${one ? 'its' : 'their'} tools are available again. ${RESUME_SENTENCE}`
}

export type Failure = { server: string; reason: string }

export function failureText(pkg: string, failures: readonly Failure[], reconnected: readonly string[], resume: boolean): string {
  const what = failures.map((f) => `The MCP server "${f.server}" did not come back (${f.reason}).`).join(' ')
  const others = reconnected.length ? ` ${quoted(reconnected)} reconnected.` : ''
  return `[${pkg} mcp] ${what}${others} Do not call ${TOOL_NAME} again for this drop: a reconnect that just failed fails the same way. ` +
    `Ask the user to re-enable the server from /mcp, run /reload-plugins, or restart the session.${resume ? ` ${RESUME_SENTENCE}` : ''}`
}

// ---- Failure reasons ----
export const REASON_TOOLS_ABSENT = 'it is connected, but its tools were not back within 10 s'
export const reasonNotConnected = (state: string, ms: number) => `it is still not connected ${ms} ms after the reconnect (${state})`
export const reasonUnlisted = (server: string) => `/mcp lists no server named "${server}"`
export const reasonCommandFailed = (err: unknown) => `the reconnect command failed: ${String(err)}`
export const reasonCommandAnswered = (text: string) => `the reconnect command answered: ${text}`

// ---- Refusals of a call ----
/** The hook itself failed: the call is refused rather than left unanswered. */
export const HOOK_FAILED = `${TOOL_NAME}: the reconnect request hook failed; see the debug log.`
export const subagentDenied = (agentId: string) => `${TOOL_NAME} serves the main session only; called from subagent ${agentId}.`
export const notAllowed = (server: string, allowed: readonly string[], any: boolean) =>
  `${TOOL_NAME}: "${server}" is not a server this tool may reconnect; ${any ? `the session's MCP servers are ${quoted(allowed)}` : `allowed: ${quoted(allowed)}`}.`
export const serverNeeded = (allowed: readonly string[]) => `${TOOL_NAME}: name the server to reconnect (\`server\`): one of ${quoted(allowed)}.`
export const badServer = `${TOOL_NAME}: \`server\` must be a non-empty string.`
export const NO_SERVER_SEEN = `${TOOL_NAME}: this session has listed no MCP server to reconnect.`

// ---- Debug log (each line goes out prefixed `<pkg> mcp reconnect: `) ----
export const debugPrefix = (pkg: string) => `${pkg} mcp reconnect: `
export const requestedLine = (servers: readonly string[], resume: boolean) => `reconnect requested for ${quoted(servers)}; resume: ${resume}`
export const reconnectedLine = (server: string, ms: number) => `reconnected "${server}" in ${ms} ms`
export const notReconnectedLine = (server: string, reason: string, ms: number) => `not reconnected "${server}" (${reason}) after ${ms} ms`
export const RESCHEDULED = 'the scheduled reconnect step did not run; scheduling it again'
export const notScheduled = (err: unknown) => `the reconnect step was not scheduled (${String(err)}); retrying at the next turn end`
export const stepFailed = (err: unknown) => `reconnect step failed: ${String(err)}`
export const ENDED_DURING_STEP = 'the session ended during the reconnect step; its report is dropped'
export const ENDED_BEFORE_REPORT = "the session ended before the reconnect report's turn began; the report is dropped"
/** The reason a stale report is dropped with (shown to the person by the engine). */
export const STALE_REPORT = 'an MCP reconnect report of the conversation before this one; dropped'
export const TURN_STARTED_DURING_STEP = 'a turn started during the reconnect step; the resume prompt is not submitted'
/** A read of the step's poll that failed (`connection`, `tool list`). */
export const readFailed = (what: string, err: unknown) => `${what} read failed: ${String(err)}`
export const pollLine = (server: string, ms: number, state: string) => `"${server}" after ${ms} ms: ${state}`
export const endDropped = (reason: string) => `session.end ${reason} dropped a pending reconnect request`
export const promptNotSubmitted = (pkg: string, why: string, text: string) => `${pkg} mcp reconnect: a prompt was not submitted (${why}):\n${text}`
export const setupFailed = (err: unknown) => `setup failed (${String(err)}); ${TOOL_NAME} not registered`
export const registeredLine = (tool: string, allowed: string) => `${tool} registered (${allowed})`
export const notRegisteredLine = (why: string) => `${TOOL_NAME} not registered: ${why}`
export const serversUnread = (err: unknown) => `the session's MCP servers were not read (${String(err)})`

// ---- Why the tool is not registered (status and debug log) ----
export const NO_TARGET_EMPTY = 'reconnectServers is empty and the package declares no MCP server of its own'

// ---- Status lines ----
export const statusRegistered = (tool: string, allowed: string) => `tool: ${tool} (${allowed})`
export const statusNotRegistered = (why: string) => `tool: not registered: ${why}`
export const statusPending = (servers: readonly string[], resume: boolean) => `pending: ${quoted(servers)} at the next turn end${resume ? ', then resume' : ''}`
export const statusLast = (line: string) => `last step: ${line}`
export const STATUS_NOT_STARTED = 'tool: the session has not started yet'
