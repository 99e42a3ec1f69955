// Every feature of the bundle, outermost first: the order their hooks nest in one dispatch.
import type { Feature } from '../registry.ts'
import { captionsFeature } from './captions/index.ts'
import { checkpoint } from './checkpoint/index.ts'
import { reconnectFeature } from './reconnect/index.ts'
import { timingFeature } from './timing/index.ts'
import { window } from './window/index.ts'

export const FEATURES: readonly Feature[] = [
  // Outermost: its tool.call capture sees the result the lead reads, after every rewrite beneath.
  captionsFeature,
  // Steers compactions, saves notes, draws its band: nothing it does depends on a feature beneath it.
  checkpoint,
  // Writes the harness window at session start; no other hook.
  window,
  // Wake prompts and the request_compaction lever: answers only its own tool's calls.
  timingFeature,
  // Answers only its own tool's calls: innermost, so the features above see its answer.
  reconnectFeature,
]
