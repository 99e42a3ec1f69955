// An engine request for an alias, as the provider's request and the decoder of its answer (§3.4):
// `openai-chat` through the Chat Completions codec, `anthropic-messages` through the rewrite of the
// engine's own request (redirectRequest). Both ride on curl, so one transport, one retry rule and one
// set of failure lines serve both (the engine's own fetch of a redirected request would show its own
// errors and retry on its own; measured slower to first token too: routing.md §2.3, +53–95 ms vs +30–39).
import { createAnthropicDecoder, redirectRequest } from './anthropic.ts'
import type { Route } from './config.ts'
import { OPENAI_CHAT_PATH, RESPONSES_PATH } from './constants.ts'
import type { CurlRequest } from './curl.ts'
import { estimateTokens } from './estimate.ts'
import { dialectOf } from './dialect.ts'
import { createOpenAiDecoder, openAiTarget, toOpenAiRequest } from './openai.ts'
import { NO_REPLAY, type ReplayLookup } from './replay.ts'
import { createResponsesDecoder, toResponsesRequest } from './responses.ts'
import type { StepContext } from './step.ts'
import type { Decoder } from './transport.ts'
import { parseAnthropicRequest, type AnthropicRequest } from './wire.ts'

export type Exchange = {
  readonly request: CurlRequest
  makeDecoder(): Decoder
  /** The engine asked for a stream (a loop, the summarizer) or one JSON message (`$.model.complete`, the probe). */
  readonly engineStreams: boolean
  readonly body: AnthropicRequest
}

export type ExchangeInput = {
  readonly pkg: string
  readonly route: Route
  /** The engine's request as `http.fetch` carried it. */
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  readonly key: string | undefined
  readonly mintId: () => string
  /** What the route's earlier steps send back (replay.ts). */
  readonly replay?: ReplayLookup
}

/** The OpenAI APIs' codecs: the path under the provider's base URL, the request, the decoder of its answer. */
const OPENAI_CODECS = {
  'openai-chat': { path: OPENAI_CHAT_PATH, encode: toOpenAiRequest, decoder: createOpenAiDecoder },
  'openai-responses': { path: RESPONSES_PATH, encode: toResponsesRequest, decoder: createResponsesDecoder },
}

/** The provider's request, or undefined when the engine's body is no Messages request. */
export function exchangeFor(input: ExchangeInput): Exchange | undefined {
  const body = parseAnthropicRequest(input.body)
  if (!body) return
  const { route, pkg, key } = input
  const ctx: StepContext = { pkg, label: route.label, alias: body.model, mintId: input.mintId, estimatedInput: estimateTokens(body) }
  const exchange = (request: CurlRequest, makeDecoder: Exchange['makeDecoder']): Exchange => ({ request, makeDecoder, engineStreams: body.stream === true, body })
  const codec = OPENAI_CODECS[route.provider.api as keyof typeof OPENAI_CODECS]
  if (codec) {
    const dialect = dialectOf(route.provider, route.model)
    const { request, toolName } = codec.encode(body, { route, pkg, replay: input.replay ?? NO_REPLAY, ...dialect })
    return exchange({ ...openAiTarget(route.provider, key, codec.path), body: JSON.stringify(request) }, () => codec.decoder({ ...ctx, toolName }, dialect.behaviours))
  }
  const redirected = redirectRequest({ url: input.url, headers: input.headers, body: input.body }, route, key, pkg, input.replay)
  if (!redirected) return
  // Always streamed from the provider: one decoder for every answer; a buffered one is encoded back.
  const streamed = { ...(JSON.parse(redirected.body) as Record<string, unknown>), stream: true }
  return exchange({ url: redirected.url, headers: { ...redirected.headers, accept: 'text/event-stream' }, body: JSON.stringify(streamed) }, () => createAnthropicDecoder(ctx))
}
