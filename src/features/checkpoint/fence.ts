// The checkpoint block a reply ends with (spec B.5): the last backtick fence whose info string is
// exactly a package's `<pkg>-checkpoint`, closed, with nothing but blank lines after it. Pure.
import template from '../../../plugin.json'

const OPEN = /^ {0,3}(?:(`{3,})([^`]*)|(~{3,})(.*))$/
const CLOSE_TICKS = /^ {0,3}(`{3,})[ \t]*$/
const CLOSE_TILDES = /^ {0,3}(~{3,})[ \t]*$/

/** The info string of the package's checkpoint fence: `superheroes-checkpoint`, `keel-checkpoint`. */
export const fenceInfo = (pkg: string) => `${pkg}-checkpoint`

/**
 * Every package's fence: the one skill text names the package whose command ran it, and the
 * package that runs the feature in the session saves a block another package's command wrote.
 */
export const BUNDLE_FENCES: readonly string[] = Object.keys(template.packages).map(fenceInfo)

type Block = { body: string[]; isClosed: boolean; end: number }

/** The body of the checkpoint block `text` ends with (opened with one of `infos`), verbatim, or null when it ends with none. */
export function extractCheckpointBlock(text: string, infos: readonly string[]): string | null {
  const lines = text.split(/\r?\n/)
  let last: Block | null = null
  for (let i = 0; i < lines.length; i++) {
    const open = OPEN.exec(lines[i]!)
    if (!open) continue
    const isTilde = open[3] !== undefined
    const width = (open[1] ?? open[3]!).length
    const close = isTilde ? CLOSE_TILDES : CLOSE_TICKS
    const body: string[] = []
    let isClosed = false
    for (i = i + 1; i < lines.length; i++) {
      const closer = close.exec(lines[i]!)
      if (closer && closer[1]!.length >= width) {
        isClosed = true
        break
      }
      body.push(lines[i]!)
    }
    // Any other fence is walked past whole, so a checkpoint fence quoted inside it is no block.
    if (!isTilde && infos.includes(open[2]!.trim())) last = { body, isClosed, end: i }
  }
  if (last === null || !last.isClosed) return null
  if (lines.slice(last.end + 1).some((line) => line.trim() !== '')) return null
  const body = last.body.join('\n')
  return body.trim() === '' ? null : body
}
