// Mailbox engine facts, part 1 (src/features/mailbox/NOTES.md, questions 1 and 6): a session's own name and
// its source as the session registry (`<config root>/sessions/<CLAUDE_PID>.json`) and ListAgents give them;
// a plugin's rename at start; what `--resume` restores; and where `CLAUDE_CONFIG_DIR` puts the registry.
// Several real engine processes (headless stream-json) on one HOME against one stamped mock.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { randomUUID } from 'node:crypto'
import { basename, dirname, join } from 'node:path'
import { cleanupTmp, tmpDir, writePlugin } from './engine.ts'
import { startLive, type LiveSession } from './live.ts'
import { DO, PROBE, probe, probeScript, registry, startStampedMock, type StampedMock } from './multi.ts'

let mock: StampedMock | undefined
const running: LiveSession[] = []
test.after.each(async () => {
  for (const s of running.splice(0)) await s.stop()
  await mock?.close()
  mock = undefined
})
test.after(() => cleanupTmp())

const ENV = { ENABLE_TOOL_SEARCH: 'false' }
const plugin = () => writePlugin(tmpDir('probe'), 'probe', PROBE)

async function start(opts: { home: string; plug: string; args: string[]; env?: Record<string, string>; cwd?: string }): Promise<LiveSession> {
  const s = await startLive({ mode: 'stream-json', home: opts.home, cwd: opts.cwd, pluginDirs: [opts.plug], mock: mock!, env: { ...ENV, ...opts.env }, extraArgs: opts.args })
  running.push(s)
  await s.waitFor('the probe to see its registry record', () => probe(s.debugLog(), 'REG-SEEN').length)
  return s
}
async function stop(s: LiveSession): Promise<void> {
  await s.stop()
  running.splice(running.indexOf(s), 1)
}
/** One probe op through the mock (the model calls the probe's tool); resolves once that turn ended. */
async function op(s: LiveSession, input: object): Promise<void> {
  const turns = probe(s.debugLog(), 'TDONE').length
  await s.send(DO(input))
  await s.waitFor(`the ${JSON.stringify(input)} turn`, () => probe(s.debugLog(), 'TDONE').length > turns)
}
const derivedName = (cwd: string) => new RegExp(`^${basename(cwd).toLowerCase()}-[0-9a-f]{2}$`)

// The registry record's fields on 2.1.328 (read from disk; the debug log redacts `sessionId`).
const FIELDS = ['asksForConvertedSkills', 'cwd', 'entrypoint', 'kind', 'messagingSocketPath', 'name', 'nameSince', 'nameSource', 'peerFeatures',
  'peerProtocol', 'pid', 'pidDomain', 'procStart', 'sessionId', 'startedAt', 'status', 'statusUpdatedAt', 'updatedAt', 'version']

test('own name: the registry record is there when session.start runs; --name is source user, none is derived; ListAgents names it', async () => {
  mock = await startStampedMock(probeScript())
  const home = tmpDir('home')
  const plug = plugin()
  const sidB = randomUUID()
  const B = await start({ home, plug, args: ['--session-id', sidB, '--name', 'keel-B'], env: { PROBE_AGENTS: '1' } })
  const A = await start({ home, plug, args: [] })
  const [startB] = probe(B.debugLog(), 'START')
  const [beforeB] = probe(B.debugLog(), 'REG-BEFORE')
  const [beforeA] = probe(A.debugLog(), 'REG-BEFORE')
  // The root cut from CLAUDE_PLUGIN_DATA at /plugins/data/ is HOME/.claude, and the record is already there
  // at the top of the session.start hook.
  assert.is(startB.root, join(home, '.claude'))
  assert.is(startB.hookEnv.CLAUDE_PLUGIN_DATA, join(home, '.claude/plugins/data/probe-inline'))
  assert.is(startB.cfg, undefined, 'CLAUDE_CONFIG_DIR is unset')
  assert.ok(beforeB.exists && beforeA.exists, 'present before next(e) at session.start')
  assert.is(beforeB.reg.pid, Number(startB.hookEnv.CLAUDE_PID))
  assert.is(beforeB.reg.sessionI_d, sidB)
  assert.is(beforeB.reg.messagingSocketPath, startB.sock)
  assert.equal([beforeB.reg.name, beforeB.reg.nameSource, beforeB.reg.kind, beforeB.reg.status, beforeB.reg.peerProtocol], ['keel-B', 'user', 'interactive', 'idle', 1])
  assert.ok(derivedName(A.cwd).test(beforeA.reg.name), beforeA.reg.name)
  assert.is(beforeA.reg.nameSource, 'derived')
  const onDisk = registry(join(home, '.claude'))
  assert.is(onDisk.length, 2)
  for (const r of onDisk) assert.equal(Object.keys(r).sort(), FIELDS)

  // ListAgents from the probe: the listing's first line names this session, the rows name the peers.
  const [atStart] = probe(B.debugLog(), 'AGENTS')
  assert.match(atStart.value.result.listing, /^This session is keel-B \[[0-9a-f]{6}\] — the name other sessions use to message it \(it is not listed below; a message to it would be a message to yourself\)\.\n/)
  assert.is(atStart.value.text, atStart.value.result.listing)
  await op(B, { op: 'agents' })
  const listed = probe(B.debugLog(), 'AGENTS')[1].value.result
  assert.equal(listed.sections.map((s: any) => s.kind), ['sessions'])
  assert.equal(listed.sections[0].rows.map((r: any) => [r.name, r.type, r.status]), [[beforeA.reg.name, 'interactive', 'idle']])
  assert.match(listed.sections[0].rows[0].ref, /^[0-9a-f]{6}$/)
  assert.ok(listed.listing.includes(`Peer sessions (1):\n  ${beforeA.reg.name} [${listed.sections[0].rows[0].ref}]  ·  interactive  ·  idle  ·  started `), listed.listing)
  console.log(`  [measured] ListAgents ${atStart.ms} ms first, ${probe(B.debugLog(), 'AGENTS2')[0].ms} ms next`)

  // The record is removed at exit.
  await stop(A)
  await stop(B)
  assert.equal(registry(join(home, '.claude')), [])
})

test('rename from a timer at start: answered "Session renamed to: K", in the file at once as source user; --resume restores a given or plugin-set name as auto, not a derived one', async () => {
  mock = await startStampedMock(probeScript())
  const home = tmpDir('home')
  const plug = plugin()
  const results: Record<string, { first: any; resumed: any; resumedAtStart: any }> = {}
  for (const [kind, args, env] of [
    ['derived', [], {}],
    ['given', ['--name', 'keel-G'], {}],
    ['plugin-set', [], { PROBE_RENAME: 'keel-P' }],
  ] as const) {
    const sid = randomUUID()
    const first = await start({ home, plug, args: ['--session-id', sid, ...args], env })
    if (kind === 'plugin-set') await first.waitFor('the rename in the file', () => probe(first.debugLog(), 'RENAME-FILE').length)
    await op(first, { op: 'reg' }) // a turn, so there is a transcript to resume
    await stop(first)
    const resumed = await start({ home, plug, cwd: first.cwd, args: ['--resume', sid] })
    await op(resumed, { op: 'reg' })
    results[kind] = { first: probe(first.debugLog(), 'REG')[0], resumed: probe(resumed.debugLog(), 'REG')[0], resumedAtStart: probe(resumed.debugLog(), 'REG-AFTER')[0].reg }
    const top = probe(resumed.debugLog(), 'REG-BEFORE')[0].reg
    console.log(`  [measured] ${kind} resumed: at the top of session.start the record read ${top.name} (${top.nameSource}), named ${top.nameSince - top.startedAt} ms after its startedAt`)
    await stop(resumed)
    if (kind === 'plugin-set') {
      const [rename] = probe(first.debugLog(), 'RENAME')
      const [file] = probe(first.debugLog(), 'RENAME-FILE')
      assert.equal(rename.res.value, { text: 'Session renamed to: keel-P' })
      assert.equal([file.reg.name, file.reg.nameSource], ['keel-P', 'user'])
      assert.ok(file.reads <= 2, `the file had the name once the command resolved (${file.reads} reads)`)
      assert.equal(probe(first.debugLog(), 'COMMAND'), [], 'the plugin does not hear its own rename')
      console.log(`  [measured] rename resolved in ${rename.res.ms} ms (${rename.sinceStart} ms after start); file showed it ${file.ms} ms later`)
    }
    for (const k of ['first', 'resumed'] as const) assert.is(results[kind]![k].sessionI_d, sid)
  }
  const r = results
  assert.equal([r.derived!.first.nameSource, r.derived!.resumed.nameSource], ['derived', 'derived'])
  // A derived name is derived afresh (source `derived`, not `auto`): its 2 hex digits usually change.
  assert.ok(derivedName(r.derived!.first.cwd).test(r.derived!.resumed.name), r.derived!.resumed.name)
  console.log(`  [measured] derived ${r.derived!.first.name} resumed as ${r.derived!.resumed.name}`)
  assert.equal([r.given!.first.name, r.given!.first.nameSource, r.given!.resumed.name, r.given!.resumed.nameSource], ['keel-G', 'user', 'keel-G', 'auto'])
  assert.equal([r['plugin-set']!.first.name, r['plugin-set']!.first.nameSource, r['plugin-set']!.resumed.name, r['plugin-set']!.resumed.nameSource], ['keel-P', 'user', 'keel-P', 'auto'])
  // Already restored when session.start's next(e) resolved.
  assert.equal([r.given!.resumedAtStart.name, r['plugin-set']!.resumedAtStart.name], ['keel-G', 'keel-P'])
})

test('name identity (issue 17 item 4): the engine reaches `Release Bot` by case, white-space and compatibility variants and with a format character inside; two sessions whose names differ only so are one name to it', async () => {
  mock = await startStampedMock(probeScript())
  const home = tmpDir('home')
  const plug = plugin()
  const A = await start({ home, plug, args: [] })
  const B = await start({ home, plug, args: ['--name', 'Release Bot'] })
  const sendTo = async (to: string) => {
    const n = probe(A.debugLog(), 'SEND').length
    await op(A, { op: 'send', to, text: `IDENT ${JSON.stringify(to)}` })
    return probe(A.debugLog(), 'SEND')[n].value
  }
  for (const to of ['release bot', 'RELEASE BOT', 'release-bot', 'Release  Bot', ' Release Bot ', 'Release\tBot', 'Release \u200bBot', 'Ｒｅｌｅａｓｅ Ｂｏｔ'])
    assert.equal(await sendTo(to), { isDelivered: true }, JSON.stringify(to))
  for (const to of ['Release\u200bBot', 'releasebot', 'release_bot'])
    assert.match((await sendTo(to)).reason, /^No agent named '.*' is reachable\. Did you mean: Release Bot\?/s, JSON.stringify(to))
  await B.waitFor('B to receive the eight', () => probe(B.debugLog(), 'RECEIVE').length >= 8)
  // A second session named `release bot` holds the same name: a fresh sender is asked which one, for either spelling.
  await start({ home, plug, args: ['--name', 'release bot'] })
  assert.equal(registry(join(home, '.claude')).map((r) => r.name).filter((n) => /bot/i.test(n)).sort(), ['Release Bot', 'release bot'])
  const A2 = await start({ home, plug, args: [] })
  for (const to of ['release bot', 'Release Bot']) {
    const n = probe(A2.debugLog(), 'SEND').length
    await op(A2, { op: 'send', to, text: `TWO ${to}` })
    assert.match(probe(A2.debugLog(), 'SEND')[n].value.reason, new RegExp(`^2 agents are named '${to}'\\. Re-send with the ref of the one you mean:`), to)
  }
})

test('CLAUDE_CONFIG_DIR: the registry and CLAUDE_PLUGIN_DATA live under it; one config dir is one peer set, whatever HOME', async () => {
  mock = await startStampedMock(probeScript())
  const plug = plugin()
  const cfg1 = tmpDir('cfg')
  const cfg2 = tmpDir('cfg')
  const h1 = tmpDir('home')
  const h2 = tmpDir('home')
  const A = await start({ home: h1, plug, args: ['--name', 'keel-A'], env: { CLAUDE_CONFIG_DIR: cfg1 } })
  const B = await start({ home: h2, plug, args: ['--name', 'keel-B'], env: { CLAUDE_CONFIG_DIR: cfg1 } })
  const C = await start({ home: h1, plug, args: ['--name', 'keel-C'], env: { CLAUDE_CONFIG_DIR: cfg2 } })
  for (const [s, cfg] of [[A, cfg1], [B, cfg1], [C, cfg2]] as const) {
    const [st] = probe(s.debugLog(), 'START')
    assert.is(st.cfg, cfg, '$.env.get reads CLAUDE_CONFIG_DIR')
    assert.is(st.hookEnv.CLAUDE_PLUGIN_DATA, join(cfg, 'plugins/data/probe-inline'))
    assert.is(st.root, cfg, 'CLAUDE_PLUGIN_DATA cut at /plugins/data/ is the config dir')
    assert.is(st.regFile, join(cfg, 'sessions', `${st.hookEnv.CLAUDE_PID}.json`))
    assert.ok(probe(s.debugLog(), 'REG-BEFORE')[0].exists)
  }
  assert.equal(registry(cfg1).map((r) => r.name).sort(), ['keel-A', 'keel-B'])
  assert.equal(registry(cfg2).map((r) => r.name), ['keel-C'])
  assert.equal([...registry(join(h1, '.claude')), ...registry(join(h2, '.claude'))], [], 'nothing under HOME/.claude/sessions')
  await op(A, { op: 'send', to: 'keel-B', text: 'CFG-B' })
  await op(A, { op: 'send', to: 'keel-C', text: 'CFG-C' })
  await op(A, { op: 'agents' })
  const [toB, toC] = probe(A.debugLog(), 'SEND')
  assert.equal(toB.value, { isDelivered: true }, 'same config dir, different HOME: reachable')
  assert.is(toC.value.isDelivered, false, 'same HOME, different config dir: not reachable')
  assert.match(toC.value.reason, /^No agent named 'keel-C' is reachable\. (Did you mean: keel-B\?)?\nUse ListAgents to see everyone you can message\.$/)
  assert.equal(probe(A.debugLog(), 'AGENTS')[0].value.result.sections[0].rows.map((r: any) => r.name), ['keel-B'])
  await B.waitFor('B to receive', () => probe(B.debugLog(), 'RECEIVE').length)
  assert.equal(probe(C.debugLog(), 'RECEIVE'), [])
  // Issue 17 item 7, what A can know of C: nothing by name (above: not listed, not reachable), and its
  // registry is under a folder A is never told of. Only the socket folder is machine-wide.
  const [sockA, sockC] = [A, C].map((s) => probe(s.debugLog(), 'START')[0].sock as string)
  assert.is(dirname(sockA), dirname(sockC), 'one socket folder for every config dir')
  await op(A, { op: 'send', to: `uds:${sockC}`, text: 'CFG-C-BY-SOCKET' })
  // The transport itself crosses config dirs: addressed by its socket, C gets it. But only C's own
  // config dir names that socket, so a sender by name cannot find it.
  assert.equal(probe(A.debugLog(), 'SEND')[2].value, { isDelivered: true })
  await C.waitFor('C to receive by socket', () => probe(C.debugLog(), 'RECEIVE').some((r) => r.text.includes('CFG-C-BY-SOCKET')))
})

test.run()
