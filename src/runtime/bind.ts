// The runtime's `$` binder: the capabilities the runtime itself uses (the claims, the package
// command, the session's facts, the engine's compaction). The loader lets `$` be handed only to
// functions declared at the top of a module, so a binder turns it into plain closures once per load.
import type { EngineInterface, SessionCompactResult, SessionUsage } from 'claude-code'
import { claimSettled, claimText } from './claims.ts'

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
  /** The claims variables of CLAIMING_PACKAGES, in that order, unparsed. */
  readClaims(): Promise<(string | undefined)[]>
  clearClaims(): Promise<void>
  /** The engine's own compaction (`$.session.compact`); the relay runs the package's chain around it. */
  compactSession(instructions?: string): Promise<SessionCompactResult>
  /** The package's own MCP server, when its manifest ships one (`$.mcp.connect(<pkg>)` resolving to `plugin:<pkg>:…`). */
  ownServer(): Promise<string | undefined>
  /** The usage with its summary breakdown (the facts share one read per main turn). */
  summary(): Promise<SessionUsage>
}

export function bindRuntime($: EngineInterface): RuntimePort {
  const pkg = $.plugin.name
  return {
    pkg,
    log: (line) => $.ui.log(line, { to: 'debug' }),
    registerCommand: (spec) => $.command.register(spec),
    sessionId: () => $.session.id(),
    summary: () => $.session.usage({ breakdown: 'summary' }),
    publishClaims: async (session, features) => claimSettled(await setClaims($, pkg, claimText(session, features))),
    readClaims: () => Promise.all([$.env.get('KEEL_CLAIMS_KEEL'), $.env.get('KEEL_CLAIMS_SUPERHEROES'), $.env.get('KEEL_CLAIMS_WS'), $.env.get('KEEL_CLAIMS_KLYTH')]),
    // A package that claims nothing leaves no stale claim behind.
    clearClaims: async () => claimSettled(await setClaims($, pkg, undefined)),
    compactSession: (instructions) => $.session.compact(instructions === undefined ? undefined : { instructions }),
    ownServer: async () => {
      const conn = await $.mcp.connect(pkg)
      // Only a server the package itself ships counts; a user server that happens to share the name does not.
      return conn.isConnected && conn.server.startsWith(`plugin:${pkg}:`) ? conn.server : undefined
    },
  }
}

// The claims variables (runtime/claims.ts): names must be literals (the loader's rule), so each
// package of CLAIMING_PACKAGES has its branch (and its place in readClaims); a package they do not
// list has no variable.

/** Sets (undefined: unsets) `pkg`'s claims variable; resolves what the environment answered. */
async function setClaims($: EngineInterface, pkg: string, value: string | undefined): Promise<{ deny?: string } | undefined> {
  switch (pkg) {
    case 'keel':
      return $.env.set('KEEL_CLAIMS_KEEL', value)
    case 'superheroes':
      return $.env.set('KEEL_CLAIMS_SUPERHEROES', value)
    case 'ws':
      return $.env.set('KEEL_CLAIMS_WS', value)
    case 'klyth':
      return $.env.set('KEEL_CLAIMS_KLYTH', value)
  }
  return
}
