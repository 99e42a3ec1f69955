// Random names: mail ids, a minted key's suffix and a delivery's nonce, in lower-case base32 (safe in
// file names on every file system, and case-insensitive ones cannot fold two of them together).
import { BASE32, MAIL_ID_CHARS } from './constants.ts'

/** The first `chars` base32 characters of `bytes` (5 bits each); needs `ceil(chars * 5 / 8)` bytes. */
export function base32Of(bytes: Uint8Array, chars: number): string {
  let out = ''
  let bits = 0
  let value = 0
  for (const byte of bytes) {
    value = ((value << 8) | byte) & 0xffff
    bits += 8
    while (bits >= 5 && out.length < chars) {
      bits -= 5
      out += BASE32[(value >> bits) & 31]
    }
  }
  if (out.length < chars) throw new RangeError(`base32Of: ${bytes.length} bytes give fewer than ${chars} characters`)
  return out
}

/** How many random bytes `chars` base32 characters take. */
export const bytesFor = (chars: number) => Math.ceil((chars * 5) / 8)

export const MAIL_ID_PATTERN = new RegExp(`^[a-z2-7]{${MAIL_ID_CHARS}}$`)

/** `chars` base32 characters from the edge's randomness (`crypto.getRandomValues`). */
export const randomBase32 = (randomBytes: (length: number) => Uint8Array, chars: number) => base32Of(randomBytes(bytesFor(chars)), chars)

/** A new mail id. */
export const newMailId = (randomBytes: (length: number) => Uint8Array) => randomBase32(randomBytes, MAIL_ID_CHARS)
