// The section the main system prompt carries: what the manual file holds, classified, and the text
// built from it. Pure (the hash is `crypto.subtle`, which the hooks environment has).
import type { PromptComposeSection } from 'claude-code'
import { MANUAL_CAP_BYTES } from './constants.ts'
import { hexOf } from '../../lib/hex.ts'
import { byteLength } from '../../lib/text.ts'
import * as s from './strings.ts'

export { byteLength }

/**
 * The form compared and carried: a leading byte-order mark dropped, line ends as `\n`, no final
 * newlines. The Read tool and the file system may differ in exactly these; the words never.
 */
export function canonical(text: string): string {
  return text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n').replace(/\n+$/, '')
}

/** SHA-256 of the text's UTF-8 bytes, lower-case hex: collision-safe, so an equal hash is equal text. */
export async function sha256Hex(text: string): Promise<string> {
  return hexOf(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)))
}

/** The hash a snapshot holds and a Read's content is compared by. */
export const contentHash = (text: string) => sha256Hex(canonical(text))

/**
 * What the file holds, with its size in bytes:
 * - `binary`: a NUL, or U+FFFD (what a UTF-8 text read makes of bytes that are not UTF-8). A
 *   manual that spells U+FFFD itself reads as binary too: rare, and it only costs the carry.
 * - `too-large`: over the cap.
 * - `empty`: nothing but white space.
 * - `ok`: the canonical text, to carry.
 */
export type Content =
  | { readonly kind: 'ok'; readonly text: string; readonly bytes: number }
  | { readonly kind: 'empty' | 'binary' | 'too-large'; readonly bytes: number }

export type ContentKind = Content['kind']

export function classifyText(raw: string, cap: number = MANUAL_CAP_BYTES): Content {
  const bytes = byteLength(raw)
  const text = canonical(raw)
  const kind = /[\u0000\uFFFD]/.test(raw) ? 'binary' : bytes > cap ? 'too-large' : text.trim() === '' ? 'empty' : 'ok'
  return kind === 'ok' ? { kind, text, bytes } : { kind, bytes }
}

/** What the section says besides the manual: the mailbox's key, and whether the mailbox runs. */
export type SectionExtras = { readonly key?: string; readonly mailboxOn?: boolean }

/**
 * The section's text: the opening line (the manual's, or a note saying why it is not carried), the
 * key line with a key, the mailbox line with the mailbox on, then the manual; blocks apart by a
 * blank line, as the spec's `sectionText`.
 */
export function sectionText(file: string, content: Content, extras: SectionExtras = {}): string {
  const key = extras.key?.trim()
  // A block that is not there is false (an ok manual's text and a key are never empty).
  const blocks = [s.OPENING_LINES[content.kind](file, content.bytes), key && s.keyLine(key), extras.mailboxOn && s.MAILBOX_LINE, content.kind === 'ok' && content.text]
  return blocks.filter(Boolean).join('\n\n')
}

/**
 * The list `next(e)` answered with the section appended last, as `session`; undefined when a
 * section of that id is already there (another copy put it there): never appended twice.
 */
export function withSection(
  sections: readonly PromptComposeSection[],
  section: { readonly id: string; readonly text: string },
): PromptComposeSection[] | undefined {
  if (sections.some((existing) => existing.id === section.id)) return
  return [...sections, { ...section, scope: 'session' }]
}
