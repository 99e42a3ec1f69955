// The feature's lines in `/<pkg> mailbox`, and its one line in `/<pkg> status`. Pure: the caller
// reads the facts (the machine's, the outbox settled against the recipients' folders, the registry).
import type { LastDelivery, ScanReport } from './delivery.ts'
import type { KeySource } from './key.ts'
import type { SettledOutbox } from './outbox.ts'
import * as s from './strings.ts'
import { isString } from '../../lib/shape.ts'

export type KeyFacts = { key: string; source: KeySource; renameProblem?: string } | { key?: undefined; why: string }

export type StatusFacts = {
  pkg: string
  /** Undefined before the session started. */
  key: KeyFacts | undefined
  scan: ScanReport | undefined
  queued: number
  sent: SettledOutbox
  lastDelivery: LastDelivery | undefined
  duplicates: number
  /** Native messaging (`CLAUDE_CODE_MESSAGING_SOCKET` set). */
  messaging: boolean
  /** Running sessions of the config root named as this key (the registry). */
  holders: number
  /** Whether the host runs commands (rename, remove). */
  commands: boolean
  scanSeconds: number
}

export function statusLines(f: StatusFacts): string[] {
  if (!f.key) return [s.NOT_STARTED_LINE]
  const { key, scan, sent } = f
  return [
    ...(key.key === undefined
      ? [s.noKeyLine(key.why)]
      : [
        s.keyLine(key.key, s.KEY_SOURCE[key.source], key.renameProblem),
        scan?.error !== undefined ? s.waitingUnknownLine(key.key, scan.error) : scan && s.waitingLine(key.key, scan.waiting, scan.oldestSentAt),
        !!f.queued && s.queuedStatusLine(f.queued),
        f.holders > 1 && s.holdersLine(key.key, f.holders),
      ]),
    s.sentWaitingLine(sent.waiting),
    ...sent.dropped.map((r) => s.sentDroppedLine(r.id, r.to, r.sentAt)),
    ...sent.aside.map((r) => s.sentAsideLine(r.id, r.to)),
    ...sent.missing.map((r) => s.sentMissingLine(r.id, r.to)),
    s.lastDeliveryLine(f.lastDelivery && { ...f.lastDelivery, via: s.VIA[f.lastDelivery.via] }),
    ...(scan?.aside ?? []).map((a) => s.keptAsideLine(a.name, a.why)),
    ...(scan?.older ?? []).map(s.olderSpellingLine),
    s.messagingLine(f.messaging),
    s.duplicatesLine(f.duplicates),
    s.scanEveryLine(f.scanSeconds),
    !f.commands && s.NO_COMMANDS_LINE,
    // The lines a fact leaves out (false, undefined) drop here.
  ].filter(isString)
}

export function summaryLine(f: StatusFacts): string {
  if (!f.key) return s.NOT_STARTED_LINE
  const { scan, sent } = f
  const unread = scan?.error !== undefined
  // Problems worth a look: an unreadable mailbox, files kept aside, two holders, sent mail dropped or lost.
  const problems = (unread ? 1 : 0) + (scan?.aside.length ?? 0) + (f.holders > 1 ? 1 : 0) + sent.dropped.length + sent.aside.length + sent.missing.length
  const waitingNow = scan && !unread ? scan.waiting + f.queued : undefined
  return s.summaryLine(f.pkg, f.key.key, waitingNow, sent.waiting.reduce((n, [, c]) => n + c, 0), problems)
}
