// The timing feature: advisory and milestone wake prompts before the harness's auto-compaction,
// and the request_compaction lever (wsflow §3). Binds the state machine to the port's edges; the
// thresholds divide by the window the harness really compacts on (its usage breakdown).
import type { Feature, FeatureContext } from '../../registry.ts'
import { createLane, type Lane } from '../../lib/lane.ts'
import { messageOf } from '../../lib/message.ts'
import type { TimingPort as Port } from './bind.ts'
import { DEFAULT_ADVISORY, describeAdvisory, parseAdvisory, type AdvisorySpec, type HarnessWindow } from './core.ts'
import { createTiming, type Edges, type Timing, type Usage } from './machine.ts'
import * as s from './strings.ts'


/** The advisory option, read through its grammar; a bad value keeps the default and says why. */
export function advisoryOf(ctx: FeatureContext): { spec: AdvisorySpec; problem?: string } {
  const raw = String(ctx.options[s.ADVISORY_OPTION] ?? '')
  const spec = parseAdvisory(raw)
  return spec ? { spec } : { spec: DEFAULT_ADVISORY, problem: s.ADVISORY_INVALID(raw, describeAdvisory(DEFAULT_ADVISORY)) }
}

/**
 * The key of the window the harness compacts on, short of reading the breakdown: the model's
 * window and the override in force (the window feature, a settings file or `/config` change it).
 */
async function usageOf(port: Port, context: { tokens?: number; window: number }): Promise<Usage> {
  const override = await port.windowEnv().catch(() => undefined)
  return { tokens: context.tokens, window: context.window, key: `${context.window}|${override ?? ''}` }
}

function edgesOf(port: Port, ctx: FeatureContext): Edges {
  return {
    submit: (text) => port.submitPrompt(text),
    compact: () => ctx.compact(),
    after: (fn) => port.after(0, fn),
    delay: (ms, fn) => port.after(ms, fn),
    log: (text) => ctx.log(text),
    notice: (text) => port.notice(`${s.noticePrefixOf(port.pkg)}${text}`),
    turnRunning: () => ctx.facts.isMainTurnRunning(),
    readUsage: async () => usageOf(port, (await port.usage()).context),
  }
}

async function readBreakdown(port: Port): Promise<HarnessWindow | undefined> {
  return (await port.usage('summary')).context.breakdown
}

export function createTimingFeature(): Feature<Port> {
  let timing: Timing | undefined
  /** The lever's registered full name (`mcp__<pkg>__request_compaction`), once registered. */
  let leverTool: string | undefined
  /** The observations, run off the measure hook's path in order; a landing and an end drain it first. */
  const lane: Lane = createLane()
  /** The machine, made at the first hook that needs it (the package's name comes with the port). */
  const machineFor = (port: Port): Timing => (timing ??= createTiming(port.pkg))
  return {
  name: 'timing',
  sessionActing: true,
  hooks: {
    'session.start': async (port, e, next, ctx) => {
      const { spec, problem } = advisoryOf(ctx)
      const t = machineFor(port)
      t.start(edgesOf(port, ctx), spec)
      ctx.log(problem ?? s.ADVISORY_IN_FORCE(String(ctx.options[s.ADVISORY_OPTION]), describeAdvisory(spec)))
      try {
        leverTool = await port.registerTool({ name: s.TOOL_NAME, description: s.LEVER_DESCRIPTION, inputSchema: s.LEVER_SCHEMA, isDeferred: false })
      } catch (err) {
        leverTool = undefined
        ctx.log(s.SETUP_FAILED(messageOf(err)))
      }
      return next(e)
    },
    'session.end': async (port, e, next, ctx) => {
      await lane.drain()
      timing?.bind(edgesOf(port, ctx))
      timing?.end(e.reason)
      return next(e)
    },
    // Observes only: the reads and a delivery run from the lane; a delivery reads the usage afresh
    // and waits while a main turn runs, whenever it comes.
    'session.measure': (port, e, next, ctx) => {
      const t = timing
      if (t) lane.defer({ after: port.after, log: ctx.log }, 'session.measure', async () => {
        t.bind(edgesOf(port, ctx))
        try {
          await t.measure(await usageOf(port, e.context), () => readBreakdown(port))
        } catch (err) {
          ctx.log(s.BREAKDOWN_FAILED(messageOf(err)))
        }
      })
      return next(e)
    },
    'turn.start': (port, e, next, ctx) => {
      timing?.bind(edgesOf(port, ctx))
      timing?.turnStarted(e.agentId)
      return next(e)
    },
    'turn.complete': async (port, e, next, ctx) => {
      // The facts mark the main turn ended once this chain settles; the machine asks at its own timer.
      const r = await next(e)
      timing?.bind(edgesOf(port, ctx))
      timing?.turnComplete(e.agentId, e.reason)
      return r
    },
    'session.compact': async (port, e, next, ctx) => {
      // An observation made before the compaction is taken before it, not after the landing.
      await lane.drain()
      const r = await next(e)
      timing?.bind(edgesOf(port, ctx))
      timing?.compacted(e.trigger, e.agentId, r)
      return r
    },
    // Only the registered name: an MCP server's tool of the same short name passes through. A failure
    // refuses the call rather than leave it unanswered (the registry applies the policy).
    'tool.call': {
      onFailure: { deny: s.LEVER_FAILED },
      run: (port, e, next, ctx) => {
        if (leverTool === undefined || e.tool !== leverTool) return next(e)
        const t = machineFor(port)
        t.bind(edgesOf(port, ctx))
        return t.lever(e.agentId, (e as { continue?: unknown }).continue)
      },
    },
  },
  status: (_port, ctx) => {
    const { spec, problem } = advisoryOf(ctx)
    const state = timing?.inspect()
    const lines = [problem ? `advisory point: ${describeAdvisory(spec)} (${problem})` : `advisory point: ${describeAdvisory(spec)}`]
    lines.push(state?.thresholds ? s.THRESHOLDS_LINE(state.thresholds) : 'thresholds: not read yet (read at the first turn end) or off')
    if (state?.latch !== undefined) lines.push(`messages delivered up to level ${state.latch} of 3`)
    lines.push(leverTool ? `${s.TOOL_NAME}: registered as ${leverTool}` : `${s.TOOL_NAME}: not registered`)
    if (state?.requested) lines.push('a compaction request waits for the turn end')
    if (state?.held) lines.push('a resume prompt is held in the continuation window')
    return lines
  },
  }
}
