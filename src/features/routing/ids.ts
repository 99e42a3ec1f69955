// Tool-use ids for routed calls, `toolu_keel_<n>_<random hex>` (§3.2): valid Anthropic ids, so the
// conversation goes on if the person switches back to Claude, and never a provider's own id, which
// may hold characters Anthropic refuses.
import { TOOL_ID_PREFIX, TOOL_ID_RANDOM_BYTES } from './constants.ts'
import { hexOf } from '../../lib/hex.ts'

export function toolUseId(n: number, random: Uint8Array): string {
  return `${TOOL_ID_PREFIX}${n}_${hexOf(random)}`
}

/** A minter counting from 1; `randomBytes` is the edge's `crypto.getRandomValues`. */
export function createToolIds(randomBytes: (length: number) => Uint8Array): () => string {
  let n = 0
  return () => toolUseId(++n, randomBytes(TOOL_ID_RANDOM_BYTES))
}
