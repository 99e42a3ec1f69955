// The process environment the checkpoint feature reads and writes. Names must be literals (the
// loader's rule), so each has its one top-level function here that takes `$`.
import type { EngineInterface } from 'claude-code'

/** What says the desktop app started this session: its entrypoint, and the child-session marker a launcher sets. */
export async function readDesktopSignal($: EngineInterface): Promise<{ entrypoint: string | undefined; child: string | undefined }> {
  const [entrypoint, child] = await Promise.all([$.env.get('CLAUDE_CODE_ENTRYPOINT'), $.env.get('CLAUDE_CODE_CHILD_SESSION')])
  return { entrypoint, child }
}

/**
 * The presence signal (spec B.14): the session id of the session whose checkpoint blocks a mod of
 * the bundle saves, exported to the session's Bash children, where the checkpoint skill reads it.
 * One name for every package (the original's), since one package at most runs the feature in a session.
 */
export function announceCheckpointPresence($: EngineInterface, sessionId: string): ReturnType<EngineInterface['env']['set']> {
  return $.env.set('SUPERHEROES_COMPACT_MOD', sessionId)
}
