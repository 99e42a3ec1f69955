// Pure text helpers: what a call, a result or a message looks like to the caption model, and how
// its reply is read back. No port, no state.
import { isRecord, isString } from '../../lib/shape.ts'
import { SUBTITLE_CAP, TARGET_FIELDS, TEXT_CAP, TRAFFIC_CAP, FIELD_CAP } from './constants.ts'
import { cutNote, NO_TEXT_OUTPUT } from './strings.ts'

type Json = Record<string, unknown>

export function nonBlank(v: unknown): string | undefined {
  return isString(v) && v.trim() ? v : undefined
}

/** Keeps both ends of a long text: a call's head says what it did, its tail how it ended. */
export function clip(text: string, cap: number = FIELD_CAP): string {
  if (text.length <= cap) return text
  const half = cap / 2
  return `${text.slice(0, half)}\n${cutNote(text.length - cap)}\n${text.slice(-half)}`
}

export function stringify(v: unknown): string {
  if (isString(v)) return v
  try {
    return JSON.stringify(v) ?? ''
  } catch {
    return String(v)
  }
}

/**
 * The file-change digest: an Edit/Write record holds the whole file, so the caption model is sent
 * the head (`edit <path>  +a -r (notes)`) and the hunks instead.
 */
export function fileChange(result: unknown): string | undefined {
  if (!isRecord(result) || typeof result.filePath !== 'string' || !Array.isArray(result.structuredPatch)) return
  const kind = ['create', 'update'].includes(result.type as string) ? result.type : 'edit'
  const hunks = (result.structuredPatch as unknown[]).filter(isRecord).flatMap((hunk) => [
    `@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`,
    ...(Array.isArray(hunk.lines) ? hunk.lines.filter(isString) : []),
  ])
  // A hunk's head opens with `@@`, so only its diff lines are counted.
  const count = (mark: string) => hunks.filter((l) => l.startsWith(mark)).length
  // A created file's record may carry its content and no hunks: every line of it is added.
  const added =
    kind === 'create' && !hunks.length && isString(result.content) && result.content ? result.content.replace(/\n$/, '').split('\n').length : count('+')
  const notes = [result.replaceAll && 'all occurrences', result.userModified && 'user modified', result.staged && 'held for review, file unchanged'].filter(Boolean)
  const head = `${kind} ${result.filePath}  +${added} -${count('-')}${notes.length ? ` (${notes.join(', ')})` : ''}`
  return [head, ...hunks].join('\n')
}

/** The subtitle cut: the first target field's first line, cut in the middle past 60 characters. */
export function inputSubtitle(input: unknown): string {
  const value = TARGET_FIELDS.map((field) => nonBlank((input as Json | null | undefined)?.[field])).find(Boolean)
  const line = (value?.trim().split('\n')[0] ?? '').trim()
  if (line.length <= SUBTITLE_CAP) return line
  const head = Math.floor(SUBTITLE_CAP / 2)
  return `${line.slice(0, head)}…${line.slice(-(SUBTITLE_CAP - head - 1))}`
}

/** Reply parsing: the JSON array between the first `[` and the last `]`, its object items only. */
export function parseReply(text: string): Json[] {
  // Without a `[` before a `]` the slice is empty or a lone bracket, which JSON.parse refuses.
  try {
    const parsed: unknown = JSON.parse(text.slice(text.indexOf('['), text.lastIndexOf(']') + 1))
    return Array.isArray(parsed) ? parsed.filter(isRecord) : []
  } catch {
    return []
  }
}

/** `mcp__plugin_ws_ws__tickets_release` -> `plugin:ws:ws/tickets.release`; anything else unchanged. */
export function displayToolName(tool: string): string {
  return tool.replace(/^mcp__(.+?)__(.+)$/, (_, server: string, name: string) => `${server.replace(/^plugin_([^_]+)_(.+)$/, 'plugin:$1:$2')}/${name.replace('_', '.')}`)
}

/** A tool_result's content as the lead read it. */
export function resultText(content: unknown): string {
  if (!Array.isArray(content)) return stringify(content)
  const texts = content.filter((b): b is { type: 'text'; text: string } => isRecord(b) && b.type === 'text' && isString(b.text)).map((b) => b.text)
  return texts.length ? texts.join('\n') : content.length ? NO_TEXT_OUTPUT : ''
}

export type ApiMessageLike = { role: string; content: readonly unknown[] | string }

/** One message of the mirror: `[role]` and its blocks, each clipped to what a caption needs. */
export function serializeMessage(m: ApiMessageLike): string {
  const blocks = isString(m.content) ? [{ type: 'text', text: m.content }] : m.content
  const body = blocks
    .filter(isRecord)
    .map((b) =>
      b.type === 'text' && isString(b.text) ? clip(b.text, TEXT_CAP)
      : b.type === 'thinking' && nonBlank(b.thinking) ? `(thinking) ${clip(b.thinking as string, TEXT_CAP)}`
      : b.type === 'tool_use' ? `(call ${b.id} ${b.name}) ${clip(stringify(b.input), TRAFFIC_CAP)}`
      : b.type === 'tool_result' ? `(result ${b.tool_use_id}) ${clip(resultText(b.content), TRAFFIC_CAP)}`
      : '',
    )
    .filter(Boolean)
    .join('\n')
  return body ? `[${m.role}]\n${body}` : ''
}

export type SeenCall = { input: string; output: string; bytes: number }

/** The transcript's calls by id: the fallback for a call captured before a reload. */
export function transcriptCalls(api: readonly ApiMessageLike[]): Map<string, SeenCall> {
  const inputs = new Map<string, string>()
  const calls = new Map<string, SeenCall>()
  for (const m of api) {
    if (isString(m.content)) continue
    for (const b of m.content) {
      if (!isRecord(b)) continue
      // A block without a string id is kept under what it has, which no call's id looks up.
      if (b.type === 'tool_use') inputs.set(b.id as string, stringify(b.input))
      if (b.type === 'tool_result') {
        const input = inputs.get(b.tool_use_id as string) ?? ''
        const output = resultText(b.content)
        calls.set(b.tool_use_id as string, { input, output, bytes: input.length + output.length })
      }
    }
  }
  return calls
}
