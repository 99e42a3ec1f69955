// Why a routed request failed, as plain data, and the one visible line each failure becomes (§4).
import { MESSAGE_CAP, SAMPLE_CAP } from './constants.ts'
import { curlReason } from './curl.ts'
import { isRecord, isString } from '../../lib/shape.ts'
import { curlFailed, modelTried, providerAnswered, stalled, stepFailed, streamError, unfinishedStream, unreadableStream } from './strings.ts'

export type RouteFailure =
  /** A non-2xx answer, with its body. */
  | { readonly kind: 'status'; readonly status: number; readonly body: string }
  /** An error object inside a stream that had begun. */
  | { readonly kind: 'stream-error'; readonly message: string }
  /** A stream that ended cleanly without a finish reason or its end marker: cut, not finished. */
  | { readonly kind: 'unfinished' }
  /** A stream event that is not the JSON its format promises. */
  | { readonly kind: 'unreadable'; readonly sample: string }
  /** curl exited non-zero, with its stderr. */
  | { readonly kind: 'curl'; readonly code: number; readonly stderr: string }
  /** No byte arrived within the idle timeout. */
  | { readonly kind: 'stall'; readonly idleMs: number }
  /** Anything else the step's `.catch` meets. */
  | { readonly kind: 'other'; readonly reason: string }

const firstLine = (text: string) => (text.split(/\r?\n/).find((line) => line.trim()) ?? '').trim()
const capped = (text: string, cap: number) => (text.length > cap ? `${text.slice(0, cap)}…` : text)

/**
 * The message in a parsed error body: `{error: {message}}` (OpenAI, Anthropic and most), Gemini's list
 * of one such, `{message}` (Mistral, Cerebras, an older vLLM), Mistral's 422 `{message: {detail: [{loc,
 * msg}]}}`, xAI's `{error: "<text>"}`; with what the model tried where a provider refused its call
 * (Groq's `failed_generation`: RULES.md Q3).
 */
export function messageIn(value: unknown): string | undefined {
  if (isString(value)) return value
  if (Array.isArray(value)) return messageIn(value[0])
  if (!isRecord(value)) return
  const text = messageIn(value.error) ?? messageIn(value.message) ?? messageIn(value.detail) ?? (isString(value.msg) ? `${[value.loc].flat().join('.')}: ${value.msg}` : undefined)
  return isString(value.failed_generation) ? modelTried(text ?? '', value.failed_generation.replace(/\s+/g, ' ').trim()) : text
}

/** An error object's message (messageIn), or the object itself as JSON. */
export const errorMessage = (error: unknown): string => messageIn(error) || JSON.stringify(error)

/** The message an error body carries (messageIn), an HTML page's title, or the text itself; its first line. */
export function errorMessageOf(body: string): string {
  let message: string
  try {
    message = messageIn(JSON.parse(body)) ?? body
  } catch {
    message = /<title>([^<]*)<\/title>/i.exec(body)?.[1] ?? body
  }
  return capped(firstLine(message), MESSAGE_CAP)
}

export const sampleOf = (data: string) => capped(data.trim(), SAMPLE_CAP)

/** What names the failing route in the line. */
export type FailureRoute = { readonly label: string; readonly provider: { readonly id: string } }

/** The visible line for a failure, passed through the redactor so no secret in a provider's text or curl's stderr shows. */
export function failureText(pkg: string, route: FailureRoute, failure: RouteFailure, redact: (text: string) => string): string {
  const { label } = route
  const provider = route.provider.id
  return redact((() => {
    switch (failure.kind) {
      case 'status':
        return providerAnswered(pkg, label, provider, failure.status, errorMessageOf(failure.body))
      case 'stream-error':
        return stepFailed(pkg, label, streamError(provider, capped(firstLine(failure.message), MESSAGE_CAP)))
      case 'unfinished':
        return stepFailed(pkg, label, unfinishedStream(provider))
      case 'unreadable':
        return stepFailed(pkg, label, unreadableStream(provider, failure.sample))
      case 'curl':
        return stepFailed(pkg, label, curlFailed(failure.code, curlReason(failure.code), firstLine(failure.stderr)))
      case 'stall':
        return stalled(pkg, label, failure.idleMs)
      case 'other':
        return stepFailed(pkg, label, failure.reason)
    }
  })())
}
