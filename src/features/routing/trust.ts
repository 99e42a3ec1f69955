// A provider's approval (§3.5) is keyed by a fingerprint of everything that decides where the
// conversation goes and with which credentials: editing the id, api, URL, auth or headers asks again.
import type { Provider } from './config.ts'
import { TRUST_KEY_PREFIX } from './constants.ts'
import { hexOf } from '../../lib/hex.ts'
import { isRecord } from '../../lib/shape.ts'

/**
 * JSON with every object's keys sorted at every depth, so equal values always give equal text
 * (JSON.stringify itself drops undefined fields and writes undefined items as null). An object's
 * keys are never equal, so the order needs no tie.
 */
export const stableJson = (value: unknown): string =>
  JSON.stringify(value, (_key, item: unknown) => (isRecord(item) ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : 1))) : item))

/** `sha256(stableJson({ id, api, baseUrl, auth, headers }))` as lower-case hex. */
export async function providerFingerprint(provider: Provider): Promise<string> {
  const { id, api, baseUrl, auth, headers } = provider
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(stableJson({ id, api, baseUrl, auth, headers })))
  return hexOf(digest)
}

/** The `$.store` key holding a provider's approval. */
export const trustKey = (fingerprint: string) => TRUST_KEY_PREFIX + fingerprint
