// Every error text passes through a redactor built from the secrets in force (§3.5, §4 rule 6):
// the keys, and the values of the providers' headers, which may carry keys too.
import type { Provider } from './config.ts'
import { MIN_SECRET_LENGTH, REDACTED } from './constants.ts'

export type Redactor = (text: string) => string

/**
 * Replaces each secret, in the forms a text may quote it in: as it is (so `Bearer <key>` reads
 * `Bearer [redacted]`), escaped inside JSON, and percent-encoded. A secret shorter than
 * MIN_SECRET_LENGTH is not searched for, since it would redact common words; keel never prints one.
 */
export function redactorFor(secrets: readonly string[]): Redactor {
  const forms = new Set<string>()
  for (const secret of secrets) {
    if (secret.length < MIN_SECRET_LENGTH) continue
    forms.add(secret).add(JSON.stringify(secret).slice(1, -1)).add(encodeURIComponent(secret))
  }
  // Longest first, so a secret that holds another is replaced whole.
  const ordered = [...forms].sort((a, b) => b.length - a.length)
  return (text) => ordered.reduce((out, form) => out.split(form).join(REDACTED), text)
}

/** The secrets a provider's request carries: its key and its header values. */
export const secretsOf = (provider: Provider, key: string | undefined): string[] => [...(key === undefined ? [] : [key]), ...Object.values(provider.headers)]
