// What a routed step must send back with its tool calls on the next request (issue 18): DeepSeek's
// `reasoning_content`, OpenRouter's `reasoning_details`, Gemini's thought signatures, the Responses API's
// reasoning items, an Anthropic-compatible provider's signed thinking. The engine records none of it (a
// hook's thinking is shown, not recorded), so keel keeps it, by the step's tool-use ids, for the provider
// and model that made it only: in memory, and in the store under the session, so a `--resume` (the same
// session id, measured) and a compaction (the kept messages keep their ids) still find it.
import type { Json } from './wire.ts'
import { toUndefined } from '../../lib/message.ts'

export type Replay = {
  /** `<provider id> <model>`: what it is sent back to, and nowhere else. */
  readonly origin: string
  /** Fields the step's assistant message carries (`reasoning_content`, `reasoning_details`). */
  readonly fields?: Json
  /** Per tool-use id, fields its call carries (`extra_content`; `call_id`, the provider's own id). */
  readonly calls?: Readonly<Record<string, Json>>
  /** What goes ahead of the message's own content: thinking blocks, Responses output items. */
  readonly items?: readonly unknown[]
}

/** The record of the step that made any of these tool calls. */
export type ReplayLookup = (ids: readonly string[]) => Replay | undefined

/** No step to send anything back. */
export const NO_REPLAY: ReplayLookup = toUndefined

/** One step's record, stored: its tool-use ids and what they send back. */
type Entry = readonly [ids: readonly string[], replay: Replay]

export type ReplayEdges = {
  /** The session's stored entries (anything else reads as none). */
  load(session: string): Promise<unknown>
  save(session: string, entries: readonly Entry[]): Promise<void>
}

/** The most steps kept per session, and the most JSON they may take: the store holds 4 MiB a key. */
export const REPLAY_STEPS = 200
export const REPLAY_BYTES = 2 * 1024 * 1024

export function createReplays(edges: ReplayEdges) {
  let session: string | undefined
  let entries: Entry[] = []
  let loading: Promise<void> | undefined

  /** The session's entries, read once per session (a `/clear` or `/resume` names another). */
  function ready(id: string): Promise<void> {
    if (session !== id) {
      session = id
      entries = []
      loading = edges.load(id).then(
        (stored) => {
          if (session === id && Array.isArray(stored)) entries = [...(stored as Entry[]), ...entries]
        },
        toUndefined,
      )
    }
    return loading!
  }

  return {
    /** The session's records made by `origin`, as a lookup: the record of the step that made any of these calls. */
    async lookup(id: string, origin: string): Promise<ReplayLookup> {
      await ready(id)
      const mine = entries.filter(([, replay]) => replay.origin === origin)
      return (ids) => mine.find(([kept]) => ids.some((call) => kept.includes(call)))?.[1]
    },
    /** Keeps a step's record; the oldest go past REPLAY_STEPS or REPLAY_BYTES. */
    async keep(id: string, ids: readonly string[], replay: Replay): Promise<void> {
      await ready(id)
      entries.push([ids, replay])
      entries = entries.slice(-REPLAY_STEPS)
      while (entries.length > 1 && JSON.stringify(entries).length > REPLAY_BYTES) entries.shift()
      await edges.save(id, entries)
    },
  }
}

export type Replays = ReturnType<typeof createReplays>
