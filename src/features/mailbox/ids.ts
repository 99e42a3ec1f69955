// Random names: mail ids, a minted key's suffix and a delivery's nonce, in lower-case base32 (safe in
// file names on every file system, and case-insensitive ones cannot fold two of them together).
import { BASE32, MAIL_ID_CHARS } from './constants.ts'

export const MAIL_ID_PATTERN = new RegExp(`^[a-z2-7]{${MAIL_ID_CHARS}}$`)

/**
 * `chars` base32 characters from the edge's randomness (`crypto.getRandomValues`), one a random byte:
 * its low 5 bits (256 is a multiple of 32, so each character is uniform).
 */
export const randomBase32 = (randomBytes: (length: number) => Uint8Array, chars: number) => Array.from(randomBytes(chars), (byte) => BASE32[byte & 31]).join('')

/** A new mail id. */
export const newMailId = (randomBytes: (length: number) => Uint8Array) => randomBase32(randomBytes, MAIL_ID_CHARS)
