// A provider's key (§3.5): read when a request needs it (its command run, its file read), kept in
// this module's memory for KEY_CACHE_MS and nowhere else: never in `$.state`, `$.store`, a file,
// a log line or a child's argv or environment. A failed read is not kept: the next request tries again.
import { keyFromOutput, keySource, type KeySource } from './auth.ts'
import type { Provider } from './config.ts'
import { HELPER_TIMEOUT_MS, KEY_CACHE_MS } from './constants.ts'
import { stableJson } from './trust.ts'
import { keyCommandDidNotRun, keyCommandFailed, keyFileUnread } from './strings.ts'
import { messageOf } from '../../lib/message.ts'

export type KeyEdges = {
  /** Runs a command by its argv (`$.process.run`), no shell, with a timeout. */
  run(argv: readonly string[], timeoutMs: number): Promise<{ exitCode: number | null; stdout: string; stderr: string }>
  /** A file's text (`$.fs.read`); rejects when it cannot be read. */
  read(path: string): Promise<string>
  now(): Promise<number>
}

export type KeyRead = { readonly key: string | undefined } | { readonly problem: string }
/** What status says of a provider's key: never the key. */
export type KeyState = 'none' | 'not read yet' | 'ok' | `failed: ${string}`


export function createKeys(edges: KeyEdges) {
  /** By the provider's whole entry: an edited `auth` (or anything else) reads afresh. */
  const cache = new Map<string, { key: string; at: number }>()
  const states = new Map<string, KeyState>()

  /** The key of a provider that has one (`auth` is no `"none"`). */
  function read(provider: Provider): Promise<{ readonly key: string } | { readonly problem: string }> {
    const source = keySource(provider.auth) as Exclude<KeySource, { kind: 'none' }>
    if (source.kind === 'file') return edges.read(source.path).then(keyFromOutput, (err) => ({ problem: keyFileUnread(source.path, messageOf(err)) }))
    const command = source.argv[0] ?? ''
    return edges.run(source.argv, HELPER_TIMEOUT_MS).then(
      // Its standard error is never quoted: a command may print the key there, before keel knows it to redact.
      (out) => (out.exitCode !== 0 ? { problem: keyCommandFailed(command, out.exitCode ?? 'on a signal') } : keyFromOutput(out.stdout)),
      (err) => ({ problem: keyCommandDidNotRun(command, messageOf(err)) }),
    )
  }

  return {
    async keyFor(provider: Provider): Promise<KeyRead> {
      if (provider.auth === 'none') {
        states.set(provider.id, 'none')
        return { key: undefined }
      }
      const id = stableJson(provider)
      const now = await edges.now()
      const held = cache.get(id)
      if (held && now - held.at < KEY_CACHE_MS) return { key: held.key }
      const got = await read(provider)
      states.set(provider.id, 'problem' in got ? `failed: ${got.problem}` : 'ok')
      if ('problem' in got) cache.delete(id)
      else cache.set(id, { key: got.key, at: now })
      return got
    },
    /** Every key held now: what the redactor must hide in any text shown. */
    held(): string[] {
      return [...cache.values()].map((h) => h.key)
    },
    stateOf(provider: Provider): KeyState {
      return provider.auth === 'none' ? 'none' : states.get(provider.id) ?? 'not read yet'
    },
    /** `/<pkg> route reload`: keys are read again. */
    forget(): void {
      cache.clear()
      states.clear()
    },
  }
}

export type Keys = ReturnType<typeof createKeys>
