// Plugin variants for the experiments (experiments.ts): copies of packages/<pkg> in temp folders whose
// hooks/hooks.js is a modified copy of dist/hooks.js, or another module under the same manifest.
// Nothing under src/ or packages/ changes.
import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { transformSync } from 'esbuild'
import { repoRoot, tmpDir } from '../e2e/engine.ts'

export const bundle = () => readFileSync(join(repoRoot(), 'dist/hooks.js'), 'utf8')

/** packages/<pkg> copied away, with `hooksJs` as its module. */
export function packageWith(label: string, hooksJs: string, pkg = 'keel'): string {
  const dir = join(tmpDir(`var-${label}`), pkg)
  cpSync(join(repoRoot(), 'packages', pkg), dir, { recursive: true })
  writeFileSync(join(dir, 'hooks/hooks.js'), hooksJs)
  return dir
}

function replaceOnce(src: string, from: string | RegExp, to: string): string {
  const hit = typeof from === 'string' ? src.includes(from) : from.test(src)
  if (!hit) throw new Error(`variant: ${String(from)} not found in the bundle`)
  return src.replace(from, to)
}

const REGISTER = 'export function register(on, options) {\n'
const START_HOOK = 'on("session.start", dispatch);'

/** A module that registers nothing. */
export const EMPTY = 'export function register(on, options) {\n}\n'

/** The bundle, whose `register` returns before anything: module evaluation alone. */
export const inert = (src: string) => replaceOnce(src, /export function register\(on, ?options\) ?\{\n?/, 'export function register(on, options) {\n  if (options) return;\n')

/** esbuild's whitespace and syntax minification (names kept: the loader reads `$`, `on` and literals). */
export function minified(src: string): string {
  const out = transformSync(src, { format: 'esm', minifyWhitespace: true, minifySyntax: true, target: 'es2022', legalComments: 'none' }).code
  // esbuild ends it with `export{register};`: spell it `export function register` again (build.mjs does the same).
  if (!/export\{register\};\s*$/.test(out) || !/(^|[;}])function register\(/.test(out)) throw new Error('minified bundle: no register to re-export')
  return out.replace(/export\{register\};\s*$/, '\n').replace(/(^|[;}])function register\(/, '$1export function register(')
}

/** `bytes` of comment lines after a module: its size without its code. */
export const padded = (src: string, bytes: number) => src + Array.from({ length: Math.ceil(bytes / 80) }, () => '// ' + 'x'.repeat(76)).join('\n') + '\n'

/** Routing's usage ledger off: a routed request is counted nowhere (no session file read, written or pruned). */
export const withoutLedger = (src: string) => replaceOnce(src, 'async function count(port, ctx, route, counted) {\n', 'async function count(port, ctx, route, counted) {\n    return;\n')

/** Drops one event's `on(...)` line from register (the event is then not hooked at all). */
export function withoutEvent(src: string, event: string): string {
  const lines = src.split('\n')
  const i = lines.findIndex((l) => l.includes(`on("${event}"`) && /\b(dispatch|stream)\)/.test(l))
  if (i < 0) throw new Error(`variant: no on("${event}") line`)
  lines.splice(i, 1)
  return lines.join('\n')
}

/**
 * The bundle with time stamps (performance.now() ms; the top also as Date.now()) logged to the debug log at
 * session.start: module evaluation (top of the file to the end of it), register (entry to return),
 * the start hook's entry, the moment the innermost feature calls next, next's settling, the return;
 * and every port edge a feature awaits during the start (name, start, duration).
 */
export function stamped(src: string): string {
  // performance.timeOrigin is absent in the hooks environment: performance.now() for spans, Date.now() to place the top.
  const head = `var __stamp = () => performance.now();\nvar __t = { top: __stamp(), epochTop: Date.now() };\nvar __calls = [];\n`
  let out = head + src
  out = replaceOnce(out, REGISTER, `${REGISTER}  __t.registerIn = __stamp();\n`)
  // register's last statement is the agent.spawn line; stamp its return after it.
  out = replaceOnce(out, /(  if \(hooks\("agent\.spawn"\)\)[^\n]*\n)\}/, `$1  __t.registerOut = __stamp();\n}`)
  out = replaceOnce(out, START_HOOK, `on("session.start", async ($, e, next) => {
    __t.hookIn = __stamp();
    const timedNext = async (x) => { __t.nextIn = __stamp(); const r = await next(x); __t.nextOut = __stamp(); return r; };
    timedNext.signal = next.signal;
    timedNext.budget = next.budget;
    timedNext.event = next.event;
    __calls.length = 0;
    const r = await dispatch($, e, timedNext);
    __t.hookOut = __stamp();
    $.ui.log("stamps " + JSON.stringify({ t: __t, calls: __calls }), { to: "debug" });
    return r;
  });`)
  // Every port edge, timed while it is awaited.
  out = replaceOnce(out, /^function bindRuntime\(\$\) \{/m, `function bindRuntime($) {
  const edges = bindRuntime0($);
  for (const [k, f] of Object.entries(edges)) {
    if (typeof f !== "function") continue;
    edges[k] = (...a) => { const t0 = __stamp(); const r = f(...a); if (r && typeof r.then === "function") r.then(() => __calls.push([k, t0, __stamp() - t0]), () => __calls.push([k + " (rejected)", t0, __stamp() - t0])); else __calls.push([k, t0, 0]); return r; };
  }
  return edges;
}
function bindRuntime0($) {`)
  // The module's last statement: its evaluation ends here, before the engine calls register.
  out += `\n__t.evalEnd = __stamp();\n`
  return out
}

/**
 * The start's work taken off its path: session.start calls next at once and runs keel's own start
 * (the claims, the command, every feature's start) from the engine's clock once it settled,
 * handing the features a next that answers what the engine already answered.
 */
export function deferredStart(src: string): string {
  return replaceOnce(src, START_HOOK, `on("session.start", async ($, e, next) => {
    const r = await next(e);
    $.clock.after(0, () => { void dispatch($, e, Object.assign(async () => r, { event: "session.start" })); });
    return r;
  });`)
}

/**
 * An inert module of about `bytes` of plain code: top-level functions with a few locals, a loop and
 * a closure each, no `$`. Against the bundle of the same size it tells the loader's cost per byte of
 * ordinary code from a cost of something particular to keel's code.
 */
export function syntheticCode(bytes: number, withDollar = false): string {
  const fns: string[] = []
  for (let i = 0, size = 0; size < bytes; i++) {
    const f = withDollar
      ? `async function f${i}($, e, items) {\n  const seen = new Map();\n  for (const item of items) {\n    if (!seen.has(item.key)) seen.set(item.key, item.value + ${i});\n  }\n  const text = [...seen.values()].map((v) => String(v)).join(", ");\n  await $.ui.log("f${i}: " + text, { to: "debug" });\n  return { ...e, text, count: seen.size };\n}\n`
      : `function f${i}(e, items) {\n  const seen = new Map();\n  for (const item of items) {\n    if (!seen.has(item.key)) seen.set(item.key, item.value + ${i});\n  }\n  const text = [...seen.values()].map((v) => String(v)).join(", ");\n  const tag = (s) => "f${i}: " + s;\n  return { ...e, text: tag(text), count: seen.size };\n}\n`
    fns.push(f)
    size += f.length
  }
  return `${fns.join('')}export function register(on, options) {\n  if (options) return;\n  on("session.start", ($, e, next) => next(e));\n}\n`
}

/** The bundle's code moved to an imported file (`./impl.js`); hooks.js only re-enters it. */
export function splitFiles(src: string): { hooksJs: string; implJs: string } {
  const implJs = replaceOnce(src, /export function register\(on, ?options\) ?\{/, 'export function registerImpl(on, options) {')
  return { hooksJs: `import { registerImpl } from "./impl.js";\nexport function register(on, options) {\n  registerImpl(on, options);\n}\n`, implJs }
}

export function packageWithFiles(label: string, files: Record<string, string>, pkg = 'keel'): string {
  const dir = join(tmpDir(`var-${label}`), pkg)
  cpSync(join(repoRoot(), 'packages', pkg), dir, { recursive: true })
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, 'hooks', name), text)
  return dir
}

/**
 * The bundle built from src/ the way build.mjs builds it, with only `features` in FEATURES (the
 * others' code is not imported, so it is not in the bundle). The template is the full plugin.json.
 */
export async function subsetBundle(features: string[]): Promise<string> {
  const { build } = await import('esbuild')
  const root = repoRoot()
  const names: Record<string, [string, string]> = {
    captions: ['captionsFeature', './captions/index.ts'], checkpoint: ['checkpoint', './checkpoint/index.ts'],
    window: ['window', './window/index.ts'], timing: ['timingFeature', './timing/index.ts'], reconnect: ['reconnectFeature', './reconnect/index.ts'],
  }
  const order = ['captions', 'checkpoint', 'window', 'timing', 'reconnect'].filter((f) => features.includes(f))
  const index = `${order.map((f) => `import { ${names[f]![0]} } from '${names[f]![1]}'`).join('\n')}\nexport const FEATURES = [${order.map((f) => names[f]![0]).join(', ')}]\n`
  const r = await build({
    entryPoints: [join(root, 'src/main.ts')], bundle: true, format: 'esm', platform: 'neutral', target: 'es2022',
    external: ['claude-code'], jsxFactory: 'h', jsxFragment: 'Fragment', treeShaking: true, minify: false, legalComments: 'none', write: false, logLevel: 'warning',
    outfile: join(root, 'dist/subset.js'),
    plugins: [{ name: 'subset', setup(b) { b.onLoad({ filter: /src[\\/]features[\\/]index\.ts$/ }, () => ({ contents: index, loader: 'ts', resolveDir: join(root, 'src/features') })) } }],
  })
  const text = r.outputFiles[0]!.text
  return text.replace(/\nexport \{\n  register\n\};\n$/, '\n').replace(/^function register\(/m, 'export function register(')
}

/** reconnect's start without its usage read (the session's MCP servers, for `*`): turn starts still read them. */
export const noStartUsageRead = (src: string) => replaceOnce(src, 'rule.any ? sessionServers(port2).catch(', 'false ? sessionServers(port2).catch(')

/** tool.describe hooked with a matcher the engine tests itself (a RegExp one hops to the worker for every tool). */
export const describeMatcher = (src: string, matcher = '{ mcpServer: {} }') => replaceOnce(src, 'on("tool.describe", { tool: /^mcp__/ },', `on("tool.describe", ${matcher},`)

/** An inert module whose `bytes` are string constants (a few long literals): text, not code. */
export function stringConstants(bytes: number): string {
  const n = Math.ceil(bytes / 1000)
  const lines = Array.from({ length: n }, (_, i) => `var s${i} = ${JSON.stringify(`${i} `.padEnd(990, 'lorem ipsum dolor sit amet '))};`)
  return `${lines.join('\n')}\nexport function register(on, options) {\n  if (options) return;\n  on("session.start", ($, e, next) => next(e));\n}\n`
}
