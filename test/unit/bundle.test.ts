// The start every person pays: the engine's loader checks the whole bundle at each start of every
// package, linearly in its syntax-tree nodes. The count may not pass the limit (test/tools/nodes.mjs,
// its one home): growth is a decision, said in the README's Benchmarks, never a drift.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { bundleDollarFunctions, bundleNodeCounts, DOLLAR_FILES, dollarFunctions, NODE_LIMIT } from '../tools/nodes.mjs'

const counts = bundleNodeCounts()

test(`the bundle's syntax-tree nodes stay at or under the limit`, () => {
  const { total, byGroup } = counts
  const shares = Object.entries(byGroup).sort((a, b) => b[1] - a[1]).map(([group, n]) => `${group} ${n}`).join(', ')
  assert.ok(total <= NODE_LIMIT, `dist/hooks.js has ${total} nodes, over the limit of ${NODE_LIMIT} (${shares})`)
})

test('the split by source file accounts for every statement of the bundle', () => {
  const { total, byFile } = counts
  // The Program node itself is the one node no statement holds.
  assert.is(Object.values(byFile).reduce((a, b) => a + b, 0), total - 1)
  assert.ok(Object.keys(byFile).some((f) => f.startsWith('src/features/routing/')), 'the features are told apart by their files')
})

test('`$` reaches only the binders: no function outside them receives it (issue 21, goal 2)', () => {
  const dollar = bundleDollarFunctions()
  assert.ok(dollar.some((f) => f.file === 'src/main.ts') && dollar.some((f) => f.file === 'src/runtime/bind.ts'), 'the hooks and the runtime binder are found')
  const outside = dollar.filter((f) => !DOLLAR_FILES.some((allowed) => allowed.test(f.file))).map((f) => `${f.name} (${f.file})`)
  assert.equal(outside, [], `functions outside the binders receive $: ${outside.join(', ')}`)
})

test('`$` is followed as the loader follows it: a hook, a top-level function it is handed to, under any name', () => {
  const names = (code: string) => dollarFunctions(code).map((f) => f.name).sort()
  const bundle = (body: string) => `// src/lib/x.ts\nfunction deep(api, n) { return api.ui.log(n) }\nfunction pure(n) { return n }\nfunction edge(api) { return deep(api, pure(1)) }\n// src/main.ts\nfunction hook(api, e, next) { return edge(api) }\nexport function register(when, options) {\n${body}\n}\n`
  assert.equal(names(bundle('when("session.start", hook)')), ['deep', 'edge', 'hook'])
  assert.equal(names(bundle('when("turn.start", (api, e, next) => next(e)).catch((a, e, next) => edge(a))')), ['a hook literal', 'a hook literal', 'deep', 'edge'])
  assert.equal(names(bundle('')), [])
})

test.run()
