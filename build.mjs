// Builds the one bundle and lays it, byte for byte, into every package.
//   node build.mjs           build dist/hooks.js, write every package, verify the copies
//   node build.mjs --check   the same, then fail if the build changed a committed file
import { parse } from 'acorn'
import { build, transform } from 'esbuild'
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = dirname(fileURLToPath(import.meta.url))
const template = JSON.parse(readFileSync(join(root, 'plugin.json'), 'utf8'))
const bundlePath = join(root, 'dist/hooks.js')

/**
 * The bundle reads plugin.json for the profiles and the option fields' types and bounds; the texts
 * (titles, descriptions, keywords) are for the manifests and READMEs only, and a package's defaults
 * and a feature's `sessionActing` are read from the manifest and the feature itself (the runtime
 * reads neither off the template), so the bundle gets the template without them: every node of it
 * is checked at every start.
 */
function runtimeTemplate(from) {
  const fieldOf = ({ title, description, ...rule }) => rule
  return {
    version: from.version,
    packages: Object.fromEntries(Object.entries(from.packages).map(([name, p]) => [name, { features: p.features }])),
    features: Object.fromEntries(Object.entries(from.features).map(([name, f]) => [name, {
      userConfig: Object.fromEntries(Object.entries(f.userConfig ?? {}).map(([key, field]) => [key, fieldOf(field)])),
    }])),
  }
}

/**
 * The source's comments, which esbuild keeps in class bodies and object literals, are the
 * largest thing in the bundle that is not code: whole comment lines are dropped (esbuild's
 * `// src/…` module markers stay, to find one's way). The bundle stays unminified: names,
 * layout and line structure are the source's.
 */
function withoutCommentLines(code) {
  const kept = []
  let inBlock = false
  for (const line of code.split('\n')) {
    const text = line.trim()
    if (inBlock) {
      inBlock = !text.endsWith('*/')
      continue
    }
    if (text.startsWith('//') && !/^\/\/ (src|node_modules|plugin\.json|test)/.test(text)) continue
    if (text.startsWith('/*') && !text.startsWith('/* @__')) {
      inBlock = !text.endsWith('*/')
      continue
    }
    kept.push(line)
  }
  return kept.join('\n')
}

/**
 * esbuild prints every `undefined` of the source as `void 0`: two syntax-tree nodes where the source
 * wrote one, and the loader checks every node at every start. The bundle gets the source's spelling
 * back (no module binds the name `undefined`; the proof below would fail if one did).
 */
function withUndefinedSpelled(code) {
  const at = []
  const visit = (node) => {
    if (node.type === 'UnaryExpression' && node.operator === 'void' && node.argument.type === 'Literal' && node.argument.value === 0) at.push(node)
    for (const value of Object.values(node)) for (const child of [value].flat()) if (child && typeof child.type === 'string') visit(child)
  }
  visit(parse(code, { ecmaVersion: 'latest', sourceType: 'module' }))
  return at.sort((a, b) => b.start - a.start).reduce((text, node) => text.slice(0, node.start) + 'undefined' + text.slice(node.end), code)
}

/**
 * Builds the hooks module from `src/main.ts`. `redirects` swap a module main.ts imports for
 * another (a test bundle's feature list: test/tools/test-bundle.mjs); `from` is the template.
 */
export async function bundleText({ from = template, redirects = {} } = {}) {
  const templateForBundle = {
    name: 'template-for-bundle',
    setup(b) {
      b.onLoad({ filter: /[\\/]plugin\.json$/ }, () => ({ contents: JSON.stringify(runtimeTemplate(from)), loader: 'json' }))
      b.onResolve({ filter: /^\.\/features\/(index|bind)\.ts$/ }, (args) => {
        const to = redirects[args.path]
        return to && args.importer === join(root, 'src/main.ts') ? { path: to } : undefined
      })
    },
  }
  const result = await build({
    entryPoints: [join(root, 'src/main.ts')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    external: ['claude-code'],
    jsxFactory: 'h',
    jsxFragment: 'Fragment',
    treeShaking: true,
    minify: false,
    legalComments: 'none',
    outfile: bundlePath,
    plugins: [templateForBundle],
    write: false,
    logLevel: 'warning',
  })
  // esbuild ends an ESM bundle with `export { register }`. Spell it `export function register`, the
  // form the engine's loader documents and the before-stop check looks for.
  const emitted = result.outputFiles[0].text
  const tail = /\nexport \{\n  register\n\};\n$/
  if (!tail.test(emitted) || !/^function register\(/m.test(emitted)) throw new Error('the bundle does not end with the export of register that build.mjs rewrites')
  const spelled = emitted.replace(tail, '\n').replace(/^function register\(/m, 'export function register(')
  const stripped = withUndefinedSpelled(withoutCommentLines(spelled))
  // Proof that only comments went and `undefined` is the same value: both minify (which drops every
  // comment and prints an unbound `undefined` as `void 0`) to the same program.
  const asMinified = async (code) => (await transform(code, { minifyWhitespace: true, minifySyntax: true, format: 'esm', legalComments: 'none' })).code
  if ((await asMinified(spelled)) !== (await asMinified(stripped))) throw new Error('dropping comment lines or spelling `void 0` as `undefined` changed the program; see build.mjs')
  return stripped
}

const sha = (bytes) => createHash('sha256').update(bytes).digest('hex')

/**
 * Measured on 2.1.328 (test/e2e/options.test.ts): the engine refuses the whole module when a
 * stored option does not fit its declaration: a value of another JSON type, or a number outside
 * `min`/`max`. A picker (`options`) takes every stored value, reading one outside its list as the
 * default and saying so in the transcript. So a feature switch is an `on`/`off` picker (`"true"`,
 * `true`, `""` or a typo leave one feature at its default, not the package unloaded), and a number
 * is declared without its bounds, which the bundle checks itself (the bounds stay in plugin.json,
 * their one home, and reach the bundle's template).
 */
export const SWITCH_CHOICES = ['on', 'off']

function switchField(def, isOnByDefault) {
  return { type: 'string', title: def.title, description: def.description, default: isOnByDefault ? 'on' : 'off', options: SWITCH_CHOICES }
}

function declaredField({ min, max, ...field }) {
  return field
}

/** The manifest of one package: the template's shared fields and the userConfig of the features it carries. */
export function manifestFor(name, from = template) {
  const profile = from.packages[name]
  const userConfig = {}
  for (const [feature, isOnByDefault] of Object.entries(profile.features)) {
    const def = from.features[feature]
    if (!def) throw new Error(`package ${name} names an unknown feature: ${feature}`)
    userConfig[feature] = switchField(def, isOnByDefault)
    for (const [key, field] of Object.entries(def.userConfig ?? {})) {
      const override = profile.defaults?.[key]
      userConfig[key] = declaredField(override === undefined ? field : { ...field, default: override })
    }
  }
  return {
    name,
    displayName: profile.displayName,
    version: from.version,
    description: profile.description,
    author: from.author,
    license: from.license,
    keywords: from.keywords,
    engines: from.engines,
    ...(Object.keys(userConfig).length ? { userConfig } : {}),
  }
}

export function write(path, text) {
  mkdirSync(dirname(path), { recursive: true })
  writeFileSync(path, text)
}

/** The package's README, from the template: what it runs and every option, so it cannot drift. */
function readmeFor(name) {
  const profile = template.packages[name]
  const lines = [`# ${name}`, '', profile.description, '', `Part of keel: one hooks module shared byte for byte by several packages. Install with`, '', '```', `/plugin install ${name} --marketplace <owner>/<repo>`, '```', '', `Then \`/${name} status\` says which features run in the session and why.`, '']
  const carried = Object.entries(profile.features)
  if (carried.length === 0) lines.push('This package carries no features yet.', '')
  for (const [feature, isOnByDefault] of carried) {
    const def = template.features[feature]
    lines.push(`## ${def.title} (\`${feature}\`, ${isOnByDefault ? 'on' : 'off'} by default)`, '', def.description, '', `Switch: \`"${feature}": "on"\` or \`"off"\`.`, '')
    const fields = Object.entries(def.userConfig ?? {})
    if (fields.length) {
      lines.push('| option | meaning | default |', '| --- | --- | --- |')
      for (const [key, field] of fields) {
        const value = profile.defaults?.[key] ?? field.default
        const bounds = field.min !== undefined || field.max !== undefined ? ` (${field.min ?? '…'} to ${field.max ?? '…'}; a value outside is named in \`/${name} status\` and the default applies)` : ''
        lines.push(`| \`${key}\` | ${field.description}${bounds} | ${value === undefined ? '' : `\`${JSON.stringify(value)}\``} |`)
      }
      lines.push('')
    }
  }
  lines.push('Options are set in `/config` (rows `' + name + '.<option>`). License: MIT.', '')
  return lines.join('\n')
}


/** Files a feature ships inside every package that carries it (skills, commands): src/features/<f>/package/. */
function featureFiles(feature) {
  const dir = join(root, 'src/features', feature, 'package')
  if (!existsSync(dir)) return []
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath ?? entry.path, entry.name)))
    .map((path) => ({ path, bytes: readFileSync(join(dir, path)) }))
}

async function main() {
const bundle = Buffer.from(await bundleText())
write(bundlePath, bundle)
const license = readFileSync(join(root, 'LICENSE'))
for (const name of Object.keys(template.packages)) {
  const dir = join(root, 'packages', name)
  rmSync(dir, { recursive: true, force: true })
  write(join(dir, '.claude-plugin/plugin.json'), JSON.stringify(manifestFor(name), null, 2) + '\n')
  write(join(dir, 'README.md'), readmeFor(name))
  write(join(dir, 'LICENSE'), license)
  for (const feature of Object.keys(template.packages[name].features)) {
    for (const file of featureFiles(feature)) write(join(dir, file.path), file.bytes)
  }
  write(join(dir, 'hooks/hooks.json'), JSON.stringify({ modules: ['./hooks.js'] }, null, 2) + '\n')
  write(join(dir, 'hooks/hooks.js'), bundle)
}

const marketplace = {
  name: 'keel',
  description: 'keel: one mod, four packages, for Claude Code sessions that run all day.',
  owner: template.author,
  plugins: Object.entries(template.packages).map(([name, profile]) => ({
    name,
    source: `./packages/${name}`,
    description: profile.description,
  })),
}
write(join(root, '.claude-plugin/marketplace.json'), JSON.stringify(marketplace, null, 2) + '\n')

// Every copy must carry the same bytes as dist/hooks.js.
const want = sha(bundle)
for (const name of Object.keys(template.packages)) {
  const got = sha(readFileSync(join(root, 'packages', name, 'hooks/hooks.js')))
  if (got !== want) throw new Error(`packages/${name}/hooks/hooks.js differs from dist/hooks.js`)
}
console.log(`built dist/hooks.js (${bundle.length} bytes, sha256 ${want.slice(0, 12)}) into ${Object.keys(template.packages).join(', ')}`)

if (process.argv.includes('--check')) {
  // A fresh build must leave the committed outputs as they are.
  const changed = execFileSync('git', ['status', '--porcelain', '--', 'dist', 'packages', '.claude-plugin'], { cwd: root, encoding: 'utf8' })
  if (changed.trim()) {
    console.error(`a fresh build changed committed files (rebuild and commit them):\n${changed}`)
    process.exit(1)
  }
}
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) await main()
