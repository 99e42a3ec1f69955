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

/** The bundle's syntax tree, and each top-level statement with the source file it came from (esbuild's markers). */
function parseBundle(code) {
  const markers = []
  const ast = parse(code, {
    ecmaVersion: 'latest',
    sourceType: 'module',
    onComment: (isBlock, text, start) => {
      if (!isBlock && /^ (src\/|node_modules\/|plugin\.json$)/.test(text)) markers.push([start, text.trim()])
    },
  })
  let at = 0
  let file = '(top)'
  const statements = ast.body.map((statement) => {
    while (at < markers.length && markers[at][0] < statement.start) file = markers[at++][1]
    return { statement, file }
  })
  return { ast, statements }
}

/** `{ total, byFile, byGroup }`: the whole module's count, and each top-level statement's nodes by the file it came from. */
export function nodeCounts(code) {
  const { ast, statements } = parseBundle(code)
  const byFile = {}
  for (const { statement, file } of statements) byFile[file] = (byFile[file] ?? 0) + count(statement)
  const byGroup = {}
  for (const [f, n] of Object.entries(byFile)) byGroup[groupOf(f)] = (byGroup[groupOf(f)] ?? 0) + n
  return { total: count(ast), byFile, byGroup }
}

/** The counts of the built bundle, dist/hooks.js. */
export const bundleNodeCounts = () => nodeCounts(readFileSync(join(import.meta.dirname, '../../dist/hooks.js'), 'utf8'))

/**
 * The files whose functions may receive `$` (issue 21, goal 2: the loader checks code in such a
 * function at up to 2.7x the cost of other code, so `$` stays in the binders): main.ts, the
 * runtime's binder, each feature's binder and the one that names them all, and lib's binder of the
 * edges several features share.
 */
export const DOLLAR_FILES = [/^src\/main\.ts$/, /^src\/runtime\/bind\.ts$/, /^src\/features\/([^/]+\/)?bind\.ts$/, /^src\/lib\/bind\.ts$/]

/** Every child node of `node`. */
function* childrenOf(node) {
  for (const key in node) {
    const value = node[key]
    for (const item of Array.isArray(value) ? value : [value]) if (item && typeof item.type === 'string' && key !== 'loc') yield item
  }
}

const isFunction = (node) => /^(FunctionDeclaration|FunctionExpression|ArrowFunctionExpression)$/.test(node?.type)

/**
 * The functions that receive `$`, followed as the loader follows it: each hook handed to `on()` (a
 * function literal or a top-level function's name, `.catch` handlers too) gets it as its first
 * parameter, and a top-level function gets it where a function that holds it passes it on
 * (`bindFiles($)`). `[{ name, file, nodes }]`, `nodes` counting the whole function.
 */
export function dollarFunctions(code) {
  const { statements } = parseBundle(code)
  /** Top-level functions by name (declarations, and `var f = (…) => …`), with their files. */
  const topLevel = new Map()
  for (const { statement, file } of statements) {
    const declaration = statement.type === 'ExportNamedDeclaration' ? statement.declaration : statement
    if (declaration?.type === 'FunctionDeclaration') topLevel.set(declaration.id.name, { fn: declaration, file })
    if (declaration?.type === 'VariableDeclaration') for (const d of declaration.declarations) if (isFunction(d.init)) topLevel.set(d.id.name, { fn: d.init, file })
  }
  const register = topLevel.get('register')
  if (!register) throw new Error('the bundle has no register')
  const onName = register.fn.params[0]?.name
  const found = new Map()
  const receives = (fn, index, file, name) => {
    const param = fn.params[index]
    if (param?.type !== 'Identifier' || found.has(fn)) return
    found.set(fn, { name, file, nodes: count(fn) })
    walk(fn.body, param.name, file)
  }
  const hookOf = (arg, file) => {
    if (isFunction(arg)) receives(arg, 0, file, `a hook literal`)
    else if (arg?.type === 'Identifier' && topLevel.has(arg.name)) receives(topLevel.get(arg.name).fn, 0, topLevel.get(arg.name).file, arg.name)
  }
  /** In code that holds `$` as `dollar`: each top-level function it is handed to receives it. */
  function walk(node, dollar, file) {
    if (node.type === 'CallExpression' && node.callee.type === 'Identifier' && topLevel.has(node.callee.name)) {
      const callee = topLevel.get(node.callee.name)
      node.arguments.forEach((arg, i) => arg.type === 'Identifier' && arg.name === dollar && receives(callee.fn, i, callee.file, node.callee.name))
    }
    for (const child of childrenOf(node)) walk(child, dollar, file)
  }
  /** The hooks `register` hands to `on(…)` and to its `.catch(…)`. */
  function hooks(node) {
    if (node.type === 'CallExpression') {
      const callee = node.callee
      if (callee.type === 'Identifier' && callee.name === onName) hookOf(node.arguments.at(-1), register.file)
      if (callee.type === 'MemberExpression' && callee.property.name === 'catch' && callee.object.type === 'CallExpression' && callee.object.callee.name === onName) hookOf(node.arguments[0], register.file)
    }
    for (const child of childrenOf(node)) hooks(child)
  }
  hooks(register.fn.body)
  return [...found.values()]
}

/** The functions of the built bundle that receive `$`. */
export const bundleDollarFunctions = () => dollarFunctions(readFileSync(join(import.meta.dirname, '../../dist/hooks.js'), 'utf8'))
