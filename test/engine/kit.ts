// The kit as every staged test file imports it (test/run.mjs points their `claude-code/testing` here):
// the same kit, but a test that names no time of its own gets KIT_TIMEOUT_MS, not the kit's 5 s. The
// kit's time is wall-clock, and on a machine whose cores another engine session shares (CI on a shared
// runner, measured: 3-31 tests of a full layer timed out at a load of 8-14, a different set each run)
// 5 s fails a test that is slow, not wrong. A test that hangs still fails, a minute later.
import * as kit from 'claude-code/testing'
export * from 'claude-code/testing'

export const KIT_TIMEOUT_MS = 60_000

type Rest = Parameters<typeof kit.test> extends [string, ...infer R] ? R : never

export const test = (name: string, ...rest: Rest): void => {
  const [first, body] = rest as unknown as [unknown, unknown]
  if (typeof first === 'function') kit.test(name, { timeoutMs: KIT_TIMEOUT_MS }, first as never)
  else kit.test(name, { timeoutMs: KIT_TIMEOUT_MS, ...(first as object) }, body as never)
}
