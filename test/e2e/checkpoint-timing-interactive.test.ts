// checkpoint and timing in one package (keel), in the real engine's terminal UI: the
// request_compaction lever's compaction runs through keel's own session.compact chain, so the
// checkpoint steers it with the charter and the notes; the lever was called without `continue`, so
// no resume prompt follows it, neither the checkpoint's nor the lever's.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { cleanupTmp, debugLines, findFiles, packageCopy } from './engine.ts'
import { hasPty, startLive, type LiveSession } from './live.ts'
import { lastUserMessage, lastUserText, type MockModel, type RecordedRequest, type Reply, startMockModel } from './mock-model.ts'

const PKG = 'keel'
const LEVER = `mcp__${PKG}__request_compaction`
const CHARTER = 'Build the parser for the config format'
const NOTES = 'Task: the config parser\nNow: lexer tests fail on CRLF\nNext: fix the tokenizer'
const CHECKPOINT_RESUME = 'Resume: this session was just compacted.'
const LEVER_RESUME = `[${PKG} compaction] Compaction landed`
const BOUNDARY = 'compact at this boundary'

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

test('interactive, keel with checkpoint and timing: the lever without continue is steered with charter and notes, and no resume follows', async () => {
  if (!hasPty()) throw new Error('this test needs util-linux `script` for a pseudo-terminal')
  let summarizedAt: number | undefined
  let leverResultAt: number | undefined
  mock = await startMockModel((req): Reply | undefined => {
    if (req.path.split('?')[0] !== '/v1/messages') return undefined
    const text = lastUser(req)
    if (req.kind === 'summarize') {
      summarizedAt ??= Date.now()
      return undefined
    }
    if (req.kind !== 'main') return undefined
    if (text.includes(CHARTER)) return { text: `Starting with the lexer.\n\n\`\`\`${PKG}-checkpoint\n${NOTES}\n\`\`\`\n` }
    if (text.includes(BOUNDARY)) return { toolUse: { name: LEVER, input: {}, id: 'toolu_compact1' } }
    if (resultOf(req, 'toolu_compact1')) {
      leverResultAt ??= Date.now()
      return { text: 'Records are up to date; ending my turn for the compaction.' }
    }
    return { text: 'Carrying on.' }
  })
  live = await startLive({ mode: 'tui', mock, pluginDirs: [packageCopy(PKG)], settings: { pluginConfigs: { [`${PKG}@inline`]: { options: { checkpoint: 'on', timing: 'on' } } } } })
  const dump = () => `--- ${PKG} debug lines:\n${debugLines(live!.debugLog(), PKG).join('\n')}\n--- requests:\n${mock!.messages().map((r) => `${r.kind}: ${lastUser(r).slice(-160)}`).join('\n')}`
  const fail = (err: Error) => { throw new Error(`${err.message}\n${dump()}`) }

  await live.send(CHARTER)
  // The reply's block is the notes once its turn has ended.
  await live.waitFor('the saved notes', () => findFiles(live!.home, '.notes.a.md')[0], 30_000).catch(fail)
  await live.send(BOUNDARY)
  await live.waitFor('the summarizer request', () => summarizedAt, 30_000).catch(fail)
  // Long enough for either resume prompt (the lever's would come 1.5 s after), were one to come.
  await sleep(3000)

  const requests = mock.messages()
  assert.equal(requests.map((r) => r.kind), ['main', 'main', 'main', 'summarize'], `the charter turn, the lever's turn (two requests), one compaction, and nothing after it\n${dump()}`)
  const [, lever, , summarize] = requests as [RecordedRequest, RecordedRequest, RecordedRequest, RecordedRequest]
  assert.ok(lever.body.tools.some((t: { name: string }) => t.name === LEVER), 'the lever is listed')
  // The checkpoint's steering reaches the lever's compaction.
  const steering = lastUser(summarize)
  assert.ok(steering.includes('Additional Instructions:'), `the compaction carries instructions\n${steering.slice(-600)}`)
  const steered = steering.slice(steering.indexOf('Additional Instructions:'))
  assert.ok(steered.includes(`## Charter\n${CHARTER}`), steered)
  assert.ok(steered.includes(`## Checkpoint notes\n${NOTES}`), steered)
  assert.ok(steered.includes(`kept in ${findFiles(live.home, '.notes.a.md')[0]!.replace(/\.notes\.a\.md$/, '.notes.md')};`), 'the stable notes file is named')
  assert.not.ok(steered.includes("## Owner's instructions"), 'the lever passes no text of its own')
  // No resume prompt, neither the checkpoint's nor the lever's.
  const all = mock.messages('main').map(lastUser).join('\n')
  assert.not.ok(all.includes(CHECKPOINT_RESUME), 'no checkpoint resume')
  assert.not.ok(all.includes(LEVER_RESUME), 'no lever resume')
  const lines = debugLines(live.debugLog(), PKG)
  assert.ok(lines.includes('timing: compaction requested; resume: false'), lines.join('\n'))
  assert.not.ok(lines.some((l) => l.includes('rejected')), 'no rejection in a TTY')
  console.log(`  measured: lever result request → summarizer request ${summarizedAt! - leverResultAt!} ms (steered by the checkpoint through keel's chain)`)
})

test.run()
