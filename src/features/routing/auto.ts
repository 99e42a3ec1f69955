// Auto mode for routed loops (issue 20, klyth F19): a routed step's call that auto mode leaves as a
// plain ask (no classifier judged a response it never saw: NOTES §3) may become a one-time allow for
// that exact call, where nobody can be asked, when keel's own eligibility table holds it routine and
// then the configured classifier alias answers `allow`. It never denies and never widens: a rule's,
// a hook's, a setting's or a ceiling's ask, a call keel did not see checked, or any doubt leaves the
// engine's answer as it was.
import { fits, is, STRING } from '../../lib/shape.ts'
import { messageOf } from '../../lib/message.ts'
import { parseObject } from './step.ts'
import { configRootOf } from '../../lib/keel-home.ts'
import { hexOf } from '../../lib/hex.ts'
import type { RoutingPort } from './bind.ts'
import { AUTO_PROMPTS_KEPT, AUTO_PROMPT_CHARS, AUTO_ROUTED_KEPT, CLASSIFIER_MAX_TOKENS, CLASSIFIER_NONCE_BYTES, CLASSIFIER_TIMEOUT_MS } from './constants.ts'
import { autoRefused, classifierPrompt, CLASSIFIER_SYSTEM, REVIEW_ALLOWED, type AutoReason } from './strings.ts'
import { createReview, type ReviewPort } from './auto-pane.ts'

/** Where a call may reach: the session's folder; the home folder and the engine's own (keel's is inside it) are never routine. */
export type Places = { readonly cwd: string; readonly home?: string; readonly config?: string }
export type Action = { readonly tool: string; readonly input: unknown }
type Verdict = { readonly decision: 'allow' | 'ask' | 'deny'; readonly reason?: string }

/** A secret in any part of the call: it is never passed, and never sent to a classifier. */
const SECRET = /\bbearer\s+\S{8,}|\bsk-[\w-]{8,}|\bapi[_-]?key\s*[=:]|-----BEGIN [A-Z ]*PRIVATE KEY|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b|\b(?:ghp|gho|github_pat|xox[abp])[-_]\w{10,}|\b(?:password|passwd|secret|token)\s*[=:]\s*\S/i
/** Path segments never routine, inside the project too: the home folder (`~`), keys, the engine's and the repository's own machinery, secrets' files. */
const PROTECTED = /(^|\/)(~[^/]*|\.ssh|\.gnupg|\.aws|\.claude|\.git|\.netrc|\.npmrc|\.env[^/]*|id_[a-z0-9]+|[^/]*\.pem|credentials[^/]*)(\/|$)/i
/** The path a routine command may name outside the project. */
const HARMLESS_PATH = '/dev/null'
/** What a command may not hold: an expansion, a substitution, an escape, a here-document, a background job (keel could not tell what runs). */
const UNREADABLE = /[`$\\]|<<|<\(|>\(|(^|[^&>])&(?![&>])/
/** The separators of a command's parts; `2>&1` is no separator. */
const PARTS = /&&|\|\||[;|\n]/
/** Arguments that make a routine program destructive, or run something else. */
const RISKY_ARGS = '--force -f --hard -D -exec -execdir -delete -ok -okdir --no-verify --pre'.split(' ')
/**
 * The routine programs and what each may be asked (its first argument): `*` anything (their risky
 * arguments refused), `file` a script inside the project (never `-e` code, never stdin; no shell, whose
 * script could be anything), or the subcommands.
 * Only reads, builds, tests and edits: nothing that deletes, fetches, installs (`npx`, `npm ci`), pushes or
 * escalates, and no program that runs what its arguments say (`sed`'s `e`, `awk`, `xargs`, a shell).
 */
const ANY = '*'
const FILE = 'file'
const PROGRAMS: Readonly<Record<string, string>> = {
  ...Object.fromEntries('ls cat head tail wc grep rg pwd echo diff sort uniq cut tr stat file du tree mkdir touch cp mv find tsc make jest vitest pytest eslint prettier true'.split(' ').map((p) => [p, ANY])),
  node: FILE, python: FILE, python3: FILE,
  npm: 'test run ls', yarn: 'test run build', pnpm: 'test run build',
  cargo: 'build test check fmt clippy', go: 'build test vet fmt', git: 'status diff log show add commit rev-parse ls-files blame grep',
}
/** The file tools (reads and edits), and the fields that may name a path (each must be inside the project). */
const FILE_TOOLS = 'Read Glob Grep LS NotebookRead Edit MultiEdit Write NotebookEdit'.split(' ')
const PATH_FIELDS = 'file_path path pattern notebook_path'.split(' ')

/** `path` made absolute against `cwd` and normalized ('.', '..', repeated slashes): a malformed escape throws, and the hook then leaves the engine's answer. */
const resolve = (path: string, cwd: string) => decodeURIComponent(new URL(path, `file://${cwd}/`).pathname)
const within = (path: string | undefined, dir: string | undefined) => dir !== undefined && `${path}/`.startsWith(`${dir}/`.replace('//', '/'))

/** Why a path is not routine: outside the project, home-relative, or a protected part; undefined when it is. */
function pathProblem(path: string, places: Places): AutoReason | undefined {
  if (path === HARMLESS_PATH) return
  const full = resolve(path, places.cwd)
  return !within(full, places.cwd) ? 'outside' : PROTECTED.test(full.slice(places.cwd.length)) ? 'protected' : undefined
}

/** A shell command's words, quotes taken off; a redirection's target is a word of its own. */
const wordsOf = (part: string) => (part.replace(/\d*>&\d/g, ' ').match(/"[^"]*"|'[^']*'|[^\s"'<>]+/g) ?? []).map((w) => w.replace(/^["']|["']$/g, ''))

/** Why a Bash command is not routine; undefined when every part is a routine program on paths inside the project. */
function commandProblem(command: string, places: Places): AutoReason | undefined {
  if (UNREADABLE.test(command)) return 'unreadable'
  for (const part of command.split(PARTS)) {
    const [program = '', ...args] = wordsOf(part)
    const allowed = PROGRAMS[program]
    const first = args[0] ?? ''
    if (!allowed || !(allowed === ANY || (allowed === FILE ? /^[^-]/.test(first) : allowed.split(' ').includes(first))) || args.some((a) => RISKY_ARGS.includes(a.split('=')[0]!))) return 'command'
    // Every word may name a path (a flag's value after its `=`): each must be inside the project, none protected.
    const problem = pathsProblem(args.map((a) => a.slice(a.indexOf('=') + 1)).filter((v) => !v.startsWith('-')), places)
    if (problem) return problem
  }
}

/** The first problem of the paths given (anything but text is unreadable). */
const pathsProblem = (paths: readonly unknown[], places: Places) => paths.map((p) => (typeof p === 'string' ? pathProblem(p, places) : 'unreadable')).find(Boolean)

/**
 * keel's own eligibility rules, before any model is asked: why this call cannot be passed, or
 * undefined when it is routine (a read, build, test or edit inside the project).
 */
export function eligibility(action: Action, places: Places): AutoReason | undefined {
  const input = (action.input ?? {}) as Record<string, unknown>
  if (SECRET.test(JSON.stringify(input))) return 'secret'
  // A project that is the home folder, or inside the engine's or keel's own, holds what no call may touch.
  if ([places.home, places.config].some((dir) => within(dir, places.cwd)) || within(places.cwd, places.config)) return 'place'
  if (action.tool === 'Bash') return typeof input.command === 'string' ? commandProblem(input.command, places) : 'unreadable'
  return FILE_TOOLS.includes(action.tool) ? pathsProblem(PATH_FIELDS.map((f) => input[f]).filter((v) => v !== undefined), places) : 'tool'
}

const VERDICT_SHAPE = { verdict: is((v) => v === 'allow' || v === 'ask', ''), reason: STRING }
type Reply = { readonly verdict: 'allow' | 'ask' | 'failed' | 'noVerdict'; readonly reason: string }
/** The classifier's reply: one JSON verdict and nothing else; anything else is no verdict. */
export function verdictOf(text: string): Reply {
  const value = parseObject(text)
  return value && fits(value, VERDICT_SHAPE) ? (value as Reply) : { verdict: 'noVerdict', reason: '' }
}

/** What auto mode needs of routing's port, and the classifier alias routing.json names (undefined: off). */
export type AutoPort = Pick<RoutingPort, 'pkg' | 'cwd' | 'homeFacts' | 'complete' | 'randomBytes' | 'notice'> & ReviewPort

/** The check's input fields that say the question is not a model's plain call: a ceiling, a plugin's own `$` op. */
type Checked = Action & { readonly tool_use_id?: string; readonly ceiling?: unknown; readonly approver?: unknown }
type CheckResult = Verdict & { readonly rule?: unknown; readonly hook?: unknown; readonly setting?: unknown; readonly plugin?: unknown }

export function createAutoMode(classifier: () => string | undefined) {
  /** Calls routed steps made (the route table decided): '' until their check; a plain ask where nobody can be asked, its exact action, spent at its judge. */
  const calls = new Map<string, string>()
  const prompts: string[] = []
  const counts = { passed: 0, refused: 0 }
  const review = createReview()
  const actionKey = (a: Action) => JSON.stringify([a.tool, a.input])

  return {
    counts,
    draw: review.draw,
    routed(id: string): void {
      calls.set(id, '')
      for (const old of calls.keys()) if (calls.size > AUTO_ROUTED_KEPT) calls.delete(old)
    },
    prompt(text: string): void {
      prompts.push(text.slice(0, AUTO_PROMPT_CHARS))
      prompts.splice(0, prompts.length - AUTO_PROMPTS_KEPT)
    },
    /** tool.check heard from beneath: only a routed call's ask with nothing behind it (no rule, hook, setting, plugin, ceiling) and no host answering is armed. */
    checked(e: Checked, r: CheckResult): void {
      const id = e.tool_use_id ?? ''
      // (`op` and `isCeilingUnread` come only on a plugin's own call, which is never a routed step's.)
      const plain = r.decision === 'ask' && [r.rule, r.hook, r.setting, r.plugin, e.ceiling].every((x) => x === undefined) && e.approver !== 'host'
      if (calls.get(id) === '' && plain) calls.set(id, actionKey(e))
      else calls.delete(id)
    },
    /**
     * tool.judge: the classifier's own answer `r`, or for an armed plain ask, one allow for this call once
     * keel's rules pass it and then, where a person can see it, their Allow once, or (headless, or the
     * review lapsed) the classifier.
     */
    async judge(port: AutoPort, e: Checked, r: Verdict, ctx: { log(line: string): void }, hook: Parameters<typeof review.ask>[2]): Promise<Verdict> {
      const id = e.tool_use_id ?? ''
      const key = calls.get(id)
      calls.delete(id)
      const model = classifier()
      if (r.decision !== 'ask' || key !== actionKey(e) || model === undefined) return r
      const facts = await port.homeFacts()
      const places = { cwd: await port.cwd(), home: facts.home, config: configRootOf(facts) }
      /** Not passed: the engine's answer stands, counted and said in the transcript. */
      const refuse = (reason: AutoReason, detail: string) => {
        counts.refused++
        port.notice(autoRefused(port.pkg, e.tool, reason, detail))
        return r
      }
      const nonce = hexOf(port.randomBytes(CLASSIFIER_NONCE_BYTES))
      const action = { tool: e.tool, input: e.input, cwd: places.cwd }
      const data = [JSON.stringify(prompts), JSON.stringify(action)]
      // keel's rules first: nothing they stop reaches a person or a model. Data that holds the nonce could fake its lines.
      // Then the person where they can see it: their Allow once passes it, no classifier asked; Deny or Esc leaves the engine's ask; a lapse, the classifier.
      const why = eligibility(e, places) ?? (data.some((d) => d.includes(nonce)) ? 'unreadable' : e.approver === 'person' ? await review.ask(port, action, hook) : undefined)
      if (why && why !== 'allow') return refuse(why, '')
      const reply: Reply = why
        ? { verdict: why, reason: REVIEW_ALLOWED }
        : await port
            .complete({ model, system: CLASSIFIER_SYSTEM, prompt: classifierPrompt(nonce, data[0]!, data[1]!), maxTokens: CLASSIFIER_MAX_TOKENS, timeoutMs: CLASSIFIER_TIMEOUT_MS })
            .catch((err) => ({ isAnswered: false as const, reason: messageOf(err) }))
            .then((c) => (c.isAnswered ? verdictOf(c.text) : { verdict: 'failed', reason: c.reason }))
      if (reply.verdict !== 'allow') return refuse(reply.verdict, reply.reason)
      counts.passed++
      ctx.log(`auto mode: ${why ? 'the person' : model} passed ${e.tool} ${id}: ${reply.reason}`)
      return { decision: 'allow', reason: reply.reason }
    },
    /** A reload or a new session: nothing armed carries over. */
    reset(): void {
      calls.clear()
      prompts.length = 0
    },
  }
}
