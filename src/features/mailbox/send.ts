// `mailbox_send { to, text }` and `/<pkg> mail <key> <text>`: the spool file first (durable before
// anything is sent, design §4.1 rule 2), then the native send with keel's header, then the answer
// the sender reads, named by the native outcome (design §3.1 table, changed by NOTES §3).
import { messageOf } from '../../lib/message.ts'
import { writeSafely, type SafeWriteEdges } from '../../lib/safe-write.ts'
import { MAIL_TEXT_MAX_BYTES, MAIL_VERSION } from './constants.ts'
import { withHeader } from './header.ts'
import { newMailId } from './ids.ts'
import { checkKey, folderOf, sameKey } from './key.ts'
import type { OutboxRecord } from './outbox.ts'
import { mailFileText, mailName, type Mail } from './spool.ts'
import { byteLength } from '../../lib/text.ts'
import * as s from './strings.ts'

export type SendCheck = { ok: true; to: string; text: string } | { ok: false; deny: string }

/** A refusal: nothing was sent. */
const denied = (deny: string) => ({ ok: false as const, deny })

/** The input rules: `to` a key (not this session's own, in any spelling), `text` a non-blank string of at most 64 KiB of UTF-8. */
export function checkSend(input: { to?: unknown; text?: unknown }, ownKey: string | undefined): SendCheck {
  const to = checkKey(input.to)
  if (!to.ok) return denied(s.toRefused(to.why))
  if (sameKey(to.key, ownKey)) return denied(s.toSelf(to.key))
  if (typeof input.text !== 'string') return denied(s.TEXT_NOT_TEXT)
  if (!input.text.trim()) return denied(s.TEXT_EMPTY)
  // A lone surrogate has no UTF-8 form: measured, the model reads it as U+FFFD by either path.
  if (/\p{Cs}/u.test(input.text)) return denied(s.TEXT_NOT_UTF8)
  const bytes = byteLength(input.text)
  if (bytes > MAIL_TEXT_MAX_BYTES) return denied(s.textTooLong(bytes))
  return { ok: true, to: to.key, text: input.text }
}

/** `/<pkg> mail <key> <text>`: the key is the first word, or a quoted string when it holds spaces. */
export function parseMailArgs(args: string): { to: string; text: string } | undefined {
  const m = /^\s*(?:"([^"]*)"|(\S+))\s+([\s\S]*\S[\s\S]*)$/.exec(args)
  return m ? { to: m[1] ?? m[2]!, text: m[3]!.trim() } : undefined
}

/** What the native send's outcome means for the mail, which is kept in the spool whatever it is. */
export type Outcome =
  | { kind: 'delivered' }
  | { kind: 'notRunning' }
  | { kind: 'twoHolders'; refs: string[] }
  | { kind: 'refused'; reason: string }
  | { kind: 'noMessaging' }

// Measured (NOTES §3): "not running" reads either way, with or without "Did you mean: …?".
const NOT_RUNNING = [/^No agent named '.*' is reachable\./s, /^No agent is named '.*' exactly\./s]
const TWO_HOLDERS = /^\d+ agents are named '/
const REF = /^\s+.*?\[([^\]\s]+)\]/gm

/** Classifies `$.session.send`'s result. */
export function classifySend(result: unknown): Outcome {
  const r = result as { isDelivered?: unknown; reason?: unknown } | undefined
  if (r?.isDelivered === true) return { kind: 'delivered' }
  const reason = String(r?.reason ?? 'no reason given')
  if (NOT_RUNNING.some((p) => p.test(reason))) return { kind: 'notRunning' }
  if (TWO_HOLDERS.test(reason)) return { kind: 'twoHolders', refs: [...reason.matchAll(REF)].map((m) => m[1]!) }
  return { kind: 'refused', reason: reason.trim() }
}

/** `folder`: the mailbox folder the mail is kept in (its config folder's spool). */
export function answerFor(outcome: Outcome, to: string, id: string, folder: string): string {
  switch (outcome.kind) {
    case 'delivered':
      return s.delivered(to, id)
    case 'notRunning':
      return s.keptNotRunning(to, folder, id)
    case 'twoHolders':
      return s.keptTwoHolders(to, outcome.refs, id)
    case 'refused':
      return s.keptRefused(outcome.reason, id)
    case 'noMessaging':
      return s.keptNoMessaging(to, id)
  }
}

export type SendEdges = SafeWriteEdges & {
  /** `$.session.send({ to, text })`; undefined where native messaging is not available (no messaging socket). */
  send: ((to: string, text: string) => Promise<unknown>) | undefined
  now(): number
  randomBytes(length: number): Uint8Array
}

export type SendRequest = {
  pkg: string
  /** The spool's real root (`<config root>/keel/mailbox`, links resolved); it must exist. */
  root: string
  /** The reply address: this session's key, else its engine name; undefined when not known. */
  from: string | undefined
  ownKey: string | undefined
  input: { to?: unknown; text?: unknown }
}

export type SendResult =
  | {
    ok: true
    answer: string
    outcome: Outcome
    mail: Mail
    path: string
    /**
     * For the sender's outbox, when the mail was kept rather than delivered live: a live delivery
     * is done as far as the sender is concerned (a recipient without keel never marks it, and a
     * crashed one gets the spool copy at its next start anyway).
     */
    record?: OutboxRecord
  }
  | { ok: false; deny: string }

/** The whole send; never throws: a refusal or a failed spool write is `{ ok: false, deny }`, and nothing was sent. */
export async function sendMail(e: SendEdges, req: SendRequest): Promise<SendResult> {
  const checked = checkSend(req.input, req.ownKey)
  if (!checked.ok) return checked
  if (req.from === undefined) return denied(s.FROM_UNKNOWN)
  const from = checkKey(req.from)
  if (!from.ok) return denied(s.fromRefused(req.from, from.why))
  const mail: Mail = { v: MAIL_VERSION, id: newMailId(e.randomBytes), from: from.key, to: checked.to, sentAt: e.now(), text: checked.text }
  const folder = `${req.root}/${folderOf(mail.to)}`
  // Never over an existing file (`expected: null`); in place only where nothing renames (then a reader's "not yet" rule covers the torn moment).
  const written = await writeSafely(e, { within: req.root, path: `${folder}/${mailName(mail)}`, text: mailFileText(mail), expected: null, inPlace: true })
  if (!written.ok) return denied(s.notKept(written.reason))
  let outcome: Outcome = { kind: 'noMessaging' }
  if (e.send) {
    try {
      outcome = classifySend(await e.send(mail.to, withHeader(req.pkg, mail.id, mail.from, mail.text)))
    } catch (err) {
      outcome = { kind: 'refused', reason: messageOf(err) }
    }
  }
  const kept = outcome.kind === 'delivered' ? {} : { record: { id: mail.id, to: mail.to, sentAt: mail.sentAt } }
  return { ok: true, answer: answerFor(outcome, mail.to, mail.id, folder), outcome, mail, path: written.path, ...kept }
}
