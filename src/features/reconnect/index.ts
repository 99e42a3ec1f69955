// The reconnect lever: the model brings a dead MCP server back with `request_mcp_reconnect`.
// Binds the hooks to port edges; the rules live in targets.ts, the state machine in machine.ts.
import type { SessionUsage } from 'claude-code'
import type { Feature, FeatureContext } from '../../registry.ts'
import { createLane } from '../../lib/lane.ts'
import { TOOL_NAME } from './constants.ts'
import type { ReconnectPort as Port } from './bind.ts'
import { createReconnect, type ReconnectEdges } from './machine.ts'
import {
  CONTINUE_PARAM, debugPrefix, HOOK_FAILED, NO_TARGET_EMPTY, notRegisteredLine, reconnectDescription,
  registeredLine, SERVER_PARAM, serversUnread, setupFailed, STATUS_NOT_STARTED, statusLast, statusNotRegistered,
  seenPhrase, STALE_REPORT, statusPending, statusRegistered,
} from './strings.ts'
import { allowedServers, checkCall, describeAllowed, hasTarget, parseServerRule, realNames, serverOfTool, toolPrefix, withSeen, type Targets } from './targets.ts'

/** The option naming the servers beyond the package's own. */
export const OPTION = 'reconnectServers'

function edgesOf(port: Port, ctx: FeatureContext): ReconnectEdges {
  return {
    // The port's own `reconnect`, `connection`, `now` and `notice` as they are.
    ...port,
    toolsListed: async (server) => (await port.listTools()).some((name) => name.startsWith(toolPrefix(server))),
    submit: port.submitPrompt as ReconnectEdges['submit'],
    after: (fn) => port.after(0, fn),
    sleep: (ms) => new Promise<void>((resolve) => port.after(ms, resolve)),
    mainTurns: ctx.facts.mainTurns,
    busy: ctx.facts.isMainTurnRunning,
    log: ctx.log,
  }
}

export function createReconnectFeature(): Feature<Port> {
  // Per registration: a reload starts it over, and a pending request with it.
  let reconnect = createReconnect('')
  let targets: Targets | undefined
  /** The registered tool's full name, once registered. */
  let tool: string | undefined
  /** Why the tool is not registered this session. */
  let unregistered: string | undefined
  /** The server reads of turn ends, off their path; the lever's call drains it before it reads. */
  const lane = createLane()
  /**
   * Real server names (the ones /mcp and `$.mcp.connect` know), learnt from the engine's tool
   * descriptions: the usage breakdown lists servers in their tool-name spelling (`audit_fix-2` for
   * `audit.fix-2`, `plugin_p_s` for `plugin:p:s`), which /mcp answers "not found" for (measured).
   */
  let known: string[] = []

  /**
   * `*` keeps every server the session has listed, so a server that went down can still be named:
   * the ones the context breakdown lists now (in their tool spelling), under the real names known.
   */
  async function noteSessionServers(read: () => Promise<SessionUsage>): Promise<void> {
    if (!targets?.rule.any) return
    const tools = (await read()).context.breakdown?.mcpTools ?? []
    const listed = realNames([...new Set(tools.map((t) => t.serverName))], known)
    if (targets) targets = withSeen(targets, listed)
  }

  async function setup(port: Port, ctx: FeatureContext, option: string): Promise<void> {
    const rule = parseServerRule(option)
    // `*`: the session's servers are not listed yet at its start (they connect after it), so they are
    // read off the start's path, at each measurement (a turn's end) and at the lever's call (the usage read that
    // lists them cost 70-210 ms on the start's path: test/bench/FINDINGS.md).
    targets = { rule, own: await ctx.facts.ownServer(), seen: [] }
    if (!hasTarget(targets, port.pkg)) {
      unregistered = NO_TARGET_EMPTY
      return ctx.log(notRegisteredLine(unregistered))
    }
    const allowed = describeAllowed(targets, port.pkg)
    tool = await port.registerTool({
      name: TOOL_NAME,
      description: reconnectDescription(allowed),
      inputSchema: {
        type: 'object',
        properties: { server: { type: 'string', description: SERVER_PARAM }, continue: { type: 'boolean', description: CONTINUE_PARAM } },
      },
      isDeferred: false,
    })
    ctx.log(registeredLine(tool, allowed))
  }

  return {
    name: 'reconnect',
    sessionActing: true,
    logPrefix: debugPrefix,
    // Its prompt.submit hook drops only its own stale report: a person's prompt need not reach it.
    pluginPromptsOnly: true,
    // With no server to reach (an empty option; no package ships a server of its own today) the lever
    // is not registered, so the package claims nothing and another package's lever can run.
    actsWith: (options) => {
      const rule = parseServerRule(options[OPTION] as string)
      return rule.any || rule.names.length > 0
    },
    hooks: {
      'session.start': async (port, e, next, ctx) => {
        reconnect = createReconnect(port.pkg)
        reconnect.start(edgesOf(port, ctx))
        known = []
        targets = undefined
        tool = undefined
        unregistered = undefined
        try {
          await setup(port, ctx, ctx.options[OPTION] as string)
        } catch (err) {
          unregistered = setupFailed(err)
          ctx.log(unregistered)
        }
        return next(e)
      },

      // Served here, ahead of the permission check, so it answers while the server itself is gone. A
      // failure of the hook refuses the call rather than leave it unanswered.
      'tool.call': {
        onFailure: { deny: HOOK_FAILED },
        run: async (port, e, next) => {
          // Before the tool is registered (undefined), no call is its.
          if (e.tool !== tool || !targets) return next(e)
          // A turn end's read not yet landed is made now; `*` allows a server that joined after the
          // start too: read the session's list afresh.
          await lane.drain()
          await noteSessionServers(port.usage).catch(() => {})
          const call = checkCall(e.agentId, e as { server?: unknown; continue?: unknown }, allowedServers(targets, port.pkg), targets.rule.any)
          return 'deny' in call ? call : reconnect.lever(call.server, call.resume)
        },
      },

      'session.measure': (port, e, next, ctx) => {
        // Servers connect in the background after the start: note them once the turn's work is done (a
        // read at its start made the turn's own request wait behind it: test/bench/FINDINGS.md), from the
        // lane, on the turn's summary read the facts share (checkpoint's measurement started it while
        // bound). A lever called meanwhile reads the list afresh.
        if (targets?.rule.any) lane.defer(port, ctx, 'session.measure', () => noteSessionServers(ctx.facts.summary).catch((err) => ctx.log(serversUnread(err))))
        return next(e)
      },

      // Observes only (MCP tools alone reach it: main.ts matches `mcp__`): each described tool names
      // its server's real name, which joins those `*` allows and maps the breakdown's spelling.
      'tool.describe': (port, e, next) => {
        const server = serverOfTool(e.tool, e.provider?.plugin, port.pkg)
        if (server && !known.includes(server)) {
          known.push(server)
          if (targets?.rule.any) targets = withSeen({ ...targets, seen: [...new Set(realNames(targets.seen, known))] }, [server])
        }
        return next(e)
      },

      'turn.complete': async (port, e, next) => {
        // A held report's submit must reach the engine while this hook runs, or it counts as a timer's
        // and no hook of the package hears it (measured: a quick turn end settled first, 1 in 4): a
        // round trip after it keeps the hook open until the engine has taken the submit.
        if (reconnect.turnComplete(e.agentId, e.reason)) await port.now()
        return next(e)
      },

      'session.end': (_port, e, next) => {
        reconnect.end(e.reason)
        return next(e)
      },

      // A report held to a turn's end enters here (its submit was made inside that hook); one that
      // waited in the engine's queue behind a /clear or /resume is dropped before it acts.
      'prompt.submit': (_port, e, next) => (reconnect.stale(e.text) ? { drop: STALE_REPORT } : next(e)),
    },

    status(port) {
      // The tool is registered only once its targets are set (setup); both go at a session start.
      const lines = [tool ? statusRegistered(tool, describeAllowed(targets!, port.pkg)) : unregistered ? statusNotRegistered(unregistered) : STATUS_NOT_STARTED]
      if (targets?.rule.any) lines.push(seenPhrase(targets.seen))
      const pending = reconnect.pending()
      if (pending) lines.push(statusPending(pending.servers, pending.resume))
      const last = reconnect.lastOutcome()
      if (last) lines.push(statusLast(last))
      return lines
    },
  }
}
