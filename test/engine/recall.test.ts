// packages: superheroes, keel
// Recall (issue 22) through real dispatch: the tool registered at session start where the option is
// on (superheroes' default; keel's opt-in), served at tool.call for the main loop and a subagent, the
// verb, the steering naming the tool; off, none of it. The transcript is a file the world reads by range.
import { expect, mock, test, type TestBody } from 'claude-code/testing'
import { PKG } from './package.ts'
import { filesWorld } from './files-world.ts'

const TOOL = `mcp__${PKG}__recall`
const TRANSCRIPT = '/h/.claude/projects/-w/session-1.jsonl'
const TYPED = { origin: { kind: 'composer' }, presentation: { isFullscreen: false, columns: 100 } } as const
const MESSAGES = [{ role: 'user' as const, text: 'hello', toolUses: [] }]
const RECALL_ON = { options: { checkpoint: 'on', recall: 'on' } }
const DEFAULTS = { options: { checkpoint: 'on' } }
const row = (type: string, content: unknown, at: string) => JSON.stringify({ type, sessionId: 'session-1', timestamp: at, message: { role: type, content } })

type On = Parameters<TestBody>[1]

function world(on: On) {
  mock.clock(on, { now: 1_000_000 })
  const seen = { registered: [] as { name: string; isDeferred?: unknown; inputSchema?: unknown }[], instructions: [] as (string | undefined)[], beneath: 0 }
  const files = new Map<string, string>([[TRANSCRIPT, [
    row('user', 'Naming rule: every module name is a noun, never a verb', '2026-01-01T09:00:00.000Z'),
    row('assistant', [{ type: 'text', text: 'Understood, nouns only.' }], '2026-01-01T09:00:01.000Z'),
    row('user', 'thanks', '2026-01-01T09:00:02.000Z'),
  ].join('\n') + '\n']])
  const store = new Map<string, unknown>()
  on('store.get', (_, e) => ({ value: store.get(e.key) }))
  on('store.set', (_, e) => (store.set(e.key, e.value), { value: undefined }))
  on('store.keys', () => ({ value: [...store.keys()] }))
  on('store.delete', (_, e) => (store.delete(e.key), { value: undefined }))
  on('ui.log', () => ({ value: undefined }))
  on('command.register', (_, e) => ({ value: { command: e.name } }))
  on('session.start', (_, e) => ({ cwd: e.cwd }))
  on('session.id', () => ({ value: 'session-1' }))
  on('session.info', () => ({ value: { transcriptPath: TRANSCRIPT } }))
  on('env.get', () => ({ value: undefined }))
  on('env.set', () => ({ value: {} }))
  on('process.hookEnv', () => ({ value: { CLAUDE_PLUGIN_DATA: '/data' } }))
  filesWorld(on, files, { dirs: ['/data'] })
  on('session.surfaces', () => ({ value: [] }))
  on('tool.register', (_, e) => (seen.registered.push(e), { value: { tool: `mcp__${PKG}__${e.name}` } }))
  on('tool.call', () => (seen.beneath++, { result: 'beneath' }))
  on('session.compact', (_, e) => (seen.instructions.push(e.instructions), { messages: e.messages ?? MESSAGES }))
  on('prompt.submit', (_, e) => ({ text: e.text }))
  return { seen, files }
}

const start = ($: Parameters<TestBody>[0]) => $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: false })

test('on: registered eager at start, served for the main loop and a subagent ahead of anything beneath', RECALL_ON, async ($, on) => {
  const { seen } = world(on)
  await start($)
  expect(seen.registered.filter((t) => t.name === 'recall')).toEqual([expect.objectContaining({ name: 'recall', isDeferred: false })])
  expect(JSON.stringify(seen.registered[0]!.inputSchema)).toContain('"required":["query"]')
  const main = await $.tool.call(<never>{ tool: TOOL, tool_use_id: 'u1', query: 'naming rule' })
  expect(String(main.result)).toContain("Recall, from this session's transcript: the best 1 of 1 matching rows; damaged rows skipped: 0.")
  expect(String(main.result)).toContain('--- 2026-01-01T09:00:00.000Z, the person:\nNaming rule: every module name is a noun, never a verb')
  const sub = await $.tool.call(<never>{ tool: TOOL, tool_use_id: 'u2', agentId: 'a1', query: '"nouns only"' })
  expect(String(sub.result)).toContain('the model:\nUnderstood, nouns only.')
  expect(seen.beneath).toBe(0)
  // Another tool passes through.
  expect((await $.tool.call(<never>{ tool: 'mcp__other__recall', tool_use_id: 'u3', query: 'x' })).result).toBe('beneath')
  const refused = await $.tool.call(<never>{ tool: TOOL, tool_use_id: 'u4', query: 'the of and' })
  expect(String(refused.result)).toStartWith('Recall refused: the query holds only words too common')
})

test('on: the verb answers the person; every compaction is told the tool exists', RECALL_ON, async ($, on) => {
  const { seen } = world(on)
  await start($)
  const verb = await $.command.run({ command: PKG, args: 'recall module noun', ...TYPED })
  expect(verb.text).toContain('Naming rule: every module name is a noun, never a verb')
  await $.session.compact({ trigger: 'manual', instructions: 'keep it', messages: MESSAGES })
  expect(seen.instructions[0]).toContain(`the tool ${TOOL} searches this session's whole transcript`)
  expect(seen.instructions[0]).toContain('"details: recall <topic>"')
})

test('a transcript that cannot be read: the answer says why', RECALL_ON, async ($, on) => {
  const { files } = world(on)
  await start($)
  files.delete(TRANSCRIPT)
  expect(String((await $.tool.call(<never>{ tool: TOOL, tool_use_id: 'u1', query: 'noun' })).result)).toStartWith('Recall failed: ')
})

test('the package defaults: on with checkpoint in superheroes, opt-in in keel', DEFAULTS, async ($, on) => {
  const { seen } = world(on)
  await start($)
  const isOn = PKG === 'superheroes'
  expect(seen.registered.some((t) => t.name === 'recall')).toBe(isOn)
  const verb = await $.command.run({ command: PKG, args: 'recall noun', ...TYPED })
  if (isOn) expect(verb.text).toContain('never a verb')
  else expect(verb.text).toBe('Recall is off in this package: set its option recall to on (with the checkpoint feature on).')
  await $.session.compact({ trigger: 'manual', messages: MESSAGES })
  expect(seen.instructions[0]!.includes('recall <topic>')).toBe(isOn)
  // Off, the tool's name is nobody's to answer here.
  if (!isOn) expect((await $.tool.call(<never>{ tool: TOOL, tool_use_id: 'u1', query: 'noun' })).result).toBe('beneath')
})

test('off where its option says so, superheroes too', { options: { checkpoint: 'on', recall: 'off' } }, async ($, on) => {
  const { seen } = world(on)
  await start($)
  expect(seen.registered.some((t) => t.name === 'recall')).toBe(false)
})
