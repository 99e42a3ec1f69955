// Where keel keeps what every package of the bundle shares (the routing config, the mailbox spool):
// keel's home, `${CLAUDE_CONFIG_DIR:-$HOME/.claude}/keel/`, beside the engine's own config (measured:
// `$.env.get('CLAUDE_CONFIG_DIR')`, else `$HOME/.claude`, names the engine's folder; routing NOTES §5).
import { trimSlash } from './text.ts'

/** keel's folder under the config root. */
export const KEEL_HOME_DIR = 'keel'
/** `CLAUDE_PLUGIN_DATA` is `<config root>/plugins/data/<plugin>-<source>`. */
export const PLUGIN_DATA_MARK = '/plugins/data/'

/**
 * The config root: `CLAUDE_CONFIG_DIR` when set, else `CLAUDE_PLUGIN_DATA` cut at `/plugins/data/`,
 * else `$HOME/.claude` (measured: all three name one folder). Undefined when none is known.
 */
export function configRootOf(env: { configDir?: string; pluginData?: string; home?: string }): string | undefined {
  const configDir = env.configDir?.trim()
  if (configDir) return trimSlash(configDir)
  const at = env.pluginData?.lastIndexOf(PLUGIN_DATA_MARK) ?? -1
  if (at > 0) return env.pluginData!.slice(0, at)
  const home = env.home?.trim()
  return home ? `${trimSlash(home)}/.claude` : undefined
}

export const keelHomeOf = (configRoot: string) => `${configRoot}/${KEEL_HOME_DIR}`
