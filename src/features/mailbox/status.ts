// The feature's lines in `/<pkg> mailbox`, and its one line in `/<pkg> status`. Pure: the caller
// reads the facts (the machine's, the outbox settled against the recipients' folders, the registry).
import type { LastDelivery, ScanReport } from './delivery.ts'
import type { KeySource } from './key.ts'
import type { SettledOutbox } from './outbox.ts'
import * as s from './strings.ts'

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

function waiting(key: string, scan: ScanReport | undefined, queued: number): string[] {
  const lines: string[] = []
  if (scan?.error !== undefined) lines.push(s.waitingUnknownLine(key, scan.error))
  else if (scan) lines.push(s.waitingLine(key, scan.waiting, scan.oldestSentAt))
  if (queued) lines.push(s.queuedStatusLine(queued))
  return lines
}

export function statusLines(f: StatusFacts): string[] {
  if (!f.key) return [s.NOT_STARTED_LINE]
  const k = f.key
  const lines = [k.key === undefined ? s.noKeyLine(k.why) : s.keyLine(k.key, s.KEY_SOURCE[k.source], k.renameProblem)]
  if (k.key !== undefined) {
    lines.push(...waiting(k.key, f.scan, f.queued))
    if (f.holders > 1) lines.push(s.holdersLine(k.key, f.holders))
  }
  lines.push(s.sentWaitingLine(f.sent.waiting))
  for (const r of f.sent.dropped) lines.push(s.sentDroppedLine(r.id, r.to, r.sentAt))
  for (const r of f.sent.aside) lines.push(s.sentAsideLine(r.id, r.to))
  for (const r of f.sent.missing) lines.push(s.sentMissingLine(r.id, r.to))
  lines.push(s.lastDeliveryLine(f.lastDelivery && { ...f.lastDelivery, via: s.VIA[f.lastDelivery.via] }))
  for (const a of f.scan?.aside ?? []) lines.push(s.keptAsideLine(a.name, a.why))
  for (const folder of f.scan?.older ?? []) lines.push(s.olderSpellingLine(folder))
  lines.push(s.messagingLine(f.messaging), s.duplicatesLine(f.duplicates), s.scanEveryLine(f.scanSeconds))
  if (!f.commands) lines.push(s.NO_COMMANDS_LINE)
  return lines
}

/** Problems worth a look: an unreadable mailbox, files kept aside, two holders, sent mail dropped or lost. */
function problems(f: StatusFacts): number {
  return (f.scan?.error !== undefined ? 1 : 0) + (f.scan?.aside.length ?? 0) + (f.holders > 1 ? 1 : 0) + f.sent.dropped.length + f.sent.aside.length + f.sent.missing.length
}

export function summaryLine(f: StatusFacts): string {
  if (!f.key) return s.NOT_STARTED_LINE
  const sent = f.sent.waiting.reduce((n, [, c]) => n + c, 0)
  const waitingNow = f.scan && f.scan.error === undefined ? f.scan.waiting + f.queued : undefined
  return s.summaryLine(f.pkg, f.key.key, waitingNow, sent, problems(f))
}
