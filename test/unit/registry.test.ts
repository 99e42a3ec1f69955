// The registry's chain and isolation semantics, against a fake port and a fake engine `next`.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { createRegistry, type Feature, type Registry, type HookedEvent, type PromiseHook } from '../../src/registry.ts'
import { fakePort, fakeNext } from './fakes.ts'

function feature(name: string, hook: PromiseHook<unknown, 'turn.complete'>): Feature {
  return { name, sessionActing: false, hooks: { 'turn.complete': hook } }
}

/** A registry over these features, bound as a load binds it: its skips said into `lines`. */
function registryOf(features: Feature<any>[], lines: string[] = fakePort().lines): Registry {
  const fake = fakePort()
  const registry = createRegistry(features, (line) => void lines.push(line))
  registry.bind(Object.fromEntries(features.map((f) => [f.name, fake.port])), Object.fromEntries(features.map((f) => [f.name, fake.ctx(f)])))
  return registry
}

const COMPLETE = { answer: 'a', durationMs: 1, isAborted: false, turnId: 't', reason: 'answer' } as never

/** A feature that records its passage and passes on, marking the text. */
function passer(name: string, seen: string[]): Feature {
  return feature(name, async (_port, e, next) => {
    seen.push(`${name} in`)
    const r = await next(e)
    seen.push(`${name} out`)
    return { ...r, text: `${r.text}+${name}` }
  })
}

test('features nest outermost first, then the engine', async () => {
  const seen: string[] = []
  const registry = registryOf([passer('a', seen), passer('b', seen)])
  const engine = fakeNext((e: { answer: string }) => { seen.push('engine'); return { text: e.answer } })
  const r = await registry.dispatch('turn.complete', COMPLETE, engine)
  assert.equal(seen, ['a in', 'b in', 'engine', 'b out', 'a out'])
  assert.is((r as { text: string }).text, 'a+b+a')
})

test('a rewrite passed to next reaches the features beneath and the engine', async () => {
  const rewriting = feature('r', (_port, e, next) => next({ ...e, answer: 'rewritten' }))
  const engine = fakeNext((e: { answer: string }) => ({ text: e.answer }))
  const r = await registryOf([rewriting]).dispatch('turn.complete', COMPLETE, engine)
  assert.is((r as { text: string }).text, 'rewritten')
})

for (const [how, hook] of [
  ['throws synchronously', () => { throw new Error('boom') }],
  ['rejects', async () => { throw new Error('boom') }],
  ['answers undefined', async () => undefined],
  ['answers a string', async () => 'nope'],
] as const) {
  test(`a feature that ${how} before next is skipped as if absent`, async () => {
    const seen: string[] = []
    const { lines } = fakePort()
    const registry = registryOf([feature('bad', hook as never), passer('good', seen)], lines)
    const engine = fakeNext(() => { seen.push('engine'); return { text: 'x' } })
    const r = await registry.dispatch('turn.complete', COMPLETE, engine)
    assert.equal(seen, ['good in', 'engine', 'good out'])
    assert.is((r as { text: string }).text, 'x+good')
    assert.is(registry.skips.get('bad'), 1)
    assert.ok(lines.some((l) => l.startsWith('bad: turn.complete hook skipped')), lines.join('\n'))
  })
}

test('a feature that fails after next: what its next settled to stands, nothing beneath runs twice', async () => {
  let engineRuns = 0
  const failsAfter = feature('late', async (_port, e, next) => {
    await next(e)
    throw new Error('after')
  })
  const engine = fakeNext(() => { engineRuns++; return { text: 'once' } })
  const registry = registryOf([failsAfter])
  const r = await registry.dispatch('turn.complete', COMPLETE, engine)
  assert.is(engineRuns, 1)
  assert.is((r as { text: string }).text, 'once')
  assert.is(registry.skips.get('late'), 1)
})

test('calling next twice is refused and the first call stands', async () => {
  let engineRuns = 0
  const twice = feature('twice', async (_port, e, next) => {
    await next(e)
    return next(e)
  })
  const registry = registryOf([twice])
  const r = await registry.dispatch('turn.complete', COMPLETE, fakeNext(() => ({ text: `run ${++engineRuns}` })))
  assert.is(engineRuns, 1)
  assert.is((r as { text: string }).text, 'run 1')
  assert.is(registry.skips.get('twice'), 1)
})

test('a failure from beneath goes up unchanged and is not counted against the feature', async () => {
  const relays = feature('relay', (_port, e, next) => next(e))
  const registry = registryOf([relays])
  const engine = fakeNext(() => { throw new Error('engine said no') })
  await registry.dispatch('turn.complete', COMPLETE, engine).then(
    () => assert.unreachable('should reject'),
    (err: Error) => assert.is(err.message, 'engine said no'),
  )
  assert.is(registry.skips.get('relay'), undefined)
})

test('a skip is logged once per feature and event until the feature succeeds again', async () => {
  let fail = true
  const flaky = feature('flaky', async (_port, e, next) => {
    if (fail) throw new Error('x')
    return next(e)
  })
  const { lines } = fakePort()
  const registry = registryOf([flaky], lines)
  const engine = fakeNext(() => ({ text: 'ok' }))
  await registry.dispatch('turn.complete', COMPLETE, engine)
  await registry.dispatch('turn.complete', COMPLETE, engine)
  assert.is(lines.length, 1)
  fail = false
  await registry.dispatch('turn.complete', COMPLETE, engine)
  fail = true
  await registry.dispatch('turn.complete', COMPLETE, engine)
  assert.is(lines.length, 2)
  assert.is(registry.skips.get('flaky'), 3)
})

test('session.compact answers must carry messages or a skip reason', async () => {
  const wrong = { name: 'w', sessionActing: false, hooks: { 'session.compact': async () => ({ nothing: true }) } } as unknown as Feature
  const registry = registryOf([wrong])
  const input = { trigger: 'manual', messages: [{ role: 'user', text: 'x', toolUses: [] }] } as never
  const r = await registry.dispatch('session.compact', input, fakeNext(() => ({ messages: ['kept'] })))
  assert.equal((r as unknown as { messages: string[] }).messages, ['kept'])
  assert.is(registry.skips.get('w'), 1)
})

test('leftOut leaves a feature out of a dispatch; hooks() names only hooked events', async () => {
  const seen: string[] = []
  const registry = registryOf([passer('a', seen), passer('b', seen)])
  await registry.dispatch('turn.complete', COMPLETE, fakeNext(() => ({ text: '' })), new Set(['a']))
  assert.equal(seen, ['b in', 'b out'])
  await registry.dispatch('turn.complete', COMPLETE, fakeNext(() => ({ text: '' })))
  assert.equal(seen, ['b in', 'b out', 'a in', 'b in', 'b out', 'a out'])
  assert.ok(registry.hooks('turn.complete'))
  assert.not.ok(registry.hooks('session.compact' as HookedEvent))
})

test('the feature sees the engine facts of the dispatch on its next', async () => {
  let seenSignal: unknown
  const reader = feature('reader', (_port, e, next) => { seenSignal = next.signal; return next(e) })
  const signal = new AbortController().signal
  await registryOf([reader]).dispatch('turn.complete', COMPLETE, fakeNext(() => ({ text: '' }), { signal }))
  assert.is(seenSignal, signal)
})

test.run()
