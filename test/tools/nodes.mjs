// The bundle's syntax-tree node count: what the engine's loader scales with at every start of every
// package (~6.5 ms per 1,000 acorn ESTree nodes on 2 cores; bytes, comments and minifying do not
// matter: test/bench/FINDINGS.md). Counted as /work/shared/tools/count-nodes.mjs counts (every
// object with a string `type` reachable from the root), and split by source file along esbuild's
// `// src/...` module markers, which build.mjs keeps.
import { parse } from 'acorn'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * The most nodes the bundle may have: a unit test fails past it (test/unit/bundle.test.ts), so growth
 * is a decision, not a drift. Raising it is said, with its reason, in the README's Benchmarks.
 * 64,000 to start (issue 21); the wave's budget with every routing feature in is 62,000.
 */
export const NODE_LIMIT = 64_000
export const NODE_BUDGET = 62_000

function count(node) {
  let n = 1
  for (const key in node) {
    if (key === 'type' || key === 'start' || key === 'end' || key === 'loc') continue
    const value = node[key]
    if (Array.isArray(value)) for (const item of value) n += item && typeof item.type === 'string' ? count(item) : 0
    else if (value && typeof value.type === 'string') n += count(value)
  }
  return n
}

/** A source file's group: its feature (`src/features/<f>/`), `valibot`-like dependencies by package, or the shared parts. */
export function groupOf(file) {
  const feature = /^src\/features\/([^/]+)\//.exec(file)
  if (feature) return feature[1]
  const dependency = /node_modules\/([^/]+)\//.exec(file)
  if (dependency) return dependency[1]
  return /^src\/(runtime|lib)\//.test(file) ? `src/${file.split('/')[1]}` : file
}

/** `{ total, byFile, byGroup }`: the whole module's count, and each top-level statement's nodes by the file it came from. */
export function nodeCounts(code) {
  const markers = []
  const ast = parse(code, {
    ecmaVersion: 'latest',
    sourceType: 'module',
    onComment: (isBlock, text, start) => {
      if (!isBlock && /^ (src\/|node_modules\/|plugin\.json$)/.test(text)) markers.push([start, text.trim()])
    },
  })
  const byFile = {}
  let at = 0
  let file = '(top)'
  for (const statement of ast.body) {
    while (at < markers.length && markers[at][0] < statement.start) file = markers[at++][1]
    byFile[file] = (byFile[file] ?? 0) + count(statement)
  }
  const byGroup = {}
  for (const [f, n] of Object.entries(byFile)) byGroup[groupOf(f)] = (byGroup[groupOf(f)] ?? 0) + n
  return { total: count(ast), byFile, byGroup }
}

/** The counts of the built bundle, dist/hooks.js. */
export const bundleNodeCounts = () => nodeCounts(readFileSync(join(import.meta.dirname, '../../dist/hooks.js'), 'utf8'))
