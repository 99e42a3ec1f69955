// `npm run bench`: every bench, one after another in one run (ratios are within each bench's own
// alternating rounds, so a bench never compares against another's numbers).
//   node test/bench/run.mjs [name…]   (names: bench (with routing) whole manual mailbox recall; default all)
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'

const here = import.meta.dirname
const ALL = ['bench', 'whole', 'manual', 'mailbox', 'recall']
const names = process.argv.slice(2).length ? process.argv.slice(2) : ALL
let failed = 0
for (const name of names) {
  const file = join(here, `${name}.ts`)
  if (!existsSync(file)) continue
  console.log(`\n## ${name}.ts\n`)
  const r = spawnSync('node', ['--import', join(here, '../tools/ts-loader.mjs'), file], { stdio: 'inherit' })
  if (r.status !== 0) failed++
}
process.exit(failed ? 1 : 0)
