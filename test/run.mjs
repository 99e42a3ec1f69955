// `npm test`: every layer, one command. `node test/run.mjs [layer...] [--filter text]`
//   build   node build.mjs (under CI, also fails when the build changed a committed file)
//   types   the engine's declarations laid, then tsc on src/ and test/
//   unit    uvu on Node under c8 (coverage of src/ into coverage/)
//   engine  `claude plugin test` on each built package, test/engine/*.test.ts staged into it
//   e2e     the pinned engine headless against the mock model (test/e2e/*.test.ts)
// It ends with one line, `N passed, N failed`, counting every test of every layer run.
import { build } from 'esbuild'
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = dirname(dirname(fileURLToPath(import.meta.url)))
const args = process.argv.slice(2)
const filterAt = args.indexOf('--filter')
const filter = filterAt >= 0 ? args.splice(filterAt, 2)[1] : undefined
const LAYERS = ['build', 'types', 'unit', 'engine', 'e2e']
const layers = args.length ? args : LAYERS
for (const layer of layers) if (!LAYERS.includes(layer)) fail(`unknown layer "${layer}"; layers: ${LAYERS.join(', ')}`)

const totals = { passed: 0, failed: 0 }
const claude = join(root, 'node_modules/.bin/claude')

function fail(message) {
  console.error(`test/run.mjs: ${message}`)
  process.exit(2)
}

function run(cmd, cmdArgs, options = {}) {
  const started = Date.now()
  const result = spawnSync(cmd, cmdArgs, { cwd: root, encoding: 'utf8', maxBuffer: 64 << 20, ...options })
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`
  return { code: result.status ?? 1, output, ms: Date.now() - started }
}

function section(title) {
  console.log(`\n== ${title}`)
}

/** Files under `dir` ending in `suffix`; `--filter` narrows test files only (helpers are always there). */
function filesUnder(dir, suffix, filtered = true) {
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => f.endsWith(suffix) && (!filter || !filtered || f.includes(filter)))
    .sort()
    .map((f) => join(dir, f))
}

/** uvu prints `Total: N / Passed: N / Skipped: N` per process; a crash before that counts as one failure. */
function countUvu(output, code) {
  const total = [...output.matchAll(/Total:\s+(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0)
  const passed = [...output.matchAll(/Passed:\s+(\d+)/g)].reduce((n, m) => n + Number(m[1]), 0)
  const failed = total - passed
  return { passed, failed: failed === 0 && code !== 0 ? 1 : failed }
}

/** Compiles TypeScript test files (and what they import) for Node, with source maps for c8. */
async function compile(files, outdir) {
  rmSync(outdir, { recursive: true, force: true })
  await build({
    entryPoints: files,
    outdir,
    outbase: join(root, 'test'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    sourcemap: 'inline',
    sourcesContent: true,
    outExtension: { '.js': '.mjs' },
    jsxFactory: 'h',
    jsxFragment: 'Fragment',
    logLevel: 'warning',
  })
  return files.map((f) => join(outdir, relative(join(root, 'test'), f)).replace(/\.tsx?$/, '.mjs'))
}

const layerRunners = {
  build() {
    const r = run('node', ['build.mjs', ...(process.env.CI ? ['--check'] : [])])
    process.stdout.write(r.output)
    if (r.code !== 0) totals.failed++
    else totals.passed++
  },

  types() {
    // test/tools/types.mjs writes this stamp only after the engine said it laid every declaration.
    const laid = join(root, '.build/engine-types/laid.txt')
    if (!existsSync(laid)) {
      const r = run('node', ['test/tools/types.mjs'])
      process.stdout.write(r.output)
      if (r.code !== 0) totals.failed++
    }
    for (const project of ['tsconfig.json', 'test/e2e/tsconfig.json']) {
      const r = run(join(root, 'node_modules/.bin/tsc'), ['-p', project])
      process.stdout.write(r.output || `tsc -p ${project}: no errors\n`)
      if (r.code !== 0) totals.failed++
      else totals.passed++
    }
  },

  unit() {
    const files = filesUnder(join(root, 'test/unit'), '.test.ts')
    const entry = join(root, '.build/unit/all.ts')
    mkdirSync(dirname(entry), { recursive: true })
    writeFileSync(entry, files.map((f) => `import ${JSON.stringify(relative(dirname(entry), f))}`).join('\n') + '\n')
    const r = run(join(root, 'node_modules/.bin/c8'), [
      '--reporter=text', '--reporter=json-summary', '--reports-dir=coverage', '--all', '--include=src/**', '--exclude=**/*.d.ts',
      'node', '--enable-source-maps', '--import', './test/tools/ts-loader.mjs', entry,
    ])
    process.stdout.write(r.output)
    const counted = countUvu(r.output, r.code)
    totals.passed += counted.passed
    totals.failed += counted.failed
  },

  engine() {
    const tests = filesUnder(join(root, 'test/engine'), '.test.ts')
    const helpers = filesUnder(join(root, 'test/engine'), '.ts', false).filter((f) => !f.endsWith('.test.ts'))
    // The shipped packages, and the test bundles (test/tools/test-bundle.mjs) that add test-only features.
    const built = run('node', ['test/tools/test-bundle.mjs', 'stream-features'])
    if (built.code !== 0) fail(`the test bundle was not built: ${built.output}`)
    const folders = { ...Object.fromEntries(readdirSync(join(root, 'packages')).map((p) => [p, join(root, 'packages', p)])), keeltest: built.output.trim() }
    for (const [pkg, folder] of Object.entries(folders)) {
      const stage = join(root, '.build/engine', pkg)
      rmSync(stage, { recursive: true, force: true })
      cpSync(folder, stage, { recursive: true })
      mkdirSync(join(stage, 'test'), { recursive: true })
      for (const helper of helpers) cpSync(helper, join(stage, 'test', relative(join(root, 'test/engine'), helper)))
      writeFileSync(join(stage, 'test/package.ts'), `// Written by test/run.mjs: the package these tests run against.\nexport const PKG: string = ${JSON.stringify(pkg)}\n`)
      let staged = 0
      for (const file of tests) {
        // A first line `// packages: a, b` limits a test file to those packages; a test bundle runs only the files that name it.
        const only = /^\/\/ packages: (.+)$/m.exec(readFileSync(file, 'utf8').split('\n')[0] ?? '')?.[1]?.split(/,\s*/)
        if (only ? !only.includes(pkg) : pkg === 'keeltest') continue
        // Its kit through test/engine/kit.ts: the kit's own 5 s per test fails slow tests on a shared machine.
        writeFileSync(join(stage, 'test', relative(join(root, 'test/engine'), file)), readFileSync(file, 'utf8').replace(/from 'claude-code\/testing'/g, "from './kit.ts'"))
        staged++
      }
      if (!staged) continue
      section(`engine kit: ${pkg} (${staged} files)`)
      const r = run(claude, ['plugin', 'test', stage])
      process.stdout.write(r.output)
      const passed = Number(/^\s*(\d+) pass$/m.exec(r.output)?.[1] ?? 0)
      const failed = Number(/^\s*(\d+) fail$/m.exec(r.output)?.[1] ?? 0)
      totals.passed += passed
      totals.failed += failed || (r.code !== 0 || passed === 0 ? 1 : 0)
    }
  },

  async e2e() {
    const files = filesUnder(join(root, 'test/e2e'), '.test.ts')
    const built = await compile(files, join(root, '.build/e2e'))
    for (const file of built) {
      section(`e2e: ${relative(root, file)}`)
      const r = run('node', [file], { timeout: 15 * 60_000 })
      process.stdout.write(r.output)
      const counted = countUvu(r.output, r.code)
      totals.passed += counted.passed
      totals.failed += counted.failed
    }
  },
}

for (const layer of layers) {
  section(layer)
  await layerRunners[layer]()
}
console.log(`\n${totals.passed} passed, ${totals.failed} failed`)
process.exit(totals.failed ? 1 : 0)
