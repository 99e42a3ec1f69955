// Captions' cost: model calls per 100 tool calls over a scripted session, the real core driven on a
// simulated clock (no engine, no model). `npm run bench` prints what this returns.
//
// The script: 100 tool calls in turns of about ten; a turn mixes lone calls (Bash, Edit: 0.8-4 s
// each) and folded runs of 2-6 reads (0.3 s apart), with 3-8 s of model time between turns. Each
// finished unit is drawn three times (the engine repaints rows), the clock ticks every FLUSH_MS, and
// the model answers every request at once.
import { createCaptions } from '../../src/features/captions/core.ts'
import { FLUSH_MS } from '../../src/features/captions/constants.ts'
import { DEFAULTS } from '../unit/template-defaults.ts'
import type { Unit } from '../../src/features/captions/units.ts'

const TOOL_CALLS = 100
const REPAINTS = 3

/** A small deterministic generator, so every run of the bench scripts the same session. */
function lcg(seed: number) {
  let s = seed >>> 0
  return (lo: number, hi: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return lo + Math.floor((s / 2 ** 32) * (hi - lo + 1))
  }
}

/** Units with the time each becomes drawable as finished (its last call's end). */
function script(seed: number): { unit: Unit; at: number }[] {
  const pick = lcg(seed)
  const out: { unit: Unit; at: number }[] = []
  let now = 0
  let calls = 0
  let inTurn = 0
  while (calls < TOOL_CALLS) {
    if (inTurn >= 10) { now += pick(3000, 8000); inTurn = 0 }
    const size = pick(0, 1) === 0 ? 1 : Math.min(pick(2, 6), TOOL_CALLS - calls)
    const ids = Array.from({ length: size }, (_, i) => `c${calls + i}`)
    now += size === 1 ? pick(800, 4000) : 300 * size
    const tool = size === 1 ? (pick(0, 1) ? 'Bash' : 'Edit') : 'Read'
    out.push({ unit: { key: ids.join(','), calls: ids.map((id) => ({ id, tool, input: { file_path: `/${id}` }, isErrored: false })) }, at: now })
    calls += size
    inTurn += size
  }
  return out
}

/** Model calls per 100 tool calls for the scripted session (seeded; the default is the reported figure). */
export async function captionModelCallsPer100ToolCalls(seed = 7): Promise<number> {
  const units = script(seed)
  let requests = 0
  let tick: () => void = () => {}
  const captions = createCaptions()
  captions.start({
    messages: async () => [],
    complete: async () => { requests++; return { isAnswered: true, text: '[]', usage: { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } } },
    redraw: () => {},
    every: (_ms, fn) => { tick = fn; return () => {} },
    log: () => {},
  }, { model: 'haiku', style: String(DEFAULTS.captionsStyle), contextTokens: 200_000, lang: undefined })
  const settle = async () => { for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r)) }
  // The ticker starts at the first request; ticks fall every FLUSH_MS from there.
  let nextTick = Infinity
  let i = 0
  const end = (units.at(-1)?.at ?? 0) + 2 * FLUSH_MS
  while (i < units.length || nextTick <= end) {
    const due = units[i]?.at ?? Infinity
    if (due <= nextTick && i < units.length) {
      for (let r = 0; r < REPAINTS; r++) captions.request(units[i]!.unit)
      if (nextTick === Infinity) nextTick = due + FLUSH_MS
      i++
    } else {
      tick()
      await settle()
      nextTick += FLUSH_MS
    }
  }
  const calls = units.reduce((n, u) => n + u.unit.calls.length, 0)
  return (requests / calls) * 100
}
