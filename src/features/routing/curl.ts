// curl as the transport (§2.3, §3.3): the config it reads from stdin (`curl -q -sS -N -i -K -`),
// its version, its `-i` output read as it streams, the retry rule and its exit codes.
import { CURL_JSON_SINCE, JSON_PIECE_BYTES, RETRY_AFTER_CAP_MS, RETRY_BASE_DELAY_MS, RETRY_BUDGET_RESERVE_MS, RETRY_LIMIT } from './constants.ts'
import { CURL_EXIT_REASONS, curlExitUnknown } from './strings.ts'

// ---- The config ----

/**
 * A value inside double quotes, as curl's config reader unquotes it: a backslash takes the next
 * character literally except `t`, `n`, `r` and `v`, which stand for tab, newline, carriage return
 * and vertical tab. So backslash and quote are escaped, and those four controls are escaped because
 * a raw newline or carriage return would end the line; every other character, other controls and
 * all of UTF-8 included, passes as it is. NUL cannot be written at all (curl's lines are C strings);
 * JSON text never holds one raw, and header values and keys are refused at their source.
 */
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '"': '\\"', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\v': '\\v' }

function escapeCodePoint(cp: string): string {
  if (cp === '\0') throw new RangeError('a curl config value cannot hold NUL')
  return ESCAPES[cp] ?? cp
}

export function escapeConfigValue(text: string): string {
  return Array.from(text, escapeCodePoint).join('')
}

const utf8Bytes = (cp: string): number => {
  const code = cp.codePointAt(0)!
  return code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4
}

/**
 * The body as escaped `json` pieces, each at most `maxBytes` of UTF-8, split only between code
 * points (never inside a surrogate pair or an escape). A piece never begins with `@`: curl reads
 * `json = "@name"` as "send the file named name", so an `@` stays with the character before it (a
 * piece runs past `maxBytes` only on a run of `@` longer than a piece). JSON never begins with `@`.
 */
export function jsonPieces(body: string, maxBytes: number = JSON_PIECE_BYTES): string[] {
  if (body.startsWith('@')) throw new RangeError('a json body cannot begin with @')
  const pieces: string[] = []
  let piece: string[] = []
  let pieceBytes = 0
  let group = ''
  let groupBytes = 0
  const close = () => {
    if (pieceBytes && pieceBytes + groupBytes > maxBytes) {
      pieces.push(piece.join(''))
      piece = []
      pieceBytes = 0
    }
    piece.push(group)
    pieceBytes += groupBytes
  }
  for (const cp of body) {
    const escaped = escapeCodePoint(cp)
    if (cp !== '@' && group) {
      close()
      group = ''
      groupBytes = 0
    }
    group += escaped
    groupBytes += escaped === cp ? utf8Bytes(cp) : escaped.length
  }
  if (group) close()
  if (piece.length) pieces.push(piece.join(''))
  return pieces
}

/** How the body rides: `json` pieces (curl ≥ 7.82), or a file the caller wrote, for older curls. */
export type BodyMode = { readonly kind: 'json' } | { readonly kind: 'file'; readonly path: string }

export type CurlRequest = { readonly url: string; readonly headers: Readonly<Record<string, string>>; readonly body: string }

/** The whole config text. `Expect:` stops curl's `100-continue` wait on a large body. */
export function curlConfig(request: CurlRequest, mode: BodyMode): string {
  const line = (option: string, value: string) => `${option} = "${escapeConfigValue(value)}"\n`
  const headers = Object.entries(request.headers).map(([name, value]) => line('header', `${name}: ${value}`))
  const body = mode.kind === 'json' ? jsonPieces(request.body).map((piece) => `json = "${piece}"\n`) : [line('data-binary', `@${mode.path}`)]
  return [line('url', request.url), ...headers, line('header', 'Expect:'), ...body].join('')
}

// ---- The version ----

export type CurlVersion = { readonly major: number; readonly minor: number; readonly patch: number; readonly json: boolean }

/** `curl --version`'s first line; undefined when it is not curl's. */
export function parseCurlVersion(text: string): CurlVersion | undefined {
  const match = /^curl (\d+)\.(\d+)(?:\.(\d+))?/m.exec(text)
  if (!match) return
  const [major, minor, patch] = match.slice(1).map((n) => Number(n ?? 0)) as [number, number, number]
  const json = major > CURL_JSON_SINCE.major || (major === CURL_JSON_SINCE.major && minor >= CURL_JSON_SINCE.minor)
  return { major, minor, patch, json }
}

// ---- The output of `-i` ----

export type CurlHead = { readonly status: number; readonly headers: Readonly<Record<string, string>> }
export type CurlOutput = { readonly kind: 'head'; readonly head: CurlHead } | { readonly kind: 'body'; readonly text: string }

/** A block curl prints before the real answer: an informational status (100 Continue, 103) or a proxy's tunnel. */
const isInterim = (status: number, statusLine: string) => (status >= 100 && status < 200) || /^HTTP\/\S+ 200 Connection established/i.test(statusLine)

function parseHead(block: string): CurlHead & { readonly statusLine: string } {
  const [statusLine = '', ...lines] = block.split(/\r?\n/)
  const status = Number(/^HTTP\/\S+ (\d{3})/.exec(statusLine)?.[1] ?? 0)
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    if (colon <= 0) continue
    const name = line.slice(0, colon).trim().toLowerCase()
    const value = line.slice(colon + 1).trim()
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`
  }
  return { status, headers, statusLine }
}

/** Fed curl's stdout pieces: the real answer's head once it is whole, then the body text as it comes. */
export function createCurlReader() {
  let head = ''
  let inBody = false
  return {
    push(piece: string): CurlOutput[] {
      if (inBody) return piece ? [{ kind: 'body', text: piece }] : []
      const scanFrom = Math.max(0, head.length - 3)
      head += piece
      const out: CurlOutput[] = []
      for (let from = scanFrom; ; ) {
        // The first blank line, CRLF or LF (at one place only one of them can start).
        const blank = /\r\n\r\n|\n\n/.exec(head.slice(from))
        if (!blank) return out
        const end = from + blank.index + blank[0].length
        const parsed = parseHead(head.slice(0, end))
        const rest = head.slice(end)
        head = rest
        from = 0
        if (isInterim(parsed.status, parsed.statusLine)) continue
        inBody = true
        out.push({ kind: 'head', head: { status: parsed.status, headers: parsed.headers } })
        if (rest) out.push({ kind: 'body', text: rest })
        head = ''
        return out
      }
    },
  }
}

// ---- Retries ----

/** `retry-after` in milliseconds: whole seconds, or an HTTP date against `nowMs`; undefined when it is neither. */
export function retryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  // An HTTP date names its day and month; without letters, Date.parse would take `-1` for a year.
  const at = /[a-z]/i.test(trimmed) ? Date.parse(trimmed) : NaN
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs)
}

export type Attempt = {
  /** Retries already made for this request. */
  readonly retries: number
  /** The answer's status, when one came. */
  readonly status?: number
  /** curl's exit code, when it exited without an answer. */
  readonly curlExit?: number
  readonly retryAfterMs?: number
  /** Whether any chunk has been yielded: after output a retry would repeat it. */
  readonly outputSent: boolean
  /** The hook's remaining budget (`next.budget.remainingMs`). */
  readonly remainingMs: number
}

/** Retried: rate limits, server errors, and curl's "could not connect" (7) and "empty reply" (52). */
const isRetryable = ({ status = 0, curlExit }: Attempt) => status === 429 || (status >= 500 && status <= 599) || curlExit === 7 || curlExit === 52

/** Whether to try again and after how long: only before any output, up to RETRY_LIMIT times, only if the budget allows the sleep. */
export function retryPlan(a: Attempt): { readonly delayMs: number } | 'stop' {
  if (a.outputSent || a.retries >= RETRY_LIMIT || !isRetryable(a)) return 'stop'
  const delayMs = Math.min(a.retryAfterMs ?? RETRY_BASE_DELAY_MS * 2 ** a.retries, RETRY_AFTER_CAP_MS)
  return delayMs + RETRY_BUDGET_RESERVE_MS <= a.remainingMs ? { delayMs } : 'stop'
}

/** curl's exit code in words. */
export function curlReason(code: number): string {
  return CURL_EXIT_REASONS[code] ?? curlExitUnknown(code)
}
