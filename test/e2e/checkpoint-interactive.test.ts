// The automatic checkpoint in the real engine, in an interactive session (the terminal UI in a
// pseudo-terminal): a headless session never checkpoints, and refuses `$.session.compact()`, so
// only a TTY runs the whole cycle. The mock reports a fill past the trigger; the mod runs
// `/superheroes:checkpoint auto`, saves the reply's block, compacts with the charter and the new
// notes, and submits the resume prompt, once.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { readFileSync } from 'node:fs'
import { cleanupTmp, debugLines, findFiles, packageCopy } from './engine.ts'
import { hasPty, startLive, type LiveSession } from './live.ts'
import { lastUserText, type MockModel, type RecordedRequest, type Reply, requestText, startMockModel } from './mock-model.ts'

const PKG = 'superheroes'
const RESUME = 'Resume: this session was just compacted. Re-read your resume point (your checkpoint notes, and your charter if this session has one), then continue where you left off.'
const CHARTER = 'Build the parser for the config format'
const NOTES = 'Task: the config parser\nNow: lexer tests fail on CRLF\nNext: fix the tokenizer'
const SKILL_TAG = `<command-name>/${PKG}:checkpoint</command-name>`
/** The fill the trigger turn reports: past the default trigger (150000, below the harness's 967000 less 20000). */
const PAST_TRIGGER = 160_000

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

/** When the debug log says main turn `n` ended (ms since the epoch). */
function turnEndAt(log: string, n: number): number {
  const line = log.split('\n').find((l) => l.includes(`[engine] turn ${n} end (`))
  if (!line) throw new Error(`no end of turn ${n} in the debug log`)
  return Date.parse(line.slice(0, line.indexOf(' ')))
}

test('interactive: past the trigger, the checkpoint runs, its notes steer one compaction, one resume follows', async () => {
  if (!hasPty()) throw new Error('this test needs util-linux `script` for a pseudo-terminal')
  const at: Record<string, number> = {}
  mock = await startMockModel((req): Reply | undefined => {
    const text = lastUser(req)
    if (req.kind === 'summarize') {
      at.summarize ??= Date.now()
      return undefined
    }
    if (req.kind !== 'main') return undefined
    if (text.includes(SKILL_TAG)) return { text: `Checkpoint written.\n\n\`\`\`${PKG}-checkpoint\n${NOTES}\n\`\`\`\n`, inputTokens: PAST_TRIGGER + 2_000 }
    if (text.includes(RESUME)) {
      at.resume ??= Date.now()
      return { text: 'Resuming: fixing the tokenizer.', inputTokens: 8_000 }
    }
    if (text.includes(CHARTER)) return { text: 'Starting with the lexer.', inputTokens: PAST_TRIGGER }
    return { text: 'ok', inputTokens: 8_000 }
  })
  live = await startLive({ mode: 'tui', mock, pluginDirs: [packageCopy(PKG)] })
  await live.send(CHARTER)
  const dump = () => `--- ${PKG} debug lines:\n${debugLines(live!.debugLog(), PKG).join('\n')}\n--- requests:\n${mock!.messages().map((r) => `${r.kind}: ${lastUser(r).slice(-160)}`).join('\n')}`
  await live.waitFor('the resume request', () => at.resume, 30_000).catch((err) => { throw new Error(`${err.message}\n${dump()}`) })
  // Long enough for a second compaction or resume, were one to come (the mod's retry comes 1 s after its attempt).
  await new Promise((r) => setTimeout(r, 3000))

  const requests = mock.messages()
  assert.equal(requests.map((r) => r.kind), ['main', 'main', 'summarize', 'main'], `one checkpoint, one compaction, one resume\n${dump()}`)
  const [trigger, skill, summarize, resume] = requests as [RecordedRequest, RecordedRequest, RecordedRequest, RecordedRequest]
  assert.ok(lastUser(trigger).includes(CHARTER))
  // The checkpoint's own turn: the skill, run as the mod's command with the argument `auto`.
  assert.ok(lastUser(skill).includes(SKILL_TAG), lastUser(skill))
  assert.ok(lastUser(skill).includes('<command-args>auto</command-args>'), lastUser(skill))
  // The reply's block is the notes now.
  const saved = findFiles(live.home, '.notes.a.md')
  assert.is(saved.length, 1, dump())
  assert.is(readFileSync(saved[0]!, 'utf8'), NOTES)
  // The summarizer is steered with the charter and the new notes, and names the notes file.
  const steering = lastUser(summarize)
  const steered = steering.slice(steering.indexOf('Additional Instructions:'))
  assert.ok(steering.includes('Additional Instructions:'), `the compaction carries instructions\n${steering.slice(-600)}`)
  assert.ok(steered.includes(`## Charter\n${CHARTER}`), steered)
  assert.ok(steered.includes(`## Checkpoint notes\n${NOTES}`), steered)
  assert.ok(steered.includes(`kept in ${saved[0]!.replace(/\.notes\.a\.md$/, '.notes.md')};`), 'the stable notes file is named')
  assert.not.ok(steered.includes("## Owner's instructions"), 'no owner text: the mod started it')
  // The next main request is the resume prompt, exactly, on the compacted conversation.
  assert.ok(lastUser(resume).includes(RESUME), lastUser(resume))
  assert.not.ok(requestText(resume.body).includes('Starting with the lexer.'), 'the conversation before the summary is gone')
  const toasts = live.debugLog().split('\n').filter((l) => l.includes(`$.ui.toast (${PKG}): `)).map((l) => l.slice(l.indexOf('): ') + 3))
  assert.equal(toasts, ['Checkpoint notes saved', 'Checkpointed and compacted'])

  const log = live.debugLog()
  const end = turnEndAt(log, 1)
  const skillEnd = turnEndAt(log, 2)
  console.log(`  measured: trigger turn end → resume request ${at.resume! - end} ms (end → skill turn ends ${skillEnd - end} ms, → summarizer request ${at.summarize! - skillEnd} ms incl. the mod's 1000 ms delay, → resume ${at.resume! - at.summarize!} ms)`)
})

test.run()
