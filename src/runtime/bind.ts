// The runtime's `$` binder: the capabilities the runtime itself uses (the claims, the package
// command, the session's facts, the engine's compaction). The loader lets `$` be handed only to
// functions declared at the top of a module, so a binder turns it into plain closures once per load.
import type { EngineInterface, SessionCompactResult } from 'claude-code'
import { clearClaims, publishClaims, readRawClaims } from './claims.ts'

export type CommandSpec = { name: string; description: string; argumentHint?: string }

export type RuntimePort = {
  /** The package this copy runs in (`$.plugin.name`). */
  readonly pkg: string
  /** A line in the debug log, under the plugin's name. */
  log(line: string): void
  registerCommand(spec: CommandSpec): Promise<unknown>
  /** The session's id (a trip to the host: the facts cache it). */
  sessionId(): Promise<string>
  publishClaims(session: string, features: readonly string[]): Promise<void>
  /** The packages' claims variables, unparsed. */
  readClaims(pkgs: readonly string[]): Promise<(string | undefined)[]>
  clearClaims(): Promise<void>
  /** The engine's own compaction (`$.session.compact`); the relay runs the package's chain around it. */
  compactSession(instructions?: string): Promise<SessionCompactResult>
  /** The package's own MCP server, when its manifest ships one (`$.mcp.connect(<pkg>)` resolving to `plugin:<pkg>:…`). */
  ownServer(): Promise<string | undefined>
}

export function bindRuntime($: EngineInterface): RuntimePort {
  const pkg = $.plugin.name
  return {
    pkg,
    log: (line) => $.ui.log(line, { to: 'debug' }),
    registerCommand: (spec) => $.command.register(spec),
    sessionId: () => $.session.id(),
    publishClaims: (session, features) => publishClaims($, pkg, session, features),
    readClaims: (pkgs) => readRawClaims($, pkgs),
    clearClaims: () => clearClaims($, pkg),
    compactSession: (instructions) => $.session.compact(instructions === undefined ? undefined : { instructions }),
    ownServer: async () => {
      const conn = await $.mcp.connect(pkg)
      // Only a server the package itself ships counts; a user server that happens to share the name does not.
      return conn.isConnected && conn.server.startsWith(`plugin:${pkg}:`) ? conn.server : undefined
    },
  }
}
