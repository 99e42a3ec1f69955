// The checkpoint block a reply ends with (spec B.5): the last backtick fence whose info string is
// exactly a package's `<pkg>-checkpoint`, closed, with nothing but blank lines after it. Pure.
import template from '../../../plugin.json'

const OPEN = /^ {0,3}(?:(`{3,})([^`]*)|(~{3,})(.*))$/

/** The info string of the package's checkpoint fence: `superheroes-checkpoint`, `keel-checkpoint`. */
export const fenceInfo = (pkg: string) => `${pkg}-checkpoint`

/**
 * Every package's fence: the one skill text names the package whose command ran it, and the
 * package that runs the feature in the session saves a block another package's command wrote.
 */
export const BUNDLE_FENCES: readonly string[] = Object.keys(template.packages).map(fenceInfo)

/** The body of the checkpoint block `text` ends with (opened with one of `infos`), verbatim, or null when it ends with none. */
export function extractCheckpointBlock(text: string, infos: readonly string[]): string | null {
  const lines = text.split(/\r?\n/)
  /** The last checkpoint fence's opening line and its closing line (`lines.length` when unclosed). */
  let last: { start: number; end: number } | null = null
  for (let i = 0; i < lines.length; i++) {
    const open = OPEN.exec(lines[i]!)
    if (!open) continue
    const fence = open[1] ?? open[3]!
    // Its closing fence: the same character, at least as many of it, nothing after but spaces.
    const closing = new RegExp(`^ {0,3}${fence[0]}{${fence.length},}[ \\t]*$`)
    const start = i
    while (++i < lines.length && !closing.test(lines[i]!));
    // Any other fence is walked past whole, so a checkpoint fence quoted inside it is no block.
    // A tilde fence has no backtick info (open[2]): it never counts.
    if (infos.includes(open[2]?.trim()!)) last = { start, end: i }
  }
  if (!last || last.end === lines.length || lines.slice(last.end + 1).some((line) => line.trim())) return null
  const body = lines.slice(last.start + 1, last.end).join('\n')
  return body.trim() ? body : null
}
