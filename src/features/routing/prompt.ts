// What both codecs do to the engine's prompt before a provider reads it (§3.4): the billing block
// and the engine's Claude identity go, the environment's `role: 'system'` messages join the system
// prompt (a provider's messages are user and assistant only), and the reminder naming the engine's
// model names the routed one instead.
import { BILLING_HEADER_PREFIX, ENGINE_IDENTITY_LINES, POWERED_BY_PATTERN } from './constants.ts'
import { identityLine } from './strings.ts'
import { blocksOf, textOf, type AnthropicMessage, type AnthropicRequest, type Block } from './wire.ts'

/**
 * The engine's system blocks without the billing block and with its identity lines cut; their other
 * fields (cache_control) kept. A system prompt holds text blocks only.
 */
export function providerSystemBlocks(system: AnthropicRequest['system']): Block[] {
  const kept: Block[] = []
  for (const block of blocksOf(system ?? [])) {
    const text = textOf(block)
    if (text.startsWith(BILLING_HEADER_PREFIX)) continue
    const cut = text.split('\n').filter((line) => !ENGINE_IDENTITY_LINES.includes(line.trim())).join('\n')
    if (cut.trim()) kept.push(cut === text ? block : { ...block, text: cut })
  }
  return kept
}

/** The engine's `role: 'system'` messages as text blocks, in order, and the conversation without them. */
export function splitSystemMessages(messages: readonly AnthropicMessage[]): { system: Block[]; conversation: AnthropicMessage[] } {
  const system: Block[] = []
  const conversation: AnthropicMessage[] = []
  for (const message of messages) {
    if (message.role === 'system') system.push(...blocksOf(message.content).filter((b) => b.type === 'text'))
    else conversation.push(message)
  }
  return { system, conversation }
}

/**
 * The routed identity in place of the reminder naming the engine's model (`You are powered by the model …`)
 * in every text it is given, and whether any text named it: a prompt that never did gets the identity
 * ahead of its system text instead.
 */
export function createRenamer(route: { readonly label: string; readonly model: string }, pkg: string) {
  const identity = identityLine(route.label, route.model, pkg)
  let named = false
  return {
    identity,
    rename: (text: string) =>
      text.replace(POWERED_BY_PATTERN, () => {
        named = true
        return identity
      }),
    get named() {
      return named
    },
  }
}
