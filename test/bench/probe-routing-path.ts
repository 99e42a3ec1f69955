// Where a routed step's time to first token goes (FINDINGS.md, routing): the request path of keel's routed
// step split by its debug log, against the engine going straight to the provider with klyth installed (the same
// hooks, the engine's own HTTP), and two variants of the bundle (variants.ts-style copies; src/ is untouched):
//   send-at-capture   curl starts as soon as the request is captured, while the engine's fake answer drains
//   curl-at-start     `curl --version` is asked at session.start, not at the first routed step
//   node --import ./test/tools/ts-loader.mjs test/bench/probe-routing-path.ts     PATH_ROUNDS=6  PATH_VARIANTS=all|none
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { cleanupTmp, packageCopy, tmpDir } from '../e2e/engine.ts'
import { startMockModel } from '../e2e/mock-model.ts'
import { startMockProvider } from '../e2e/mock-provider.ts'
import { fmt, stat, waitQuiet } from './measure.ts'
import { ALIAS, keelHome, mainRequestOf, PROMPT, REPLY, stdoutTimes, streamRun, writtenOf } from './routing.ts'
import { bundle, packageWith } from './variants.ts'

const ROUNDS = Number(process.env.PATH_ROUNDS ?? 6)

function replaceOnce(src: string, from: string, to: string): string {
  if (!src.includes(from)) throw new Error(`variant: ${from.slice(0, 60)} not found in the bundle`)
  return src.replace(from, to)
}

/** The routed step sends as soon as the capture lands; the engine's fake answer drains beside the request. */
const sendAtCapture = (src: string) => {
  let out = replaceOnce(src, '      await drained;\n    } catch (err) {\n      wait.cancel(err);', '    } catch (err) {\n      wait.cancel(err);')
  out = replaceOnce(out, '    const out = yield* send(port, ctx, next, route, ok, exchange);\n',
    '    const sending = send(port, ctx, next, route, ok, exchange);\n    const firstPull = sending.next();\n    await drained;\n    let pulled = await firstPull;\n    while (!pulled.done) { yield pulled.value; pulled = await sending.next(); }\n    const out = pulled.value;\n')
  return out
}

/** curl's version asked at session.start (as soon as the config names an alias), off the first step's path. */
const curlAtStart = (src: string) => replaceOnce(src, '        await load(port, ctx);\n        if (table.aliases().length) {', '        await load(port, ctx);\n        if (table.aliases().length) void curlOf(port);\n        if (table.aliases().length) {')

type Times = Record<string, number>
const stampOf = (line: string) => Date.parse(line.slice(0, 24))

/** The debug log's marks of one routed run, each as ms after stdout's `requesting`. */
function phases(log: string, requestingAt: number): Times {
  const lines = log.split('\n').filter((l) => /^\d{4}-\d\d-\d\dT/.test(l))
  const at = (re: RegExp) => { const l = lines.find((x) => re.test(x)); return l ? stampOf(l) - requestingAt : NaN }
  return {
    promptSubmit: at(/klyth@inline prompt\.submit settled/),
    curlVersion: at(/\$\.process\.run \(klyth\): \/usr\/bin\/curl exited/),
    apiRequest: at(/\[API REQUEST\] \/v1\/messages/),
    fetchSettled: at(/klyth@inline http\.fetch settled/),
    fakeFirstChunk: at(/Stream started - received first chunk/),
    curlSpawn: at(/\$\.process\.spawn \(klyth\): \/usr\/bin\/curl with/),
  }
}

const provider = await startMockProvider([], REPLY)
const mock = await startMockModel()
try {
  const asBuilt = packageCopy('klyth')
  const src = bundle()
  const variants: [string, string][] = [['keel as built', asBuilt]]
  if (process.env.PATH_VARIANTS !== 'none') {
    variants.push(['send-at-capture', packageWith('send-at-capture', sendAtCapture(src), 'klyth')])
    variants.push(['curl-at-start', packageWith('curl-at-start', curlAtStart(src), 'klyth')])
    variants.push(['both', packageWith('both', curlAtStart(sendAtCapture(src)), 'klyth')])
  }
  const homes = new Map<string, { home: string; cwd: string }>()
  for (const [label, dir] of variants) homes.set(label, await keelHome(provider, dir, mock))
  const arms = [...variants.map(([label]) => label), 'klyth, main native, engine straight to the provider']
  const samples = new Map<string, { requestPath: number; addedTtft: number; responsePath: number; phases?: Times }[]>(arms.map((a) => [a, []]))
  for (let round = -1; round < ROUNDS; round++) {
    for (let i = 0; i < arms.length; i++) {
      const arm = arms[(i + Math.max(0, round)) % arms.length]!
      await waitQuiet()
      const from = provider.requests.length
      const log = join(tmpDir('path-log'), 'debug.log')
      const variant = variants.find(([label]) => label === arm)
      const run = variant
        ? await streamRun({ prompt: PROMPT, ...homes.get(arm)!, baseUrl: mock.url, args: ['--plugin-dir', variant[1], '--model', ALIAS, '--debug-file', log] })
        : await streamRun({ prompt: PROMPT, ...homes.get('keel as built')!, baseUrl: provider.url, args: ['--plugin-dir', asBuilt, '--debug-file', log] })
      const req = mainRequestOf(provider, from)
      if (!req) throw new Error(`${arm}: no provider request: ${run.stderr.slice(-300)}`)
      const w = writtenOf(req)
      const out = stdoutTimes(run)
      if (round < 0) continue // a warm-up run of each arm
      samples.get(arm)!.push({
        requestPath: w.arrivedAt - out.requestingAt,
        addedTtft: out.firstTextAt - out.requestingAt - (w.firstTextAt - w.arrivedAt),
        responsePath: out.firstTextAt - w.firstTextAt,
        ...(variant ? { phases: { ...phases(readFileSync(log, 'utf8'), out.requestingAt), arrival: w.arrivedAt - out.requestingAt } } : {}),
      })
    }
  }
  console.log(`routing path probe (${ROUNDS} alternating rounds; medians [min..max], ms)`)
  console.log('| arm | request path (requesting -> provider) | response path | added TTFT |')
  console.log('| --- | --- | --- | --- |')
  const cell = (xs: number[]) => { const s = stat(xs); return `${fmt(s.median)} [${fmt(s.min)}..${fmt(s.max)}]` }
  for (const arm of arms) {
    const xs = samples.get(arm)!
    console.log(`| ${arm} | ${cell(xs.map((s) => s.requestPath))} | ${cell(xs.map((s) => s.responsePath))} | ${cell(xs.map((s) => s.addedTtft))} |`)
  }
  console.log('\nRouted runs, debug-log marks after stdout\'s `requesting` (medians, ms)')
  const keys = ['promptSubmit', 'curlVersion', 'apiRequest', 'fetchSettled', 'fakeFirstChunk', 'curlSpawn', 'arrival']
  console.log(`| arm | ${keys.join(' | ')} |`)
  console.log(`| --- |${keys.map(() => ' --- |').join('')}`)
  for (const [label] of variants) {
    const xs = samples.get(label)!
    console.log(`| ${label} | ${keys.map((k) => fmt(stat(xs.map((s) => s.phases?.[k] ?? NaN)).median)).join(' | ')} |`)
  }
} finally {
  await provider.close()
  await mock.close()
  cleanupTmp()
}
