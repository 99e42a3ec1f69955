// What routing reads of an engine request at `http.fetch` before it decides anything (§3.2): its
// path, its body text, and the few fields that tell a loop's request from the `/model` probe, a token
// count or a structured side call. Kept cheap: a native request is let through on a text search.
import type { Auth } from './config.ts'
import { keySourceCommand, keySourceEnv, keySourceFile, KEY_SOURCE_NONE } from './strings.ts'
import { WEB_SEARCH_TOOL } from './constants.ts'
import { parseAnthropicRequest } from './wire.ts'

const MESSAGES_PATH = /^\/v1\/messages(\/count_tokens)?$/

/** The URL's path, or '' when it does not parse. */
export function pathOf(url: string): string {
  try {
    return new URL(url).pathname
  } catch {
    return ''
  }
}

export const isMessagesPath = (path: string) => MESSAGES_PATH.test(path)

/** A body as text: routing reads JSON text only (bytes that are not UTF-8 are no Messages request). */
export const bodyText = (body: unknown): string | undefined => (typeof body === 'string' ? body : undefined)

export type RequestSummary = {
  readonly model: string
  readonly stream: boolean
  readonly maxTokens: number | undefined
  readonly tools: number
  readonly structured: boolean
  /** WebSearch's inner request: Anthropic's server-side search its one tool (measured, NOTES §13.2), which no provider runs. */
  readonly webSearch: boolean
}

export function summaryOf(text: string): RequestSummary | undefined {
  const body = parseAnthropicRequest(text)
  if (!body) return
  return {
    model: body.model,
    stream: body.stream === true,
    maxTokens: body.max_tokens,
    tools: body.tools?.length ?? 0,
    structured: body.output_config?.format !== undefined,
    webSearch: body.tools?.length === 1 && body.tools[0]!.name === WEB_SEARCH_TOOL,
  }
}

/** The engine's `/model` check of a new model: one token, no tools, not streamed (measured, NOTES §2). */
export const isProbe = (s: RequestSummary) => s.maxTokens === 1 && s.tools === 0 && !s.stream

/** A structured side call (the session title, NOTES §8): never a loop's step, so never a capture. */
export const isStructured = (s: RequestSummary) => s.structured

/** Where a provider's key comes from, in words for status and the trust answer: never the key. */
export function sourceOfKey(auth: Auth): string {
  const where =
    auth === 'none' ? KEY_SOURCE_NONE
    : 'file' in auth ? keySourceFile(auth.file)
    : 'env' in auth ? keySourceEnv(auth.env)
    : keySourceCommand(auth.helper[0] ?? '')
  return `key ${where}`
}
