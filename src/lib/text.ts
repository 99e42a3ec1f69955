// Text as the disk counts it.

/** The text's length in UTF-8 bytes (manual's `byteLength` and mailbox's `utf8Bytes` are this too). */
export const byteLength = (text: string) => new TextEncoder().encode(text).length
