// The usage view as a pane in the terminal UI (issue 19 part 1), in a pty: a routed turn against the mock
// provider first (its own usage counted), then `/klyth route usage` opens a pane whose alias row carries the
// provider's token counts and price; Esc gives the keyboard back to the prompt (the next turn goes through).
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { startMockModel, type MockModel } from './mock-model.ts'
import { startMockProvider, type MockProvider, type ProviderReply } from './mock-provider.ts'
import { cleanupTmp } from './engine.ts'
import { hasPty, startLive, type LiveSession } from './live.ts'
import { screenRows } from './probe-kit.ts'
import { ALIAS, routedHome, stepRequests } from './routing-kit.ts'

// Counts no other test's provider sends, on every answer (a side call the engine routes counts the same).
const USAGE = { input: 412, cached: 90, output: 37 }
const PRICING = { input: 2, output: 10 }
const REPLY: ProviderReply = { text: ['USAGE-', 'PANE-', 'ANSWER'], usage: USAGE }

let mock: MockModel | undefined
let provider: MockProvider | undefined
let live: LiveSession | undefined
test.after.each(async () => {
  await live?.stop()
  await mock?.close()
  await provider?.close()
  live = mock = provider = undefined
})
test.after(() => cleanupTmp())

test('route usage in the terminal UI: a pane with the alias row in the provider\'s own counts, priced; Esc closes it', async () => {
  if (!hasPty()) return console.log('skipped: no pty')
  mock = await startMockModel()
  provider = await startMockProvider([], REPLY)
  const { home, plugin } = await routedHome(mock, provider, { extras: { model: { pricing: PRICING } } })
  live = await startLive({ mode: 'tui', pluginDirs: [plugin], mock, home, extraArgs: ['--model', ALIAS] })
  const s = live
  /** The screen as a person sees it now (the stream replayed), a row a line. */
  const screen = () => screenRows(s.output()).join('\n')
  const waitScreen = <T>(what: string, check: (text: string) => T | null | false) =>
    s.waitFor(what, () => check(screen()) || undefined, 60_000).catch((err) => {
      throw new Error(`${err}\n--- screen:\n${screen()}`)
    })

  await s.send('hello, routed')
  await waitScreen('the routed answer', (t) => t.includes('USAGE-PANE-ANSWER'))
  await s.send('/klyth route usage')
  // The pane is docked at the right, its rows after a border: the alias row under this session's heading.
  const ROW = new RegExp(`│this session, by alias:\n.*│  ${ALIAS}: (\\d+) requests?, in (\\S+), out (\\S+), cache read/write (\\S+)/0, \\$(\\d+\\.\\d{4})\n.*│the last 30 days, by alias`)
  const row = await waitScreen('the usage pane', (t) => ROW.exec(t))
  const n = Number(row[1])
  assert.ok(n >= 1 && n <= provider.requests.filter((q) => q.path === '/v1/chat/completions').length, `${n} requests counted, ${stepRequests(provider).length} routed steps served`)
  // The provider's own counts, n times (the view writes 1,000 and over as `1.2k`), priced at the alias's price.
  const k = (t: number) => (t >= 1000 ? `${(t / 1000).toFixed(1)}k` : String(t))
  assert.equal(row.slice(2, 5), [k(USAGE.input * n), k(USAGE.output * n), k(USAGE.cached * n)])
  assert.is(row[5], (((USAGE.input + USAGE.cached) * PRICING.input + USAGE.output * PRICING.output) * n / 1e6).toFixed(4))
  assert.match(screen(), 'klyth: the usage pane is open: Esc closes it')

  // Esc closes it: the pane's rows leave the screen, the transcript takes the whole width again.
  s.write('\x1b')
  await waitScreen('the pane closed', (t) => !t.includes('this session, by alias:') && !/│\n/.test(t))
  // And the prompt has the keyboard again: the next turn is sent, routed.
  const before = stepRequests(provider).length
  await s.send('hello again')
  await s.waitFor('the next routed turn', () => stepRequests(provider!).length > before, 60_000)
  assert.is(mock.messages().length, 0, 'nothing reached Claude')
})

test.run()
