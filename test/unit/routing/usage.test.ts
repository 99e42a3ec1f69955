// The usage ledger (issue 19 part 1): each request counted from the provider's own usage, a gap where it
// sent none (totals then read `≥`), the price per alias, one file a session, and what the folder keeps.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { addRequest, costOf, parseSessionUsage, retained, sumAliases, totalOf, usageLines, type SessionUsage } from '../../../src/features/routing/usage.ts'
import { spentText } from '../../../src/features/routing/strings.ts'
import { fakeChild, SSE_HEAD } from './fake-child.ts'
import { approve, capturing, CONFIG, CONFIG_PATH, routingWorld, start, stepEvent, stepHook } from './fake-port.ts'
import { fixture } from './fixtures/read.ts'
import { settle } from '../fakes.ts'

const counted = (input: number, output: number, cacheRead = 0, cacheWrite = 0, reasoning = 0) => ({ input, output, cacheRead, cacheWrite, reasoning })
const PRICE = { input: 1, output: 4 }

test('a request: counted, priced (USD per million), or a gap; totals across aliases and sessions', () => {
  assert.is(costOf(counted(1000, 200), PRICE), 0.0018, 'the spec\'s AT-22.1: 1000 in, 200 out at 1/4 $/Mtok')
  assert.is(costOf(counted(0, 0, 1_000_000, 1_000_000), { ...PRICE, cacheRead: 0.1 }), 1.1, 'a cache price defaults to the input\'s')
  const one = addRequest(undefined, counted(1000, 200), PRICE)
  assert.equal([one.requests, one.input, one.output, one.cost, one.gaps, one.unpriced], [1, 1000, 200, 0.0018, 0, 0])
  const two = addRequest(one, undefined, PRICE)
  assert.equal([two.requests, two.gaps, two.input], [2, 1, 1000], 'no usage: a gap, never a guess')
  const tokensOnly = addRequest(undefined, counted(10, 5), undefined)
  assert.equal([tokensOnly.cost, tokensOnly.unpriced], [0, 1])
  assert.equal(totalOf({ a: one, b: tokensOnly }).requests, 2)
  const s = (aliases: SessionUsage['aliases']): SessionUsage => ({ at: 1, transcript: '/t', aliases })
  assert.equal(sumAliases([s({ a: one }), s({ a: one, b: tokensOnly })]).a?.input, 2000)
})

test('the lines: an alias each, ≥ where a gap leaves a total short, tokens only where unpriced; the status line\'s spend', () => {
  const gap = addRequest(addRequest(undefined, counted(1000, 200), PRICE), undefined, PRICE)
  assert.equal(usageLines({ ds: gap }), ['  ds: 2 requests (1 with no usage from the provider), in ≥1.0k, out ≥200, cache read/write ≥0/0, ≥$0.0018'])
  assert.equal(usageLines({ q: addRequest(undefined, counted(1_500_000, 20, 0, 0, 12), undefined) }), ['  q: 1 request, in 1.5m, out 20, cache read/write 0/0 (reasoning 12 of the out), no price set (an alias\'s "pricing" in routing.json)'])
  assert.equal(usageLines({}), ['  nothing routed'])
  assert.is(spentText(gap), '≥$0.0018')
  assert.is(spentText(addRequest(undefined, counted(2000, 500), undefined)), '2.5k tokens')
  assert.is(spentText(totalOf({})), '')
})

test('the folder keeps sessions whose transcript is there, the newest 200; a damaged file reads as none', () => {
  const usage = (at: number): SessionUsage => ({ at, transcript: `/t/${at}.jsonl`, aliases: {} })
  assert.equal(parseSessionUsage(JSON.stringify(usage(5))), usage(5))
  for (const bad of [undefined, '', '{', '[]', '{"at":"x","transcript":"/t","aliases":{}}']) assert.is(parseSessionUsage(bad), undefined, String(bad))
  const sessions = [
    { name: 'a.json', usage: usage(3), alive: true },
    { name: 'gone.json', usage: usage(9), alive: false },
    { name: 'bad.json', usage: undefined, alive: false },
    { name: 'b.json', usage: usage(7), alive: true },
    { name: 'c.json', usage: usage(1), alive: true },
  ]
  const { kept, dropped } = retained(sessions, 2)
  assert.equal(kept.map((u) => u.at), [7, 3])
  assert.equal(dropped.sort(), ['bad.json', 'c.json', 'gone.json'])
})

test('a routed step is counted into the session\'s file under keel\'s home; /<pkg> route usage shows it; the status line shows the spend', async () => {
  const priced = { ...CONFIG, models: { ...CONFIG.models, 'gpt-5': { ...CONFIG.models['gpt-5'], pricing: { input: 1, output: 4, cacheRead: 0.1 } } } }
  const r = routingWorld({ files: new Map([[CONFIG_PATH, JSON.stringify(priced)]]) })
  r.w.main = 'gpt-5'
  await start(r)
  await approve(r.w, 'example')
  r.w.children.push(fakeChild().out(SSE_HEAD, fixture('openai-text.txt')).exit(0))
  await stepHook(r, stepEvent(), capturing(r).beneath)
  await settle()
  const file = [...r.w.disk.files.entries()].find(([path]) => path.endsWith('/keel/usage/session-1.json'))
  assert.ok(file, `the session's file: ${[...r.w.disk.files.keys()].join(', ')} ${r.lines.join(' / ')}`)
  const stored = parseSessionUsage(file![1])!
  assert.equal([stored.aliases['gpt-5']?.requests, stored.aliases['gpt-5']?.input, stored.aliases['gpt-5']?.cacheRead, stored.aliases['gpt-5']?.output], [1, 234, 2000, 56])
  const view = String(await r.feature.verbs!.route!.run(r.port, 'usage', r.ctx)).split('\n')
  assert.equal(view[0], 'this session, by alias:')
  assert.match(view[1]!, /^  gpt-5: 1 request, in 234, out 56, cache read\/write 2\.0k\/0, \$0\.0007$/)
  assert.ok(r.w.statuses.some((s) => s === 'klyth → GPT-5 · example · $0.0007'), r.w.statuses.join(' | '))
  assert.ok(r.w.events.includes('pane open false routing-usage: What routing cost'), 'headless: the pane was asked for, not placed, and the text is the answer')

  // In the terminal UI: a pane drawn as the text view's own lines, a Text each; the setup pane's request still draws beneath.
  type Drawn = { type: string; props: { flexDirection?: string; children?: Drawn[] | string } }
  const draw = (requestId: string) => r.hooks['ui.render']!(r.port, { component: 'Pane', requestId, props: {} }, async () => 'beneath' as never, r.ctx) as unknown as Drawn
  r.w.paneOpens = true
  assert.is(await r.feature.verbs!.route!.run(r.port, 'usage', r.ctx), 'the usage pane is open: Esc closes it')
  const tree = await draw('routing-usage')
  assert.equal([tree.type, tree.props.flexDirection], ['Box', 'column'])
  const lines = (tree.props.children as Drawn[]).map((el) => `${el.type} ${el.props.children}`)
  assert.equal(lines, view.map((line) => `Text ${line}`), 'the text view\'s own lines')
  assert.ok(lines.length >= 4)
  assert.is(await draw('routing-setup'), 'beneath' as never, 'the setup pane was never opened')
})

test.run()
