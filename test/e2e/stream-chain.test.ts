// The registry's stream chain for `turn.step` in the real engine, with test-only features built into a
// test bundle (test/tools/test-bundle.mjs): one rewrites the model's text chunks; one throws mid-stream
// and is left (open policy: what it yielded stays, the rest of the stream beneath passes on); one
// throws mid-stream and answers its own failure (a visible error text and a stop: the rest of the
// native stream is closed unread, never replayed).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { byKind, startMockModel, type MockModel } from './mock-model.ts'
import { cleanupTmp, debugLines, loadRefusals, runClaude, testPackage } from './engine.ts'
import { startLive } from './live.ts'

let mock: MockModel
let plugin: string
test.before(async () => {
  mock = await startMockModel(byKind({ main: { textPieces: ['alpha ', 'beta ', 'gamma'] } }))
  plugin = testPackage('stream-features')
})
test.after(async () => { await mock.close(); cleanupTmp() })

const withOptions = (options: object) => ({ pluginConfigs: { 'keeltest@inline': { options } } })

test('a feature that rewrites text chunks: what streams and what the turn answers are rewritten', async () => {
  const r = await runClaude({ prompt: 'say it', pluginDirs: [plugin], mock, settings: withOptions({ streamUpper: 'on' }) })
  assert.equal(loadRefusals(r.debugLog), [])
  assert.is(r.json?.result, 'ALPHA BETA GAMMA')
  // Stream-json shows the pieces as they streamed.
  const live = await startLive({ mode: 'stream-json', pluginDirs: [plugin], mock, settings: withOptions({ streamUpper: 'on' }), extraArgs: ['--include-partial-messages'] })
  try {
    await live.send('say it')
    await live.waitFor('the turn result', () => live.output().includes('"type":"result"'))
    const deltas = live.output().split('\n').flatMap((l) => { try { const d = JSON.parse(l); return d.type === 'stream_event' && d.event?.delta?.text ? [d.event.delta.text] : [] } catch { return [] } })
    assert.equal(deltas, ['ALPHA ', 'BETA ', 'GAMMA'])
  } finally {
    await live.stop()
  }
})

test('a feature that throws mid-stream (open): its chunk stays, the rest passes on from beneath, once', async () => {
  const before = mock.messages().length
  const r = await runClaude({ prompt: 'say it', pluginDirs: [plugin], mock, settings: withOptions({ streamBreak: 'on' }) })
  assert.is(r.json?.result, 'alpha beta gamma', 'nothing lost, nothing twice')
  assert.is(mock.messages().length - before, 1, 'one model request')
  assert.ok(debugLines(r.debugLog, 'keeltest').includes('streamBreak: turn.step hook skipped (Error: streamBreak broke mid-stream)'), debugLines(r.debugLog, 'keeltest').join('\n'))
})

test('a feature that answers its own failure: the chunk before it, then its error text and a stop; the rest is never shown', async () => {
  const r = await runClaude({ prompt: 'say it', pluginDirs: [plugin], mock, settings: withOptions({ streamAnswer: 'on' }) })
  const result = String(r.json?.result)
  assert.ok(result.startsWith('alpha '), result)
  assert.match(result, /streamAnswer: the step failed and was answered in its place \(Error: streamAnswer broke mid-stream\)/)
  assert.not.ok(result.includes('beta') || result.includes('gamma'), 'what beneath still streamed was closed unread')
})

test('keel\'s hook failing at the engine (a chunk it refuses) on a step a feature owns: the .catch has it answer, never native', async () => {
  const r = await runClaude({ prompt: 'say it', pluginDirs: [plugin], mock, settings: withOptions({ streamBad: 'on' }) })
  const result = String(r.json?.result)
  assert.match(result, /streamAnswer: the step failed and was answered in its place/, result)
  assert.not.ok(result.includes('beta') || result.includes('gamma'), `nothing beneath was passed on: ${JSON.stringify(result)}`)
  assert.ok(r.debugLog.includes('its .catch answered'), 'the engine says the catch answered')
})

test.run()
