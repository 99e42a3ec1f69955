// The loader hooks behind ts-loader.mjs (module.register runs them off the main thread).
import { transform } from 'esbuild'
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

export async function load(url, context, nextLoad) {
  if (/\.tsx?$/.test(url)) {
    const path = fileURLToPath(url)
    const { code } = await transform(await readFile(path, 'utf8'), {
      loader: url.endsWith('x') ? 'tsx' : 'ts',
      format: 'esm',
      target: 'node20',
      sourcemap: 'inline',
      sourcefile: path,
      jsxFactory: 'h',
      jsxFragment: 'Fragment',
    })
    return { format: 'module', source: code, shortCircuit: true }
  }
  if (url.endsWith('.json') && !context.importAttributes?.type) {
    return { format: 'module', source: `export default ${await readFile(fileURLToPath(url), 'utf8')}`, shortCircuit: true }
  }
  return nextLoad(url, context)
}
