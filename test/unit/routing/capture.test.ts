// Capture pairing (§2.2, NOTES §7): each waiting step gets the engine request of its own loop, told
// by the agent header; a header the engine redacted or spelled otherwise falls back; cancel rejects.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { AGENT_HEADER, createCaptures, headerOf, type Captured } from '../../../src/features/routing/capture.ts'

/** Whether a promise has settled yet, and how. */
async function state(p: Promise<Captured>): Promise<{ value?: Captured; error?: string } | 'pending'> {
  const marker = Symbol('pending')
  const out = await Promise.race([p.then((value) => ({ value }), (err: Error) => ({ error: err.message })), Promise.resolve().then(() => marker)])
  return out === marker ? 'pending' : (out as { value?: Captured; error?: string })
}

test('the header name as measured, and headerOf in any case', () => {
  assert.is(AGENT_HEADER, 'x-claude-code-agent-id')
  assert.is(headerOf({ 'X-Claude-Code-Agent-Id': 'a1' }, AGENT_HEADER), 'a1')
  assert.is(headerOf({ 'x-claude-code-agent-id': '' }, AGENT_HEADER), '')
  assert.is(headerOf({ other: 'x' }, AGENT_HEADER), undefined)
  assert.is(headerOf({}, AGENT_HEADER), undefined)
})

test('one waiter: take hands it the body and headers; a request with nobody waiting, or for another model, is not taken', async () => {
  const captures = createCaptures()
  assert.is(captures.take('gpt-5', {}, '{}'), false, 'nobody waits')
  const wait = captures.expect('gpt-5', undefined)
  assert.is(captures.waiting, 1)
  assert.is(await state(wait.captured), 'pending')
  assert.is(captures.take('gpt-mini', {}, '{"model":"gpt-mini"}'), false, 'another model')
  assert.is(captures.waiting, 1)
  assert.is(captures.take('gpt-5', { 'content-type': 'application/json' }, '{"model":"gpt-5"}'), true)
  assert.is(captures.waiting, 0)
  assert.equal(await wait.captured, { body: '{"model":"gpt-5"}', headers: { 'content-type': 'application/json' } })
  assert.is(captures.take('gpt-5', {}, '{}'), false, 'a waiter is handed one request')
})

test('main and two agents wait on one model: each request goes to the loop its header names, whatever the order', async () => {
  const captures = createCaptures()
  const main = captures.expect('gpt-5', undefined)
  const a1 = captures.expect('gpt-5', 'a1')
  const a2 = captures.expect('gpt-5', 'a2')
  assert.ok(captures.take('gpt-5', { 'X-Claude-Code-Agent-Id': 'a2' }, 'to a2'))
  assert.ok(captures.take('gpt-5', {}, 'to main'))
  assert.ok(captures.take('gpt-5', { [AGENT_HEADER]: 'a1' }, 'to a1'))
  assert.equal([(await main.captured).body, (await a1.captured).body, (await a2.captured).body], ['to main', 'to a1', 'to a2'])
  assert.is(captures.waiting, 0)
})

test('fallbacks: an unknown agent header goes to an agent waiter, no header with only agents waiting goes to the first waiter, a header with only main waiting goes to main', async () => {
  const captures = createCaptures()
  const main = captures.expect('gpt-5', undefined)
  const a1 = captures.expect('gpt-5', 'a1')
  const redacted = { [AGENT_HEADER]: '[redacted]' }
  assert.ok(captures.take('gpt-5', redacted, 'redacted'))
  assert.equal(await state(a1.captured), { value: { body: 'redacted', headers: redacted } }, 'same kind first: an agent')
  assert.is(await state(main.captured), 'pending')
  assert.ok(captures.take('gpt-5', { [AGENT_HEADER]: 'a7' }, 'any of the model'))
  assert.is((await main.captured).body, 'any of the model', 'then any waiter of the model')

  const only = createCaptures()
  const b1 = only.expect('gpt-5', 'b1')
  const b2 = only.expect('gpt-5', 'b2')
  assert.ok(only.take('gpt-5', {}, 'no header'))
  assert.equal(await state(b1.captured), { value: { body: 'no header', headers: {} } }, 'the first waiter, in order')
  assert.is(await state(b2.captured), 'pending')
  assert.is(only.waiting, 1)
})

test('several waiters of one loop and model are served in the order they came', async () => {
  const captures = createCaptures()
  const first = captures.expect('gpt-5', undefined)
  const second = captures.expect('gpt-5', undefined)
  const other = captures.expect('kimi', undefined)
  assert.ok(captures.take('gpt-5', {}, 'one'))
  assert.ok(captures.take('gpt-5', {}, 'two'))
  assert.is(captures.take('gpt-5', {}, 'three'), false)
  assert.equal([(await first.captured).body, (await second.captured).body], ['one', 'two'])
  assert.is(await state(other.captured), 'pending')
  assert.ok(captures.take('kimi', {}, 'k'))
  assert.is((await other.captured).body, 'k')
})

test('cancel rejects the waiter with the reason and takes it out; a second cancel and a late take change nothing', async () => {
  const captures = createCaptures()
  const wait = captures.expect('gpt-5', undefined)
  const kept = captures.expect('gpt-5', 'a1')
  wait.cancel(new Error('timed out'))
  assert.equal(await state(wait.captured), { error: 'timed out' })
  assert.is(captures.waiting, 1)
  wait.cancel(new Error('again'))
  assert.equal(await state(wait.captured), { error: 'timed out' })
  assert.is(captures.waiting, 1)
  // The request main would have had now goes to the waiter left (the fallback), never to the cancelled one.
  assert.ok(captures.take('gpt-5', {}, 'late'))
  assert.is((await kept.captured).body, 'late')
  // A cancel after the request came leaves the captured request as it was.
  const done = captures.expect('gpt-5', undefined)
  assert.ok(captures.take('gpt-5', {}, 'body'))
  done.cancel(new Error('too late'))
  assert.equal(await state(done.captured), { value: { body: 'body', headers: {} } })
})

test('a cancelled waiter nobody awaits raises no unhandled rejection', async () => {
  const captures = createCaptures()
  const unhandled: unknown[] = []
  const onUnhandled = (reason: unknown) => void unhandled.push(reason)
  // Node's process and timers, typed by hand: the unit project has no Node types (fixtures/read.ts says why).
  const node = globalThis as unknown as { process: { on(e: string, f: (r: unknown) => void): void; off(e: string, f: (r: unknown) => void): void }; setTimeout(f: () => void, ms: number): unknown }
  const proc = node.process
  proc.on('unhandledRejection', onUnhandled)
  captures.expect('gpt-5', undefined).cancel(new Error('nobody listens'))
  await new Promise<void>((resolve) => node.setTimeout(resolve, 5))
  proc.off('unhandledRejection', onUnhandled)
  assert.equal(unhandled, [])
})

test.run()
