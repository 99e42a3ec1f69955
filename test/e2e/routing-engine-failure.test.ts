// Routing measurements (src/features/routing/NOTES.md §9), re-verifying design §2.5: what answers a
// routed step (`--model gpt-5`) whose streaming turn.step hook throws, before any chunk or after one
// text chunk, with no `.catch` or with an answering `async function*` `.catch`; and a pass-through
// stream hook that rewrites the text chunks it yields from `next(e)`.
// The mock model stands for native Claude: its every answer is "native claude answer".
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, byKind, type MockModel } from './mock-model.ts'
import { cleanupTmp, findFiles, runClaude, tmpDir, writePlugin, type RunResult } from './engine.ts'
import { kitSource, tagged } from './probe-kit.ts'

type Case = { when?: 'before' | 'after'; catch?: boolean; upper?: boolean }
const PROBE = (cfg: Case) => kitSource(cfg) + `
export function register(on) {
  on('turn.step', async function* ($, e, next) {
    if (CFG.upper) {
      const s = next(e)
      for (;;) {
        const x = await s.next()
        if (x.done) return Object.assign({}, x.value, { answer: x.value.answer.toUpperCase() })
        const c = x.value
        yield c.kind === 'text' ? Object.assign({}, c, { text: c.text.toUpperCase() }) : c
      }
    }
    if (!isAlias(e.model)) return yield* next(e)
    if (CFG.when === 'before') throw new Error('boom-before')
    yield { kind: 'text', index: 0, text: 'PARTIAL ' }
    throw new Error('boom-after')
  })` + (cfg.catch ? `.catch(async function* ($, e, next) {
    log($, 'CATCH', { called: next.called, error: next.error })
    const text = 'probe: routed step failed (' + next.error.message + ')'
    yield { kind: 'text', index: 0, text }
    const usage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, model: e.model }
    yield { kind: 'stop', stopReason: 'end_turn', usage }
    return { turnId: e.turnId, index: e.index, answer: text, toolUses: [], stopReason: 'end_turn', usage }
  })` : '') + `
}
`

let mock: MockModel | undefined
test.after.each(async () => {
  await mock?.close()
  mock = undefined
})
test.after(() => cleanupTmp())

async function run(cfg: Case, model = true): Promise<RunResult> {
  mock = await startMockModel(byKind({ main: { text: 'native claude answer' } }))
  const r = await runClaude({ prompt: 'hello', pluginDirs: [writePlugin(tmpDir('probe'), 'probe', PROBE(cfg))], mock, extraArgs: model ? ['--model', 'gpt-5'] : [] })
  assert.is(r.code, 0, r.stderr)
  return r
}

/** The assistant rows of the session transcript: [message id prefix, text]. */
function assistantRows(r: RunResult): [string, string][] {
  return findFiles(join(r.home, '.claude/projects'), '.jsonl').flatMap((f) => readFileSync(f, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l)))
    .filter((row) => row.type === 'assistant')
    .map((row) => [String(row.message.id).replace(/^(msg_hook_|msg_mock).*/, '$1'), row.message.content.map((b: any) => b.text ?? '').join('')])
}

test('no .catch, throw before any chunk: the hook is skipped and native Claude answers the alias request', async () => {
  const r = await run({ when: 'before' })
  assert.is(r.json.result, 'native claude answer')
  assert.equal(mock!.messages().map((q) => q.body.model), ['gpt-5'], 'one request to the native API, naming the alias')
  assert.match(r.debugLog, '(turn.step; skipped; what is below it ran in its place)')
  assert.match(r.debugLog, 'probe: turn.step hook skipped: threw Error: boom-before')
})

test('no .catch, throw after one text chunk: the chunk stands, then native Claude answers too (two assistant rows)', async () => {
  const r = await run({ when: 'after' })
  assert.is(r.json.result, 'native claude answer')
  assert.equal(mock!.messages().map((q) => q.body.model), ['gpt-5'])
  assert.match(r.debugLog, '(turn.step; left mid-stream; what it yielded stands, the rest came from beneath it)')
  assert.equal(assistantRows(r), [['msg_hook_', 'PARTIAL '], ['msg_mock', 'native claude answer']])
})

test('an answering async function* .catch: its text alone (after the partial chunk), no native request', async () => {
  for (const [when, want] of [['before', 'probe: routed step failed (boom-before)'], ['after', 'PARTIAL probe: routed step failed (boom-after)']] as const) {
    const r = await run({ when, catch: true })
    assert.is(r.json.result, want)
    assert.equal(tagged(r.debugLog, 'probe', 'CATCH'), [{ called: false, error: { kind: 'throw', message: `boom-${when}`, budget: 1000 } }], 'next.error.message is the bare message')
    assert.match(r.debugLog, '(turn.step; its .catch answered)')
    assert.equal(assistantRows(r), [['msg_hook_', want]])
    assert.is(mock!.requests.length, 0)
    await mock!.close()
  }
})

test('a pass-through stream hook that uppercases the text chunks of next(e): the result and transcript read uppercase', async () => {
  const r = await run({ upper: true }, false)
  assert.is(r.json.result, 'NATIVE CLAUDE ANSWER')
  assert.equal(mock!.messages().map((q) => q.body.model), ['claude-opus-5-5'])
  assert.equal(assistantRows(r), [['msg_mock', 'NATIVE CLAUDE ANSWER']])
})

test('a hooks module that fails to load leaves an alias request to native Claude as well', async () => {
  mock = await startMockModel(byKind({ main: { text: 'native claude answer' } }))
  // A kept value of on(...) is a load refusal (the loader wants `.catch` where on is called).
  const bad = PROBE({ when: 'before' }).replace("on('turn.step'", "const reg = on('turn.step'")
  const r = await runClaude({ prompt: 'hello', pluginDirs: [writePlugin(tmpDir('probe'), 'probe', bad)], mock, extraArgs: ['--model', 'gpt-5'] })
  assert.match(r.debugLog, 'probe: hooks module did not load:')
  assert.is(r.json.result, 'native claude answer')
  assert.equal(mock.messages().map((q) => q.body.model), ['gpt-5'])
})

test.run()
