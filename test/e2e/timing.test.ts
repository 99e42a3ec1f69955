// The timing feature in the real engine: usage past the advisory point wakes the session with a
// turn of its own that the mock model receives, labelled with the package's name; and the lever.
// One process for several turns (stream-json): a new process starts the latch over (a baseline).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { join } from 'node:path'
import { startMockModel, byKind, requestText, type MockModel } from './mock-model.ts'
import { cleanupTmp, debugLines, repoRoot } from './engine.ts'
import { startLive } from './live.ts'

const WS = join(repoRoot(), 'packages/ws')
const WAKE = /\[ws compaction\] Context window at the end of the last turn: (\d+)% \((\d+)k \/ 1000k tokens\) \/ 97% \(automatic compaction point\)\. This is past the advisory point \(50%\)\./

let mock: MockModel | undefined
test.after.each(async () => {
  await mock?.close()
  mock = undefined
})
test.after(() => cleanupTmp())

const mainTexts = (m: MockModel) => m.messages('main').map((r) => requestText(r.body))

test('usage past the advisory point produces a wake turn the mock receives', async () => {
  // Turn one reports 100k of the 1M window (baseline below the advisory point), turn two 600k.
  mock = await startMockModel(byKind({ main: (_req, i) => ({ text: `answer ${i}`, inputTokens: i === 0 ? 100_000 : 600_000 }) }))
  const live = await startLive({ mode: 'stream-json', pluginDirs: [WS], mock })
  try {
    await live.send('first prompt')
    await live.waitFor('turn one', () => mock!.messages('main').length === 1)
    await live.send('second prompt')
    await live.waitFor('the wake turn', () => mock!.messages('main').length === 3, 30_000)
  } finally {
    await live.stop()
  }
  const texts = mainTexts(mock)
  assert.ok(texts[1]!.includes('second prompt'), texts[1])
  const wake = WAKE.exec(texts[2]!)
  assert.ok(wake, texts[2])
  assert.equal([wake![1], wake![2]], ['60', '600'], 'the figures are the fresh usage at delivery')
  assert.ok(texts[2]!.includes('Reminders follow at 66% and 81%.'))
  const lines = debugLines(live.debugLog(), 'ws')
  assert.ok(lines.includes('timing: compaction window 1000000: advisory 50%, milestones 66% and 81%, auto compaction 97%'), lines.join('\n'))
  assert.ok(lines.some((l) => l.startsWith('timing: advisory delivered: crossing measured at 600000 tokens (60%), fresh read 600000 tokens (60%)')))
})

test('with compactWindowTokens, the thresholds divide by the window the harness compacts on', async () => {
  mock = await startMockModel(byKind({ main: (_req, i) => ({ text: `answer ${i}`, inputTokens: i === 0 ? 100_000 : 300_000 }) }))
  const live = await startLive({ mode: 'stream-json', pluginDirs: [WS], mock, settings: { pluginConfigs: { 'ws@inline': { options: { compactWindowTokens: 500000 } } } } })
  try {
    await live.send('first prompt')
    await live.waitFor('turn one', () => mock!.messages('main').length === 1)
    await live.send('second prompt')
    await live.waitFor('the wake turn', () => mock!.messages('main').length === 3, 30_000)
  } finally {
    await live.stop()
  }
  const lines = debugLines(live.debugLog(), 'ws')
  assert.ok(lines.includes('timing: compaction window 500000: advisory 50%, milestones 64% and 79%, auto compaction 93%'), lines.join('\n'))
  assert.match(mainTexts(mock)[2]!, '[ws compaction] Context window at the end of the last turn: 60% (300k / 500k tokens) / 93% (automatic compaction point).')
})

test.run()
