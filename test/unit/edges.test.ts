// The edges: main.ts's registrations and the runtime's `$` binder, against a fake `$` and a fake `on`;
// every feature's binder is listed once, by the name its factory gives the feature.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { bindRuntime as portOf } from '../../src/runtime/bind.ts'
import { register } from '../../src/main.ts'
import { CLAIMING_PACKAGES, parseClaims } from '../../src/runtime/claims.ts'
import { FEATURES } from '../../src/features/index.ts'
import { bindFeatures } from '../../src/features/bind.ts'
import template from '../../plugin.json'

/** A fake `$`: records calls, keeps env in a map. */
function fakeDollar(name = 'keel') {
  const calls: string[] = []
  const env = new Map<string, string | undefined>()
  const $ = {
    plugin: { name, root: '/p' },
    ui: { log: (text: string, o?: { to?: string }) => void calls.push(`log ${o?.to}: ${text}`) },
    command: { register: async (spec: { name: string }) => { calls.push(`register ${spec.name}`); return { command: spec.name } } },
    env: { get: async (k: string) => env.get(k), set: async (k: string, v: string | undefined) => { env.set(k, v); return {} } },
    session: { id: async () => 'sess-1' },
  }
  return { $: $ as never, calls, env }
}

test('portOf: every edge reaches its $ call', async () => {
  const { $, calls, env } = fakeDollar('superheroes')
  const port = portOf($)
  assert.is(port.pkg, 'superheroes')
  port.log('hello')
  await port.registerCommand({ name: 'superheroes', description: 'd' })
  const session = await port.sessionId()
  await port.publishClaims(session, ['checkpoint'])
  assert.equal(calls, ['log debug: hello', 'register superheroes'])
  assert.equal(JSON.parse(env.get('KEEL_CLAIMS_SUPERHEROES')!), { session: 'sess-1', features: ['checkpoint'] })
  env.set('KEEL_CLAIMS_KEEL', JSON.stringify({ session: 'sess-1', features: ['timing'] }))
  env.set('KEEL_CLAIMS_WS', JSON.stringify({ session: 'another', features: ['timing'] }))
  env.set('KEEL_CLAIMS_KLYTH', JSON.stringify({ session: 'sess-1', features: ['routing'] }))
  assert.equal(parseClaims(session, CLAIMING_PACKAGES, await port.readClaims()), { keel: ['timing'], superheroes: ['checkpoint'], ws: undefined, klyth: ['routing'] })
})

test('claims: a refused variable rejects; clearing unsets the package\'s own', async () => {
  const { $, env } = fakeDollar('ws')
  const refusing = { ...($ as object), env: { ...($ as { env: object }).env, set: async () => ({ deny: 'managed' }) } }
  await portOf(refusing as never).publishClaims('s', ['x']).then(() => assert.unreachable(), (err: Error) => assert.match(err.message, /refused the claims variable: managed/))
  await portOf(refusing as never).clearClaims().then(() => assert.unreachable(), (err: Error) => assert.match(err.message, /refused/))
  env.set('KEEL_CLAIMS_WS', 'old')
  await portOf($).clearClaims()
  assert.is(env.get('KEEL_CLAIMS_WS'), undefined)
})

test('claims: each package writes only its own variable; an unknown package writes none', async () => {
  for (const [pkg, name] of [['keel', 'KEEL_CLAIMS_KEEL'], ['ws', 'KEEL_CLAIMS_WS'], ['stranger', undefined]] as const) {
    const { $, env } = fakeDollar(pkg)
    await portOf($).publishClaims('s', ['x'])
    assert.equal([...env.keys()], name ? [name] : [])
  }
})

/** The engine beneath a hook: answers what it is given, and names the event, as the engine's `next.event` does. */
const engineNext = (event: string) => Object.assign(async (e: unknown) => e, { event })

test('register: one on() per hooked event, session.start and the package command always', async () => {
  const registered: { event: string; matcher?: unknown; hook: Function }[] = []
  const on = (event: string, a: unknown, b?: unknown) => {
    registered.push(b ? { event, matcher: a, hook: b as Function } : { event, hook: a as Function })
    return { catch() {} }
  }
  register(on as never, {})
  assert.equal(registered.map((r) => r.event), ['session.start', 'command.run'])
  // The package list has three homes the loader makes literal: plugin.json, the claims variables, this matcher.
  assert.equal(registered[1]!.matcher, { command: Object.keys(template.packages) })
  assert.equal([...CLAIMING_PACKAGES], Object.keys(template.packages))

  const { $, calls } = fakeDollar('ws')
  const started = await registered[0]!.hook($, { cwd: '/w' }, engineNext('session.start'))
  assert.equal(started, { cwd: '/w' })
  assert.ok(calls.includes('register ws'))
  const status = await registered[1]!.hook($, { command: 'ws', args: 'status' }, async () => ({ text: 'engine' }))
  assert.match(status.text, /^ws /)
})

test('register: the port is built once per load, at the first dispatch, and again after another register', async () => {
  const registered: { event: string; hook: Function }[] = []
  const on = (event: string, a: unknown, b?: unknown) => (registered.push({ event, hook: (b ?? a) as Function }), { catch() {} })
  const { $ } = fakeDollar('ws')
  let reads = 0
  const counted = Object.defineProperty({ ...($ as object) }, 'plugin', { get: () => (reads++, { name: 'ws', root: '/p' }) }) as never
  register(on as never, {})
  const start = registered[0]!.hook
  await start(counted, { cwd: '/w' }, engineNext('session.start'))
  const once = reads
  assert.ok(once > 0)
  await start(counted, { cwd: '/w' }, engineNext('session.start'))
  assert.is(reads, once, 'the second dispatch binds nothing again')
  register(on as never, {})
  await registered[2]!.hook(counted, { cwd: '/w' }, engineNext('session.start'))
  assert.is(reads, 2 * once, 'a new registration binds afresh')
})

test('every feature has its binder, under its own name, and nothing else is bound', () => {
  const { $ } = fakeDollar('ws')
  assert.equal(Object.keys(bindFeatures($)).sort(), FEATURES.map((make) => make().name).sort())
})

test.run()
