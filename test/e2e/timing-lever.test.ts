// The request_compaction lever in the real engine (stream-json headless): the model calls the tool and
// reads the lever's result; at the turn's end the compaction is asked for. Measured on 2.1.328: a
// headless session refuses `$.session.compact()` ("not available in a headless (-p / SDK) session
// yet"), and the feature reports that rejection in the transcript, as §3 says, keeping the request.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { join } from 'node:path'
import { startMockModel, byKind, requestText, type MockModel } from './mock-model.ts'
import { cleanupTmp, debugLines, repoRoot } from './engine.ts'
import { startLive } from './live.ts'

const WS = join(repoRoot(), 'packages/ws')
let mock: MockModel | undefined
test.after.each(async () => {
  await mock?.close()
  mock = undefined
})
test.after(() => cleanupTmp())

test('request_compaction: the result reaches the model; headless, the refused compaction is reported', async () => {
  mock = await startMockModel(byKind({
    main: (_req, i) => (i === 0 ? { toolUse: { name: 'mcp__ws__request_compaction', input: { continue: true } } } : { text: `answer ${i}` }),
  }))
  const live = await startLive({ mode: 'stream-json', pluginDirs: [WS], mock })
  try {
    await live.send('please compact')
    await live.waitFor('the rejection notice', () => live.output().includes('ws compaction: the requested compaction was rejected ('), 20_000)
  } finally {
    await live.stop()
  }
  const main = mock.messages('main')
  assert.ok(requestText(main[1]!.body).includes('Compaction requested. End your turn now'), 'the tool result reached the model')
  const lines = debugLines(live.debugLog(), 'ws')
  assert.ok(lines.includes('timing: compaction requested; resume: true'), lines.join('\n'))
  assert.ok(live.output().includes('not available in a headless (-p / SDK) session yet'), 'the engine\'s reason is quoted')
  assert.is(mock.messages('summarize').length, 0)
  assert.not.ok(main.some((r) => requestText(r.body).includes('Compaction landed; resume')), 'no resume without a landing')
})

test.run()
