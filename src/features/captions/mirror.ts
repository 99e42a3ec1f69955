// The mirror: the lead's conversation since its last compaction, serialized once per message, so
// every caption request opens with the same text (rules, then history) and the prompt cache holds.
// The pivot drops the oldest history only in jumps, so the cached prefix breaks once per jump.
import type { ModelTextBlock, ModelUsage } from 'claude-code'
import { INITIAL_TOKENS_PER_CHAR, PIVOT_HIGH, PIVOT_LOW } from './constants.ts'
import { serializeMessage, type ApiMessageLike } from './digest.ts'
import { LATEST_HEADER, OMITTED_LINE } from './strings.ts'

export type Mirror = {
  /** Serialized settled messages, oldest first. */
  readonly blocks: readonly string[]
  /** How many messages of the transcript `blocks` covers. */
  readonly consumed: number
  /** The first block sent: the pivot. */
  readonly start: number
  /** Bumped by every reset, so a read that straddles one is known to be stale. */
  readonly generation: number
  /** Measured from the last reply; sizes the pivot against the window in tokens. */
  readonly tokensPerChar: number
}

/** A compaction (or a missed one) starts the mirror over; what it learned of the tokenizer stays. */
export const resetMirror = (m: Pick<Mirror, 'generation' | 'tokensPerChar'>): Mirror => ({ ...m, blocks: [], consumed: 0, start: 0, generation: m.generation + 1 })

/** A new mirror: a reset of none, with the cautious guess of the tokenizer. */
export const emptyMirror = (): Mirror => resetMirror({ generation: -1, tokensPerChar: INITIAL_TOKENS_PER_CHAR })

/**
 * Takes in the transcript: every message but the last is settled and appended once; the last can
 * still gain blocks (parallel tool results), so it rides in the uncached tail as `latest`.
 */
export function absorb(m: Mirror, api: readonly ApiMessageLike[]): { mirror: Mirror; latest: string } {
  const base = api.length < m.consumed ? resetMirror(m) : m
  const settled = Math.max(api.length - 1, 0)
  const fresh = api.slice(base.consumed, settled).map(serializeMessage).filter(Boolean)
  const last = api.at(-1)
  return {
    mirror: { ...base, blocks: [...base.blocks, ...fresh], consumed: Math.max(base.consumed, settled) },
    latest: last ? serializeMessage(last) : '',
  }
}

/** The pivot: past 70% of the window, jump forward until 35% is kept (never past the newest block). */
export function movePivot(lengths: readonly number[], start: number, tokensPerChar: number, window: number): number {
  let kept = lengths.slice(start).reduce((n, len) => n + len, 0) * tokensPerChar
  if (kept <= PIVOT_HIGH * window) return start
  let at = start
  while (at < lengths.length - 1 && kept > PIVOT_LOW * window) {
    kept -= lengths[at]! * tokensPerChar
    at++
  }
  return at
}

/** Rules first (cached), the kept history (its last block cached), then the latest message and the units. */
export function promptBlocks(m: Mirror, rules: string, latest: string, task: string): ModelTextBlock[] {
  const history = m.blocks.slice(m.start)
  return [
    { text: rules + '\n\n', cache: true },
    ...(m.start ? [{ text: OMITTED_LINE + '\n\n' }] : []),
    ...history.map((b, i): ModelTextBlock => (i === history.length - 1 ? { text: b + '\n\n', cache: true } : { text: b + '\n\n' })),
    { text: [latest && `${LATEST_HEADER}\n${latest}`, task].filter(Boolean).join('\n\n') },
  ]
}

/** Tokens per character as the reply counted the prompt; undefined when either side is zero. */
export function measuredTokensPerChar(usage: ModelUsage, prompt: readonly ModelTextBlock[]): number | undefined {
  const tokens = usage.input_tokens + usage.cache_read_input_tokens + usage.cache_creation_input_tokens
  const chars = prompt.reduce((n, b) => n + b.text.length, 0)
  return tokens && chars ? tokens / chars : undefined
}
