// The port: every capability of `$` the runtime and the features use, as plain closures.
// The engine's loader lets `$` be passed only to functions declared at the top of the module, so
// nothing that dispatches dynamically (the registry, a feature's hook) may ever hold `$` itself:
// `portOf` is the one place `$` is turned into edges, and feature logic never sees `$`.
import type { EngineInterface } from 'claude-code'
import { publishClaims, readClaims, type Claims } from './claims.ts'

export type CommandSpec = { name: string; description: string; argumentHint?: string }

export type Port = {
  /** The package this copy runs in. */
  readonly pkg: string
  /** A line in the debug log, under the plugin's name. */
  log(line: string): void
  registerCommand(spec: CommandSpec): Promise<unknown>
  /** The session's id: the key of everything kept per session. */
  sessionId(): Promise<string>
  publishClaims(session: string, features: readonly string[]): Promise<void>
  readClaims(session: string, pkgs: readonly string[]): Promise<Claims>
}

export function portOf($: EngineInterface): Port {
  return {
    pkg: $.plugin.name,
    log: (line) => $.ui.log(line, { to: 'debug' }),
    registerCommand: (spec) => $.command.register(spec),
    sessionId: () => $.session.id(),
    publishClaims: (session, features) => publishClaims($, session, features),
    readClaims: (session, pkgs) => readClaims($, session, pkgs),
  }
}
