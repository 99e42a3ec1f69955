// The bundle loads under the engine's own loader in every package, and the package command answers.
import { expect, test } from 'claude-code/testing'
import { PKG } from './package.ts'

/** What the engine stamps on a command typed at the prompt. */
const TYPED = { origin: { kind: 'composer' }, presentation: { isFullscreen: false, columns: 100 } } as const

test('the package command is registered at session start and answers status', async ($, on) => {
  const registered: string[] = []
  on('command.register', (_, e) => { registered.push(e.name); return { value: { command: e.name } } })
  on('session.start', (_, e) => ({ cwd: e.cwd }))
  on('env.get', () => ({ value: undefined }))
  on('env.set', () => ({ value: {} }))
  on('session.id', () => ({ value: 'session-1' }))
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  expect(registered).toEqual([PKG])
  const r = await $.command.run({ command: PKG, args: 'status', ...TYPED })
  expect(r.text).toStartWith(`${PKG} 0.1.0`)
  expect(r.text).toContain('Skipped hooks: none')
})

test('an unknown verb answers with the usage', async ($, on) => {
  on('command.register', (_, e) => ({ value: { command: e.name } }))
  on('session.start', (_, e) => ({ cwd: e.cwd }))
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  const r = await $.command.run({ command: PKG, args: 'frobnicate', ...TYPED })
  expect(r.text).toContain(`unknown verb "frobnicate"`)
  expect(r.text).toContain(`/${PKG} status`)
})
