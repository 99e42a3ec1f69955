// Every text the timing feature shows or submits (wsflow §3.7 and Appendix A). Each prompt opens
// with the package's label, so none reads as the person's own words.
import { DEFAULT_ADVISORY, describeAdvisory, percentOf, thousands, type Delivery, type Thresholds } from './core.ts'

export const TOOL_NAME = 'request_compaction'
/** Held before the resume prompt after the lever's compaction: a turn that starts within it wins. */
export const CONTINUATION_WINDOW_MS = 1500
export const ADVISORY_OPTION = 'compactionAdvisory'

export const labelOf = (pkg: string) => `[${pkg} compaction] `
/** Transcript notices (never sent to the model) open with this. */
export const noticePrefixOf = (pkg: string) => `${pkg} compaction: `

/** The lever as it is registered (`$.tool.register`). */
export const LEVER_TOOL = {
  name: TOOL_NAME,
  description:
    'Request compaction of this conversation when the current turn ends. Before calling, bring durable records (tickets, notes, agenda) up to date with anything still needed that only this context holds. Set `continue` to true only when work must resume by itself after compaction: a fixed resume prompt then follows the compaction, unless another prompt (the human\'s, or a background agent\'s notification) has already started the next turn. Leave it unset when the next turn will come from the human or from a background agent\'s notification. Main session only.',
  inputSchema: { type: 'object', properties: { continue: { type: 'boolean' } } },
  isDeferred: false,
}
export const LEVER_RESULT =
  'Compaction requested. End your turn now without further tool calls; compaction runs when the turn ends, and a resume prompt follows it unless another prompt has already started the next turn.'
export const LEVER_RESULT_NO_RESUME =
  'Compaction requested. End your turn now without further tool calls; compaction runs when the turn ends, and no prompt follows it: the next turn comes from the human or from a background agent\'s notification.'
export const LEVER_SUBAGENT = (agentId: string) => `request_compaction compacts the main session only; called from subagent ${agentId}.`
export const LEVER_FAILED = 'request_compaction: the compaction request hook failed; see the debug log.'

export const resumeText = (label: string) => `${label}Compaction landed; resume the work in progress from the summary and your durable records.`
export const vetoedResumeText = (label: string, reason: string) => `${label}Compaction did not run (${reason}); your context is unchanged. Resume the work in progress.`

/** A token count as a percent of the compaction window. */
const shareOf = (tokens: number, t: Thresholds): number => percentOf(tokens, t.raw)

function head(label: string, t: Thresholds, tokens: number): string {
  return `${label}Context window at the end of the last turn: ${shareOf(tokens, t)}% (${thousands(tokens)} / ${thousands(t.raw)} tokens) / ${shareOf(t.hard, t)}% (automatic compaction point). `
}

export function advisoryText(label: string, t: Thresholds, tokens: number): string {
  const hard = shareOf(t.hard, t)
  return `${head(label, t, tokens)}This is past the advisory point (${shareOf(t.advisory, t)}%).

This is not an instruction to compact right now. If you are in active discussion with the human, awaiting their answer or clarification, or holding working context that would be costly to rebuild (a half-applied change or a diagnosis in progress), carry on for now. A pause after asking the human a question is not a boundary.

From here on, look for a good moment to compact before ${hard}%. A good moment is a natural boundary where most of what this context holds is no longer needed for the work ahead, and what is still needed can be restored cheaply after compaction from durable records (tickets, commits, notes, agenda) and the summary. Typical cases: work just landed, you are waiting only on background agents, or the next work is weakly related to the current context. When such a moment comes, first bring durable records up to date with anything still needed that only this context holds, then call the compaction request tool and end your turn. Set its \`continue\` flag only when work must resume by itself after compaction; leave it unset when the next turn will come from the human or from a background agent's notification. Compacting at a moment you choose keeps the work coherent; at ${hard}% it happens automatically, mid-work if need be. Reminders follow at ${shareOf(t.m1, t)}% and ${shareOf(t.m2, t)}%.

If now is not such a moment, end this turn without replying and keep looking for one as you work.`
}

export function milestoneText(label: string, which: 1 | 2, t: Thresholds, tokens: number): string {
  return head(label, t, tokens) + (which === 1
    ? `Past ${shareOf(t.hard, t)}%, Claude Code compacts automatically, mid-work if need be. From here on, a good boundary is worth taking; if this is one, update durable records and call the compaction request tool, as the advisory describes (the \`continue\` flag only when work must resume by itself). Otherwise end this turn without replying.`
    : 'This is the last reading before automatic compaction. Compacting at a boundary you choose keeps the work coherent; take this one if it fits, update durable records and call the compaction request tool, as the advisory describes (the `continue` flag only when work must resume by itself). Otherwise end this turn without replying, and take the next good boundary.')
}

// ---- debug lines and transcript notices of the state machine ----
export const ADVISORY_INVALID = (raw: string) =>
  `${ADVISORY_OPTION} "${raw}" is not valid (use 50, 50%, 150k, 1.5m or 50%|150k); the default ${describeAdvisory(DEFAULT_ADVISORY)} applies`
export const ADVISORY_IN_FORCE = (raw: string, described: string) => `advisory point ${JSON.stringify(raw)} read as ${described}`
export const THRESHOLDS_LINE = (t: Thresholds) =>
  `compaction window ${t.raw}: advisory ${shareOf(t.advisory, t)}%, milestones ${shareOf(t.m1, t)}% and ${shareOf(t.m2, t)}%, auto compaction ${shareOf(t.hard, t)}%`
export const THRESHOLDS_OFF = 'thresholds off (auto compaction off, or its point not above the advisory point)'
export const DELIVERED = (d: Delivery, crossed: number, fresh: number | undefined, t: Thresholds, modelWindow: number) =>
  `${d.kind === 'advisory' ? 'advisory' : `milestone ${d.which}`} delivered: crossing measured at ${crossed} tokens (${shareOf(crossed, t)}%), ${
    fresh === undefined ? 'fresh read without tokens, so the crossing\'s figure is shown' : `fresh read ${fresh} tokens (${shareOf(fresh, t)}%)`
  }, compaction window ${t.raw} tokens, model window ${modelWindow} tokens`
export const USAGE_NOT_READ = (err: string) => `usage not read for delivery (${err}); the crossing stays recorded`
export const DELIVERY_NOT_SCHEDULED = (err: string) => `the delivery was not scheduled (${err}); the crossing stays recorded`
export const DELIVERY_FAILED = (err: string) => `delivery failed: ${err}`
/** The measurement's deferred task, as the lane names its failure (`<this>: <message>`). */
export const USAGE_OBSERVATION = 'usage observation failed'
export const NOT_SUBMITTED = (why: string) => `a prompt was not submitted (${why})`
export const DELIVERY_RETRY = 'the message was not delivered; it goes at the next main turn end'
export const REQUESTED = (resume: boolean) => `compaction requested; resume: ${resume}`
export const RESUME_CANCELLED = 'a turn started within the resume window; the resume prompt is not submitted'
export const STEP_NOT_RUN = 'the scheduled compaction step did not run; scheduling it again'
export const STEP_NOT_SCHEDULED = (err: string) => `the compaction step was not scheduled (${err}); retrying at the next turn end`
export const REJECTED = (err: string) => `the requested compaction was rejected (${err}); retrying at the next turn end`
export const VETOED = (skip: string, resume: boolean) =>
  `the requested compaction did not run (${skip}); ${resume ? 'a resume prompt follows with a note' : 'no resume was requested, so no turn follows'}`
export const WINDOW_NOT_STARTED = (err: string) => `the resume window was not started (${err}); submitting the resume prompt now`
export const LANDED_FIRST = (trigger: string, resume: boolean) =>
  `a ${trigger} compaction landed first, so the requested compaction is dropped; ${resume ? 'its resume prompt follows at the next turn end' : 'no resume was requested, so no prompt follows'}`
export const END_DROPPED_REQUEST = (reason: string) => `session.end ${reason} dropped a pending compaction request`
export const SETUP_FAILED = (err: string) => `setup failed (${err}); request_compaction not registered`
