// packages: ws, keel
// Captions through real dispatch: rows mounted on terminal and desktop draw raw and queue a unit;
// the mocked clock's tick sends it through `model.complete` (answered here); the redraw draws it.
import type { On } from 'claude-code'
import { expect, mock, test } from 'claude-code/testing'
import { PKG } from './package.ts'

const ON = { options: { captions: 'on' } }
const SURFACES = ['terminal', 'desktop'] as const
const VIEWPORT = { columns: 100, rows: 40 }

type Recorded = { prompt: { text: string; cache?: true }[]; model: string; maxTokens?: number; effort?: string; timeoutMs?: number }

/** The engine beneath: session start, the conversation, and the caption model answering `reply`. */
function engine(on: On, reply: (req: Recorded) => string) {
  const clock = mock.clock(on, { now: 1_000 })
  const requests: Recorded[] = []
  on('command.register', (_, e) => ({ value: { command: e.name } }))
  on('session.start', (_, e) => ({ cwd: e.cwd }))
  on('session.id', () => ({ value: 'session-1' }))
  on('env.get', () => ({ value: undefined }))
  on('env.set', () => ({ value: {} }))
  on('session.messages', () => ({
    value: [
      { role: 'user', content: [{ type: 'text', text: 'where is the parser defined?' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Let me look.' }, { type: 'tool_use', id: 't1', name: 'Read', input: { file_path: '/a' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'parser at a.ts:3' }] }] },
    ],
  }))
  on('model.complete', (_, e) => {
    const req = { ...e, prompt: [...(e.promptBlocks ?? [{ text: e.prompt }])] } as Recorded
    requests.push(req)
    return { value: { isAnswered: true, text: reply(req), usage: { input_tokens: 1000, output_tokens: 20, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } } }
  })
  return { clock, requests }
}

const READ_ROW = {
  tool_use_id: 't1', tool: 'Read', input: { file_path: '/a' },
  isRunning: false, isErrored: false, isInterrupted: false, output: { type: 'text', file: { filePath: '/a', content: 'x' } },
}
const LONE_REPLY = '[{"id":"u1","subtitle":"src/a.ts","intention":"find parser","result":"found at a.ts:3"}]'

for (const surface of SURFACES) {
  test(`${surface}: a finished ToolUse draws raw, is captioned after one tick, then draws the caption`, ON, async ($, on) => {
    const { clock, requests } = engine(on, () => LONE_REPLY)
    on('tool.call', () => ({ result: { type: 'text', file: { filePath: '/a', content: 'x' } }, text: 'x'.repeat(2048) }))
    await $.session.start({ cwd: '/w', surface, isInteractive: true })
    await $.tool.call({ tool: 'Read', file_path: '/a', tool_use_id: 't1' } as never)

    const ui = await $.ui.mount({ plugin: PKG, surface, component: 'ToolUse', props: READ_ROW, requestId: 't1', viewport: VIEWPORT })
    expect(await ui.keepsBeneath()).toBe(true)
    expect(requests).toHaveLength(0)

    await clock.advance(1500)
    expect(requests).toHaveLength(1)
    const [req] = requests
    expect(req!.model).toBe('haiku')
    expect(req!.effort).toBe('low')
    expect(req!.timeoutMs).toBe(30_000)
    expect(req!.maxTokens).toBe(340)
    // Rules first and cached; the units last.
    expect(req!.prompt[0]!.text).toStartWith("You write one-glance captions for a coding agent's tool calls.")
    expect(req!.prompt[0]!.cache).toBe(true)
    expect(req!.prompt.at(-1)!.text).toContain('UNITS\n[{"id":"u1"')
    expect(req!.prompt.at(-1)!.text).toEndWith('u1: lone call -> {id, subtitle, intention, result}')

    await ui.redraw()
    expect(await ui.keepsBeneath()).toBe(false)
    expect(await ui.find({ type: 'Text', text: 'find parser' })).toBeDefined()
    expect(await ui.find({ type: 'Text', text: ' · found at a.ts:3' })).toBeDefined()
    // The size the lead's context holds: the input plus the 2048 characters it read.
    const size = ((JSON.stringify({ file_path: '/a' }).length + 2048) / 1024).toFixed(1)
    expect(await ui.find({ type: 'Text', text: `${size} KB` })).toBeDefined()
    expect(await ui.find({ type: 'Text', text: '  src/a.ts' })).toBeDefined()

    // Its result block draws nothing collapsed, and raw when expanded.
    const result = await $.ui.mount({ plugin: PKG, surface, component: 'ToolResult', props: { tool_use_id: 't1', tool: 'Read', output: READ_ROW.output, isErrored: false }, requestId: 't1', viewport: VIEWPORT })
    expect(await result.keepsBeneath()).toBe(false)
    await result.redraw({ tool_use_id: 't1', tool: 'Read', output: READ_ROW.output, isErrored: false, isExpanded: true })
    expect(await result.keepsBeneath()).toBe(true)

    // The expanded view of the same call draws raw.
    await ui.redraw({ ...READ_ROW, isExpanded: true })
    expect(await ui.keepsBeneath()).toBe(true)
    await clock.advance(3000)
    expect(requests).toHaveLength(1)
  })

  test(`${surface}: a finished ToolGroup of three calls is one unit with one run caption`, ON, async ($, on) => {
    const { clock, requests } = engine(on, () => '[{"id":"u1","subtitles":["a.ts","","c.ts"],"summary":"parser found in a.ts"}]')
    await $.session.start({ cwd: '/w', surface, isInteractive: true })
    const call = (id: string, file: string, extra = {}) => ({ tool_use_id: id, tool: 'Read', input: { file_path: file }, isRunning: false, isErrored: false, isInterrupted: false, output: 'text', ...extra })
    const calls = [call('g1', '/a.ts'), call('g2', '/b.ts', { isErrored: true }), call('g3', '/c.ts')]
    const ui = await $.ui.mount({ plugin: PKG, surface, component: 'ToolGroup', props: { calls, isActive: false, isExpanded: false, isCallsOnly: false }, requestId: 'g1', viewport: VIEWPORT })
    expect(await ui.keepsBeneath()).toBe(true)
    await ui.redraw() // drawn again before the tick: still one unit
    await clock.advance(1500)
    expect(requests).toHaveLength(1)
    expect(requests[0]!.maxTokens).toBe(300 + 3 * 40)
    expect(requests[0]!.prompt.at(-1)!.text).toContain('u1: run of 3 calls -> {id, subtitles (3), summary}')
    await ui.redraw()
    expect(await ui.find({ type: 'Text', text: 'parser found in a.ts' })).toBeDefined()
    expect(await ui.find({ type: 'Text', text: /^3 calls · \d+\.\d KB$/ })).toBeDefined()
    // The blank middle subtitle falls back to the call's own target; the failed call's marker is red.
    expect(await ui.find({ type: 'Text', text: '  /b.ts' })).toBeDefined()
    expect(await ui.find({ type: 'Text', text: '✗ ' })).toBeDefined()
  })

  test(`${surface}: the live group and a running call draw raw and ask nothing`, ON, async ($, on) => {
    const { clock, requests } = engine(on, () => LONE_REPLY)
    await $.session.start({ cwd: '/w', surface, isInteractive: true })
    const running = { ...READ_ROW, tool_use_id: 'r1', isRunning: true, output: undefined }
    const group = await $.ui.mount({ plugin: PKG, surface, component: 'ToolGroup', props: { calls: [READ_ROW], isActive: true, isExpanded: false, isCallsOnly: true }, viewport: VIEWPORT })
    const row = await $.ui.mount({ plugin: PKG, surface, component: 'ToolUse', props: running, requestId: 'r1', viewport: VIEWPORT })
    await clock.advance(3000)
    expect(await group.keepsBeneath()).toBe(true)
    expect(await row.keepsBeneath()).toBe(true)
    expect(requests).toHaveLength(0)
  })

  test(`${surface}: an unanswered request is not asked again until a reload`, ON, async ($, on) => {
    const clock = mock.clock(on, { now: 1_000 })
    const logs: string[] = []
    let asked = 0
    on('command.register', (_, e) => ({ value: { command: e.name } }))
    on('session.start', (_, e) => ({ cwd: e.cwd }))
    on('session.messages', () => ({ value: [] }))
    on('ui.log', (_, e) => { logs.push(e.text); return { value: undefined } })
    on('model.complete', () => { asked++; return { value: { isAnswered: false, reason: 'aborted', usage: { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 } } } })
    await $.session.start({ cwd: '/w', surface, isInteractive: true })
    const ui = await $.ui.mount({ plugin: PKG, surface, component: 'ToolUse', props: READ_ROW, requestId: 't1', viewport: VIEWPORT })
    await clock.advance(1500)
    await ui.redraw()
    await clock.advance(4500)
    expect(asked).toBe(1)
    expect(await ui.keepsBeneath()).toBe(true)
    expect(logs).toContain('captions: request not answered: aborted')
  })
}

test('off by default: rows draw raw and the model is never called', async ($, on) => {
  const { clock, requests } = engine(on, () => LONE_REPLY)
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  const ui = await $.ui.mount({ plugin: PKG, surface: 'terminal', component: 'ToolUse', props: READ_ROW, requestId: 't1', viewport: VIEWPORT })
  await clock.advance(3000)
  expect(await ui.keepsBeneath()).toBe(true)
  expect(requests).toHaveLength(0)
})
