// The feature's lines in `/<pkg> status`: the manual file and its size, what the system prompt
// carries and since when, whether the file changed since, the pointers and what they saved. Pure:
// the binding gathers the facts (a look at the file now, the snapshot's view, the read counts).
import type { Inspection } from './file.ts'
import type { ReadCounts } from './reads.ts'
import type { PromptView } from './snapshot.ts'
import * as s from './strings.ts'

export type StatusFacts = {
  /** The manual as texts name it (the option's value). */
  readonly file: string
  /** Why the option names no file the project may hold; then nothing else is said. */
  readonly locationProblem?: string
  /** The file as it is now; undefined when it could not be looked at. */
  readonly now: Inspection | undefined
  readonly prompt: PromptView
  readonly reads: ReadCounts
}

const iso = (at: number | undefined) => (at === undefined ? 'an unknown time' : new Date(at).toISOString())

function fileLine(file: string, now: Inspection | undefined): string {
  return s.statusFile(file, !now ? s.STATUS_FILE_UNCHECKED : !now.found ? s.problemText(now.problem) : s.SIZE_TEXTS[now.content.kind](now.content.bytes))
}

function promptLines(prompt: PromptView, now: Inspection | undefined): string[] {
  switch (prompt.state) {
    case 'pending':
      return [s.promptPending(prompt.reason)]
    case 'ended':
      return [s.promptEnded(prompt.reason)]
    case 'copy': {
      const why = prompt.resumed ? s.resumedWhy(prompt.reason) : s.reasonWord(prompt.reason)
      if (prompt.hash === null) return [s.promptNoCopy(iso(prompt.at), why)]
      const changed = now?.found ? (now.hash === prompt.hash ? s.FILE_SAME : s.FILE_CHANGED) : now?.problem.kind === 'missing' ? s.FILE_DELETED : s.FILE_GONE
      return [s.promptCopy(iso(prompt.at), why, prompt.bytes, prompt.hash), changed]
    }
    default:
      return [s.PROMPT_STATE_LINES[prompt.state]]
  }
}

/** Not a manual project (no file, and the prompt carries no copy of one): the file line says all. */
const isInert = ({ now, prompt }: StatusFacts) =>
  now?.found === false && now.problem.kind === 'missing' && !(prompt.state === 'copy' && prompt.hash !== null)

export function statusLines(facts: StatusFacts): string[] {
  if (facts.locationProblem !== undefined) return [s.statusLocation(facts.locationProblem)]
  if (isInert(facts)) return [s.statusFile(facts.file, s.NOT_A_MANUAL_PROJECT)]
  const { manual, repeat, tokensSaved } = facts.reads
  return [fileLine(facts.file, facts.now), ...promptLines(facts.prompt, facts.now), s.pointersLine(manual, repeat, tokensSaved)]
}
