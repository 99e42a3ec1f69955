// Runs TypeScript test and source files on Node 20 as they are, one module per file, so c8 measures
// coverage per source file (a bundle would blur it). esbuild transpiles each .ts/.tsx on load, with
// an inline source map; a .json import loads as its default export.
//   node --import ./test/tools/ts-loader.mjs <file.ts>
import { register } from 'node:module'

register(new URL('./ts-loader-hooks.mjs', import.meta.url))
