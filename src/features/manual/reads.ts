// A main-thread Read, after `next(e)` ran the tool (so the engine's file state is current, design
// C5): answered with a one-line pointer when its content is already in front of the model, either
// in the system prompt (the manual's copy) or as an earlier identical result still in view (the
// spec's repeat-read rule, wsflow §5.3 `isRepeat`). Anything else, and any failure, passes whole.
import type { BuiltinToolResults } from 'claude-code'
import { CHARS_PER_TOKEN, READ_TOOL } from './constants.ts'
import { messageOf } from '../../lib/message.ts'
import { isUnder, normalizePath } from './paths.ts'
import { contentHash } from './section.ts'
import type { Snapshot } from './snapshot.ts'
import * as s from './strings.ts'

/** The Read tool's text record (design C5): the shape a rewrite must keep. */
export type ReadText = Extract<BuiltinToolResults['Read'], { type: 'text' }>

/** The Read call's arguments as the model gave them: untrusted. */
export type ReadArgs = { readonly file_path?: unknown; readonly offset?: unknown; readonly limit?: unknown; readonly pages?: unknown }

/** A tool_use of the conversation as `$.session.messages()` rows carry it (ToolUseSummary). */
export type ToolUseRow = {
  readonly tool_use_id: string
  readonly tool: string
  readonly input: Readonly<Record<string, unknown>>
  readonly result?: unknown
  readonly isError?: true
}
/** A row of `$.session.messages()` (SessionMessage), as far as the repeat rule reads it. */
export type ConversationRow = { readonly toolUses?: readonly ToolUseRow[] }

/** What the hook answers in place of the tool's result: the record with the pointer as its content. */
export type ReadAnswer = { readonly result: ReadText; readonly context?: readonly string[] }

export type ReadOutcome =
  | { readonly kind: 'pass' }
  | { readonly kind: 'manual' | 'repeat'; readonly answer: ReadAnswer; readonly tokensSaved: number }

const PASS: ReadOutcome = { kind: 'pass' }

/** A read of part of the file: an offset, a line limit or a page range was asked for. */
export function isRangedRead(args: ReadArgs): boolean {
  return [args.offset, args.limit, args.pages].some((value) => value !== undefined && value !== null)
}

/**
 * The text record of a Read that answered the whole file, from what `next(e)` resolved: not a
 * refusal or an error, a `text` result starting at line 1 and not cut at the token cap.
 */
export function wholeText(res: unknown): ReadText | undefined {
  if (typeof res !== 'object' || res === null) return undefined
  const { deny, isError, result } = res as { deny?: unknown; isError?: unknown; result?: unknown }
  if (deny !== undefined || isError !== undefined || typeof result !== 'object' || result === null) return undefined
  const record = result as { type?: unknown; file?: unknown }
  if (record.type !== 'text' || typeof record.file !== 'object' || record.file === null) return undefined
  const file = record.file as Partial<ReadText['file']>
  if (typeof file.content !== 'string' || file.startLine !== 1 || file.truncatedByTokenCap === true) return undefined
  return result as ReadText
}

/** wsflow §5.3 `headings`: every line `#`, `##` or `###` opens, joined by `; `. */
export function headings(text: string): string {
  const found = text.match(/^#{1,3}\s+.+$/gm)
  return found ? found.join('; ') : s.NO_HEADINGS
}

const tokensOf = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN)

/** The estimate of what the pointer saves: characters over four, of the content less the pointer. */
export const tokensSaved = (content: string, pointer: string) => tokensOf(content.length) - tokensOf(pointer.length)

/** The record with the pointer in place of the content: one line, everything else as the tool made it. */
export function pointerAnswer(res: unknown, record: ReadText, pointer: string): ReadAnswer {
  const context = (res as { context?: readonly string[] }).context
  return { result: { ...record, file: { ...record.file, content: pointer, numLines: 1 } }, ...(context ? { context } : {}) }
}

/**
 * wsflow §5.3 `isRepeat`, over the transcript's rows: among the earlier answered Reads of this file
 * (by any of `paths`, the spelling or the real path; the call itself excluded), exactly one result
 * is the same whole content and none is the pointer. So full → pointer → full: the read after a
 * pointer returns the file again, and a result no longer in view (compacted, cleared) is no repeat.
 */
export function isRepeat(rows: readonly ConversationRow[], paths: ReadonlySet<string>, fresh: string, pointer: string, self?: string): boolean {
  let full = 0
  let pointers = 0
  for (const row of rows) {
    for (const use of row.toolUses ?? []) {
      if (use.tool !== READ_TOOL || use.isError || use.tool_use_id === self) continue
      const record = wholeText({ result: use.result })
      const spelled = typeof use.input.file_path === 'string' ? normalizePath(use.input.file_path) : undefined
      if (!record || !(paths.has(normalizePath(record.file.filePath)) || (spelled !== undefined && paths.has(spelled)))) continue
      if (record.file.content === fresh) full++
      else if (record.file.content === pointer) pointers++
    }
  }
  return full === 1 && pointers === 0
}

export type ReadEdges = {
  /** Where a path lands (`$.fs.stat(path, { resolve: true }).realPath`); undefined when it leads nowhere. */
  realPath(path: string): Promise<string | undefined>
  /** The main conversation's rows (`$.session.messages()`). */
  messages(): Promise<readonly ConversationRow[]>
  log(text: string): void
}

/** One Read as the hook sees it after `next(e)`: who called, the call's id, its arguments, the result. */
export type ReadCall = { readonly agentId?: string; readonly toolUseId?: string; readonly args: ReadArgs; readonly res: unknown }

export type ReadCounts = { readonly manual: number; readonly repeat: number; readonly tokensSaved: number }

export type Reads = ReturnType<typeof createReads>

export function createReads(config: { readonly pkg: string; readonly file: string }, snapshot: Snapshot) {
  /** The last whole content hash per real path under the manual's folder, since the last reset. */
  const hints = new Map<string, string>()
  let hintsGeneration: number | undefined
  let counts = { manual: 0, repeat: 0, tokensSaved: 0 }
  let countsSession: number | undefined

  function sync(generation: number, session: number): void {
    if (hintsGeneration !== generation) {
      hints.clear()
      hintsGeneration = generation
    }
    if (countsSession !== session) {
      counts = { manual: 0, repeat: 0, tokensSaved: 0 }
      countsSession = session
    }
  }

  function answered(kind: 'manual' | 'repeat', res: unknown, record: ReadText, pointer: string): ReadOutcome {
    const saved = tokensSaved(record.file.content, pointer)
    counts = { ...counts, [kind]: counts[kind] + 1, tokensSaved: counts.tokensSaved + saved }
    return { kind, answer: pointerAnswer(res, record, pointer), tokensSaved: saved }
  }

  async function examine(edges: ReadEdges, call: ReadCall): Promise<ReadOutcome> {
    const before = snapshot.carried()
    const manual = before.manual
    if (call.agentId !== undefined || !manual || isRangedRead(call.args)) return PASS
    const record = wholeText(call.res)
    if (!record) return PASS
    sync(before.generation, before.session)
    const spelled = typeof call.args.file_path === 'string' ? call.args.file_path : record.file.filePath
    const landed = await edges.realPath(spelled)
    if (landed === undefined) return PASS
    const real = normalizePath(landed)
    if (!isUnder(manual.folder, real)) return PASS
    const content = record.file.content
    const hash = await contentHash(content)
    if (snapshot.carried().generation !== before.generation) return PASS
    if (real === normalizePath(manual.realPath) && manual.hash !== null && hash === manual.hash) {
      const pointer = s.manualPointer(config.file, config.pkg)
      if (tokensSaved(content, pointer) > 0) return answered('manual', call.res, record, pointer)
    }
    const seen = hints.get(real) === hash
    hints.set(real, hash)
    if (!seen) return PASS
    let rows: readonly ConversationRow[]
    try {
      rows = await edges.messages()
    } catch (err) {
      edges.log(s.conversationUnread(messageOf(err)))
      return PASS
    }
    if (snapshot.carried().generation !== before.generation) return PASS
    const pointer = s.repeatPointer(headings(content))
    if (tokensSaved(content, pointer) <= 0 || !isRepeat(rows, new Set([normalizePath(spelled), real]), content, pointer, call.toolUseId)) return PASS
    return answered('repeat', call.res, record, pointer)
  }

  return {
    /** Never throws: a failure passes the Read whole. */
    async read(edges: ReadEdges, call: ReadCall): Promise<ReadOutcome> {
      try {
        return await examine(edges, call)
      } catch (err) {
        try {
          edges.log(s.readFailed(messageOf(err)))
        } catch {
          // the Read passes whole either way
        }
        return PASS
      }
    },

    /** The pointers answered in this conversation (since its start or /clear) and the tokens they saved. */
    counts(): ReadCounts {
      const { session } = snapshot.carried()
      return countsSession === session ? counts : { manual: 0, repeat: 0, tokensSaved: 0 }
    },
  }
}
