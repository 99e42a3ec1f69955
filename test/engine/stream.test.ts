// packages: keeltest
// The stream chain through the engine's own host: test-only features (test/fixtures/stream-features)
// over a `turn.step` whose bottom, the test, stands for the model's stream.
import { expect, test, type TestBody } from 'claude-code/testing'

type On = Parameters<TestBody>[1]
const STEP = { turnId: 't1', index: 0, model: 'claude-opus-5-5', messageCount: 3 }
const USAGE = { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 }

/** The engine beneath: streams `pieces` as text chunks of block 0, then stops; counts its requests. */
function model(on: On, pieces: string[]) {
  const seen = { requests: 0 }
  on('turn.step', async function* (_, e) {
    seen.requests++
    for (const text of pieces) yield { kind: 'text', index: 0, text } as never
    yield { kind: 'stop', stopReason: 'end_turn', usage: USAGE } as never
    return { turnId: e.turnId, index: e.index, answer: pieces.join(''), toolUses: [], stopReason: 'end_turn', usage: USAGE } as never
  })
  on('session.start', (_, e) => ({ cwd: e.cwd }))
  on('command.register', (_, e) => ({ value: { command: e.name } }))
  on('session.id', () => ({ value: 's1' }))
  on('env.get', () => ({ value: undefined }))
  on('env.set', () => ({ value: {} }))
  return seen
}

async function read($: Parameters<TestBody>[0]) {
  const stream = $.turn.step(STEP as never)
  const texts: string[] = []
  for (;;) {
    const r = await stream.next()
    if (r.done) return { texts, result: r.value as { answer: string } }
    const c = r.value as { kind: string; text?: string }
    if (c.kind === 'text') texts.push(c.text!)
  }
}

test('a feature that rewrites text chunks, over the engine\'s stream', { options: { streamUpper: 'on' } }, async ($, on) => {
  const seen = model(on, ['a', 'b'])
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: false })
  const { texts, result } = await read($)
  expect(texts).toEqual(['A', 'B'])
  expect(result.answer).toBe('AB')
  expect(seen.requests).toBe(1)
})

test('a feature that throws mid-stream is left: the rest passes on', { options: { streamBreak: 'on' } }, async ($, on) => {
  const seen = model(on, ['a', 'b', 'c'])
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: false })
  const { texts, result } = await read($)
  expect(texts).toEqual(['a', 'b', 'c'])
  expect(result.answer).toBe('abc')
  expect(seen.requests).toBe(1)
})

test('a feature that answers its own failure: its error, and the rest beneath never shown', { options: { streamAnswer: 'on' } }, async ($, on) => {
  model(on, ['first', 'second', 'third'])
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: false })
  const { texts } = await read($)
  expect(texts).toHaveLength(2)
  expect(texts[0]).toBe('first')
  expect(texts[1]).toContain('streamAnswer: the step failed and was answered in its place')
})

test('with no stream feature on, the step is the engine\'s own', async ($, on) => {
  const seen = model(on, ['x'])
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: false })
  const { texts } = await read($)
  expect(texts).toEqual(['x'])
  expect(seen.requests).toBe(1)
})
