// Capture pairing (§2.2, NOTES §7, §11.1): each waiting step's relay goes to the engine request of
// its own loop, told by the agent header; a header the engine redacted or spelled otherwise falls
// back; cancel rejects. The relay hands the pieces on in order, then the end, the first end counting.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { AGENT_HEADER, createCaptures, headerOf } from '../../../src/features/routing/capture.ts'
import { createRelay, type StepRelay } from '../../../src/features/routing/relay.ts'

/** Whether a promise has settled yet, and how. */
async function state(p: Promise<void>): Promise<'captured' | { error: string } | 'pending'> {
  const marker = Symbol('pending')
  const out = await Promise.race([p.then(() => 'captured' as const, (err: Error) => ({ error: err.message })), Promise.resolve().then(() => marker)])
  return out === marker ? 'pending' : (out as 'captured' | { error: string })
}

/** A waiter and the relay it waits with. */
const waiter = (captures: ReturnType<typeof createCaptures>, model: string, agentId: string | undefined) => {
  const relay: StepRelay = createRelay()
  return { relay, ...captures.expect(model, agentId, relay) }
}

test('the header name as measured, and headerOf in any case', () => {
  assert.is(AGENT_HEADER, 'x-claude-code-agent-id')
  assert.is(headerOf({ 'X-Claude-Code-Agent-Id': 'a1' }, AGENT_HEADER), 'a1')
  assert.is(headerOf({ 'x-claude-code-agent-id': '' }, AGENT_HEADER), '')
  assert.is(headerOf({ other: 'x' }, AGENT_HEADER), undefined)
  assert.is(headerOf({}, AGENT_HEADER), undefined)
})

test('one waiter: take hands over its relay; a request with nobody waiting, or for another model, is not taken', async () => {
  const captures = createCaptures()
  assert.is(captures.take('gpt-5', {}), undefined, 'nobody waits')
  const wait = waiter(captures, 'gpt-5', undefined)
  assert.is(captures.waiting, 1)
  assert.is(await state(wait.captured), 'pending')
  assert.is(captures.take('gpt-mini', {}), undefined, 'another model')
  assert.is(captures.waiting, 1)
  assert.is(captures.take('gpt-5', { 'content-type': 'application/json' }), wait.relay)
  assert.is(captures.waiting, 0)
  assert.is(await state(wait.captured), 'captured')
  assert.is(captures.take('gpt-5', {}), undefined, 'a waiter is handed one request')
})

test('main and two agents wait on one model: each request goes to the loop its header names, whatever the order', () => {
  const captures = createCaptures()
  const main = waiter(captures, 'gpt-5', undefined)
  const a1 = waiter(captures, 'gpt-5', 'a1')
  const a2 = waiter(captures, 'gpt-5', 'a2')
  assert.is(captures.take('gpt-5', { 'X-Claude-Code-Agent-Id': 'a2' }), a2.relay)
  assert.is(captures.take('gpt-5', {}), main.relay)
  assert.is(captures.take('gpt-5', { [AGENT_HEADER]: 'a1' }), a1.relay)
  assert.is(captures.waiting, 0)
})

test('fallbacks: an unknown agent header goes to an agent waiter, no header with only agents waiting goes to the first waiter, a header with only main waiting goes to main', async () => {
  const captures = createCaptures()
  const main = waiter(captures, 'gpt-5', undefined)
  const a1 = waiter(captures, 'gpt-5', 'a1')
  assert.is(captures.take('gpt-5', { [AGENT_HEADER]: '[redacted]' }), a1.relay, 'same kind first: an agent')
  assert.is(await state(main.captured), 'pending')
  assert.is(captures.take('gpt-5', { [AGENT_HEADER]: 'a7' }), main.relay, 'then any waiter of the model')

  const only = createCaptures()
  const b1 = waiter(only, 'gpt-5', 'b1')
  const b2 = waiter(only, 'gpt-5', 'b2')
  assert.is(only.take('gpt-5', {}), b1.relay, 'the first waiter, in order')
  assert.is(await state(b2.captured), 'pending')
  assert.is(only.waiting, 1)
})

test('several waiters of one loop and model are served in the order they came', async () => {
  const captures = createCaptures()
  const first = waiter(captures, 'gpt-5', undefined)
  const second = waiter(captures, 'gpt-5', undefined)
  const other = waiter(captures, 'kimi', undefined)
  assert.equal([captures.take('gpt-5', {}), captures.take('gpt-5', {}), captures.take('gpt-5', {})], [first.relay, second.relay, undefined])
  assert.is(await state(other.captured), 'pending')
  assert.is(captures.take('kimi', {}), other.relay)
})

test('cancel rejects the waiter with the reason and takes it out; a second cancel and a late take change nothing', async () => {
  const captures = createCaptures()
  const wait = waiter(captures, 'gpt-5', undefined)
  const kept = waiter(captures, 'gpt-5', 'a1')
  wait.cancel(new Error('timed out'))
  assert.equal(await state(wait.captured), { error: 'timed out' })
  assert.is(captures.waiting, 1)
  wait.cancel(new Error('again'))
  assert.equal(await state(wait.captured), { error: 'timed out' })
  // The request main would have had now goes to the waiter left (the fallback), never to the cancelled one.
  assert.is(captures.take('gpt-5', {}), kept.relay)
  // A cancel after the request came leaves the capture as it was.
  const done = waiter(captures, 'gpt-5', undefined)
  assert.is(captures.take('gpt-5', {}), done.relay)
  done.cancel(new Error('too late'))
  assert.is(await state(done.captured), 'captured')
})

test('a cancelled waiter nobody awaits raises no unhandled rejection', async () => {
  const captures = createCaptures()
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown) => void unhandled.push(reason)
  // Node's process and timers, typed by hand: the unit project has no Node types (fixtures/read.ts says why).
  const node = globalThis as unknown as { process: { on(e: string, f: (r: unknown) => void): void; off(e: string, f: (r: unknown) => void): void }; setTimeout(f: () => void, ms: number): unknown }
  const proc = node.process
  proc.on('unhandledRejection', onUnhandled)
  waiter(captures, 'gpt-5', undefined).cancel(new Error('nobody listens'))
  await new Promise<void>((resolve) => node.setTimeout(resolve, 5))
  proc.off('unhandledRejection', onUnhandled)
  assert.equal(unhandled, [])
})

test('the relay: pieces in order as they come, a reader waiting before any arrived, then the end; the first end counts', async () => {
  const relay = createRelay<string, number>()
  const early = relay.next()
  relay.push('a')
  relay.push('b')
  assert.equal(await early, { done: false, value: 'a' })
  relay.end(1)
  relay.end(2)
  relay.push('c')
  assert.equal([await relay.next(), await relay.next(), await relay.next()], [{ done: false, value: 'b' }, { done: false, value: 'c' }, { done: true, value: 1 }])
  assert.equal(await relay.next(), { done: true, value: 1 }, 'the end stays')
})

test.run()
