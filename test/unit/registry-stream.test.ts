// The registry's second floor: the stream chain for `turn.step` (hooks are `async function*`), the
// failure policies declared beside a hook (a guard's refusal, a stream that answers its own failure)
// and the result checks of the new events, against a fake engine.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { Chunk, EventResult } from 'claude-code'
import { createRegistry, type Feature, type Registry, type StreamHook } from '../../src/registry.ts'
import { fakeNext, fakePort } from './fakes.ts'

type C = Chunk<'turn.step'>
type R = EventResult<'turn.step'>
const STEP = { turnId: 't', index: 0, model: 'm', messageCount: 1 } as never
const text = (t: string): C => ({ kind: 'text', index: 0, text: t }) as C
const RESULT = (answer: string): R => ({ turnId: 't', index: 0, answer, toolUses: [], stopReason: 'end_turn', usage: {} }) as unknown as R

/** The engine's stream beneath the features: yields `pieces`, then returns a result; records what it was asked and whether it was closed. */
function engine(pieces: string[], opts: { failAfter?: number } = {}) {
  const seen = { calls: 0, closed: false, input: undefined as unknown }
  const next = (e: unknown) => {
    seen.calls++
    seen.input = e
    return (async function* () {
      try {
        for (const [i, p] of pieces.entries()) {
          if (opts.failAfter === i) throw new Error('the model request failed')
          yield text(p)
        }
        return RESULT(pieces.join(''))
      } finally {
        seen.closed = true
      }
    })()
  }
  return { next: Object.assign(next, { signal: new AbortController().signal, budget: { ms: 10_000, remainingMs: 10_000 } }) as never, seen }
}

function registryOf(features: Feature<any>[], lines: string[] = []): Registry {
  const fake = fakePort()
  const registry = createRegistry(features, (line) => void lines.push(line))
  registry.bind(Object.fromEntries(features.map((f) => [f.name, fake.port])), Object.fromEntries(features.map((f) => [f.name, fake.ctx(f)])))
  return registry
}

const streaming = (name: string, run: StreamHook<unknown, 'turn.step'>, onFailure?: Feature['hooks']['turn.step']): Feature => ({
  name, sessionActing: false, hooks: { 'turn.step': onFailure ?? run },
})

async function drain(g: AsyncGenerator<C, R>): Promise<{ chunks: string[]; result: R }> {
  const chunks: string[] = []
  for (;;) {
    const r = await g.next()
    if (r.done) return { chunks, result: r.value }
    chunks.push((r.value as { text?: string }).text ?? (r.value as { kind: string }).kind)
  }
}

const upper = streaming('upper', async function* (_p, e, next) {
  const beneath = next(e)
  for await (const c of beneath) yield (c.kind === 'text' ? { ...c, text: c.text.toUpperCase() } : c)
  return beneath.result
})

test('stream: features nest outermost first; a pass-through and a rewrite compose; the result stands', async () => {
  const order: string[] = []
  const tagger = streaming('tag', async function* (_p, e, next) {
    order.push('tag in')
    const r = yield* next(e)
    order.push('tag out')
    return { ...r, answer: `${r.answer}!` }
  })
  const { next, seen } = engine(['a', 'b'])
  const { chunks, result } = await drain(registryOf([tagger, upper]).stream('turn.step', STEP, next))
  assert.equal(chunks, ['A', 'B'])
  assert.is(result.answer, 'ab!', 'what a hook returns stands; one that returns nothing lets its next stand')
  assert.equal(order, ['tag in', 'tag out'])
  assert.is(seen.calls, 1)
})

test('stream: a feature that answers alone runs nothing beneath', async () => {
  const alone = streaming('alone', async function* () {
    yield text('mine')
    return RESULT('mine')
  })
  const { next, seen } = engine(['native'])
  const { chunks, result } = await drain(registryOf([alone, upper]).stream('turn.step', STEP, next))
  assert.equal([chunks, result.answer, seen.calls], [['mine'], 'mine', 0])
})

test('stream, open policy: a feature that fails before its next is skipped; its chunks stay, the chain goes on beneath', async () => {
  const lines: string[] = []
  const early = streaming('early', async function* () {
    yield text('said ')
    throw new Error('boom')
  })
  const { next, seen } = engine(['x', 'y'])
  const { chunks, result } = await drain(registryOf([early, upper], lines).stream('turn.step', STEP, next))
  assert.equal(chunks, ['said ', 'X', 'Y'])
  assert.is(result.answer, 'xy')
  assert.is(seen.calls, 1)
  assert.equal(lines, ['early: turn.step hook skipped (Error: boom)'])
})

test('stream, open policy: a feature that fails mid-stream after its next is left; the rest beneath passes on, nothing runs twice', async () => {
  const mid = streaming('mid', async function* (_p, e, next) {
    for await (const c of next(e)) {
      yield c
      throw new Error('mid-stream')
    }
  })
  const { next, seen } = engine(['1', '2', '3'])
  const { chunks, result } = await drain(registryOf([mid]).stream('turn.step', STEP, next))
  assert.equal(chunks, ['1', '2', '3'])
  assert.is(result.answer, '123')
  assert.is(seen.calls, 1)
})

test('stream, open policy: a result of the wrong shape is a failure; what beneath returned stands', async () => {
  const wrong = streaming('wrong', async function* (_p, e, next) {
    yield* next(e)
    return { nope: true } as never
  })
  const { next } = engine(['a'])
  const lines: string[] = []
  const { result } = await drain(registryOf([wrong], lines).stream('turn.step', STEP, next))
  assert.is(result.answer, 'a')
  assert.match(lines[0]!, /wrong: turn.step hook skipped \(answered a wrong shape/)
  const none = streaming('none', async function* () { yield text('x') })
  const beneath = engine(['native'])
  const fell = await drain(registryOf([none]).stream('turn.step', STEP, beneath.next))
  assert.equal(fell.chunks, ['x', 'native'], 'answered nothing without calling next: as if absent, its chunk stays')
})

const answering = (name: string, run: StreamHook<unknown, 'turn.step'>) => streaming(name, run, {
  run,
  onFailure: {
    answer: async function* (failure) {
      yield text(`${name} failed: ${failure.message}${failure.calledNext ? ' (after next)' : ''}`)
      return RESULT('error')
    },
  },
})

test('stream, answer policy: a failure before next answers in the feature\'s place; nothing beneath runs', async () => {
  const routed = answering('routing', async function* () {
    yield text('partial ')
    throw new Error('the provider answered 401')
  })
  const { next, seen } = engine(['NATIVE'])
  const { chunks, result } = await drain(registryOf([routed]).stream('turn.step', STEP, next))
  assert.equal(chunks, ['partial ', 'routing failed: Error: the provider answered 401'])
  assert.is(result.answer, 'error')
  assert.is(seen.calls, 0, 'never native')
})

test('stream, answer policy: a failure after next (capture) closes the stream beneath unread and never replays it', async () => {
  const capture = answering('routing', async function* (_p, e, next) {
    const captured = next(e)
    await captured.next() // takes the engine's request, reads one piece, yields none of it
    throw new Error('stream cut')
  })
  const { next, seen } = engine(['native-1', 'native-2'])
  const { chunks } = await drain(registryOf([capture]).stream('turn.step', STEP, next))
  assert.equal(chunks, ['routing failed: Error: stream cut (after next)'])
  assert.is(seen.closed, true, 'the stream beneath was closed')
  const beneathFails = answering('routing', async function* (_p, e, next) { return yield* next(e) })
  const failing = engine(['a', 'b'], { failAfter: 1 })
  const out = await drain(registryOf([beneathFails]).stream('turn.step', STEP, failing.next))
  assert.equal(out.chunks, ['a', 'routing failed: Error: the model request failed (after next)'], 'a failure beneath is answered too')
})

test('stream, open policy: a failure that comes up from beneath passes through unchanged', async () => {
  const { next } = engine(['a', 'b'], { failAfter: 1 })
  const err = await drain(registryOf([upper]).stream('turn.step', STEP, next)).then(() => undefined, (e: Error) => e)
  assert.is(err?.message, 'the model request failed')
})

test('stream: the engine closing the stream (an Esc) closes the feature and the stream beneath', async () => {
  let finished = false
  const holding = streaming('holding', async function* (_p, e, next) {
    try {
      yield* next(e)
    } finally {
      finished = true
    }
  })
  const { next, seen } = engine(['a', 'b', 'c'])
  const g = registryOf([holding, upper]).stream('turn.step', STEP, next)
  assert.equal((await g.next()).value, text('A'))
  await g.return(undefined as never)
  assert.equal([finished, seen.closed], [true, true])
})

test('stream: a second next is refused; a stream left unread by a finished feature is closed', async () => {
  const twice = streaming('twice', async function* (_p, e, next) {
    const first = next(e)
    await first.next()
    next(e)
  })
  const lines: string[] = []
  const { next, seen } = engine(['a', 'b'])
  const out = await drain(registryOf([twice], lines).stream('turn.step', STEP, next))
  assert.is(seen.calls, 1)
  assert.match(lines[0]!, /next\(\) called twice/)
  assert.equal(out.chunks, ['b'], 'after its next: the rest beneath passes on')
  const early = streaming('early', async function* (_p, e, next) {
    const s = next(e)
    await s.next()
    return RESULT('done early')
  })
  const left = engine(['a', 'b'])
  const done = await drain(registryOf([early]).stream('turn.step', STEP, left.next))
  assert.equal([done.result.answer, left.seen.closed], ['done early', true])
})

test('stream: the engine\'s signal, budget and origin reach a feature\'s next', async () => {
  let got: unknown
  const reader = streaming('reader', async function* (_p, e, next) {
    got = [next.signal, next.budget, next.origin]
    return yield* next(e)
  })
  const { next } = engine(['a'])
  await drain(registryOf([reader]).stream('turn.step', STEP, next))
  assert.equal((got as unknown[])[1], { ms: 10_000, remainingMs: 10_000 })
})

test('promise policy: a guard that fails before its next refuses; after it, what its next settled to stands', async () => {
  const lines: string[] = []
  const guard = (name: string, before: boolean): Feature => ({
    name,
    sessionActing: false,
    hooks: {
      'tool.call': {
        onFailure: { deny: `${name} could not decide` },
        run: async (_p, e, next) => {
          if (before) throw new Error('before')
          const r = await next(e)
          throw new Error(`after ${JSON.stringify(r)}`)
        },
      },
    },
  })
  const engineRan: string[] = []
  const tool = fakeNext(() => (engineRan.push('ran'), { result: 'the tool ran' }))
  assert.equal(await registryOf([guard('g1', true)], lines).dispatch('tool.call', { tool: 'Bash', tool_use_id: 'u' } as never, tool), { deny: 'g1 could not decide' })
  assert.equal(engineRan, [], 'refused: the tool never ran')
  assert.equal(await registryOf([guard('g2', false)], lines).dispatch('tool.call', { tool: 'Bash', tool_use_id: 'u' } as never, tool), { result: 'the tool ran' })
  assert.equal(engineRan, ['ran'], 'once')
  assert.equal(lines, ['g1: tool.call hook skipped (Error: before)', 'g2: tool.call hook skipped (Error: after {"result":"the tool ran"})'])
})

test('result checks: answers the engine would refuse are failures (http.fetch, prompt.compose, tool.call, session.receive, agent.spawn, session.send, session.append)', async () => {
  const answering = (event: string, answer: unknown): Feature => ({ name: 'x', sessionActing: false, hooks: { [event]: async () => answer } as never })
  const cases: [string, unknown, boolean][] = [
    ['http.fetch', { value: { status: 200, ok: true } }, false],
    ['http.fetch', { value: { status: 200, ok: true, headers: {}, text: '{}' } }, true],
    ['http.fetch', { deny: 'not sent' }, true],
    ['prompt.compose', { sections: 'x' }, false],
    ['prompt.compose', { sections: [] }, true],
    ['tool.call', { nothing: 1 }, false],
    ['tool.call', { deny: 'no' }, true],
    ['session.receive', { consumed: 'dup' }, true],
    ['session.receive', {}, false],
    ['agent.spawn', { model: 'gpt' }, true],
    ['agent.spawn', {}, false],
    ['session.send', { isDelivered: true }, true],
    ['session.send', { delivered: true }, false],
    ['session.append', { message: {}, uuid: 'u' }, true],
    ['session.append', { uuid: 'u' }, false],
  ]
  for (const [event, answer, ok] of cases) {
    const beneath = { from: 'beneath' }
    const r = await registryOf([answering(event, answer)]).dispatch(event as never, {} as never, fakeNext(() => beneath))
    assert.equal(r, ok ? answer : beneath, `${event} ${JSON.stringify(answer)}`)
  }
})

test.run()
