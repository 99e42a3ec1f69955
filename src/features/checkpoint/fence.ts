// The checkpoint block a reply ends with (spec B.5): the last backtick fence whose info string is
// exactly the package's `<pkg>-checkpoint`, closed, with nothing but blank lines after it. Pure.

const OPEN = /^ {0,3}(?:(`{3,})([^`]*)|(~{3,})(.*))$/
const CLOSE_TICKS = /^ {0,3}(`{3,})[ \t]*$/
const CLOSE_TILDES = /^ {0,3}(~{3,})[ \t]*$/

/** The info string of the package's checkpoint fence: `superheroes-checkpoint`, `keel-checkpoint`. */
export const fenceInfo = (pkg: string) => `${pkg}-checkpoint`

type Block = { body: string[]; isClosed: boolean; end: number }

/** The body of the checkpoint block `text` ends with, verbatim, or null when it ends with none. */
export function extractCheckpointBlock(text: string, info: string): string | null {
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
    if (!isTilde && open[2]!.trim() === info) last = { body, isClosed, end: i }
  }
  if (last === null || !last.isClosed) return null
  if (lines.slice(last.end + 1).some((line) => line.trim() !== '')) return null
  const body = last.body.join('\n')
  return body.trim() === '' ? null : body
}
