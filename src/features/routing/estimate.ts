// The local `count_tokens` answer for an alias model (§3.2): nothing leaves the machine, and the
// engine's `/context` and auto-compact still get a number. Characters / 4, rounded up, at least 1.
import { CHARS_PER_TOKEN, IMAGE_TOKEN_ESTIMATE } from './constants.ts'
import { blocksOf, parseAnthropicRequest, textOf, type AnthropicRequest, type Block } from './wire.ts'

function blockChars(block: Block): number {
  switch (block.type) {
    case 'text':
      return textOf(block).length
    case 'thinking':
      return typeof block.thinking === 'string' ? block.thinking.length : 0
    case 'image':
      return IMAGE_TOKEN_ESTIMATE * CHARS_PER_TOKEN
    case 'tool_use':
      return String(block.name).length + JSON.stringify(block.input ?? {}).length
    case 'tool_result':
      return typeof block.content === 'string' ? block.content.length : ((block.content ?? []) as Block[]).reduce((n, b) => n + blockChars(b), 0)
    default:
      return JSON.stringify(block).length
  }
}

export function estimateTokens(body: AnthropicRequest): number {
  const chars =
    blocksOf(body.system ?? []).reduce((n, b) => n + blockChars(b), 0) +
    body.messages.reduce((n, m) => n + blocksOf(m.content).reduce((k, b) => k + blockChars(b), 0), 0) +
    (body.tools ?? []).reduce((n, t) => n + t.name.length + (t.description?.length ?? 0) + JSON.stringify(t.input_schema ?? {}).length, 0)
  return Math.max(1, Math.ceil(chars / CHARS_PER_TOKEN))
}

/** The response body: `{"input_tokens":N}`; a body that is no Messages request still gets 1. */
export function countTokensAnswer(bodyText: string): string {
  const body = parseAnthropicRequest(bodyText)
  return JSON.stringify({ input_tokens: body ? estimateTokens(body) : 1 })
}
