// Recall (issue 22): the session's own transcript, searched where the engine keeps it, read in byte
// ranges (never whole), each line tested with a cheap raw-text probe before it is parsed. Pure: the
// transcript comes through edges.
import { RECALL_BUDGET_BYTES, RECALL_CHUNK_BYTES, RECALL_LIMIT_DEFAULT, RECALL_LIMIT_MAX, RECALL_QUERY_MAX, STOP_WORDS } from './constants.ts'
import { byteLength } from '../../lib/text.ts'
import { parseJson, isString } from '../../lib/shape.ts'
import { namedImage, RECALL_HEAD, RECALL_ONLY_STOP_WORDS, RECALL_TOO_LONG, recallHead, recallRow, WHO_MODEL, WHO_PERSON, WHO_TOOL } from './strings.ts'

export type RecallEdges = {
  /** This session's transcript file (a subagent's call included: the main conversation's) and its size. */
  transcript(): Promise<{ path: string; size: number }>
  /** A byte range as text: a cut character reads as U+FFFD at that edge. */
  readRange(path: string, offset: number, length: number): Promise<string>
}

type Term = { probe: string; match: RegExp }
type Found = { at: unknown; who: string; text: string; held: number[]; seq: number }
type Block = { type?: string; text?: unknown; name?: string; input?: unknown; content?: unknown; source?: { media_type?: unknown } }

const WORD = /[\p{L}\p{N}_]+/gu
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
/** A user or assistant row, told from the engine's other rows (attachments, request records) before any parse. */
const MESSAGE_ROW = /"type":"(?:user|assistant)"/
/** Rows that are recall's own answers, or the engine's echo of a slash command (the verb's own line among them). */
const OWN_ROW = new RegExp(`^(?:<command-|<local-command-|${escape(RECALL_HEAD)})`)

/**
 * A word or phrase: whole words in any case, a phrase's words in order with any spacing between;
 * probed in the raw line by its longest word (a word's letters are never escaped in JSON).
 */
function termOf(text: string): Term {
  return {
    probe: escape((text.match(WORD) ?? [text]).reduce((a, b) => (b.length > a.length ? b : a))),
    match: new RegExp(`(?<![\\p{L}\\p{N}_])${text.split(/\s+/).map(escape).join('\\s+')}(?![\\p{L}\\p{N}_])`, 'iu'),
  }
}

/** The query's terms: its "phrases" and its words less the stop words; or why it is refused. */
export function parseQuery(query: string): Term[] | string {
  if (query.length > RECALL_QUERY_MAX) return RECALL_TOO_LONG
  const terms = new Map<string, Term>()
  for (const [word, phrase] of query.matchAll(/"([^"]*\S[^"]*)"|[\p{L}\p{N}_]+/gu)) {
    const text = phrase?.trim() ?? word
    if (phrase || !STOP_WORDS.has(word.toLowerCase())) terms.set(text.toLowerCase(), termOf(text))
  }
  return terms.size ? [...terms.values()] : RECALL_ONLY_STOP_WORDS
}

/** What a row's content says, as text: an image and a result over the engine's size cap are named, not inlined. */
function textOf(content: unknown, tool: string): string {
  // The engine's own words for a result over its cap name the file it saved; its preview is left out.
  if (isString(content)) return content.startsWith('<persisted-output>') ? content.split('\nPreview')[0]! : content
  if (!Array.isArray(content)) return ''
  return content.map((b: Block) =>
    b.type === 'image' ? namedImage(b.source?.media_type)
      : b.type === 'tool_use' ? (b.name === tool ? '' : `${b.name} ${JSON.stringify(b.input)}`)
        : textOf(b.text ?? b.content, tool)).filter(Boolean).join('\n')
}

/** A transcript line as a row to search: null when it is none (not a message, recall's own), undefined when damaged. */
function rowOf(line: string, tool: string): Pick<Found, 'at' | 'who' | 'text'> | null | undefined {
  if (!MESSAGE_ROW.test(line)) return null
  const row = parseJson(line) as { message?: { content?: unknown }; isMeta?: unknown; isCompactSummary?: unknown; timestamp?: unknown; type?: unknown } | null | undefined
  if (row === undefined) return
  // A summary restates what its rows said, and a meta row is the engine's, not the conversation's.
  if (!row?.message || row.isMeta || row.isCompactSummary) return null
  const text = textOf(row.message.content, tool)
  if (OWN_ROW.test(text)) return null
  return { at: row.timestamp, who: row.type === 'assistant' ? WHO_MODEL : line.includes('"type":"tool_result"') ? WHO_TOOL : WHO_PERSON, text }
}

/** At most `bytes` of the text from a little before `at`, the cut marked. */
function clip(text: string, at: number, bytes: number): string {
  if (byteLength(text) <= bytes) return text
  const kept = new TextEncoder().encode(text.slice(Math.max(0, at - (bytes >> 2)))).slice(0, bytes - 6)
  return `…${new TextDecoder().decode(kept).replace(/\uFFFD$/, '')}…`
}

/**
 * The best excerpts of the session's transcript for the query, ranked by the sum of each held term's
 * rarity, log(1 + matching rows / rows holding it): more terms and rarer ones first, the newest among
 * equals. Of rows holding the same terms only the newest `limit` can be picked: only they are kept.
 */
export async function recall(edges: RecallEdges, query: string, limit: unknown, tool: string, chunk = RECALL_CHUNK_BYTES): Promise<string> {
  const terms = parseQuery(query)
  if (isString(terms)) return terms
  const wanted = typeof limit === 'number' && limit >= 1 ? Math.min(limit, RECALL_LIMIT_MAX) : RECALL_LIMIT_DEFAULT
  const { path, size } = await edges.transcript()
  const probe = new RegExp(terms.map((t) => t.probe).join('|'), 'gi')
  const holding = terms.map(() => 0)
  const kept = new Map<string, Found[]>()
  let damaged = 0
  let seq = 0
  /** Searches the whole lines of `block` from `from` on; a hit in an unended last line is left to the next range. */
  const scan = (block: string, from: number) => {
    probe.lastIndex = from
    for (let hit; (hit = probe.exec(block)) && (probe.lastIndex = block.indexOf('\n', hit.index)) >= 0; ) {
      const row = rowOf(block.slice(block.lastIndexOf('\n', hit.index) + 1, probe.lastIndex), tool)
      if (row === undefined) damaged++
      const held = row ? terms.flatMap((t, i) => (t.match.test(row.text) ? [i] : [])) : []
      if (!held.length) continue
      held.forEach((i) => holding[i]!++)
      const set = held.join()
      kept.set(set, [...(kept.get(set) ?? []), { ...row!, held, seq: seq++ }].slice(-wanted))
    }
  }
  let carry = ''
  for (let at = 0; at < size; ) {
    let length = Math.min(chunk, size - at)
    let text
    // A character the range's end cut (UTF-8 takes at most 4 bytes) is left whole to the next range.
    while ((text = await edges.readRange(path, at, length)).endsWith('\uFFFD') && at + length < size && length > chunk - 3) length--
    at += length
    // The range is searched where it lies (measured: joining each to the last one's unended line cost as
    // much as the reads); only the row that straddles the two is joined. At the end, an unended line is
    // a row the engine is still writing.
    const first = text.indexOf('\n') + 1
    if (!first) carry += text
    else {
      scan(carry + text.slice(0, first), 0)
      scan(text, first)
      carry = text.slice(text.lastIndexOf('\n') + 1)
    }
  }
  const score = (row: Found) => row.held.reduce((sum, i) => sum + Math.log(1 + seq / holding[i]!), 0)
  const picked = [...kept.values()].flat().sort((a, b) => score(b) - score(a) || b.seq - a.seq).slice(0, wanted)
  const share = Math.floor(RECALL_BUDGET_BYTES / picked.length)
  // Each excerpt is cut around its first hit.
  return [
    recallHead(picked.length, seq, damaged),
    ...picked.map((row) => `${recallRow(row.at, row.who)}\n${clip(row.text, row.text.search(terms[row.held[0]!]!.match), share)}`),
  ].join('\n\n')
}
