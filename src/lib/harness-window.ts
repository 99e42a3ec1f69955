// The process environment the window and timing features read and write. Names must be literals
// (the loader's rule), so each has its one top-level function here that takes `$`.
import type { EngineInterface } from 'claude-code'

/** The harness's compaction-window override as the running process holds it (settings env rows land here too). */
export function readWindowEnv($: EngineInterface): Promise<string | undefined> {
  return $.env.get('CLAUDE_CODE_AUTO_COMPACT_WINDOW')
}

/** Sets (or, with undefined, unsets) the override for the running session: measured to take effect at once. */
export function setWindowEnv($: EngineInterface, value: string | undefined): ReturnType<EngineInterface['env']['set']> {
  return $.env.set('CLAUDE_CODE_AUTO_COMPACT_WINDOW', value)
}

/** The person's home folder: HOME, or USERPROFILE on Windows. */
export async function readHomeDir($: EngineInterface): Promise<string | undefined> {
  return (await $.env.get('HOME')) || (await $.env.get('USERPROFILE')) || undefined
}
