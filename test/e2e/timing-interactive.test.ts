// The request_compaction lever in the real engine, in an interactive session (the terminal UI in a
// pseudo-terminal): a headless session refuses `$.session.compact()`, so only a TTY lands it. The
// mock scripts the lever's call with `continue: true`; the compaction runs once the turn has ended,
// and the resume prompt follows after the continuation window (1.5 s), unless a main turn starts first.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { cleanupTmp, debugLines, packageCopy } from './engine.ts'
import { hasPty, startLive, type LiveSession } from './live.ts'
import { lastUserMessage, lastUserText, type MockModel, type RecordedRequest, type Reply, requestText, startMockModel } from './mock-model.ts'

const PKG = 'ws'
const LEVER = `mcp__${PKG}__request_compaction`
const RESUME = `[${PKG} compaction] Compaction landed; resume the work in progress from the summary and your durable records.`
/** The continuation window the resume prompt is held for (wsflow §3). */
const WINDOW_MS = 1500

let mock: MockModel | undefined
let live: LiveSession | undefined

test.after.each(async () => {
  await live?.stop()
  await mock?.close()
  live = undefined
  mock = undefined
})
test.after(() => cleanupTmp())

const lastUser = (req: RecordedRequest) => lastUserText(req.body)
const resultOf = (req: RecordedRequest, id: string) => JSON.stringify(lastUserMessage(req.body)?.content ?? '').includes(id)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** Each request the mock got, when (ms), and what it was: `kind: last user text`. */
type Seen = { at: number; kind: string; text: string; what: string }

/** The mock: `prompt` calls the lever, its result ends the turn, the summarizer and any other main request are recorded. */
function leverMock(prompt: string, seen: Seen[], onSummarize?: () => void) {
  return startMockModel((req): Reply | undefined => {
    if (req.path.split('?')[0] !== '/v1/messages') return undefined
    const text = lastUser(req)
    seen.push({ at: Date.now(), kind: req.kind, text, what: `${req.kind}: ${text.slice(-120).replace(/\s+/g, ' ')}` })
    if (req.kind === 'summarize') {
      onSummarize?.()
      return undefined
    }
    if (req.kind !== 'main') return undefined
    if (text.includes(prompt)) return { toolUse: { name: LEVER, input: { continue: true }, id: 'toolu_compact1' } }
    if (resultOf(req, 'toolu_compact1')) return { text: 'Records are up to date; ending my turn for the compaction.' }
    return { text: 'Carrying on.' }
  })
}

const dump = (seen: Seen[]) =>
  `--- ${PKG} debug lines:\n${debugLines(live!.debugLog(), PKG).join('\n')}\n--- requests:\n${seen.map((s) => s.what).join('\n')}`

test('interactive: the lever compacts after the turn ends, and the resume prompt follows once the window has passed', async () => {
  if (!hasPty()) throw new Error('this test needs util-linux `script` for a pseudo-terminal')
  const seen: Seen[] = []
  mock = await leverMock('compact at this boundary', seen)
  live = await startLive({ mode: 'tui', mock, pluginDirs: [packageCopy(PKG)] })
  await live.send('compact at this boundary')
  const resumed = () => seen.find((s) => s.kind === 'main' && s.text.includes(RESUME))
  await live.waitFor('the resume prompt', resumed, 30_000).catch((err) => { throw new Error(`${err.message}\n${dump(seen)}`) })
  // Long enough for a second compaction or resume, were one to come.
  await sleep(3000)

  const main = mock.messages('main')
  assert.is(main.length, 3, dump(seen))
  assert.ok(main[0]!.body.tools.some((t: { name: string }) => t.name === LEVER), 'the lever is listed')
  assert.ok(requestText(main[1]!.body).includes('Compaction requested. End your turn now'), 'the lever\'s result reached the model')
  assert.is(mock.messages('summarize').length, 1, 'one compaction')
  const kinds = mock.messages().map((r) => r.kind)
  assert.equal(kinds, ['main', 'main', 'summarize', 'main'], 'the compaction after the turn ended, the resume after it')
  assert.ok(lastUser(main[2]!).includes(RESUME), lastUser(main[2]!))
  assert.ok(lastUser(main[2]!).includes('The ws plugin sent a message'), 'the engine frames it as the plugin\'s message')
  // The summary replaced the conversation: the resume request carries no earlier prompt.
  assert.not.ok(requestText(main[2]!.body).includes('compact at this boundary'), 'the resume request follows the compacted conversation')

  // In the engine's own log too: the lever's turn ended, then the compaction's request was made.
  const log = live.debugLog().split('\n')
  const turnEnd = log.findIndex((l) => l.includes('[engine] turn 1 end ('))
  const compactRequest = log.findIndex((l) => l.includes('[API REQUEST] /v1/messages source=compact'))
  assert.ok(turnEnd >= 0 && compactRequest > turnEnd, `turn end at line ${turnEnd}, the compaction's request at line ${compactRequest}`)

  const summarize = seen.find((s) => s.kind === 'summarize')!
  const resume = resumed()!
  const held = resume.at - summarize.at
  assert.ok(held >= WINDOW_MS, `the resume was held for the window: ${held} ms after the summarizer request`)
  assert.ok(held < WINDOW_MS + 3000, `and then not held much longer: ${held} ms`)
  const lines = debugLines(live.debugLog(), PKG)
  assert.ok(lines.includes('timing: compaction requested; resume: true'), lines.join('\n'))
  assert.not.ok(lines.some((l) => l.includes('rejected')), 'no rejection in a TTY')
  console.log(`  measured: lever result turn → summarizer ${summarize.at - seen[1]!.at} ms, summarizer → resume ${held} ms (window ${WINDOW_MS} ms)`)
})

test('interactive: a prompt that starts a turn within the window cancels the held resume', async () => {
  if (!hasPty()) throw new Error('this test needs util-linux `script` for a pseudo-terminal')
  const seen: Seen[] = []
  let summarized = false
  mock = await leverMock('compact here too', seen, () => { summarized = true })
  live = await startLive({ mode: 'tui', mock, pluginDirs: [packageCopy(PKG)] })
  await live.send('compact here too')
  await live.waitFor('the summarizer request', () => summarized, 30_000).catch((err) => { throw new Error(`${err.message}\n${dump(seen)}`) })
  // The person types on at once: this prompt's turn starts inside the continuation window.
  await live.send('the next task')
  await live.waitFor('the person\'s next turn', () => seen.find((s) => s.kind === 'main' && s.text.includes('the next task')), 20_000)
    .catch((err) => { throw new Error(`${err.message}\n${dump(seen)}`) })
  await sleep(WINDOW_MS + 1500)
  const lines = debugLines(live.debugLog(), PKG)
  assert.ok(lines.includes('timing: a turn started within the resume window; the resume prompt is not submitted'), dump(seen))
  assert.not.ok(seen.some((s) => s.text.includes(RESUME)), 'no resume prompt was sent')
  assert.is(mock.messages('summarize').length, 1)
  assert.equal(mock.messages().map((r) => r.kind), ['main', 'main', 'summarize', 'main'])
  const next = seen.find((s) => s.text.includes('the next task'))!
  const summarize = seen.find((s) => s.kind === 'summarize')!
  console.log(`  measured: summarizer → the person's turn ${next.at - summarize.at} ms (inside the ${WINDOW_MS} ms window)`)
})

// The advisory crossed in a turn the person stops with Esc: the engine drops a prompt submitted right
// after a stopped turn ("the session was stopped and nobody has sent input since"), so the advisory
// must wait for the next turn end instead of being spent on a drop.
test('interactive: an advisory crossed in a turn stopped with Esc reaches the model at the next turn end', async () => {
  if (!hasPty()) throw new Error('this test needs util-linux `script` for a pseudo-terminal')
  const seen: Seen[] = []
  let sleeping = false
  mock = await startMockModel((req): Reply | undefined => {
    if (req.path.split('?')[0] !== '/v1/messages' || req.kind !== 'main') return undefined
    const text = lastUser(req)
    seen.push({ at: Date.now(), kind: req.kind, text, what: `${req.kind}: ${text.slice(-120).replace(/\s+/g, ' ')}` })
    // 700k of a 1M window: past the 50% advisory point from the first request.
    if (text.includes('long job')) {
      sleeping = true
      return { toolUse: { name: 'Bash', input: { command: 'sleep 8', description: 'wait' }, id: 'toolu_sleep1' }, inputTokens: 700_000 }
    }
    // The first reading after a start only sets the baseline: a first turn below the advisory point.
    if (text.includes('warm up')) return { text: 'Ready.', inputTokens: 1000 }
    return { text: 'Done.', inputTokens: 700_000 }
  })
  live = await startLive({ mode: 'tui', mock, pluginDirs: [packageCopy(PKG)], extraArgs: ['--allowedTools', 'Bash'] })
  await live.send('warm up')
  await live.waitFor('the first turn', () => live!.output().includes('Ready.'), 20_000)
  await sleep(1000)
  await live.send('long job')
  await live.waitFor('the sleep to run', () => sleeping && /sleep 8/.test(live!.output()), 20_000).catch((err) => { throw new Error(`${err.message.slice(0, 200)}\n${dump(seen)}`) })
  await sleep(1000)
  live.write('\x1b')
  await live.waitFor('the turn to stop', () => live!.output().includes('Interrupted'), 10_000).catch((err) => { throw new Error(`${err.message}\n${dump(seen)}`) })
  await sleep(2500)
  assert.not.ok(seen.some((s) => s.text.includes(`[${PKG} compaction]`)), `nothing reached the model after the stop\n${dump(seen)}`)
  await live.send('next task')
  const advisory = await live.waitFor('the advisory', () => seen.find((s) => s.text.includes(`[${PKG} compaction]`)), 20_000)
    .catch((err) => { throw new Error(`${err.message}\n${dump(seen)}`) })
  const next = seen.findIndex((s) => s.text.includes('next task'))
  assert.ok(next >= 0 && seen.indexOf(advisory) > next, `the advisory follows the next turn: ${dump(seen)}`)
  const lines = debugLines(live.debugLog(), PKG)
  assert.ok(lines.some((l) => l.includes('dropped')), `the first delivery was dropped: ${lines.join('\n')}`)
})

test.run()
