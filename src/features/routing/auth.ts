// Where a provider's key comes from (§3.5) and how a request carries it. The key itself is read at
// the edge ($.process.run, $.fs) and lives in module memory only.
import type { Api, Auth, Provider } from './config.ts'
import { PRINTENV_PATH } from './constants.ts'
import { KEY_EMPTY, KEY_UNPRINTABLE } from './strings.ts'

export type KeySource =
  | { readonly kind: 'none' }
  /** Run it; its first stdout line is the key. */
  | { readonly kind: 'command'; readonly argv: readonly string[] }
  /** Read it; its first line is the key. */
  | { readonly kind: 'file'; readonly path: string }

export function keySource(auth: Auth): KeySource {
  if (auth === 'none') return { kind: 'none' }
  if ('helper' in auth) return { kind: 'command', argv: auth.helper }
  if ('env' in auth) return { kind: 'command', argv: [PRINTENV_PATH, auth.env] }
  return { kind: 'file', path: auth.file }
}

/** The key in a command's output or a file's text: its first line, trimmed; a key with spaces or control characters would break the header it rides in. */
export function keyFromOutput(text: string): { readonly key: string } | { readonly problem: string } {
  const key = (text.split(/\r?\n/)[0] ?? '').trim()
  if (!key) return { problem: KEY_EMPTY }
  if (/[\s\u0000-\u001f\u007f]/.test(key)) return { problem: KEY_UNPRINTABLE }
  return { key }
}

/** The header a provider's API reads its key from. */
export function authHeader(api: Api, key: string): readonly [string, string] {
  return api === 'anthropic-messages' ? ['x-api-key', key] : ['Authorization', `Bearer ${key}`]
}

/**
 * A request's headers: keel's own, then the key's, then the provider's `headers`. A provider header
 * replaces one of the same name in any case, so a provider that wants its key elsewhere can say so.
 */
export function requestHeaders(provider: Provider, own: Readonly<Record<string, string>>, key: string | undefined): Record<string, string> {
  const merged = new Map<string, readonly [string, string]>()
  const put = (name: string, value: string) => merged.set(name.toLowerCase(), [name, value])
  for (const [name, value] of Object.entries(own)) put(name, value)
  if (key !== undefined) put(...authHeader(provider.api, key))
  for (const [name, value] of Object.entries(provider.headers)) put(name, value)
  return Object.fromEntries(merged.values())
}
