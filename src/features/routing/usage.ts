// What routed requests cost (issue 19 part 1, klyth F22): every request answered by a provider, counted
// from the provider's own usage, by alias; a request whose provider sent no usage is a gap, never a guess,
// and a total that holds one reads `≥`. One file per session under keel's home (`usage/<session>.json`),
// so two sessions writing at once touch different files and lose nothing; the last 30 days are read from
// them all, and a session whose transcript is gone, or past the newest 200, is dropped.
import { isRecord, parseJson } from '../../lib/shape.ts'
import { usageLine, USAGE_NONE } from './strings.ts'

/** What one request cost, in the provider's own counts. */
export type Counted = { input: number; output: number; cacheRead: number; cacheWrite: number; reasoning: number }
/** An alias's price in USD per million tokens (`pricing` in routing.json); cache prices default to the input's. */
export type Pricing = { readonly input: number; readonly output: number; readonly cacheRead?: number; readonly cacheWrite?: number }
export type Totals = Counted & { requests: number; gaps: number; cost: number; unpriced: number }
/** A session's file: when it last counted, its transcript (a session whose transcript is gone is dropped), its totals by alias. */
export type SessionUsage = { at: number; transcript: string; aliases: Record<string, Totals> }

const ZERO: Totals = { requests: 0, gaps: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, reasoning: 0, cost: 0, unpriced: 0 }
const plus = (a: Totals, b: Totals) => Object.fromEntries(Object.keys(ZERO).map((k) => [k, a[k as keyof Totals] + b[k as keyof Totals]])) as Totals

export const costOf = (c: Counted, p: Pricing) => (c.input * p.input + c.output * p.output + c.cacheRead * (p.cacheRead ?? p.input) + c.cacheWrite * (p.cacheWrite ?? p.input)) / 1e6

/** One more request of an alias: counted, or a gap where the provider said nothing. */
export const addRequest = (totals: Totals | undefined, counted: Counted | undefined, pricing: Pricing | undefined): Totals =>
  plus(totals ?? ZERO, { ...ZERO, requests: 1, ...(counted ? { ...counted, cost: pricing ? costOf(counted, pricing) : 0, unpriced: pricing ? 0 : 1 } : { gaps: 1 }) })

/** Every alias's totals as one. */
export const totalOf = (byAlias: Readonly<Record<string, Totals>>): Totals => Object.values(byAlias).reduce(plus, ZERO)

/** Several sessions' totals, alias by alias. */
export function sumAliases(sessions: readonly SessionUsage[]): Record<string, Totals> {
  const sum: Record<string, Totals> = {}
  for (const s of sessions) for (const [alias, t] of Object.entries(s.aliases)) sum[alias] = plus(sum[alias] ?? ZERO, t)
  return sum
}

/** The lines of one view, an alias a line; `≥` ahead of every total a gap leaves short. */
export function usageLines(byAlias: Readonly<Record<string, Totals>>): string[] {
  const lines = Object.entries(byAlias).map(([alias, t]) => usageLine(alias, t, t.gaps ? '≥' : ''))
  return lines.length ? lines : [USAGE_NONE]
}

/** A session file's text as its usage; anything else (damaged, another's) reads as none. */
export function parseSessionUsage(text: string | undefined): SessionUsage | undefined {
  const value = parseJson(text ?? '')
  return isRecord(value) && typeof value.at === 'number' && typeof value.transcript === 'string' && isRecord(value.aliases) ? (value as SessionUsage) : undefined
}

/** The session files to keep and to drop: only sessions whose usage reads and whose transcript still exists (`alive`), the newest 200 of them. */
export function retained(sessions: readonly { name: string; usage: SessionUsage | undefined; alive: boolean }[], keep: number): { kept: SessionUsage[]; dropped: string[] } {
  const kept = sessions.filter((s) => s.alive).sort((a, b) => b.usage!.at - a.usage!.at).slice(0, keep)
  return { kept: kept.map((s) => s.usage!), dropped: sessions.filter((s) => !kept.includes(s)).map((s) => s.name) }
}
