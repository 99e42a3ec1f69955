// The instructions every main-conversation compaction is steered with (spec B.0 L0, B.18.2): the
// charter and the checkpoint notes, with the owner's own `/compact` text carried verbatim. Pure.
import { CHARTER_HEADING, NOTES_HEADING, OWNER_HEADING, preamble, recallSteering } from './strings.ts'

export type Composition = {
  charter: string | null
  notes: string | null
  notesPath: string | null
  /** The owner's `/compact` text as given, untrimmed; null or blank when there is none. */
  owner: string | undefined | null
  /** The recall tool's name, when the session has it. */
  recall?: string | undefined
}

/** Never empty: the preamble stands even when the session has no charter, notes or owner text yet. */
export function composeInstructions({ charter, notes, notesPath, owner, recall }: Composition): string {
  const parts = [preamble(notesPath)]
  if (recall) parts.push(recallSteering(recall))
  if (charter?.trim()) parts.push(`${CHARTER_HEADING}\n${charter}`)
  if (notes?.trim()) parts.push(`${NOTES_HEADING}\n${notes}`)
  if (owner?.trim()) parts.push(`${OWNER_HEADING}\n${owner}`)
  return parts.join('\n\n')
}
