import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { commandRefusal, createReconnect, type Connection, type ReconnectEdges } from '../../../src/features/reconnect/machine.ts'
import { RECONNECT_RESULT, RECONNECT_RESULT_NO_RESUME } from '../../../src/features/reconnect/strings.ts'
import { createFacts } from '../../../src/runtime/facts.ts'

type Script = {
  reconnect?: (server: string) => Promise<{ text?: string } | undefined>
  /** Answers of the tool-list checks in order; the last repeats. A function may throw. */
  listed?: (check: number) => boolean
  /** Answers of the connection reads in order; default: connected. A function may throw. */
  connection?: (read: number) => Connection
  submit?: (text: string) => Promise<{ drop?: string } | undefined>
  after?: (fn: () => void) => void
  now?: () => Promise<number>
}

/** Fake edges recording every call; `after` queues until `fire()`; sleeps advance a fake clock. */
function harness(script: Script = {}) {
  const calls = { reconnect: [] as string[], listed: 0, connections: 0, sleeps: [] as number[], submitted: [] as string[], notices: [] as string[], logs: [] as string[] }
  const queued: (() => void)[] = []
  let clock = 1000
  // The runtime's facts count the main-thread turns; the test starts them as the runtime would.
  const facts = createFacts()
  const edges: ReconnectEdges = {
    mainTurns: () => facts.mainTurns(),
    busy: () => facts.isMainTurnRunning(),
    reconnect: (server) => { calls.reconnect.push(server); return script.reconnect ? script.reconnect(server) : Promise.resolve({}) },
    toolsListed: async () => (script.listed ?? (() => true))(++calls.listed),
    connection: async () => (script.connection ?? (() => ({ isConnected: true as const })))(++calls.connections),
    submit: (text) => { calls.submitted.push(text); return script.submit ? script.submit(text) : Promise.resolve({}) },
    notice: (text) => { calls.notices.push(text) },
    after: script.after ?? ((fn) => { queued.push(fn) }),
    sleep: async (ms) => { calls.sleeps.push(ms); clock += ms },
    now: script.now ?? (async () => clock),
    log: (text) => { calls.logs.push(text) },
  }
  const machine = createReconnect('ws')
  machine.start(edges)
  const settle = async () => { for (let i = 0; i < 200; i++) await Promise.resolve() }
  const fire = async () => { for (const fn of queued.splice(0)) fn(); await settle() }
  return { machine, calls, edges, queued, fire, settle, facts }
}

const SUCCESS = '[ws mcp] The MCP server "plugin:ws:ws" reconnected; its tools are available again. Resume the interrupted work.'

test('the result names the resume only with continue (acceptance 2)', () => {
  const h = harness()
  assert.equal(h.machine.lever('a', false), { result: RECONNECT_RESULT_NO_RESUME })
  assert.equal(h.machine.lever('a', true), { result: RECONNECT_RESULT })
  assert.equal(h.machine.pending(), { servers: ['a'], resume: true })
  assert.ok(h.calls.logs.includes('reconnect requested for "a"; resume: true'))
})

test('a main turn end runs /mcp reconnect once, after the hook returned (acceptance 3)', async () => {
  const h = harness()
  h.machine.lever('plugin:ws:ws', false)
  h.machine.turnComplete(undefined, 'answer')
  assert.equal(h.calls.reconnect, [], 'nothing runs inside the hook')
  await h.fire()
  assert.equal(h.calls.reconnect, ['plugin:ws:ws'])
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  assert.equal(h.calls.reconnect, ['plugin:ws:ws'], 'the request was taken')
})

test('tools back on the 3rd check: two sleeps, and the success text with continue (acceptance 4)', async () => {
  const h = harness({ listed: (n) => n >= 3 })
  h.machine.lever('plugin:ws:ws', true)
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  assert.equal(h.calls.sleeps, [500, 500])
  assert.equal(h.calls.submitted, [SUCCESS])
  assert.ok(h.calls.logs.includes('reconnected "plugin:ws:ws" in 1000 ms'), h.calls.logs.join('\n'))
  assert.is(h.machine.lastOutcome(), 'reconnected "plugin:ws:ws" in 1000 ms')
})

test('a success without continue submits nothing (acceptance 5)', async () => {
  const h = harness({ listed: (n) => n >= 3 })
  h.machine.lever('s', false)
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  assert.is(h.calls.reconnect.length, 1)
  assert.equal(h.calls.submitted, [])
})

test('a main turn that starts during the step keeps the success prompt back (acceptance 6)', async () => {
  let started: (() => void) | undefined
  const h = harness({ listed: (n) => { if (n === 1) started!(); return n >= 2 } })
  started = () => h.facts.turnStarted(undefined)
  h.machine.lever('s', true)
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  assert.equal(h.calls.submitted, [])
  assert.ok(h.calls.logs.includes('a turn started during the reconnect step; the resume prompt is not submitted'))
})

test('a subagent turn start during the step does not count', async () => {
  let started: (() => void) | undefined
  const h = harness({ listed: (n) => { if (n === 1) started!(); return n >= 2 } })
  started = () => h.facts.turnStarted('A1')
  h.machine.lever('s', true)
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  assert.is(h.calls.submitted.length, 1)
})

test('a rejected command is reported, with the resume sentence only with continue (acceptance 7)', async () => {
  for (const resume of [true, false]) {
    const h = harness({ reconnect: () => Promise.reject(new Error('nope')) })
    h.machine.lever('plugin:ws:ws', resume)
    h.machine.turnComplete(undefined, 'answer')
    await h.fire()
    const text = h.calls.submitted[0] ?? ''
    assert.ok(text.startsWith('[ws mcp] The MCP server "plugin:ws:ws" did not come back (the reconnect command failed: Error: nope). Do not call request_mcp_reconnect again for this drop: '), text)
    assert.ok(resume ? text.endsWith('restart the session. Resume the interrupted work.') : text.endsWith('restart the session.'), text)
    assert.is(h.calls.listed, 0, 'no poll after a failed command')
  }
})

test('a headless refusal is a failure even though the tools are listed (acceptance 8)', async () => {
  const h = harness({ reconnect: async () => ({ text: "Reconnect, enable, and disable aren't available in this session." }) })
  h.machine.lever('fixture', false)
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  assert.is(h.calls.listed, 0)
  assert.ok(h.calls.submitted[0]?.includes("(the reconnect command answered: Reconnect, enable, and disable aren't available in this session.)"), h.calls.submitted[0])
})

test('an answer that says it reconnected is a success (acceptance 9)', async () => {
  const h = harness({ reconnect: async () => ({ text: 'Reconnected "plugin:ws:ws".' }) })
  h.machine.lever('plugin:ws:ws', true)
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  assert.equal(h.calls.submitted, [SUCCESS])
})

test('commandRefusal reads empty and "reconnected" answers as no refusal', () => {
  assert.is(commandRefusal(undefined), undefined)
  assert.is(commandRefusal({}), undefined)
  assert.is(commandRefusal({ text: '  ' }), undefined)
  assert.is(commandRefusal({ text: 'Reconnected to fixture' }), undefined)
  assert.is(commandRefusal({ text: 'Couldn\'t reconnect "x" (failed).' }), 'Couldn\'t reconnect "x" (failed).')
  assert.is(commandRefusal({ text: '"x" is already reconnecting' }), '"x" is already reconnecting')
})

test('tools that never come back: 21 checks, 20 sleeps, reported without continue (acceptance 10)', async () => {
  const h = harness({ listed: () => false })
  h.machine.lever('s', false)
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  assert.is(h.calls.listed, 21)
  assert.is(h.calls.sleeps.length, 20)
  assert.ok(h.calls.sleeps.every((ms) => ms === 500))
  assert.ok(h.calls.submitted[0]?.includes('(it is connected, but its tools were not back within 10 s)'), h.calls.submitted[0])
  assert.ok(h.calls.logs.some((l) => l.startsWith('not reconnected "s" (it is connected, but its tools were not back within 10 s) after 10000 ms')), h.calls.logs.join('\n'))
})

// Measured: a failed `/mcp reconnect` resolves `{}` like a success, and the tool list still shows the
// dead server's tools for about a second; `$.mcp.connect` already answers it is not connected.
test('a reconnect the command answers with nothing but the engine holds unconnected is a failure, reported without continue', async () => {
  const h = harness({ listed: () => true, connection: () => ({ isConnected: false, reason: 'failed', message: 'MCP server "s" failed to connect' }) })
  h.machine.lever('s', false)
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  assert.is(h.calls.listed, 0, 'a stale tool list is never read as success')
  assert.is(h.calls.connections, 3, 'unconnected at three reads in a row: given up after 1 s')
  assert.is(h.calls.submitted.length, 1, 'the failure is reported although continue was not set')
  assert.ok(h.calls.submitted[0]!.includes('did not come back (it is still not connected 1000 ms after the reconnect (failed: MCP server "s" failed to connect))'), h.calls.submitted[0])
  assert.equal(h.calls.logs.filter((l) => l.startsWith('"s" after')), ['"s" after 0 ms: failed: MCP server "s" failed to connect'], 'a state is logged when it changes')
})

test('a state that changes keeps the wait going; only the same unconnected state three reads in a row ends it', async () => {
  const states: Connection[] = [{ isConnected: false, reason: 'failed' }, { isConnected: false, reason: 'failed' }, { isConnected: false, reason: 'auth' }, { isConnected: false, reason: 'auth' }, { isConnected: true }]
  const h = harness({ connection: (n) => states[Math.min(n, states.length) - 1]! })
  h.machine.lever('s', true)
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  assert.is(h.calls.connections, 5)
  assert.ok(h.calls.submitted[0]!.includes('reconnected'), h.calls.submitted[0])
})

test('a name /mcp does not list fails at once', async () => {
  const h = harness({ connection: () => ({ isConnected: false, reason: 'unlisted', message: 'Neither … lists it' }) })
  h.machine.lever('ghost', false)
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  assert.is(h.calls.sleeps.length, 0)
  assert.ok(h.calls.submitted[0]!.includes('The MCP server "ghost" did not come back (/mcp lists no server named "ghost").'), h.calls.submitted[0])
})

test('connected once the engine says so and its tools are listed; a failing read is logged and read again', async () => {
  const h = harness({
    connection: (n) => { if (n === 1) throw new Error('host busy'); return n < 3 ? { isConnected: false, reason: 'failed' } : { isConnected: true } },
    listed: (n) => n >= 2,
  })
  h.machine.lever('s', true)
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  assert.is(h.calls.connections, 4)
  assert.ok(h.calls.logs.includes('connection read failed: Error: host busy'))
  assert.equal(h.calls.logs.filter((l) => l.startsWith('"s" after')), ['"s" after 0 ms: unread', '"s" after 500 ms: failed', '"s" after 1000 ms: connected, tools not listed', '"s" after 1500 ms: connected, tools listed'])
  assert.ok(h.calls.submitted[0]!.includes('reconnected'), h.calls.submitted[0])
})

test('an aborted or a subagent turn end leaves the request pending (acceptance 12)', async () => {
  const h = harness()
  h.machine.lever('s', false)
  h.machine.turnComplete(undefined, 'aborted')
  h.machine.turnComplete('A1', 'answer')
  assert.is(h.queued.length, 0)
  assert.ok(h.machine.pending())
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  assert.equal(h.calls.reconnect, ['s'])
})

test('a session end during the step drops its report (acceptance 13)', async () => {
  let release: (v: { text?: string }) => void = () => {}
  const h = harness({ reconnect: () => new Promise((r) => { release = r }) })
  h.machine.lever('s', true)
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  h.machine.end('other')
  release({ text: 'cannot' })
  await h.settle()
  assert.equal(h.calls.submitted, [])
  assert.ok(h.calls.logs.includes('the session ended during the reconnect step; its report is dropped'))
})

test('session.end drops a pending request: the next turn end runs nothing (acceptance 14)', async () => {
  const h = harness()
  h.machine.lever('s', true)
  h.machine.end('clear')
  assert.ok(h.calls.logs.includes('session.end clear dropped a pending reconnect request'))
  assert.is(h.machine.pending(), undefined)
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  assert.equal(h.calls.reconnect, [])
})

test('a dropped or rejected prompt becomes a transcript notice (acceptance 15)', async () => {
  for (const [submit, why] of [[async () => ({ drop: 'x' }), 'dropped: x'], [() => Promise.reject(new Error('busy')), 'Error: busy']] as const) {
    const h = harness({ reconnect: () => Promise.reject(new Error('nope')), submit })
    h.machine.lever('s', false)
    h.machine.turnComplete(undefined, 'answer')
    await h.fire()
    assert.is(h.calls.notices.length, 1)
    assert.ok(h.calls.notices[0]!.startsWith(`ws mcp reconnect: a prompt was not submitted (${why}):\n[ws mcp] The MCP server "s" did not come back`), h.calls.notices[0])
  }
})

// wsflow §4.3, issue 17 item 10: a report submitted while a main turn runs would wait in the engine's
// queue behind a /clear typed during that turn and enter the conversation the /clear began.
test('a report made while a main turn runs is held to that turn\'s end and submitted from its hook', async () => {
  const h = harness({ reconnect: () => Promise.reject(new Error('nope')) })
  h.machine.lever('s', true)
  h.machine.turnComplete(undefined, 'answer')
  h.facts.turnStarted(undefined) // the person's next turn starts before the step ends
  await h.fire()
  assert.equal(h.calls.submitted, [], 'not queued behind the running turn')
  h.machine.turnComplete('agent-1', 'answer')
  await h.settle()
  assert.equal(h.calls.submitted, [], 'a subagent\'s turn end is not the main turn\'s')
  assert.is(h.machine.turnComplete(undefined, 'aborted'), true, 'it tells the hook a report went (the hook then waits for the engine to take it)')
  assert.is(h.calls.submitted.length, 1, 'the failure is reported at the main turn\'s end, aborted or not, inside its hook')
  assert.is(h.machine.turnComplete(undefined, 'answer'), false)
  assert.ok(h.calls.submitted[0]!.endsWith('Resume the interrupted work.'))
  assert.is(h.machine.stale(h.calls.submitted[0]!), false, 'entering in its own conversation, it stands')
})

test('a report that enters after the session ended is stale (dropped); a held one is dropped at the end', async () => {
  const h = harness({ reconnect: () => Promise.reject(new Error('nope')) })
  h.machine.lever('s', false)
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  const report = h.calls.submitted[0]!
  h.machine.end('clear')
  assert.is(h.machine.stale(report), true)
  assert.is(h.machine.stale('another prompt'), false)
  assert.ok(h.calls.logs.includes("the session ended before the reconnect report's turn began; the report is dropped"))

  const held = harness({ reconnect: () => Promise.reject(new Error('nope')) })
  held.machine.lever('s', false)
  held.machine.turnComplete(undefined, 'answer')
  held.facts.turnStarted(undefined)
  await held.fire()
  held.machine.end('clear')
  assert.ok(held.calls.logs.includes("the session ended before the reconnect report's turn began; the report is dropped"))
  held.machine.turnComplete(undefined, 'answer')
  await held.settle()
  assert.equal(held.calls.submitted, [], 'nothing acts in the next conversation')
})

test('a report dropped after the session ended is no notice in the next conversation', async () => {
  let drop: (v: { drop: string }) => void = () => {}
  const h = harness({ reconnect: () => Promise.reject(new Error('nope')), submit: () => new Promise((r) => { drop = r }) })
  h.machine.lever('s', false)
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  h.machine.end('clear')
  drop({ drop: 'stale' })
  await h.settle()
  assert.equal(h.calls.notices, [])
})

test('two calls in one turn: one step, the latest continue wins (acceptance 16)', async () => {
  const h = harness()
  h.machine.lever('s', true)
  h.machine.lever('s', false)
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  assert.equal(h.calls.reconnect, ['s'])
  assert.equal(h.calls.submitted, [])
})

test('calls naming two servers reconnect both; a mixed outcome reports the failure and names the success', async () => {
  const h = harness({ reconnect: async (s) => (s === 'b' ? { text: 'no such server' } : {}) })
  h.machine.lever('a', false)
  h.machine.lever('b', false)
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  assert.equal(h.calls.reconnect, ['a', 'b'])
  assert.ok(h.calls.submitted[0]?.startsWith('[ws mcp] The MCP server "b" did not come back (the reconnect command answered: no such server). "a" reconnected. Do not call'), h.calls.submitted[0])
})

test('several servers back: one success prompt naming them all', async () => {
  const h = harness()
  h.machine.lever('a', true)
  h.machine.lever('b', true)
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  assert.equal(h.calls.submitted, ['[ws mcp] The MCP servers "a", "b" reconnected; their tools are available again. Resume the interrupted work.'])
})

test('a call made while the step runs is a new request for a later turn end (acceptance 17)', async () => {
  let release: (v: { text?: string }) => void = () => {}
  const h = harness({ reconnect: () => new Promise((r) => { release = r }) })
  h.machine.lever('s', false)
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  h.machine.lever('s', true)
  release({})
  await h.settle()
  assert.equal(h.calls.reconnect, ['s'])
  assert.equal(h.machine.pending(), { servers: ['s'], resume: true })
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  release({})
  await h.settle()
  assert.equal(h.calls.reconnect, ['s', 's'])
})

test('a tool-list read that throws is logged and polled again (acceptance 19)', async () => {
  const h = harness({ listed: (n) => { if (n === 1) throw new Error('list down'); return true } })
  h.machine.lever('s', true)
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  assert.ok(h.calls.logs.includes('tool list read failed: Error: list down'))
  assert.is(h.calls.sleeps.length, 1)
  assert.is(h.calls.submitted.length, 1)
  assert.ok(h.calls.submitted[0]!.includes('reconnected; its tools'))
})

test('an after that throws is logged, and the next turn end schedules again (acceptance 20)', async () => {
  let fail = true
  const queued: (() => void)[] = []
  const h = harness({ after: (fn) => { if (fail) throw new Error('no clock'); queued.push(fn) } })
  h.machine.lever('s', false)
  h.machine.turnComplete(undefined, 'answer')
  assert.ok(h.calls.logs.includes('the reconnect step was not scheduled (Error: no clock); retrying at the next turn end'))
  fail = false
  h.machine.turnComplete(undefined, 'answer')
  assert.not.ok(h.calls.logs.includes('the scheduled reconnect step did not run; scheduling it again'))
  queued.splice(0).forEach((fn) => fn())
  await h.settle()
  assert.equal(h.calls.reconnect, ['s'])
})

test('a step scheduled twice runs once: the older token is stale', async () => {
  const h = harness()
  h.machine.lever('s', false)
  h.machine.turnComplete(undefined, 'answer')
  h.machine.turnComplete(undefined, 'answer')
  assert.ok(h.calls.logs.includes('the scheduled reconnect step did not run; scheduling it again'))
  await h.fire()
  assert.equal(h.calls.reconnect, ['s'])
})

test('a clock that fails costs only the timing, not the report', async () => {
  const h = harness({ now: () => Promise.reject(new Error('clock')), reconnect: () => Promise.reject(new Error('nope')) })
  h.machine.lever('s', false)
  h.machine.turnComplete(undefined, 'answer')
  await h.fire()
  assert.is(h.calls.submitted.length, 1)
  assert.ok(h.calls.logs.some((l) => l.endsWith('after NaN ms')))
})

test('a start drops the previous session\'s request; no edges means nothing runs', async () => {
  const h = harness()
  h.machine.lever('s', false)
  h.machine.start(h.edges)
  assert.is(h.machine.pending(), undefined)
  const bare = createReconnect('ws')
  bare.lever('s', false)
  bare.turnComplete(undefined, 'answer')
  assert.ok(bare.pending(), 'without edges the request just waits')
  bare.end('other')
})

test.run()
