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
import { isString } from '../../lib/shape.ts'

/** The Read tool's text record (design C5): the shape a rewrite must keep. */
export type ReadText = Extract<BuiltinToolResults['Read'], { type: 'text' }>

/** The Read call's arguments as the model gave them: untrusted. */
export type ReadArgs = { readonly file_path?: unknown; readonly offset?: unknown; readonly limit?: unknown; readonly pages?: unknown }

/**
 * A message of the conversation as `$.session.messages({ as: 'api' })` answers it (ApiMessage), as
 * far as the repeat rule reads it: tool_use blocks (id, name, input) and tool_result blocks
 * (tool_use_id, the text the model read, is_error). Measured on 2.1.328: the default rows store a
 * Read's record with its `content` emptied in `-p`, while the api form keeps the text the model read.
 */
export type ApiRow = { readonly content: readonly { readonly type: string; readonly [field: string]: unknown }[] }

/** What the hook answers in place of the tool's result: the record with the pointer as its content. */
export type ReadAnswer = { readonly result: ReadText; readonly context?: readonly string[] }

export type ReadOutcome =
  | { readonly kind: 'pass' }
  | { readonly kind: 'manual' | 'repeat'; readonly answer: ReadAnswer; readonly tokensSaved: number }

const PASS: ReadOutcome = { kind: 'pass' }
/** A conversation's counts before its first pointer (replaced, never changed in place). */
const NO_COUNTS: ReadCounts = { manual: 0, repeat: 0, tokensSaved: 0 }

/** A read of part of the file: an offset, a line limit or a page range was asked for. */
export function isRangedRead(args: ReadArgs): boolean {
  return [args.offset, args.limit, args.pages].some((value) => value != null)
}

/**
 * The text record of a Read that answered the whole file, from what `next(e)` resolved: not a
 * refusal or an error, a `text` result starting at line 1 and not cut at the token cap.
 */
export function wholeText(res: unknown): ReadText | undefined {
  // Untrusted: any field may be missing or of another type (a property of a text or a number reads as undefined).
  const r = res as { deny?: unknown; isError?: unknown; result?: { type?: unknown; file?: Partial<ReadText['file']> | null } } | null | undefined
  const file = r?.result?.file
  if (r?.deny !== undefined || r?.isError !== undefined || r?.result?.type !== 'text' || typeof file?.content !== 'string' || file.startLine !== 1 || file.truncatedByTokenCap === true) return
  return r.result as ReadText
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
  return { result: { ...record, file: { ...record.file, content: pointer, numLines: 1 } }, ...(context && { context }) }
}

/** A tool_result block's text as the model read it: the string, or its text blocks joined. */
function resultText(content: unknown): string | undefined {
  if (isString(content)) return content
  if (!Array.isArray(content)) return
  return content.map((block: { type?: unknown; text?: unknown }) => (block?.type === 'text' && isString(block.text) ? block.text : '')).join('\n')
}

/**
 * wsflow §5.3 `isRepeat`, over the api form of the conversation: among the earlier answered Reads
 * of this file (by the spelling each call gave, matched against `paths`; the call itself excluded;
 * errors left out), exactly one result reads as `fresh` (the text the model reads for this call)
 * and none holds the pointer. So full → pointer → full: the read after a pointer returns the file
 * again, and a result no longer in view (compacted, cleared, rewound) is no repeat.
 */
export function isRepeat(messages: readonly ApiRow[], paths: ReadonlySet<string>, fresh: string, pointer: string, self?: string): boolean {
  const blocks = messages.flatMap((message) => message.content)
  const ids = new Set<unknown>()
  for (const block of blocks) {
    if (block.type !== 'tool_use' || block.name !== READ_TOOL || typeof block.id !== 'string' || block.id === self) continue
    const spelled = (block.input as { file_path?: unknown } | undefined)?.file_path
    if (isString(spelled) && paths.has(normalizePath(spelled))) ids.add(block.id)
  }
  let full = 0
  let pointers = 0
  for (const block of blocks) {
    if (block.type !== 'tool_result' || !ids.has(block.tool_use_id) || block.is_error === true) continue
    const text = resultText(block.content)
    if (text === fresh) full++
    else if (text?.includes(pointer)) pointers++
  }
  return full === 1 && pointers === 0
}

export type ReadEdges = {
  /** Where a path lands (`$.fs.stat(path, { resolve: true }).realPath`); undefined when it leads nowhere. Asked only of a copy of the manual read under another name. */
  realPath(path: string): Promise<string | undefined>
  /** The main conversation in api form (`$.session.messages({ as: 'api' })`). */
  messages(): Promise<readonly ApiRow[]>
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
  let counts = NO_COUNTS
  let countsSession: number | undefined

  async function examine(edges: ReadEdges, call: ReadCall): Promise<ReadOutcome> {
    const before = snapshot.carried()
    const manual = before.manual
    if (call.agentId !== undefined || !manual || isRangedRead(call.args)) return PASS
    const record = wholeText(call.res)
    if (!record) return PASS
    // The hints hold since the last reset, the counts for the conversation.
    if (hintsGeneration !== before.generation) {
      hints.clear()
      hintsGeneration = before.generation
    }
    if (countsSession !== before.session) {
      counts = NO_COUNTS
      countsSession = before.session
    }
    /** A reset landed while the Read was examined: what it was compared with is gone. */
    const reset = () => snapshot.carried().generation !== before.generation
    const answered = (kind: 'manual' | 'repeat', pointer: string): ReadOutcome => {
      const saved = tokensSaved(record.file.content, pointer)
      counts = { ...counts, [kind]: counts[kind] + 1, tokensSaved: counts.tokensSaved + saved }
      return { kind, answer: pointerAnswer(call.res, record, pointer), tokensSaved: saved }
    }
    const spelled = isString(call.args.file_path) ? call.args.file_path : record.file.filePath
    const path = normalizePath(spelled)
    const manualPath = normalizePath(manual.realPath)
    const content = record.file.content
    const hash = await contentHash(content)
    if (reset()) return PASS
    // A hash is text: a prompt that carries no manual (null) is no copy of anything.
    const isCopy = hash === manual.hash
    // Known by its spelling, with no file system call per Read: the manual's own real path is the
    // manual, a path under its folder is that file. A stat only for a copy of the manual read under
    // another name: a link to it is the manual.
    const landed = isCopy && path !== manualPath ? await edges.realPath(spelled) : spelled
    if (reset()) return PASS
    const isManual = !!landed && normalizePath(landed) === manualPath
    if (isManual && isCopy) {
      const pointer = s.manualPointer(config.file, config.pkg)
      if (tokensSaved(content, pointer) > 0) return answered('manual', pointer)
    }
    if (!isManual && !isUnder(manual.folder, path)) return PASS
    const real = isManual ? manualPath : path
    const seen = hints.get(real) === hash
    hints.set(real, hash)
    if (!seen) return PASS
    // The text the model reads for this call (core's `text`): what an earlier result in view is compared with.
    const fresh = (call.res as { text?: unknown }).text
    if (typeof fresh !== 'string') return PASS
    const rows = await edges.messages().catch((err: unknown) => void edges.log(s.conversationUnread(messageOf(err))))
    if (!rows || reset()) return PASS
    const pointer = s.repeatPointer(headings(content))
    if (tokensSaved(content, pointer) <= 0 || !isRepeat(rows, new Set([path, real]), fresh, pointer, call.toolUseId)) return PASS
    return answered('repeat', pointer)
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
      return countsSession === session ? counts : NO_COUNTS
    },
  }
}
