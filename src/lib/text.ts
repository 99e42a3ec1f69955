// Text as the disk counts it.

/** The text's length in UTF-8 bytes (checkpoint's, manual's and mailbox's). */
/** A count and its noun: `1 mail`, `2 mails` (`many` where the plural is not `-s`). */
export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`

export const byteLength = (text: string) => new TextEncoder().encode(text).length

/** A path without its trailing slashes (either kind), the root `/` kept (keel's home's and the safe writer's). */
export const trimSlash = (path: string) => (path.length > 1 ? path.replace(/[\\/]+$/, '') : path)
