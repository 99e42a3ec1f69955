// Handing one task to a routed model (issue 19 part 2, klyth F11): the tool `mcp__<pkg>__agent`, for a
// loop whose own Agent tool cannot name an alias (its `model` is an enum of Claude's: measured, NOTES §6).
// The call spawns a subagent through `$.agent.spawn` with a marker ahead of its prompt; routing's own
// `agent.spawn` hook, hearing its own spawn, takes the marker off and sets the alias as the child's
// model, so the child and its whole tool loop are routed (F5). A marked spawn that cannot be routed is
// refused there: a child meant for a provider never runs on Claude.
import type { ModelEntry } from './config.ts'
import { agentParams, agentToolDescription } from './strings.ts'

/** The tool's short name: the model calls it as `mcp__<pkg>__agent`. */
export const AGENT_TOOL = 'agent'
/** What the marker ahead of a spawned prompt looks like: `[<pkg>-route:<nonce>]` and a line end. */
export const routeMarker = (pkg: string, nonce: string) => `[${pkg}-route:${nonce}]\n`
/** The nonce of a prompt's marker, where the prompt opens with one of this package's; undefined otherwise. */
export const markerNonce = (pkg: string, prompt: string) => (prompt.startsWith(`[${pkg}-route:`) ? (/^\[[^\]]*:([0-9a-f]*)\]\n/.exec(prompt)?.[1] ?? '') : undefined)

/** The tool as registered: the aliases to pick from, each with its label, window and what the person said it is for. */
export function agentTool(pkg: string, aliases: readonly Pick<ModelEntry, 'alias' | 'label' | 'context' | 'use'>[]) {
  const p = agentParams
  return {
    name: AGENT_TOOL,
    description: agentToolDescription(pkg, aliases),
    inputSchema: {
      type: 'object',
      properties: {
        description: { type: 'string', description: p.description },
        prompt: { type: 'string', description: p.prompt },
        model: { type: 'string', enum: aliases.map((m) => m.alias), description: p.model },
        run_in_background: { type: 'boolean', description: p.background },
      },
      required: ['description', 'prompt', 'model'],
    },
    isDeferred: false,
  }
}

export type AgentCall = { readonly description: string; readonly prompt: string; readonly model: string; readonly background: boolean }

/** The call's input, or what is wrong with it. */
export function agentCallOf(e: Readonly<Record<string, unknown>>): AgentCall | undefined {
  const { description, prompt, model, run_in_background } = e
  return typeof prompt === 'string' && prompt.trim() && typeof model === 'string'
    ? { description: typeof description === 'string' && description ? description : model, prompt, model, background: run_in_background === true }
    : undefined
}
