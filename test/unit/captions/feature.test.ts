// The feature's binding: its hooks over a fake port, the drawing over a fake element table.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import type { ModelCompleteRequest } from 'claude-code'
import { createCaptionsFeature } from '../../../src/features/captions/index.ts'
import { drawCall, drawEmpty, drawRun } from '../../../src/features/captions/draw.tsx'
import { fakeNext, fakePort, hooksOf } from '../fakes.ts'
import { DEFAULTS } from '../template-defaults.ts'

type Node = { type: string; props: Record<string, unknown>; children: (Node | string)[] }
// The engine's JSX factory is a global of the hooks environment; on Node the test stands in for it.
;(globalThis as Record<string, unknown>).h = (tag: { name: string }, props: Record<string, unknown> | null, ...children: unknown[]): Node => ({
  type: tag.name,
  props: props ?? {},
  children: (children.flat(Infinity) as (Node | string)[]).filter((c) => c !== null && c !== undefined),
})
const UI = { Box: function Box() {}, Text: function Text() {} } as never
const textOf = (n: Node | string): string => (typeof n === 'string' ? n : n.children.map(textOf).join(''))
const texts = (n: Node | string): string[] => (typeof n === 'string' ? [] : [...(n.type === 'Text' ? [textOf(n)] : []), ...n.children.flatMap(texts)])

let captionsFeature = createCaptionsFeature()
let hooks = hooksOf(captionsFeature)
const ENGINE_ROW = { type: 'engine', ref: 1 }

/** A started feature over a fake port whose clock the test cranks and whose model answers `reply`. */
async function started(reply: string) {
  const requests: ModelCompleteRequest[] = []
  let tick: () => void = () => {}
  let redraws = 0
  captionsFeature = createCaptionsFeature()
  hooks = hooksOf(captionsFeature)
  const fake = fakePort('ws', {
    messages: async () => [],
    complete: async (req: ModelCompleteRequest) => { requests.push(req); return { isAnswered: true, text: reply, usage: { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } } },
    redraw: () => void redraws++,
    every: (_ms: number, fn: () => void) => { tick = fn; return () => {} },
    elements: () => UI,
  })
  const { port, lines } = fake
  // Every field, as the runtime hands them; a size below 1 passes its type check, and the feature names it.
  const ctx = fake.ctx(captionsFeature, { ...DEFAULTS, captions: true, captionsContextTokens: 0 }, { defaults: DEFAULTS })
  await hooks['session.start']!(port, { cwd: '/w', surface: 'terminal', isInteractive: true }, fakeNext((e) => e), ctx)
  // Every edge here settles in microtasks: a few turns of the queue let a tick run to its end.
  const settle = async () => { for (let i = 0; i < 20; i++) await Promise.resolve() }
  const render = (component: string, props: Record<string, unknown>) =>
    hooks['ui.render']!(port, { surface: 'terminal', component, requestId: 'r', viewport: { columns: 80, rows: 20 }, props } as never, fakeNext(() => ENGINE_ROW), ctx)
  return { port, lines, ctx, requests, render, get redraws() { return redraws }, flush: async () => { tick(); await settle(); await settle() } }
}

const row = (id: string, extra: Record<string, unknown> = {}) => ({ tool_use_id: id, tool: 'Bash', input: { command: `echo ${id}` }, isRunning: false, isErrored: false, isInterrupted: false, output: { stdout: id }, ...extra })

test('ToolUse: raw and queued, then drawn as its caption after a tick; its ToolResult then draws nothing', async () => {
  const f = await started('[{"id":"u1","subtitle":"","intention":"say hi","result":"printed hi"}]')
  assert.ok(f.lines.some((l) => l.includes('captionsContextTokens')), 'the bad context size is named')
  await hooks['tool.call']!(f.port, { tool: 'Bash', tool_use_id: 'u-1', command: 'echo u-1' } as never, fakeNext(() => ({ result: { stdout: 'hi' }, text: 'h'.repeat(4096) })), f.ctx)
  assert.equal(await f.render('ToolUse', row('u-1')), ENGINE_ROW)
  assert.equal(await f.render('ToolResult', { tool_use_id: 'u-1', tool: 'Bash', output: {}, isErrored: false }), ENGINE_ROW)
  await f.flush()
  assert.is(f.requests.length, 1)
  const tree = (await f.render('ToolUse', row('u-1'))) as unknown as Node
  // The size: the captured input and the 4096 characters the lead read.
  assert.is((JSON.stringify({ command: 'echo u-1' }).length + 4096) / 1024 < 4.05, true)
  assert.equal(texts(tree).filter((t) => t.trim()), ['· ', 'Bash  echo u-1', 'Bash', '  echo u-1', '  ⎿  ', 'say hi', '4.0 KB · printed hi', '4.0 KB', ' · printed hi'])
  assert.is(tree.props.width, 80)
  assert.equal(await f.render('ToolResult', { tool_use_id: 'u-1', tool: 'Bash', output: {}, isErrored: false }), { type: 'Box', props: {}, children: [] })
  assert.equal(await f.render('ToolResult', { tool_use_id: 'u-1', tool: 'Bash', output: {}, isErrored: true }), ENGINE_ROW)
  assert.equal(await f.render('ToolResult', { tool_use_id: 'u-1', tool: 'Bash', output: {}, isErrored: false, isExpanded: true }), ENGINE_ROW)
  assert.equal(await f.render('ToolUse', row('u-1', { isExpanded: true })), ENGINE_ROW)
  assert.equal(await f.render('ToolUse', row('u-2', { isRunning: true })), ENGINE_ROW)
})

test('ToolGroup: a group of one uses the lone caption; a run its run caption; the live group draws raw', async () => {
  const f = await started('[{"id":"u1","intention":"i","result":"r"},{"id":"u2","subtitles":["a","b"],"summary":"both echoed"}]')
  const group = (calls: unknown[], extra = {}) => ({ calls, isActive: false, isExpanded: false, isCallsOnly: true, ...extra })
  assert.equal(await f.render('ToolGroup', group([row('g-1')])), ENGINE_ROW)
  assert.equal(await f.render('ToolGroup', group([row('g-2'), row('g-3', { isErrored: true })])), ENGINE_ROW)
  assert.equal(await f.render('ToolGroup', group([row('g-4')], { isActive: true })), ENGINE_ROW)
  await f.flush()
  assert.is(f.requests.length, 1)
  const lone = (await f.render('ToolGroup', group([row('g-1')]))) as unknown as Node
  assert.ok(texts(lone).includes('i'))
  const run = (await f.render('ToolGroup', group([row('g-2'), row('g-3', { isErrored: true })]))) as unknown as Node
  const t = texts(run)
  assert.ok(t.includes('both echoed'))
  assert.ok(t.includes('✗ '))
  assert.ok(t.some((x) => /^2 calls · \d+\.\d KB$/.test(x)))
  assert.equal(await f.render('Spinner', {}), ENGINE_ROW)
})

test('session.compact resets the mirror after a landing; session.end too; status names the settings and counts', async () => {
  const f = await started('[]')
  const res = await hooks['session.compact']!(f.port, { trigger: 'manual', messages: [] } as never, fakeNext(() => ({ messages: [{ role: 'user' }] })), f.ctx)
  assert.equal(res, { messages: [{ role: 'user' }] })
  const end = await hooks['session.end']!(f.port, { reason: 'other', sessionId: 's', resume: { id: 's' } } as never, fakeNext(() => ({ sessionId: 's' })), f.ctx)
  assert.equal(end, { sessionId: 's' })
  const status = await captionsFeature.status!(f.port, f.ctx as never)
  assert.is(status[0], "model haiku, mirror window 200000 tokens, language the user's")
  assert.match(status[1]!, /^\d+ calls and \d+ runs captioned; 0 queued; 0 not answered \(asked again after a reload\); \d+ model calls$/)
  assert.match(status[2]!, 'captionsContextTokens')
})

test('drawing: a caption row, a run and the empty result, without a measured width', () => {
  const call = { id: 'x', tool: 'mcp__github__create_issue', input: {}, isErrored: true }
  const tree = drawCall(UI, call, { subtitle: '', intention: 'file it', result: 'filed #3', bytes: 2048 }, undefined) as unknown as Node
  assert.is(tree.props.width, undefined)
  assert.equal(texts(tree).slice(0, 2), ['✗ ', 'github/create.issue'])
  assert.ok(texts(tree).includes('2.0 KB'))
  const run = drawRun(UI, [call, { ...call, isErrored: false }], { subtitles: ['s1'], summary: 'S', bytes: 1024 }, 40) as unknown as Node
  assert.ok(texts(run).includes('2 calls · 1.0 KB'))
  assert.equal(drawEmpty(UI), { type: 'Box', props: {}, children: [] } as never)
})

test.run()
