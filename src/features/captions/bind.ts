// The captions feature's `$` binder: the conversation it mirrors, the side model call, the drawing.
import { bindCommonEdges, type CommonEdges } from '../../lib/bind.ts'
import type { ApiMessage, Elements, EngineInterface, ModelCompleteRequest, ModelCompleteResult, RenderInput, RenderSurface } from 'claude-code'

export type CaptionsPort = Pick<CommonEdges, 'every'> & {
  /** The main conversation in Messages API form, as the next request is built from it. */
  messages(): Promise<readonly ApiMessage[]>
  /** A side call to a model (`$.model.complete`): what the provider did never rejects it. */
  complete(request: ModelCompleteRequest): Promise<ModelCompleteResult>
  /** Asks every ui.render site to draw again: a hook's own drawing state changed. */
  redraw(): void
  /** The element table of the surface a ui.render event draws on. */
  elements(e: RenderInput): Elements[RenderSurface]
}

export function bindCaptions($: EngineInterface): CaptionsPort {
  return {
    ...bindCommonEdges($),
    // Without an agentId the answer is always the messages; anything else reads as none.
    messages: async () => {
      const messages = await $.session.messages({ as: 'api' })
      return Array.isArray(messages) ? messages : []
    },
    complete: (request) => $.model.complete(request),
  }
}
