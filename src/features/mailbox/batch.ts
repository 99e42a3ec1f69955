// One prompt per batch, never one per mail (design §4.1 rule 5): the mails that wait, oldest first,
// each with its sender's key and time, under one head that tells the model what they are. The texts
// go in unchanged (byte-exact); a nonce made for the delivery marks the lines that open a mail.
import { BATCH_MAX_BYTES, BATCH_MAX_MAILS } from './constants.ts'
import { oldestFirst, type Mail } from './spool.ts'
import { batchHead, mailEntry } from './strings.ts'

export type Delivery = { mail: Mail; redelivered: boolean }

/** `nonce`: fresh for each delivery; every mail's opening line ends in it, and the head says so. */
export function formatBatch(pkg: string, items: readonly Delivery[], nonce: string): string {
  const sorted = [...items].sort((a, b) => oldestFirst(a.mail, b.mail))
  const keys = [...new Set(sorted.map((d) => d.mail.to))]
  return [batchHead(pkg, keys, sorted.length, nonce), ...sorted.map((d) => mailEntry(d.mail, d.redelivered, nonce))].join('\n\n')
}

/** Whether one more mail of `bytes` joins a batch of `count` mails holding `total` bytes; the first always does. */
export const fitsBatch = (count: number, total: number, bytes: number) =>
  count === 0 || (count < BATCH_MAX_MAILS && total + bytes <= BATCH_MAX_BYTES)
