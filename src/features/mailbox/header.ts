// keel's header on a live mail: `[<pkg> mail <id> from <from>]` on the line before the text. The
// receiver finds it in a delivery (inside the engine's `<cross-session-message>` envelope) and in the
// stored row, and dedupes the live copy and the spool copy by its id. Any keel package's header
// counts: every package of one config root shares the spool.
import { MAIL_ID_CHARS } from './constants.ts'

export const headerLine = (pkg: string, id: string, from: string) => `[${pkg} mail ${id} from ${from}]`

/** What `$.session.send` carries: the header, then the mail's text. */
export const withHeader = (pkg: string, id: string, from: string, text: string) => `${headerLine(pkg, id, from)}\n${text}`

export type Header = { pkg: string; id: string; from: string }

/** At a line start; `from` runs to the last `]` of the line (a key holds no line break). */
const HEADER = new RegExp(`(?:^|\\n)\\[([^\\s\\[\\]]+) mail ([a-z2-7]{${MAIL_ID_CHARS}}) from ([^\\n]+)\\]\\n`)

/** The first keel header in a text: the real one comes before any a mail's text may quote. */
export function findHeader(text: string): Header | undefined {
  const m = HEADER.exec(text)
  return m ? { pkg: m[1]!, id: m[2]!, from: m[3]! } : undefined
}
