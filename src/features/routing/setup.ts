// `/<pkg> route setup` (issue 19 part 3, klyth F24): one command line becomes a provider and an alias
// in routing.json, added to what the file holds (an entry already there is never replaced) and checked
// by the file's own parser (config.ts), so setup and routing never disagree on what is valid. The key
// never passes through the conversation: the line names where it is kept, and setup shows the one
// command the person runs in their own terminal to store it there.
import type { Api, Auth } from './config.ts'
import { readConfig } from './config.ts'
import { KEY_STEPS, SETUP_FILE_PATH, SETUP_KEY, setupTaken, setupTooMany, setupUnreadable } from './strings.ts'

/** The kinds besides a preset: a provider of that API at the base URL the line gives. */
export const OTHER_KINDS: Readonly<Record<string, Api>> = { 'openai-compatible': 'openai-chat', 'anthropic-compatible': 'anthropic-messages' }

/** `key=<form>:<value>` as routing.json's `auth`; a form that is none of these is left to the parser to name. */
const KEY_FORMS: Readonly<Record<string, (value: string) => Auth>> = {
  cmd: (command) => ({ helper: command.split(/\s+/).filter(Boolean) }),
  env: (name) => ({ env: name }),
  file: (path) => ({ file: path }),
  // A local server that takes no key.
  none: () => 'none',
}

/** A setup line as routing.json's two entries (the provider named as the alias, which a provider id spells without `:`), and what the person does to store the key. */
export type SetupLine = { readonly alias: string; readonly providerId: string; readonly provider: Record<string, unknown>; readonly model: Record<string, unknown>; readonly keyStep: string }

export type Refused = { readonly problems: readonly string[] }

/** A setup's fields as the person gives them, the line's or the pane's: each one text, `baseUrl` empty or absent for a preset's own. */
export type SetupFields = { kind: string; alias: string; model?: string; baseUrl?: string; context?: string; key: string }

/**
 * `<kind> <alias> <model> [baseUrl] <context> key=…`: the base URL is the word with `//` (`http//…`
 * too, so the parser names it), the key the rest of the line after `key=` (a key command has spaces).
 */
export function parseSetup(line: string): SetupLine | Refused {
  const [head = '', key = ''] = line.split(/(?:^|\s)key=(.*)/)
  const words = head.split(/\s+/).filter(Boolean)
  const baseUrl = words.find((w) => w.includes('//'))
  const [kind = '', alias = '', model, context, ...extra] = words.filter((w) => w !== baseUrl)
  return extra.length ? { problems: [setupTooMany(extra)] } : setupOf({ kind, alias, model, baseUrl, context, key })
}

/** The fields as routing.json's entries; only the key's form is checked here, each other field by the parser once merged. */
export function setupOf({ kind, alias, model, baseUrl, context, key }: SetupFields): SetupLine | Refused {
  const [, form = '', value = ''] = /^(\w+):?(.*)/.exec(key.trim()) ?? []
  // One problem at most: a form that is none of these, or (routing reads a key file with `$.fs`, which resolves
  // a relative path against the session's cwd; nothing expands `~`) a key file whose path is not absolute.
  const problem = !Object.hasOwn(KEY_FORMS, form) ? SETUP_KEY : form === 'file' && !value.startsWith('/') && SETUP_FILE_PATH
  if (problem) return { problems: [problem] }
  const providerId = alias.replaceAll(':', '-')
  return {
    alias,
    providerId,
    // A kind that is no preset is named by the parser, with the presets there are.
    provider: { ...(Object.hasOwn(OTHER_KINDS, kind) ? { api: OTHER_KINDS[kind] } : { preset: kind }), baseUrl: baseUrl || undefined, auth: KEY_FORMS[form]!(value) },
    // Absent fields are left out of the JSON, so the parser names them missing; a context that is no number is `null` to it.
    model: { provider: providerId, model, context: context && Number(context) },
    keyStep: KEY_STEPS[form]!(value),
  }
}

/** routing.json's text with the line's entries added, or why not: a file routing cannot read, an entry already there, or the parser's own words for each bad field. */
export function mergeSetup(text: string | undefined, line: SetupLine): { readonly text: string } | Refused {
  const before = readConfig(text)
  if (before.state === 'unreadable') return { problems: [setupUnreadable(before.error)] }
  const raw = JSON.parse(text ?? '{}') as Record<string, object>
  const sections = { providers: [line.providerId, line.provider], models: [line.alias, line.model] } as const
  const taken: string[] = []
  for (const [name, [id, entry]] of Object.entries(sections)) {
    // A section that is no object spreads into entries the parser refuses: setup never mends a broken file.
    const section = { ...raw[name] }
    if (Object.hasOwn(section, id)) taken.push(setupTaken(`${name}.${id}`))
    raw[name] = { ...section, [id]: entry }
  }
  if (taken.length) return { problems: taken }
  const out = `${JSON.stringify(raw, null, 2)}\n`
  const after = readConfig(out) as Extract<ReturnType<typeof readConfig>, { state: 'loaded' }>
  // The file's own errors stay its own: only those the new entries bring refuse them.
  const problems = after.errors.filter((e) => !(before.state === 'loaded' && before.errors.includes(e)))
  return problems.length ? { problems } : { text: out }
}
