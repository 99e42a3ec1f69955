// Where the mailbox lives, and what the engine's session registry says (NOTES §1 and §6): peers are
// the sessions of one config root (`${CLAUDE_CONFIG_DIR:-$HOME/.claude}`), whose registry holds a
// record per running session, and whose keel home holds the spool every keel package shares.
import { ANY, fits, parseJson, STRING, type Shape } from '../../lib/shape.ts'
import { keelHomeOf } from '../../lib/keel-home.ts'
import { SESSIONS_DIR, SPOOL_DIR } from './constants.ts'
import type { OwnName } from './key.ts'

export const spoolRootOf = (configRoot: string) => `${keelHomeOf(configRoot)}/${SPOOL_DIR}`
export const sessionsDirOf = (configRoot: string) => `${configRoot}/${SESSIONS_DIR}`
export const registryPathOf = (configRoot: string, pid: string) => `${sessionsDirOf(configRoot)}/${pid}.json`

/** The fields of `<config root>/sessions/<pid>.json` the mailbox reads; the others are the engine's. */
export type SessionRecord = { sessionId?: string; name?: string; nameSource?: string; status?: string }

const RECORD_SHAPE: Shape = { 'sessionId?': STRING, 'name?': STRING, 'nameSource?': STRING, 'status?': STRING, '*': ANY }

export function parseSessionRecord(text: string): SessionRecord | undefined {
  const json = parseJson(text)
  return fits(json, RECORD_SHAPE) ? (json as SessionRecord) : undefined
}

/** The sources of a name this build knows; another counts as unknown. */
const NAME_SOURCES: readonly (string | undefined)[] = ['user', 'auto', 'derived'] satisfies OwnName['source'][]

/** The session's own name and its source from its record. */
export function ownNameOf(record: SessionRecord | undefined): OwnName | undefined {
  if (!record?.name) return
  return { name: record.name, source: NAME_SOURCES.includes(record.nameSource) ? (record.nameSource as OwnName['source']) : 'unknown' }
}

/** ListAgents' first line, `This session is <name> [<ref>] — …` (A11): the name, with no source. */
export function ownNameFromListAgents(text: unknown): OwnName | undefined {
  if (typeof text !== 'string') return
  const m = /^This session is (.+?) \[[0-9a-f]+\] — /.exec(text)
  return m ? { name: m[1]!, source: 'unknown' } : undefined
}

/** How many running sessions of the config root are named `key` (two or more: the status warns, NOTES §3). */
export const holdersOf = (records: readonly (SessionRecord | undefined)[], key: string) => records.filter((r) => r?.name === key).length
