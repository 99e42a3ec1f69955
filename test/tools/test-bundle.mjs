// A test bundle: the shipped hooks module with test-only features added (test/fixtures/<set>/),
// laid out as a plugin folder under .build/test-packages/, never into packages/. Used by the e2e
// tests that need a feature no package ships (the stream chain's rewrite and failure cases).
//   node test/tools/test-bundle.mjs stream-features   → prints the plugin folder
import { join } from 'node:path'
import { readFileSync, rmSync } from 'node:fs'
import { bundleText, manifestFor, write } from '../../build.mjs'

const root = join(import.meta.dirname, '../..')

/** The test features, each off by default, in a package of their own named `keeltest`. */
const SETS = {
  'stream-features': ['streamUpper', 'streamBreak', 'streamAnswer', 'streamBad', 'guardThrow', 'spawnModel'],
}

export async function testPackage(set) {
  const names = SETS[set]
  if (!names) throw new Error(`unknown test feature set ${set}`)
  const base = JSON.parse(readFileSync(join(root, 'plugin.json'), 'utf8'))
  const from = {
    ...base,
    packages: { keeltest: { displayName: 'keel test', description: `keel with the test-only ${set}`, features: Object.fromEntries(names.map((n) => [n, false])) } },
    features: { ...base.features, ...Object.fromEntries(names.map((n) => [n, { title: n, description: `test-only: ${n}`, sessionActing: false }])) },
  }
  const fixtures = join(root, 'test/fixtures', set)
  const text = await bundleText({ from, redirects: { './features/index.ts': join(fixtures, 'index.ts'), './features/bind.ts': join(fixtures, 'bind.ts') } })
  const dir = join(root, '.build/test-packages', set, 'keeltest')
  rmSync(dir, { recursive: true, force: true })
  write(join(dir, '.claude-plugin/plugin.json'), JSON.stringify(manifestFor('keeltest', from), null, 2) + '\n')
  write(join(dir, 'hooks/hooks.json'), JSON.stringify({ modules: ['./hooks.js'] }) + '\n')
  write(join(dir, 'hooks/hooks.js'), text)
  return dir
}

if (process.argv[1] === import.meta.filename) console.log(await testPackage(process.argv[2] ?? 'stream-features'))
