// The local `count_tokens` answer for an alias model (§3.2): nothing leaves the machine, and the
// engine's `/context` and auto-compact still get a number. Characters / 4, rounded up, at least 1.
import { CHARS_PER_TOKEN, IMAGE_TOKEN_ESTIMATE } from './constants.ts'
import { asText, blocksOf, parseAnthropicRequest, textOf, type AnthropicRequest, type Block } from './wire.ts'

const sum = <T>(list: readonly T[], count: (item: T) => number) => list.reduce((n, item) => n + count(item), 0)

function blockChars(block: Block): number {
  switch (block.type) {
    case 'text':
      return textOf(block).length
    case 'thinking':
      return asText(block.thinking).length
    case 'image':
      return IMAGE_TOKEN_ESTIMATE * CHARS_PER_TOKEN
    case 'tool_use':
      return String(block.name).length + JSON.stringify(block.input ?? {}).length
    case 'tool_result':
      return typeof block.content === 'string' ? block.content.length : sum((block.content ?? []) as Block[], blockChars)
    default:
      return JSON.stringify(block).length
  }
}

export function estimateTokens(body: AnthropicRequest): number {
  const chars =
    sum(blocksOf(body.system ?? []), blockChars) +
    sum(body.messages, (m) => sum(blocksOf(m.content), blockChars)) +
    sum(body.tools ?? [], (t) => t.name.length + (t.description?.length ?? 0) + JSON.stringify(t.input_schema ?? {}).length)
  return Math.max(1, Math.ceil(chars / CHARS_PER_TOKEN))
}

/** The response body: `{"input_tokens":N}`; a body that is no Messages request still gets 1. */
export function countTokensAnswer(bodyText: string): string {
  const body = parseAnthropicRequest(bodyText)
  return JSON.stringify({ input_tokens: body ? estimateTokens(body) : 1 })
}
