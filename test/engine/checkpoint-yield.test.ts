// packages: superheroes
// The session-acting rule with two plugins: an inline plugin named `keel` publishes its claims the
// way src/lib/claims.ts does. Standing outside superheroes (the prepend tier), it starts first, so
// when it claims checkpoint superheroes yields and steers nothing; one that starts after
// superheroes finds checkpoint already claimed and cannot take it (the first to claim owns it).
import { expect, test, type TestBody } from 'claude-code/testing'

type On = Parameters<TestBody>[1]
const MESSAGES = [{ role: 'user' as const, text: 'hello', toolUses: [] }, { role: 'assistant' as const, text: 'hi', toolUses: [] }]
const TYPED = { origin: { kind: 'composer' }, presentation: { isFullscreen: false, columns: 100 } } as const

/** `keel` as another package of the bundle publishes: its own variable, naming the session. `register` is stringified, so each is spelled out. */
const KEEL_CLAIMING = {
  name: 'keel',
  tier: 'prepend' as const,
  register(on: On) {
    on('session.start', async ($: any, e: any, next: any) => {
      await $.env.set('KEEL_CLAIMS_KEEL', JSON.stringify({ session: await $.session.id(), features: ['checkpoint'] }))
      return next(e)
    })
  },
}
const KEEL_CLAIMING_NOTHING = {
  name: 'keel',
  tier: 'prepend' as const,
  register(on: On) {
    on('session.start', async ($: any, e: any, next: any) => {
      await $.env.set('KEEL_CLAIMS_KEEL', JSON.stringify({ session: await $.session.id(), features: [] }))
      return next(e)
    })
  },
}

function world(on: On) {
  const env = new Map<string, string | undefined>()
  const instructions: (string | undefined)[] = []
  on('env.get', (_, e) => ({ value: env.get(e.name) }))
  on('env.set', (_, e) => (env.set(e.name, e.value), { value: {} }))
  on('session.id', () => ({ value: 'session-1' }))
  on('command.register', (_, e) => ({ value: { command: e.name } }))
  on('session.start', (_, e) => ({ cwd: e.cwd }))
  on('store.get', () => ({ value: undefined }))
  on('ui.log', () => ({ value: undefined }))
  on('process.hookEnv', () => ({ value: { CLAUDE_PLUGIN_DATA: '/data' } }))
  on('session.compact', (_, e) => (instructions.push(e.instructions), { messages: e.messages }))
  return { env, instructions }
}

test('keel claims checkpoint: superheroes yields, the compaction keeps the owner text alone', { plugins: [KEEL_CLAIMING], options: { checkpoint: 'on' } }, async ($, on) => {
  const { env, instructions } = world(on)
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  expect(JSON.parse(env.get('KEEL_CLAIMS_KEEL')!)).toEqual({ session: 'session-1', features: ['checkpoint'] })
  await $.session.compact({ trigger: 'manual', instructions: 'owner words', messages: MESSAGES })
  expect(instructions).toEqual(['owner words'])
  const status = (await $.command.run({ command: 'superheroes', args: 'status', ...TYPED })).text!
  expect(status).toContain('checkpoint: on (profile), yields to keel')
})

test('keel claims nothing: superheroes steers', { plugins: [KEEL_CLAIMING_NOTHING], options: { checkpoint: 'on' } }, async ($, on) => {
  const { instructions } = world(on)
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  await $.session.compact({ trigger: 'manual', instructions: 'owner words', messages: MESSAGES })
  expect(instructions[0]).toStartWith('Keep the charter and the checkpoint notes')
  expect(instructions[0]).toEndWith("## Owner's instructions\nowner words")
})

test('keel starting after superheroes finds checkpoint claimed: superheroes steers', { plugins: [{ ...KEEL_CLAIMING, tier: 'append' as const }], options: { checkpoint: 'on' } }, async ($, on) => {
  const { env, instructions } = world(on)
  await $.session.start({ cwd: '/w', surface: 'terminal', isInteractive: true })
  expect(JSON.parse(env.get('KEEL_CLAIMS_SUPERHEROES')!).features).toContain('checkpoint')
  await $.session.compact({ trigger: 'manual', instructions: 'owner words', messages: MESSAGES })
  expect(instructions[0]).toStartWith('Keep the charter and the checkpoint notes')
})
