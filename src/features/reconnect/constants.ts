// The reconnect lever's constants: one home each, with the reason.

/** The tool's bare name; the engine lists it as `mcp__<pkg>__request_mcp_reconnect`. */
export const TOOL_NAME = 'request_mcp_reconnect'

/** How long the step waits for a reconnected server's tools: a stdio server restarts in well under a second (NOTES.md). */
export const TOOLS_WAIT_MS = 10_000

/** The tool-list poll interval while waiting: 21 checks at most in the 10 s. */
export const TOOLS_POLL_MS = 500

/** `reconnectServers` value that allows any MCP server of the session. */
export const ANY_SERVER = '*'

/** The slash command the step runs: `/mcp reconnect <server>`. */
export const MCP_COMMAND = 'mcp'

/** `$.mcp.connect`'s reason for a name neither the manifest nor /mcp lists: a reconnect of it can never succeed. */
export const UNLISTED = 'unlisted'

/** Reads in a row (one poll apart) that find the server unconnected in the same way before the step gives up: 1 s. */
export const NOT_CONNECTED_READS = 3
