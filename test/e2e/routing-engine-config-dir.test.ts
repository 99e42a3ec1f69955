// Routing measurements (src/features/routing/NOTES.md §5): the keel home is
// `${CLAUDE_CONFIG_DIR:-$HOME/.claude}/keel/`. With and without CLAUDE_CONFIG_DIR set for the engine:
// what a hook reads ($.env CLAUDE_CONFIG_DIR and HOME, $.process.hookEnv() CLAUDE_PLUGIN_DATA, the
// transcript path, the user settings), and where the engine keeps settings.json, sessions/<pid>.json,
// transcripts, the plugin data and store folders, and `.claude.json`; whether pluginConfigs comes from
// `<CLAUDE_CONFIG_DIR>/settings.json`.
import { test } from 'uvu'
import * as assert from 'uvu/assert'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { startMockModel, type MockModel } from './mock-model.ts'
import { cleanupTmp, entriesOf, findFiles, tmpDir, writePlugin } from './engine.ts'
import { startLive, type LiveSession } from './live.ts'
import { kitSource, sendEach, tagged } from './probe-kit.ts'

const PROBE = kitSource({}) + `
export function register(on, options) {
  on('session.start', async ($, e, next) => {
    const env = await $.process.hookEnv()
    const info = await $.session.info()
    log($, 'WHERE', {
      configDir: (await $.env.get('CLAUDE_CONFIG_DIR')) || null, home: await $.env.get('HOME'),
      data: env.CLAUDE_PLUGIN_DATA || null, hookEnvHasHome: 'HOME' in env, hookEnvHasConfigDir: 'CLAUDE_CONFIG_DIR' in env,
      pid: env.CLAUDE_PID, transcript: info.transcriptPath, option: options.marker,
      userModel: (await $.settings.read({ source: 'user' })).model || null,
    })
    await $.store.set('probe-key', 1)
    return next(e)
  })
  on('turn.step', async function* ($, e, next) {
    if (!isAlias(e.model)) return yield* next(e)
    return yield* answer($, e, { text: 'ROUTED' })
  })
}
`

/** The probe with a userConfig option `marker`, so pluginConfigs can be read back. */
function probeDir(): string {
  const dir = writePlugin(tmpDir('probe'), 'probe', PROBE)
  const manifest = join(dir, '.claude-plugin/plugin.json')
  writeFileSync(manifest, JSON.stringify({ ...JSON.parse(readFileSync(manifest, 'utf8')), userConfig: { marker: { type: 'string', title: 'Marker', description: 'where the options came from', default: 'DEFAULT' } } }))
  return dir
}
const settingsWith = (marker: string) => ({ model: 'gpt-5', pluginConfigs: { 'probe@inline': { options: { marker } } } })
/** Paths under `dir` (relative), files and folders, depth-first. */
function tree(dir: string, prefix = ''): string[] {
  return entriesOf(dir).flatMap((n) => {
    const rel = prefix + n.name
    return n.isDirectory() ? [rel + '/', ...tree(join(dir, n.name), rel + '/')] : [rel]
  })
}

let mock: MockModel | undefined
let live: LiveSession | undefined
test.after.each(async () => {
  await live?.stop()
  live = undefined
  await mock?.close()
  mock = undefined
})
test.after(() => cleanupTmp())

async function session(configDir?: string): Promise<{ where: any; during: string[]; home: string; cwd: string }> {
  mock = await startMockModel()
  const home = tmpDir('home')
  live = await startLive({
    mode: 'stream-json', pluginDirs: [probeDir()], mock, home, settings: settingsWith('FROM-HOME'),
    env: configDir ? { CLAUDE_CONFIG_DIR: configDir } : {},
  })
  await sendEach(live, ['hello'])
  const base = configDir ?? join(home, '.claude')
  const during = tree(base)
  const [where] = tagged(live.debugLog(), 'probe', 'WHERE')
  return { where, during, home, cwd: live.cwd }
}

test('CLAUDE_CONFIG_DIR set: hooks read it from $.env; the engine keeps everything there, HOME/.claude untouched, options from its settings.json', async () => {
  const configDir = join(tmpDir('cfg'), 'cc')
  mkdirSync(configDir, { recursive: true })
  writeFileSync(join(configDir, 'settings.json'), JSON.stringify(settingsWith('FROM-CONFIG-DIR')))
  const { where, during, home, cwd } = await session(configDir)
  const project = cwd.replace(/\//g, '-')
  assert.equal(where, {
    configDir, home, data: `${configDir}/plugins/data/probe-inline`, hookEnvHasHome: false, hookEnvHasConfigDir: false,
    pid: where.pid, transcript: `${configDir}/projects/${project}/${where.transcript.split('/').pop()}`,
    option: 'FROM-CONFIG-DIR', userModel: 'gpt-5',
  })
  assert.ok(during.includes(`sessions/${where.pid}.json`), during.join('\n'))
  assert.ok(during.includes('.claude.json'), 'the global config file moves into the config dir too')
  assert.ok(during.includes('settings.json'))
  assert.ok(during.includes('plugins/data/probe-inline/'))
  assert.ok(during.some((p) => /^plugins\/store\/probe_inline-[0-9a-f]+\.json$/.test(p)), during.join('\n'))
  assert.ok(during.some((p) => p.startsWith(`projects/${project}/`) && p.endsWith('.jsonl')))
  // HOME/.claude holds only what the test wrote there.
  assert.equal(tree(join(home, '.claude')), ['settings.json'])
  assert.is(results(), 'ROUTED', 'settings model gpt-5 from the config dir made main routed')
})

test('CLAUDE_CONFIG_DIR unset: $.env.get reads undefined; the same layout under HOME/.claude, options from its settings.json', async () => {
  const { where, during, home, cwd } = await session()
  const base = join(home, '.claude')
  assert.equal(where, {
    configDir: null, home, data: `${base}/plugins/data/probe-inline`, hookEnvHasHome: false, hookEnvHasConfigDir: false,
    pid: where.pid, transcript: `${base}/projects/${cwd.replace(/\//g, '-')}/${where.transcript.split('/').pop()}`,
    option: 'FROM-HOME', userModel: 'gpt-5',
  })
  assert.ok(during.includes(`sessions/${where.pid}.json`), during.join('\n'))
  assert.ok(during.some((p) => /^plugins\/store\/probe_inline-[0-9a-f]+\.json$/.test(p)), during.join('\n'))
  assert.not.ok(during.includes('.claude.json'), '.claude.json stays at HOME/.claude.json')
  assert.ok(existsSync(join(home, '.claude.json')))
  assert.is(findFiles(join(base, 'projects'), '.jsonl').length, 1)
  assert.is(results(), 'ROUTED')
})

function results(): string {
  const line = live!.output().split('\n').find((l) => l.includes('"type":"result"'))
  return JSON.parse(line!).result
}

test.run()
