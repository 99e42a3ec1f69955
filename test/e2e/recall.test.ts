// Recall (issue 22) in real engine sessions (package superheroes, where it is on), against the mock:
// a fact the person gave before the first of three compactions is found after the third, by the
// model's own call and by the verb; a subagent's call searches the main conversation's transcript; a
// /clear begins a conversation recall finds nothing of the old one in; --resume finds the resumed
// session's rows; a result over the engine's size cap and an image are named, not inlined. No
// --allowedTools names the tool: it runs with no permission asked (served ahead of the check).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { cleanupTmp, debugLines, packageCopy, skippedHooks } from './engine.ts'
import { startLive, type LiveSession } from './live.ts'
import { lastUserText, requestText, startMockModel, type MockModel, type RecordedRequest, type Reply } from './mock-model.ts'

const PKG = 'superheroes'
const TOOL = `mcp__${PKG}__recall`
const HEAD = "Recall, from this session's transcript:"
// The fact carries a Korean word: the engine writes it unescaped, so the raw-text probe finds it.
const FACT = 'Naming rule from the person: every module name is a noun (규칙 코알라-17), never a verb.'
// Prompts never hold the query's words: what recall finds is the old row, not the prompt asking.
const QUERY = '"module name is a noun" 코알라'
const SUMMARY = '<summary>SUMMARY: the work goes on; nothing else kept.</summary>'
const CHILD = 'CHILD: look it up'

// ---- The mock: prompts name what the model does ----
//  ASK       the model calls recall with QUERY
//  AGENT     a foreground subagent that calls recall with QUERY
//  BIG       an answer reporting 990k input tokens (the next turn auto-compacts)
//  HUGE      a Bash call printing 300 kB (over the engine's cap)   IMAGE <path>  a Read of an image
const answersTool = (req: RecordedRequest) => {
  const last = req.body?.messages?.at(-1)
  return Array.isArray(last?.content) && last.content.some((b: any) => b.type === 'tool_result')
}
const isChild = (req: RecordedRequest) => JSON.stringify(req.body?.messages?.[0] ?? '').includes(CHILD)
const ask = (query = QUERY): Reply => ({ toolUse: { name: TOOL, input: { query } } })

function script(req: RecordedRequest): Reply | undefined {
  if (req.kind === 'summarize') return { text: SUMMARY }
  if (req.kind !== 'main') return undefined
  if (answersTool(req)) return { text: isChild(req) ? 'child-done' : 'done' }
  if (isChild(req)) return ask()
  const text = lastUserText(req.body)
  const found = /\bASK(?: (.+))?$/m.exec(text)
  if (found) return ask(found[1])
  if (/\bAGENT\b/.test(text)) return { toolUse: { name: 'Agent', input: { description: 'look it up', prompt: CHILD, subagent_type: 'general-purpose', run_in_background: false } } }
  if (/\bBIG\b/.test(text)) return { text: 'big', inputTokens: 990_000 }
  if (/\bHUGE\b/.test(text)) return { toolUse: { name: 'Bash', input: { command: "head -c 300000 /dev/zero | tr '\\0' y", description: 'huge' } } }
  const image = /\bIMAGE (\S+)/.exec(text)
  if (image) return { toolUse: { name: 'Read', input: { file_path: image[1] } } }
  return { text: 'ok' }
}

/** The text of each tool result a request answers with: what the model read for its calls. */
const toolResults = (req: RecordedRequest): string[] =>
  (req.body?.messages?.at(-1)?.content ?? []).filter((b: any) => b?.type === 'tool_result')
    .map((b: any) => (typeof b.content === 'string' ? b.content : b.content.map((c: any) => c.text ?? '').join('\n')))
/** The recall results the mock was sent, in order (the main conversation's, or a subagent's). */
const recallResults = (mock: MockModel, child = false) =>
  mock.messages('main').filter((r) => isChild(r) === child && answersTool(r)).flatMap(toolResults).filter((t) => t.startsWith(HEAD))

type Session = LiveSession & { turn(text: string, extraResults?: number): Promise<string> }

async function session(mock: MockModel, opts: { home?: string; cwd?: string; extraArgs?: string[] } = {}): Promise<Session> {
  const live = await startLive({ mode: 'stream-json', pluginDirs: [packageCopy(PKG)], mock, ...opts })
  const results = () => live.output().split('\n').filter((l) => l.startsWith('{') && l.includes('"type":"result"')).map((l) => JSON.parse(l))
  let expected = 0
  return Object.assign(live, {
    /** Sends a prompt and waits for its result, and for `extraResults` more (a resume prompt after /compact). */
    async turn(text: string, extraResults = 0) {
      expected += 1 + extraResults
      await live.send(text)
      const all = await live.waitFor(`the result of "${text.slice(0, 40)}"`, () => results().length >= expected && results(), 60_000)
      const last = all[expected - 1 - extraResults]
      assert.is(last.is_error, false, `"${text}" ended in an error: ${JSON.stringify(last).slice(0, 300)}`)
      return String(last.result ?? '')
    },
  })
}

function clean(live: LiveSession): void {
  assert.equal(skippedHooks(live.debugLog()).filter((s) => s.plugin === PKG), [], 'no hook of the package was skipped')
}

let mock: MockModel
let live: Session | undefined
test.before.each(async () => {
  mock = await startMockModel(script)
})
test.after.each(async () => {
  await live?.stop()
  live = undefined
  await mock.close()
})
test.after(() => cleanupTmp())

test('three compactions later, the fact said before the first is found: by the model\'s own call and by the verb; each summarizer is told of the tool', async () => {
  live = await session(mock)
  await live.turn(FACT)
  await live.turn('next step')
  await live.turn('/compact', 1)
  await live.turn('more work')
  await live.turn('/compact', 1)
  await live.turn('BIG')
  await live.turn('after the automatic one')
  // The conversation the model holds after the third has lost the fact (the summaries kept nothing of it).
  assert.not.ok(requestText(mock.messages('main').at(-1)!.body).includes('코알라'), 'the fact is out of the context')
  const summarized = mock.messages('summarize')
  assert.is(summarized.length, 3, 'three compactions')
  for (const r of summarized) assert.ok(requestText(r.body).includes(`the tool ${TOOL} searches this session's whole transcript`), 'the steering names the tool')

  // The verb first: its own line is never found again.
  const verb = await live.turn(`/${PKG} recall ${QUERY}`)
  assert.ok(verb.includes(`${HEAD} the best 1 of 1 matching rows; damaged rows skipped: 0.`), verb)
  assert.ok(verb.includes(`, the person:\n${FACT}`), verb)

  await live.turn('ASK')
  const [found] = recallResults(mock)
  assert.ok(found, `the model read a recall result\n${debugLines(live.debugLog(), PKG).join('\n')}`)
  assert.ok(found!.startsWith(`${HEAD} the best 1 of 1 matching rows; damaged rows skipped: 0.`), found)
  assert.match(found!, new RegExp(`--- \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z, the person:\\n${FACT.replace(/[.()]/g, '\\$&')}`))
  clean(live)
})

test('a subagent\'s call searches the main conversation\'s transcript', async () => {
  live = await session(mock)
  await live.turn(FACT)
  await live.turn('AGENT')
  assert.ok(mock.messages('main').some(isChild), 'the subagent ran')
  const [found] = recallResults(mock, true)
  assert.ok(found?.includes(`the person:\n${FACT}`), `the subagent read the main conversation's row: ${found}`)
  clean(live)
})

test('/clear: the conversation it begins is another; recall finds nothing of the one before', async () => {
  live = await session(mock)
  await live.turn(FACT)
  await live.turn('ASK')
  await live.turn('/clear')
  await live.turn('ASK')
  const [before, after] = recallResults(mock)
  assert.ok(before?.includes(FACT), before)
  assert.is(after, `${HEAD} the best 0 of 0 matching rows; damaged rows skipped: 0.`)
  clean(live)
})

test('--resume: the resumed session\'s rows are found', async () => {
  live = await session(mock)
  await live.turn(FACT)
  const sessionId = JSON.parse(live.output().split('\n').find((l) => l.includes('"type":"result"'))!).session_id
  const { home, cwd } = live
  await live.stop()
  live = await session(mock, { home, cwd, extraArgs: ['--resume', sessionId] })
  await live.turn('ASK')
  const [found] = recallResults(mock)
  assert.ok(found?.includes(`the person:\n${FACT}`), found)
  clean(live)
})

test('no permission is asked, in plan mode too: the call is served ahead of the check (measured: a tool served after it is refused there)', async () => {
  live = await session(mock, { extraArgs: ['--permission-mode', 'plan'] })
  await live.turn(FACT)
  await live.turn('ASK')
  const [found] = recallResults(mock)
  assert.ok(found?.includes(`the person:\n${FACT}`), `${found}\n${JSON.stringify(mock.messages('main').at(-1)?.body.messages.at(-1)).slice(0, 400)}`)
  clean(live)
})

test('a result over the engine\'s size cap and an image are named, not inlined', async () => {
  live = await session(mock, { extraArgs: ['--allowedTools', 'Bash,Read'] })
  const png = join(live.cwd, 'shot.png')
  writeFileSync(png, Buffer.from('89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0f5c8e70000000049454e44ae426082', 'hex'))
  await live.turn('HUGE')
  await live.turn(`IMAGE ${png}`)
  await live.turn('ASK "Output too large"')
  await live.turn('ASK "an image"')
  const [huge, image] = recallResults(mock)
  assert.match(huge!, /, a tool's result:\n<persisted-output>\nOutput too large \(\d+KB\)\. Full output saved to: \S+tool-results\/\S+\.txt\n(\n---|$)/)
  assert.not.ok(huge!.includes('yyyy'), 'the preview is not inlined')
  assert.ok(image!.includes("a tool's result:\n[an image (image/png), not shown]"), image)
  clean(live)
})

test.run()
