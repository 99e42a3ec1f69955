// packages: ws
// One feature failing leaves the others running, through the engine's own loader: timing's tool
// registration is refused, and reconnect still serves its lever; the status says what happened.
import { expect, test } from 'claude-code/testing'
import { PKG } from './package.ts'

const TYPED = { origin: { kind: 'composer' }, presentation: { isFullscreen: false, columns: 100 } } as const

test('a feature whose $ calls fail leaves the others running', async ($, on) => {
  const registered: string[] = []
  const logs: string[] = []
  on('ui.log', (_, e) => { logs.push(e.text); return { value: undefined } })
  on('command.register', (_, e) => ({ value: { command: e.name } }))
  on('tool.register', (_, e) => {
    if (e.name === 'request_compaction') return { deny: 'tool host down' }
    registered.push(e.name)
    return { value: { tool: `mcp__${PKG}__${e.name}` } }
  })
  on('session.start', (_, e) => ({ cwd: e.cwd }))
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  expect(registered).toEqual(['mailbox_send', 'request_mcp_reconnect'])
  expect(logs.filter((l) => l.startsWith('timing:')).join('\n')).toContain('tool host down')
  const status = (await $.command.run({ command: PKG, args: 'status', ...TYPED })).text ?? ''
  expect(status).toContain('timing: runs (profile)')
  expect(status).toContain(`tool: mcp__${PKG}__request_mcp_reconnect`)
  expect(status).toContain('Skipped hooks: none')
})
