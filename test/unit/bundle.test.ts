// The start every person pays: the engine's loader checks the whole bundle at each start of every
// package, linearly in its syntax-tree nodes. The count may not pass the limit (test/tools/nodes.mjs,
// its one home): growth is a decision, said in the README's Benchmarks, never a drift.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { bundleNodeCounts, NODE_LIMIT } from '../tools/nodes.mjs'

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

test.run()
