// The feature's lines in `/<pkg> status`: the charter, the notes, the trigger in force and why, the
// last skip. Pure: the caller reads the facts, each of which may be unknown.
import type { Charter } from './records.ts'
import type { Settings, TriggerSource } from './decide.ts'
import { OFF_MODE } from './constants.ts'

export type StatusFacts = {
  pkg: string
  /** `undefined` when the store could not be read. */
  charter: Charter | null | undefined
  /** The committed notes' size and file; null when none were saved, undefined when unreadable. */
  notes: { bytes: number; path: string } | null | undefined
  folder: string | undefined
  settings: Settings
  trigger: { tokens: number; source: TriggerSource; harnessAt?: number } | null
  fill: number | undefined
  attended: boolean
  lastSkip: { key: string; at: string } | null
  /** What to do about the engine's damaged store file, when it is. */
  store?: string
}

const firstLine = (text: string) => {
  const line = text.trim().split('\n')[0]!
  return line.length > 100 ? `${line.slice(0, 99)}…` : line
}

function charterLine({ pkg, charter }: StatusFacts): string {
  if (charter === undefined) return 'charter: unreadable (see the debug log)'
  if (!charter) return `charter: none yet (set one with /${pkg} charter <text>; until then the session's first prompt stands in)`
  const why = charter.source === 'verb' ? `set with /${pkg} charter` : `the session's first prompt; set one with /${pkg} charter <text>`
  return `charter: "${firstLine(charter.text)}" (${why})`
}

function notesLine({ notes, folder }: StatusFacts): string {
  if (notes === undefined) return 'notes: unreadable (see the debug log)'
  if (!notes) return `notes: none saved yet${folder ? ` (kept in ${folder})` : ''}`
  return `notes: ${notes.bytes} bytes in ${notes.path}`
}

function triggerLine({ settings: { mode, allowanceTokens }, trigger, fill, attended }: StatusFacts): string {
  if (mode === OFF_MODE) return 'automatic checkpoint: off (autoCheckpointMode is off)'
  const where = attended ? '' : '; this session is not attended (no terminal or desktop app), so it never runs here'
  if (!trigger) return `automatic checkpoint: ${mode}, trigger not measured yet${where}`
  const why = trigger.source === 'harness'
    ? `the harness compacts at ${trigger.harnessAt}, less the ${allowanceTokens} allowance`
    : trigger.source === 'floor' ? 'the floor: the harness compacts too early for the allowance' : 'autoCheckpointTokens'
  return `automatic checkpoint: ${mode}, at ${trigger.tokens} tokens (${why})${fill === undefined ? '' : `; the context holds ${fill}`}${where}`
}

export function statusLines(facts: StatusFacts): string[] {
  return [
    charterLine(facts),
    notesLine(facts),
    triggerLine(facts),
    facts.lastSkip ? `last skip: ${facts.lastSkip.key} at ${facts.lastSkip.at}` : 'last skip: none',
    ...(facts.store ? [`store: ${facts.store}`] : []),
  ]
}
