// Does an object matcher on prompt.submit keep the person's prompts out of the hooks worker? A probe
// plugin hooks prompt.submit with the matcher given and logs each prompt its hook body hears; from
// inside its first turn.complete it submits a prompt of its own (as reconnect's held report is), so
// its own submit is heard too. The debug log's `prompt.submit settled` lines naming the probe count
// the hops the engine made into the worker. stream-json: the person's prompts are `sdk` ones.
//   node --import ./test/tools/ts-loader.mjs test/bench/probe-submit.ts
import { cleanupTmp, debugLines, hookSettles, tmpDir, writePlugin } from '../e2e/engine.ts'
import { startLive } from '../e2e/live.ts'
import { requestText, startMockModel } from '../e2e/mock-model.ts'
import { join } from 'node:path'

const OWN = 'a prompt of the probe plugin'
const VARIANTS = [["matcher { origin: { kind: 'plugin' } }", "{ origin: { kind: 'plugin' } }, "], ['no matcher', '']] as const

async function until(what: string, done: () => boolean): Promise<void> {
  for (let i = 0; i < 600 && !done(); i++) await new Promise((r) => setTimeout(r, 100))
  if (!done()) throw new Error(`timed out waiting for ${what}`)
}

try {
  for (const [label, matcher] of process.env.PROBE_REVERSE ? [...VARIANTS].reverse() : VARIANTS) {
    const mock = await startMockModel((req) => (req.kind === 'main' ? { text: 'ok' } : undefined))
    const dir = writePlugin(join(tmpDir('submit'), 'probe'), 'probe', `let sent = false
export function register(on) {
  on('prompt.submit', ${matcher}($, e, next) => { $.ui.log('heard ' + e.origin?.kind + ': ' + e.text, { to: 'debug' }); return next(e) })
  on('turn.complete', async ($, e, next) => {
    if (!sent && e.agentId === undefined) {
      sent = true
      $.prompt.submit({ text: ${JSON.stringify(OWN)} })
      await $.clock.now()
    }
    return next(e)
  })
}
`)
    const live = await startLive({ mode: 'stream-json', mock, pluginDirs: [dir] })
    const asked = (text: string) => () => mock.messages().some((r) => r.kind === 'main' && requestText(r.body).includes(text))
    try {
      await live.send("the person's first prompt")
      await until('the plugin\'s own prompt', asked(OWN))
      await live.send("the person's second prompt")
      await until('the second prompt', asked('second prompt'))
      const log = live.debugLog()
      const hops = () => hookSettles(live.debugLog()).filter((h) => h.event === 'prompt.submit' && h.plugins.includes('probe'))
      // The last turn's end settles after its request: wait for the probe's third turn.complete.
      await until('the last turn end', () => hookSettles(live.debugLog()).filter((h) => h.event === 'turn.complete' && h.plugins.includes('probe')).length >= 3)
      const heard = debugLines(live.debugLog(), 'probe').filter((l) => l.startsWith('heard '))
      console.log(`${label}: ${hops().length} prompt.submit hops (${hops().map((h) => `${h.ms} ms`).join(', ')}); the hook body heard ${heard.length}: ${heard.join(' | ')}`)
      void log
    } finally {
      await live.stop()
      await mock.close()
    }
  }
} finally {
  cleanupTmp()
}
