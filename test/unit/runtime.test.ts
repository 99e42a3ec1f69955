// The package runtime: activation from options, the session-acting rule, the package command.
import { test } from 'uvu'
import shippedTemplate from '../../plugin.json'
import * as assert from 'uvu/assert'
import { activationOf, allFields, ownerOf, type Template } from '../../src/runtime/activation.ts'
import { CLAIMING_PACKAGES, claimText, parseClaim } from '../../src/runtime/claims.ts'
import { formatStatus, parseCommandArgs } from '../../src/runtime/command.ts'
import { parseOptions } from '../../src/runtime/options.ts'
import { createRuntime as makeRuntime, type Runtime } from '../../src/runtime/runtime.ts'
import type { Feature, FeatureContext } from '../../src/registry.ts'
import { fakeNext, fakePort, settle } from './fakes.ts'

/** The runtime over ready-made features (each its own factory), as register makes it. */
const createRuntime = (features: Feature<any>[], template: Template, raw: Record<string, unknown>) => makeRuntime(features.map((f) => () => f), template, raw)
/** The runtime bound to this load's port, as the first dispatch binds it (features get the same fake port). */
function on(rt: Runtime, port: ReturnType<typeof fakePort>['port']): Runtime {
  if (!rt.isBound) rt.bind(port, Object.fromEntries(rt.registry.features.map((f) => [f.name, port])))
  return rt
}

const TEMPLATE: Template = {
  version: '9.9.9',
  packages: {
    keel: { features: { acting: false, quiet: true } },
    superheroes: { features: { acting: true } },
    ws: { features: {} },
  },
  features: {
    acting: { userConfig: { actingLevel: { type: 'number', default: 3, min: 1, max: 5 } } },
    quiet: {},
  },
}

function recorder(name: string, sessionActing: boolean, seen: string[]): Feature {
  return {
    name,
    sessionActing,
    hooks: { 'turn.complete': (_port, e, next) => { seen.push(name); return next(e) } },
    verbs: name === 'acting' ? { level: { usage: 'level', run: (_port, args, ctx) => `level ${ctx.options.actingLevel} ${args}` } } : undefined,
    status: () => [`${name} is fine`],
  }
}

const COMPLETE = { answer: 'a', durationMs: 1, isAborted: false, turnId: 't', reason: 'answer' } as never
const engine = () => fakeNext(() => ({ text: 'done' }))
const command = (args: string, name = 'superheroes') => ({ command: name, args, origin: { kind: 'composer' }, presentation: { isFullscreen: false, columns: 80 } }) as never

test('options: valid values pass, bad ones fall back to the default and are named', () => {
  const fields = allFields(TEMPLATE)
  const good = parseOptions(fields, { acting: 'on', actingLevel: 5 })
  assert.equal(good.problems, [])
  assert.is(good.values.actingLevel, 5)
  const bad = parseOptions(fields, { acting: 'yes', actingLevel: 9 })
  assert.is(bad.values.acting, false)
  assert.is(bad.values.actingLevel, 3)
  assert.equal(bad.problems, ['option acting: "yes" is not on or off; the default false applies', 'option actingLevel: 9 is above 5; the default 3 applies'])
  assert.equal(parseOptions(fields, { acting: 'on', actingLevel: 0 }).problems, ['option actingLevel: 0 is below 1; the default 3 applies'])
  assert.equal(parseOptions(fields, { acting: 'off', actingLevel: '' }).problems, ['option actingLevel: "" is not a number; the default 3 applies'])
})

test('options: every number option is a whole number; a fraction is refused with the default named (issue 17.15)', () => {
  const fields = allFields(TEMPLATE)
  const fraction = parseOptions(fields, { acting: 'on', actingLevel: 2.5 })
  assert.is(fraction.values.actingLevel, 3)
  assert.equal(fraction.problems, ['option actingLevel: 2.5 is not a whole number; the default 3 applies'])
  assert.equal(parseOptions(fields, { acting: 'on', actingLevel: Number.NaN }).problems, ['option actingLevel: null is not a number; the default 3 applies'])
  // The shipped template: each number option refuses a fraction, and its own default is a whole number inside its bounds.
  const shipped = allFields(shippedTemplate as unknown as Template)
  for (const [key, field] of Object.entries(shipped)) {
    if (field.type !== 'number') continue
    assert.ok(Number.isInteger(field.default), `${key}'s default is whole`)
    const given = (Number(field.default) || Number(field.min ?? 1) || 1) + 0.5
    assert.equal(parseOptions(shipped, { [key]: given }).problems, [`option ${key}: ${given} is not a whole number; the default ${field.default} applies`], key)
  }
})

test('options: a picker refuses a value outside its list; empty strings and numbers default sensibly', () => {
  const fields = { mode: { type: 'string', default: 'auto', options: ['auto', 'off'] }, n: { type: 'number' }, s: { type: 'string' } } as const
  const parsed = parseOptions(fields, { mode: 'sideways' })
  assert.equal(parsed.values, { mode: 'auto', n: 0, s: '' })
  assert.is(parsed.problems.length, 1)
})

test('activation: carried or not, and whether the switch is the profile or the person', () => {
  assert.equal(activationOf(TEMPLATE, {}, 'superheroes', 'acting', false), { feature: 'acting', carried: false, on: false, why: 'not carried' })
  assert.is(activationOf(TEMPLATE, { acting: 'on' }, 'superheroes', 'acting', true).why, 'profile')
  assert.is(activationOf(TEMPLATE, { acting: 'off' }, 'superheroes', 'acting', false).why, 'option')
  assert.is(activationOf(TEMPLATE, { acting: 'on' }, 'stranger', 'acting', true).why, 'option')
})

test('the session-acting rule: the package that already claimed a feature owns it', () => {
  assert.is(ownerOf('acting', {}), undefined)
  assert.is(ownerOf('acting', { keel: ['acting'] }), 'keel')
  assert.is(ownerOf('acting', { keel: [], ws: undefined }), undefined)
  assert.is(ownerOf('acting', { ws: ['acting'], superheroes: ['acting'] }), 'superheroes')
})

test('claims: published per session; another session\'s or a torn value reads as none', () => {
  const raw = claimText('s1', ['acting'])
  assert.equal(parseClaim(raw, 's1'), ['acting'])
  assert.equal(parseClaim(raw, 's2'), undefined)
  assert.equal(parseClaim('{"session":"s1","features":', 's1'), undefined)
  assert.equal(parseClaim(undefined, 's1'), undefined)
  assert.equal(parseClaim('{"session":"s1","features":"acting"}', 's1'), undefined)
  assert.equal(parseClaim('{"session":"s1","features":["x",3]}', 's1'), ['x'])
})

test('command args: the verb is the first word, status by default', () => {
  assert.equal(parseCommandArgs(''), { verb: 'status', rest: '' })
  assert.equal(parseCommandArgs('  Window   reset now '), { verb: 'window', rest: 'reset now' })
})

test('runtime: only switched-on features run, and only hooked events are registered', async () => {
  const seen: string[] = []
  const rt = createRuntime([recorder('acting', true, seen), recorder('quiet', false, seen)], TEMPLATE, { acting: 'on' })
  assert.ok(rt.hooks('turn.complete'))
  assert.ok(rt.hooks('session.start'))
  assert.not.ok(rt.hooks('session.compact'))
  await on(rt, fakePort('superheroes').port).dispatch('turn.complete', COMPLETE, engine())
  assert.equal(seen, ['acting'])
})

test('runtime: at session start a feature another package claimed is yielded, before any feature hook runs', async () => {
  const { port, lines, claims } = fakePort('superheroes')
  claims.ws = ['acting']
  const startHooks: string[] = []
  const seen: string[] = []
  const starting: Feature = { ...recorder('acting', true, seen), hooks: { ...recorder('acting', true, seen).hooks, 'session.start': (_p, e, next) => { startHooks.push('acting'); return next(e) } } }
  const rt = createRuntime([starting, recorder('quiet', false, seen)], TEMPLATE, { acting: 'on', quiet: 'on' })
  await on(rt, port).dispatch('session.start', { cwd: '/w' } as never, fakeNext(() => ({ cwd: '/w' })))
  assert.equal(startHooks, [], 'the yielded feature did no session-start work')
  assert.is(claims.superheroes, undefined, 'nothing owned, nothing claimed')
  await on(rt, port).dispatch('turn.complete', COMPLETE, engine())
  assert.equal(seen, ['quiet'])
  assert.ok(lines.includes('acting: yields to ws, which runs it in this session'), lines.join('\n'))
  const status = (await on(rt, port).command(command('status'), engine())).text!
  assert.match(status, /acting: on \(profile\), yields to ws/)
})

test('runtime: the first package to start claims what it runs, and the next one yields it', async () => {
  const shared = fakePort('keel')
  const inner = fakePort('ws', { readClaims: shared.port.readClaims, publishClaims: async (_s: string, f: readonly string[]) => void (shared.claims.ws = f) })
  const seen: string[] = []
  const mk = () => createRuntime([recorder('acting', true, seen)], TEMPLATE, { acting: 'on' })
  const [keel, ws] = [mk(), mk()]
  await on(keel, shared.port).dispatch('session.start', { cwd: '/w' } as never, fakeNext(() => ({ cwd: '/w' })))
  await on(ws, inner.port).dispatch('session.start', { cwd: '/w' } as never, fakeNext(() => ({ cwd: '/w' })))
  assert.equal(shared.claims, { keel: ['acting'] })
  await on(keel, shared.port).dispatch('turn.complete', COMPLETE, engine())
  await on(ws, inner.port).dispatch('turn.complete', COMPLETE, engine())
  assert.equal(seen, ['acting'], 'exactly one package ran it')
})

test('runtime: with no session start seen, the claims are read once, at the first event', async () => {
  const seen: string[] = []
  let reads = 0
  const { port } = fakePort('keel', { readClaims: async () => { reads++; return CLAIMING_PACKAGES.map((p) => (p === 'superheroes' ? claimText('session-1', ['acting']) : undefined)) } })
  const rt = createRuntime([recorder('acting', true, seen)], TEMPLATE, { acting: 'on' })
  await on(rt, port).dispatch('turn.complete', COMPLETE, engine())
  await on(rt, port).dispatch('turn.complete', COMPLETE, engine())
  assert.equal(seen, [])
  assert.is(reads, 1)
})

test('runtime: a feature that would not act with its options claims nothing, so another package may', async () => {
  const seen: string[] = []
  const idle: Feature = { ...recorder('acting', true, seen), actsWith: (o) => o.actingLevel !== 1 }
  const { port, claims } = fakePort('keel')
  const rt = createRuntime([idle], TEMPLATE, { acting: 'on', actingLevel: 1 })
  await on(rt, port).dispatch('session.start', { cwd: '/w' } as never, fakeNext(() => ({ cwd: '/w' })))
  assert.is(claims.keel, undefined, 'nothing claimed, nothing published')
  await on(rt, port).dispatch('turn.complete', COMPLETE, engine())
  assert.equal(seen, ['acting'], 'it still runs its hooks (its status says why it does nothing)')
})

test('runtime: a claim that changed is published again, an empty one included; an unchanged one is not', async () => {
  let publishes = 0
  const shared = fakePort('keel')
  const { port } = fakePort('keel', { readClaims: shared.port.readClaims, clearClaims: shared.port.clearClaims, publishClaims: async (s: string, f: readonly string[]) => { publishes++; return shared.port.publishClaims(s, f) } })
  shared.claims.keel = ['acting']
  await on(createRuntime([recorder('acting', true, [])], TEMPLATE, { acting: 'on' }), port).dispatch('session.start', { cwd: '/w' } as never, fakeNext(() => ({ cwd: '/w' })))
  assert.is(publishes, 0, 'the same claim stands')
  await on(createRuntime([recorder('acting', true, [])], TEMPLATE, { acting: 'off' }), port).dispatch('session.start', { cwd: '/w' } as never, fakeNext(() => ({ cwd: '/w' })))
  assert.is(shared.claims.keel, undefined, 'switched off: the stale claim is cleared')
  const idle: Feature = { ...recorder('acting', true, []), actsWith: () => false }
  shared.claims.keel = ['acting']
  await on(createRuntime([idle, recorder('quiet', true, [])], { ...TEMPLATE, features: { ...TEMPLATE.features, quiet: {} } }, { acting: 'on', quiet: 'on' }), port).dispatch('session.start', { cwd: '/w' } as never, fakeNext(() => ({ cwd: '/w' })))
  assert.is(publishes, 1)
  assert.equal(shared.claims.keel, ['quiet'], 'a feature it no longer acts on is dropped from its claim')
})

test('runtime: a refused claim is said in the debug log and the status', async () => {
  const { port, lines } = fakePort('superheroes', { publishClaims: async () => { throw new Error('the environment refused the claims variable: managed') } })
  const rt = createRuntime([recorder('acting', true, [])], TEMPLATE, { acting: 'on' })
  await on(rt, port).dispatch('session.start', { cwd: '/w' } as never, fakeNext(() => ({ cwd: '/w' })))
  assert.ok(lines.some((l) => l.includes('claims not published')), lines.join('\n'))
  assert.match((await on(rt, port).command(command('status'), engine())).text!, /Problem: claims not published \(the environment refused the claims variable: managed\)/)
})

test('runtime: after /clear the claims are stamped with the new session id at the next event', async () => {
  const stamps: string[] = []
  let id = 'before'
  const { port } = fakePort('keel', { sessionId: async () => id, publishClaims: async (session: string) => void stamps.push(session) })
  const rt = createRuntime([recorder('acting', true, [])], TEMPLATE, { acting: 'on' })
  assert.ok(rt.hooks('session.end'), 'session.end is hooked to follow a /clear')
  await on(rt, port).dispatch('session.start', { cwd: '/w' } as never, fakeNext(() => ({ cwd: '/w' })))
  await on(rt, port).dispatch('session.end', { reason: 'clear', sessionId: 'before', resume: { id: 'before' } } as never, fakeNext(() => ({ sessionId: 'before' })))
  id = 'after'
  await on(rt, port).dispatch('turn.complete', COMPLETE, engine())
  await on(rt, port).dispatch('turn.complete', COMPLETE, engine())
  await settle()
  assert.equal(stamps, ['before', 'after'])
})

/** A feature that hands its context out at session start: how a test asks to compact as a feature does. */
function capturing(name: string, hooks: Feature['hooks'], got: { ctx?: FeatureContext }): Feature {
  return { name, sessionActing: false, hooks: { ...hooks, 'session.start': (_p, e, next, ctx) => { got.ctx = ctx; return next(e) } } }
}
const START = { cwd: '/w' } as never

// Found by the e2e reconnect /clear test: reconnect holds its report while a main turn runs but hooks no
// turn.start; the runtime keeps that fact, so it hears the turn's start and end wherever a feature is on.
test('runtime: the facts\' turn events are hooked wherever a feature is on, and a turn the features do not hook still counts', async () => {
  const got: { ctx?: FeatureContext } = {}
  const rt = createRuntime([capturing('acting', { 'turn.complete': (_p, e, next) => next(e) }, got)], TEMPLATE, { acting: 'on' })
  for (const event of ['turn.start', 'turn.complete', 'session.end'] as const) assert.ok(rt.hooks(event), `${event} hooked`)
  assert.not.ok(rt.hooks('prompt.compose'), 'an event no feature hooks is not')
  assert.not.ok(createRuntime([], TEMPLATE, {}).hooks('turn.start'), 'no feature on: no facts to keep')
  const { port } = fakePort('keel')
  await on(rt, port).dispatch('session.start', START, fakeNext(() => ({ cwd: '/w' })))
  await on(rt, port).dispatch('turn.start', { turnId: 't' } as never, engine())
  assert.is(got.ctx!.facts.mainTurns(), 1)
  assert.ok(got.ctx!.facts.isMainTurnRunning())
  await on(rt, port).dispatch('turn.complete', COMPLETE, engine())
  assert.not.ok(got.ctx!.facts.isMainTurnRunning())
})

test('runtime: a compaction a feature asks for runs through the features\' session.compact hooks, then the engine', async () => {
  const heard: string[] = []
  const got: { ctx?: FeatureContext } = {}
  const steering = capturing('acting', { 'session.compact': (_p, e, next, ctx) => { heard.push(`${e.trigger}: ${e.instructions} (asked by ${ctx.facts.compactionAskedBy(e)})`); return next({ ...e, instructions: `${e.instructions} + steered` }) } }, got)
  const rt = createRuntime([steering], TEMPLATE, { acting: 'on' })
  const sent: (string | undefined)[] = []
  // The engine, asked from inside the chain, may raise this plugin's own hook: it must pass straight through.
  const { port } = fakePort('keel', {
    compactSession: async (instructions?: string) => {
      sent.push(instructions)
      await on(rt, port).dispatch('session.compact', { trigger: 'plugin', instructions, messages: [] } as never, fakeNext((e: { instructions?: string }) => ({ messages: [], seen: e.instructions })))
      return { messages: [] } as never
    },
  })
  await on(rt, port).dispatch('session.start', START, fakeNext(() => ({ cwd: '/w' })))
  const result = await got.ctx!.compact('owner')
  assert.equal(heard, ['plugin: owner (asked by acting)'], 'the hook ran once, for the chain, not again for the re-entry; the asker is stamped')
  assert.equal(sent, ['owner + steered'])
  assert.equal(result, { messages: [] })
})

test('runtime: while a feature\'s compaction runs, another compaction (a precompute) still goes through the chain', async () => {
  const heard: string[] = []
  const got: { ctx?: FeatureContext } = {}
  const steering = capturing('acting', { 'session.compact': (_p, e, next, ctx) => { heard.push(`${e.trigger} ${ctx.facts.compactionAskedBy(e) ?? 'not asked'}`); return next({ ...e, instructions: 'steered' }) } }, got)
  const rt = createRuntime([steering], TEMPLATE, { acting: 'on' })
  const reached: (string | undefined)[] = []
  const { port } = fakePort('keel', {
    compactSession: async () => {
      const precompute = await on(rt, port).dispatch('session.compact', { trigger: 'precompute', messages: [] } as never, fakeNext((e: { instructions?: string }) => (reached.push(e.instructions), { messages: [] })))
      return precompute as never
    },
  })
  await on(rt, port).dispatch('session.start', START, fakeNext(() => ({ cwd: '/w' })))
  await got.ctx!.compact(undefined)
  assert.equal(heard, ['plugin acting', 'precompute not asked'])
  assert.equal(reached, ['steered'], 'the precompute was steered too')
})

test('runtime: two features asking to compact at once get one compaction', async () => {
  const got: { ctx?: FeatureContext } = {}
  const rt = createRuntime([capturing('acting', {}, got)], TEMPLATE, { acting: 'on' })
  let engineRuns = 0
  let release!: () => void
  let answer: () => Promise<never> = async () => { await new Promise<void>((r) => (release = r)); return { messages: ['one'] } as never }
  const { port } = fakePort('keel', { compactSession: async () => { engineRuns++; return answer() } })
  await on(rt, port).dispatch('session.start', START, fakeNext(() => ({ cwd: '/w' })))
  const first = got.ctx!.compact('lever')
  const second = got.ctx!.compact('checkpoint')
  await settle()
  release()
  assert.equal(await first, { messages: ['one'] })
  assert.equal(await second, { messages: ['one'] })
  assert.is(engineRuns, 1)
  answer = async () => ({ messages: [] }) as never
  await got.ctx!.compact('later')
  assert.is(engineRuns, 2, 'a later request compacts again')
})

test('runtime: a /resume in the same process moves the claims to the new session id too', async () => {
  const stamps: string[] = []
  let id = 'before'
  const { port } = fakePort('keel', { sessionId: async () => id, publishClaims: async (session: string) => void stamps.push(session) })
  const rt = createRuntime([recorder('acting', true, [])], TEMPLATE, { acting: 'on' })
  await on(rt, port).dispatch('session.start', { cwd: '/w' } as never, fakeNext(() => ({ cwd: '/w' })))
  await on(rt, port).dispatch('session.end', { reason: 'resume', sessionId: 'before', resume: { id: 'other' } } as never, fakeNext(() => ({ sessionId: 'before' })))
  id = 'after'
  await on(rt, port).dispatch('turn.complete', COMPLETE, engine())
  await settle()
  assert.equal(stamps, ['before', 'after'])
})

test('runtime: session start registers the package command and logs option problems once', async () => {
  const { port, lines, commands } = fakePort('superheroes')
  const rt = createRuntime([recorder('acting', true, [])], TEMPLATE, { acting: 'on', actingLevel: 42 })
  const start = { cwd: '/w', surface: 'terminal', isInteractive: true } as never
  await on(rt, port).dispatch('session.start', start, fakeNext(() => ({ cwd: '/w' })))
  await on(rt, port).dispatch('session.start', start, fakeNext(() => ({ cwd: '/w' })))
  assert.equal(commands, ['superheroes', 'superheroes'])
  assert.is(lines.filter((l) => l.includes('option actingLevel')).length, 1)
})

test('runtime: a failing edge at session start is logged and the session goes on', async () => {
  const { port, lines } = fakePort('superheroes', {
    publishClaims: async () => { throw new Error('env refused') },
    registerCommand: async () => { throw new Error('not bound') },
  })
  const rt = createRuntime([recorder('acting', true, [])], TEMPLATE, { acting: 'on' })
  const r = await on(rt, port).dispatch('session.start', { cwd: '/w' } as never, fakeNext(() => ({ cwd: '/w' })))
  assert.equal(r, { cwd: '/w' })
  assert.ok(lines.some((l) => l.includes('claims not published (env refused)')), lines.join('\n'))
  assert.ok(lines.some((l) => l.includes('registering the package command failed (not bound)')))
})

test('package command: status, verbs, another package\'s command, unknown verbs, failing verbs', async () => {
  const failing: Feature = { name: 'quiet', sessionActing: false, hooks: {}, verbs: { boom: { usage: 'boom', run: () => { throw new Error('kaput') } } }, status: () => { throw new Error('no status') } }
  const rt = createRuntime([recorder('acting', true, []), failing], TEMPLATE, { acting: 'on', actingLevel: 4, quiet: 'on' })
  const { port, lines } = fakePort('keel')
  const status = (await on(rt, port).command(command('', 'keel'), engine())).text!
  assert.match(status, /^keel 9\.9\.9/)
  assert.match(status, /acting: runs \(option\)/)
  assert.match(status, /options: actingLevel=4/)
  assert.match(status, /acting is fine/)
  assert.match(status, /quiet: runs \(profile\)\n {2}\(status unavailable/)
  assert.is((await on(rt, port).command(command('level high', 'keel'), engine())).text, 'level 4 high')
  assert.match((await on(rt, port).command(command('nope', 'keel'), engine())).text!, /unknown verb "nope"[\s\S]*\/keel level/)
  assert.match((await on(rt, port).command(command('boom', 'keel'), engine())).text!, /boom failed; the debug log says why/)
  assert.ok(lines.some((l) => l.includes('kaput')))
  assert.equal(await on(rt, port).command(command('status', 'ws'), engine()), { text: 'done' })
})

test('status: skip counts, problems, and a package that carries nothing', () => {
  const text = formatStatus('ws', '1.0.0', [], ['option x: bad'])
  assert.match(text, /No features are carried by this package\./)
  assert.match(text, /Skipped hooks: none/)
  assert.match(text, /Problem: option x: bad/)
  const row = { feature: 'a', carried: true, on: false, why: 'profile' as const, options: {}, skips: 2, lines: [] }
  assert.match(formatStatus('ws', '1', [row], []), /a: off \(profile\)\n {2}skipped hooks: 2\nSkipped hooks: a 2/)
})

test('drawn: the components the active features draw at ui.render, the matcher main.ts gives the event', () => {
  const drawing = (name: string, draws: Feature['draws']): Feature => ({ name, sessionActing: false, draws, hooks: { 'ui.render': (_port, e, next) => next(e) } })
  assert.equal(createRuntime([drawing('acting', ['Pane']), drawing('quiet', ['ToolUse', 'AbovePrompt'])], TEMPLATE, { acting: 'on', quiet: 'on' }).drawn, ['Pane', 'ToolUse', 'AbovePrompt'])
  assert.equal(createRuntime([drawing('acting', ['Pane']), drawing('quiet', ['ToolUse'])], TEMPLATE, { acting: 'on', quiet: 'off' }).drawn, ['Pane'], 'a feature that is off draws nothing')
})

test.run()
