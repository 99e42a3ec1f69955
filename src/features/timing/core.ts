// The timing feature's pure core (wsflow §3.3): the advisory grammar, the thresholds, the levels
// and the latch, and the lever's input check.

/** When the advisory fires: a share of the harness's window, a token count, or the earlier of both. */
export type AdvisorySpec = { readonly percent?: number; readonly tokens?: number }

export const DEFAULT_ADVISORY: AdvisorySpec = { percent: 50 }

/** `50`, `50%`: 1 to 100. Tried first, so `100` is a percent, not a token count. */
const PERCENT_TERM = /^(100|[1-9][0-9]?)%?$/
/** `150k`, `1.5m`, `0.5k`: a positive count in thousands or millions, rounded to a whole token. */
const TOKEN_TERM = /^([0-9]*[1-9][0-9]*(?:\.[0-9]+)?|0+\.[0-9]*[1-9][0-9]*)([km])$/

const termOf = (term: string): AdvisorySpec | undefined =>
  PERCENT_TERM.test(term) ? { percent: parseInt(term) } : TOKEN_TERM.test(term) ? { tokens: Math.round(parseFloat(term) * (term.endsWith('k') ? 1_000 : 1_000_000)) } : undefined

/** The advisory grammar: one term, or a percent and a token term joined by `|`; undefined otherwise. */
export function parseAdvisory(value: unknown): AdvisorySpec | undefined {
  if (typeof value !== 'string') return
  const terms = value.split('|').map(termOf)
  // Each term sets its own key: two of one kind leave fewer keys than terms.
  const spec: AdvisorySpec = Object.assign({}, ...terms)
  return terms.length <= 2 && terms.every(Boolean) && Object.keys(spec).length === terms.length ? spec : undefined
}

export function describeAdvisory(spec: AdvisorySpec): string {
  // A percent is 1 to 100; a token count may round to 0.
  return [spec.percent && `${spec.percent}%`, spec.tokens !== undefined && `${spec.tokens} tokens`].filter(Boolean).join(' or ')
}

/** The earlier of the two terms, in tokens of the compaction window. */
export function advisoryTokens(spec: AdvisorySpec, raw: number): number {
  return Math.min(spec.percent !== undefined ? (raw * spec.percent) / 100 : Infinity, spec.tokens ?? Infinity)
}

/** The harness's own figures, from its usage breakdown: the window it compacts on and where. */
export type HarnessWindow = { readonly rawMaxTokens: number; readonly autoCompactThreshold?: number; readonly isAutoCompactEnabled: boolean }

export type Thresholds = { readonly raw: number; readonly advisory: number; readonly m1: number; readonly m2: number; readonly hard: number }

/**
 * The advisory point and the two milestones, a third and two thirds of the way on to the harness's
 * auto-compaction point; undefined (off) when auto-compaction is off or not past the advisory point.
 */
export function thresholdsFor(w: HarnessWindow, spec: AdvisorySpec): Thresholds | undefined {
  const raw = w.rawMaxTokens
  const advisory = advisoryTokens(spec, raw)
  const hard = w.autoCompactThreshold ?? 0
  // No auto-compaction point (off, or absent: 0) past the advisory point, or no window.
  if (!w.isAutoCompactEnabled || !(raw > 0) || !(hard > advisory)) return
  const step = (hard - advisory) / 3
  return { raw, advisory, m1: advisory + step, m2: advisory + 2 * step, hard }
}

export type Level = 0 | 1 | 2 | 3

/** How many of the advisory point and the milestones `tokens` has reached. */
export function levelAt(t: Thresholds, tokens: number): Level {
  return [t.advisory, t.m1, t.m2].filter((p) => tokens >= p).length as Level
}

/** What to deliver: the advisory, or milestone 1 or 2. */
export type Delivery = { readonly kind: 'advisory' } | { readonly kind: 'milestone'; readonly which: 1 | 2 }

/**
 * The latch: the level last delivered. The first observation only baselines it; usage below it
 * re-arms it; a rise past it delivers one message, the advisory first, since a milestone waits for it.
 */
export function observe(latch: Level | undefined, level: Level, canDeliver: boolean): { latch: Level; deliver?: Delivery } {
  if (latch === undefined) return { latch: level }
  const armed: Level = level < latch ? level : latch
  if (level <= armed || !canDeliver) return { latch: armed }
  return { latch: level, deliver: armed === 0 ? { kind: 'advisory' } : { kind: 'milestone', which: (level - 1) as 1 | 2 } }
}

export function percentOf(tokens: number, raw: number): number {
  return Math.round((tokens / raw) * 100)
}

export function thousands(tokens: number): string {
  return `${Math.round(tokens / 1000)}k`
}
