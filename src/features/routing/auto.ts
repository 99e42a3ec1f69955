// Auto mode for routed loops (issue 20, klyth F19): a routed step's call that auto mode leaves as a
// plain ask (no classifier judged a response it never saw: NOTES §3) may become a one-time allow for
// that exact call, where nobody can be asked, when keel's own eligibility table holds it routine and
// then the configured classifier alias answers `allow`. It never denies and never widens: a rule's,
// a hook's, a setting's or a ceiling's ask, a call keel did not see checked, or any doubt leaves the
// engine's answer as it was.
import { isRecord, is, problemsOf, STRING } from '../../lib/shape.ts'
import { AUTO_PROMPTS_KEPT, AUTO_PROMPT_CHARS, AUTO_ROUTED_KEPT, CLASSIFIER_MAX_TOKENS } from './constants.ts'
import { autoPassed, classifierPrompt, CLASSIFIER_SYSTEM, type AutoReason } from './strings.ts'

/** Where a call may reach: the session's folder; the home folder, the engine's and keel's own folders are never routine. */
export type Places = { readonly cwd: string; readonly home?: string; readonly config?: string; readonly keel?: string }
export type Action = { readonly tool: string; readonly input: unknown }
type Verdict = { readonly decision: 'allow' | 'ask' | 'deny'; readonly reason?: string }

/** A secret in any part of the call: it is never passed, and never sent to a classifier. */
const SECRETS = [/\bbearer\s+\S{8,}/i, /\bsk-[\w-]{8,}/, /\bapi[_-]?key\s*[=:]/i, /-----BEGIN [A-Z ]*PRIVATE KEY/, /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/, /\b(?:ghp|gho|github_pat|xox[abp])[-_]\w{10,}/, /\b(?:password|passwd|secret|token)\s*[=:]\s*\S/i]
/** Path segments never routine, inside the project too: keys, the engine's and the repository's own machinery, secrets' files. */
const PROTECTED = /(^|\/)(\.ssh|\.gnupg|\.aws|\.claude|\.git|\.netrc|\.npmrc|\.env[^/]*|id_[a-z0-9]+|[^/]*\.pem|credentials[^/]*)(\/|$)/i
/** Paths a routine command may name outside the project. */
const HARMLESS_PATHS = ['/dev/null']
/** What a command may not hold: an expansion, a substitution, an escape, a here-document, a background job (keel could not tell what runs). */
const UNREADABLE = /[`$\\]|<<|<\(|>\(|(^|[^&>])&(?![&>])/
/** The separators of a command's parts; `2>&1` is no separator. */
const PARTS = /&&|\|\||[;|\n]/
/** Arguments that make a routine program destructive, or run something else. */
const RISKY_ARGS = ['--force', '-f', '--hard', '-D', '-exec', '-execdir', '-delete', '-ok', '-okdir', '--no-verify', '-i']
/**
 * The routine programs and what each may be asked (its first argument): `*` anything (their risky
 * arguments refused), `file` a script inside the project (never `-e` code), or the subcommands.
 * Only reads, builds, tests and edits: nothing that deletes, fetches, installs, pushes or escalates.
 */
const ANY = '*'
const FILE = 'file'
const PROGRAMS: Readonly<Record<string, string | readonly string[]>> = {
  ...Object.fromEntries('ls cat head tail wc grep rg pwd echo diff sort uniq cut tr stat file du tree mkdir touch cp mv sed find tsc make jest vitest pytest eslint prettier true'.split(' ').map((p) => [p, ANY])),
  node: FILE, python: FILE, python3: FILE, bash: FILE, sh: FILE,
  npm: ['test', 'run', 'ci', 'ls'], npx: ['tsc', 'jest', 'vitest', 'eslint', 'prettier'], yarn: ['test', 'run', 'build'], pnpm: ['test', 'run', 'build'],
  cargo: ['build', 'test', 'check', 'fmt', 'clippy'], go: ['build', 'test', 'vet', 'fmt'],
  git: ['status', 'diff', 'log', 'show', 'add', 'commit', 'rev-parse', 'ls-files', 'blame', 'grep'],
}
/** The file tools, by what they do, and the fields naming their paths. */
const FILE_TOOLS: Readonly<Record<string, readonly string[]>> = {
  Read: ['file_path'], Glob: ['path', 'pattern'], Grep: ['path'], LS: ['path'], NotebookRead: ['notebook_path'],
  Edit: ['file_path'], MultiEdit: ['file_path'], Write: ['file_path'], NotebookEdit: ['notebook_path'],
}

/** `path` made absolute against `cwd` and normalized ('.', '..', repeated slashes). */
function resolve(path: string, cwd: string): string {
  const parts: string[] = []
  for (const part of (path.startsWith('/') ? path : `${cwd}/${path}`).split('/')) part === '..' ? parts.pop() : part && part !== '.' && parts.push(part)
  return `/${parts.join('/')}`
}
const within = (path: string, dir: string | undefined) => dir !== undefined && `${path}/`.startsWith(`${dir}/`.replace('//', '/'))

/** Why a path is not routine: outside the project, home-relative, or a protected part; undefined when it is. */
function pathProblem(path: string, places: Places): AutoReason | undefined {
  if (HARMLESS_PATHS.includes(path)) return undefined
  if (path.startsWith('~')) return 'outside'
  const full = resolve(path, places.cwd)
  return !within(full, places.cwd) ? 'outside' : PROTECTED.test(full.slice(places.cwd.length)) ? 'protected' : undefined
}

/** A shell command's words, quotes taken off; a redirection's target is a word of its own. */
const wordsOf = (part: string) => (part.replace(/\d*>&\d/g, ' ').match(/"[^"]*"|'[^']*'|[^\s"'<>]+/g) ?? []).map((w) => w.replace(/^["']|["']$/g, ''))

/** Why a Bash command is not routine; undefined when every part is a routine program on paths inside the project. */
function commandProblem(command: string, places: Places): AutoReason | undefined {
  if (UNREADABLE.test(command)) return 'unreadable'
  for (const part of command.split(PARTS)) {
    const [program = '', first = '', ...rest] = wordsOf(part)
    const allowed = PROGRAMS[program]
    if (!program) return 'unreadable'
    if (!allowed || !(allowed === ANY || (allowed === FILE ? first !== '' && !first.startsWith('-') : allowed.includes(first)))) return 'command'
    for (const word of [first, ...rest]) {
      if (RISKY_ARGS.includes(word) && !(word === '-i' && program === 'sed')) return 'command'
      // Every word may name a path (a flag's value after its `=`): each must be inside the project, none protected.
      const value = word.slice(word.indexOf('=') + 1)
      const problem = !value.startsWith('-') && pathProblem(value, places)
      if (problem) return problem
    }
  }
  return undefined
}

/**
 * keel's own eligibility rules, before any model is asked: why this call cannot be passed, or
 * undefined when it is routine (a read, build, test or edit inside the project).
 */
export function eligibility(action: Action, places: Places): AutoReason | undefined {
  const input = isRecord(action.input) ? action.input : {}
  if (SECRETS.some((s) => s.test(JSON.stringify(action.input) ?? ''))) return 'secret'
  // A project that is the home folder, or inside the engine's or keel's own, holds what no call may touch.
  if ([places.home, places.config, places.keel].some((dir) => dir !== undefined && (within(places.cwd, dir) || within(dir, places.cwd)))) return 'place'
  if (action.tool === 'Bash') return typeof input.command === 'string' ? commandProblem(input.command, places) : 'unreadable'
  const fields = FILE_TOOLS[action.tool]
  if (!fields) return 'tool'
  for (const field of fields) {
    const value = input[field]
    if (value !== undefined) {
      const problem = typeof value === 'string' ? pathProblem(value, places) : 'unreadable'
      if (problem) return problem
    }
  }
  return undefined
}

const VERDICT_SHAPE = { verdict: is((v) => v === 'allow' || v === 'ask', ''), reason: STRING }
/** The classifier's reply: one JSON verdict and nothing else; anything else is no verdict. */
export function verdictOf(text: string): { readonly verdict: 'allow' | 'ask'; readonly reason: string } | undefined {
  let value: unknown
  try {
    value = JSON.parse(text.trim())
  } catch {
    return undefined
  }
  return problemsOf(value, VERDICT_SHAPE).length ? undefined : (value as { verdict: 'allow' | 'ask'; reason: string })
}

export type AutoEdges = {
  /** The classifier alias routing.json names; undefined: auto mode's gap is left as it is. */
  classifier(): string | undefined
  places(): Promise<Places>
  /** One completion by the alias; rejects when it gives no text. */
  complete(model: string, system: string, prompt: string, maxTokens: number): Promise<string>
  nonce(): string
  /** A transcript line: why a call was not passed. */
  notice(reason: AutoReason, detail: string, tool: string): void
  log(line: string): void
}

/** The check's input fields that say the question is not a model's plain call: a ceiling, a plugin's own `$` op. */
type Checked = Action & { readonly tool_use_id?: string; readonly ceiling?: unknown; readonly isCeilingUnread?: unknown; readonly op?: unknown; readonly approver?: unknown }
type CheckResult = Verdict & { readonly rule?: unknown; readonly hook?: unknown; readonly setting?: unknown; readonly plugin?: unknown }

export function createAutoMode(edges: AutoEdges) {
  /** Ids of calls routed steps made (the route table decided), until their check. */
  const routed = new Set<string>()
  /** A routed call whose check ended in a plain ask where nobody can be asked: its exact action, spent at its judge. */
  const armed = new Map<string, string>()
  const prompts: string[] = []
  const counts = { passed: 0, refused: 0 }
  const actionKey = (a: Action) => JSON.stringify([a.tool, a.input])

  function refuse(reason: AutoReason, detail: string, tool: string, r: Verdict): Verdict {
    counts.refused++
    edges.notice(reason, detail, tool)
    return r
  }

  return {
    counts,
    routed(id: string): void {
      routed.add(id)
      for (const old of routed) if (routed.size > AUTO_ROUTED_KEPT) routed.delete(old)
    },
    prompt(text: string): void {
      prompts.push(text.slice(0, AUTO_PROMPT_CHARS))
      prompts.splice(0, prompts.length - AUTO_PROMPTS_KEPT)
    },
    /** tool.check heard from beneath: only a routed call's ask with nothing behind it (no rule, hook, setting, plugin, ceiling) and nobody to ask is armed. */
    checked(e: Checked, r: CheckResult): void {
      const id = e.tool_use_id
      if (id === undefined || !routed.delete(id)) return
      const plain = r.decision === 'ask' && [r.rule, r.hook, r.setting, r.plugin, e.ceiling, e.isCeilingUnread, e.op, e.approver].every((x) => x === undefined)
      if (plain) armed.set(id, actionKey(e))
    },
    /** tool.judge: the classifier's own answer `r`, or for an armed plain ask, one allow for this call once keel's rules and the classifier pass it. */
    async judge(e: Checked, r: Verdict): Promise<Verdict> {
      const key = e.tool_use_id === undefined ? undefined : armed.get(e.tool_use_id)
      armed.delete(e.tool_use_id ?? '')
      const model = edges.classifier()
      if (r.decision !== 'ask' || key !== actionKey(e) || model === undefined) return r
      const places = await edges.places()
      const why = eligibility(e, places)
      if (why) return refuse(why, '', e.tool, r)
      const nonce = edges.nonce()
      const data = [JSON.stringify(prompts), JSON.stringify({ tool: e.tool, input: e.input, cwd: places.cwd })]
      if (data.some((d) => d.includes(nonce))) return refuse('unreadable', '', e.tool, r)
      let reply: string
      try {
        reply = await edges.complete(model, CLASSIFIER_SYSTEM, classifierPrompt(nonce, data[0]!, data[1]!), CLASSIFIER_MAX_TOKENS)
      } catch (err) {
        return refuse('failed', err instanceof Error ? err.message : String(err), e.tool, r)
      }
      const verdict = verdictOf(reply)
      if (verdict?.verdict !== 'allow') return refuse(verdict ? 'asked' : 'noVerdict', verdict?.reason ?? '', e.tool, r)
      counts.passed++
      edges.log(`auto mode: ${model} passed ${e.tool} ${e.tool_use_id}: ${verdict.reason}`)
      return { decision: 'allow', reason: autoPassed(model, verdict.reason) }
    },
    /** A reload or a new session: nothing armed carries over. */
    reset(): void {
      routed.clear()
      armed.clear()
      prompts.length = 0
    },
  }
}
