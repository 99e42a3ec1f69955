// What the engine keeps for this plugin across sessions: its store (`$.store`) and its data folder
// (`CLAUDE_PLUGIN_DATA`). A feature that keeps records binds them here, so each is bound once
// (checkpoint does; routing and mailbox bind the same store calls, routing the same folder).
import type { EngineInterface } from 'claude-code'

/** The plugin's store, keyed by string: what a feature keeps beside a session, across sessions. */
export type StoreEdges = {
  storeGet(key: string): Promise<unknown>
  storeSet(key: string, value: unknown): Promise<void>
  storeKeys(): Promise<string[]>
  storeDelete(key: string): Promise<void>
}

export function bindStore($: EngineInterface): StoreEdges {
  return {
    storeGet: (key) => $.store.get(key),
    storeSet: (key, value) => $.store.set(key, value),
    storeKeys: () => $.store.keys(),
    storeDelete: (key) => $.store.delete(key),
  }
}

/** This plugin's data folder, kept across updates (CLI only: rejects elsewhere, and where none is set). */
export async function pluginDataDirOf($: EngineInterface): Promise<string> {
  const dir = (await $.process.hookEnv()).CLAUDE_PLUGIN_DATA
  if (!dir) throw new Error('no plugin data folder')
  return dir
}
