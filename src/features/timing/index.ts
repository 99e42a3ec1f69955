// The timing feature: advisory and milestone wake prompts before the harness's auto-compaction,
// and the request_compaction lever (wsflow §3). Binds the state machine to the port's edges; the
// thresholds divide by the window the harness really compacts on (its usage breakdown).
import type { Feature, FeatureContext } from '../../registry.ts'
import { createLane, type Lane } from '../../lib/lane.ts'
import { messageOf, toUndefined } from '../../lib/message.ts'
import type { TimingPort as Port } from './bind.ts'
import { DEFAULT_ADVISORY, describeAdvisory, parseAdvisory, type AdvisorySpec } from './core.ts'
import { createTiming, type Timing, type Usage } from './machine.ts'
import * as s from './strings.ts'


/** The advisory option (a string: the runtime checked its type), read through its grammar; a bad value keeps the default and says why. */
export function advisoryOf(ctx: FeatureContext): { spec: AdvisorySpec; problem?: string } {
  const raw = ctx.options[s.ADVISORY_OPTION] as string
  const spec = parseAdvisory(raw)
  return spec ? { spec } : { spec: DEFAULT_ADVISORY, problem: s.ADVISORY_INVALID(raw) }
}

/**
 * The key of the window the harness compacts on, short of reading the breakdown: the model's
 * window and the override in force (the window feature, a settings file or `/config` change it).
 */
async function usageOf(port: Port, context: { tokens?: number; window: number }): Promise<Usage> {
  const override = await port.windowEnv().catch(toUndefined)
  return { ...context, key: `${context.window}|${override ?? ''}` }
}

export function createTimingFeature(): Feature<Port> {
  let timing: Timing | undefined
  /** The lever's registered full name (`mcp__<pkg>__request_compaction`), once registered. */
  let leverTool: string | undefined
  /** The observations, run off the measure hook's path in order; a landing and an end drain it first. */
  const lane: Lane = createLane()
  return {
  name: 'timing',
  sessionActing: true,
  // The machine is made and bound at session.start: the port and the context are one each per load,
  // so the edges bound there serve every later hook.
  hooks: {
    'session.start': async (port, e, next, ctx) => {
      const { spec, problem } = advisoryOf(ctx)
      // Made at the first start (the package's name comes with the port).
      timing ??= createTiming(port.pkg)
      // The machine's edges: the port's own (arrows over `$`, bind.ts) where they fit as they are.
      timing.start(
        {
          submit: port.submitPrompt,
          compact: ctx.compact,
          after: (fn) => port.after(0, fn),
          delay: port.after,
          log: ctx.log,
          notice: (text) => port.notice(s.noticePrefixOf(port.pkg) + text),
          turnRunning: ctx.facts.isMainTurnRunning,
          readUsage: async () => usageOf(port, (await port.usage()).context),
        },
        spec,
      )
      ctx.log(problem ?? s.ADVISORY_IN_FORCE(ctx.options[s.ADVISORY_OPTION] as string, describeAdvisory(spec)))
      // A failed registration leaves the lever unregistered (a `/clear`'s start registers it afresh).
      leverTool = await port.registerTool(s.LEVER_TOOL).catch((err: unknown) => void ctx.log(s.SETUP_FAILED(messageOf(err))))
      return next(e)
    },
    'session.end': async (_port, e, next) => {
      await lane.drain()
      timing?.end(e.reason)
      return next(e)
    },
    // Observes only: the reads and a delivery run from the lane; a delivery reads the usage afresh
    // and waits while a main turn runs, whenever it comes.
    'session.measure': (port, e, next, ctx) => {
      // A failure is the lane's to log, under the task's name.
      if (timing) lane.defer(port, ctx, s.USAGE_OBSERVATION, async () => timing?.measure(await usageOf(port, e.context), async () => (await ctx.facts.summary()).context.breakdown))
      return next(e)
    },
    'turn.start': (_port, e, next) => {
      timing?.turnStarted(e.agentId)
      return next(e)
    },
    'turn.complete': async (_port, e, next) => {
      // The facts mark the main turn ended once this chain settles; the machine asks at its own timer.
      const r = await next(e)
      timing?.turnComplete(e.agentId, e.reason)
      return r
    },
    'session.compact': async (_port, e, next) => {
      // An observation made before the compaction is taken before it, not after the landing.
      await lane.drain()
      const r = await next(e)
      timing?.compacted(e.trigger, e.agentId, r)
      return r
    },
    // Only the registered name: an MCP server's tool of the same short name passes through. A failure
    // refuses the call rather than leave it unanswered (the registry applies the policy).
    'tool.call': {
      onFailure: { deny: s.LEVER_FAILED },
      // `e.tool` is a name: none matches before the lever is registered (at session.start, once the machine is made).
      run: (_port, e, next) => (e.tool !== leverTool ? next(e) : timing!.lever(e.agentId, (e as { continue?: unknown }).continue)),
    },
  },
  status: (_port, ctx) => {
    const { spec, problem } = advisoryOf(ctx)
    const state = timing?.inspect()
    return [
      `advisory point: ${describeAdvisory(spec)}${problem ? ` (${problem})` : ''}`,
      state?.thresholds ? s.THRESHOLDS_LINE(state.thresholds) : 'thresholds: not read yet (read at the first turn end) or off',
      state?.latch !== undefined && `messages delivered up to level ${state.latch} of 3`,
      `${s.TOOL_NAME}: ${leverTool ? `registered as ${leverTool}` : 'not registered'}`,
      state?.requested && 'a compaction request waits for the turn end',
      state?.held && 'a resume prompt is held in the continuation window',
    ].filter(Boolean) as string[]
  },
  }
}
