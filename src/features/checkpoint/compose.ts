// The instructions every main-conversation compaction is steered with (spec B.0 L0, B.18.2): the
// charter and the checkpoint notes, with the owner's own `/compact` text carried verbatim. Pure.
import { CHARTER_HEADING, NOTES_HEADING, OWNER_HEADING, preamble, recallSteering } from './strings.ts'

export type Composition = {
  charter: string | null | undefined
  notes: string | null
  notesPath: string | null
  /** The owner's `/compact` text as given, untrimmed; null or blank when there is none. */
  owner: string | undefined | null
  /** The recall tool's name, when the session has it. */
  recall?: string | undefined
}

/** Never empty: the preamble stands even when the session has no charter, notes or owner text yet. */
export function composeInstructions({ charter, notes, notesPath, owner, recall }: Composition): string {
  const sections = [[CHARTER_HEADING, charter], [NOTES_HEADING, notes], [OWNER_HEADING, owner]] as const
  return [
    preamble(notesPath),
    ...(recall ? [recallSteering(recall)] : []),
    // A part present is one that says something: a blank charter, notes or owner text is left out.
    ...sections.filter(([, text]) => text?.trim()).map(([heading, text]) => `${heading}\n${text}`),
  ].join('\n\n')
}
