// Every feature of the bundle, outermost first: the order their hooks nest in one dispatch. Each is
// a factory, called once per registration, so a reload starts every feature's state over. Its `$`
// binder is listed in bind.ts under the same name.
import type { FeatureFactory } from '../registry.ts'
import { createCaptionsFeature } from './captions/index.ts'
import { createCheckpointFeature } from './checkpoint/index.ts'
import { createManualFeature } from './manual/index.ts'
import { createMailboxFeature } from './mailbox/index.ts'
import { createReconnectFeature } from './reconnect/index.ts'
import { createRoutingFeature } from './routing/index.ts'
import { createTimingFeature } from './timing/index.ts'
import { createWindowFeature } from './window/index.ts'

export const FEATURES: readonly FeatureFactory[] = [
  // Outermost of all: a routed step or request is answered here, and nothing beneath sees it as
  // Claude's; every other passes through untouched (captions then sees the routed calls' results too).
  createRoutingFeature,
  // Outermost: its tool.call capture sees the result the lead reads, after every rewrite beneath.
  createCaptionsFeature,
  // Adds its section to the main prompt and answers a Read of what the model already has with a
  // pointer, after the tool ran: beneath captions, which then captions what the model reads.
  createManualFeature,
  // Steers compactions, saves notes, draws its band: nothing it does depends on a feature beneath it.
  createCheckpointFeature,
  // Writes the harness window at session start; no other hook.
  createWindowFeature,
  // Cross-session mail: answers only its own tool's calls; a spooled batch joins the running turn after
  // any other tool call, its result computed beneath (timing's and reconnect's own tools included).
  createMailboxFeature,
  // Wake prompts and the request_compaction lever: answers only its own tool's calls.
  createTimingFeature,
  // Answers only its own tool's calls: innermost, so the features above see its answer.
  createReconnectFeature,
]
