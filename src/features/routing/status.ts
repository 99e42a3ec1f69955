// What `/<pkg> status` and `/<pkg> route status` say of routing (§3.8): the config and its errors,
// each provider (approved or not, where its key comes from and how its last read went, never the
// key), each alias, main's model, this session's counts and last failure, and curl.
import type { ConfigRead, Provider } from './config.ts'
import { dialectOf, familyOf } from './dialect.ts'
import type { KeyState } from './keys.ts'
import { sourceOfKey } from './requests.ts'
import {
  aliasLine, configErrorLine, configLoaded, configMissing, configUnreadable, configWarningLine, countsLine, curlLine, curlNotChecked,
  curlProblemLine, lastFailureLine, mainLine, presetLine, providerLine,
} from './strings.ts'

/** curl as the first routed request found it. */
export type CurlFacts = { readonly argv: readonly string[]; readonly path: string; readonly version: string; readonly mode: 'json' | 'file' } | { readonly problem: string }

export type RoutingStatusFacts = {
  readonly configPath: string
  readonly read: ConfigRead
  readonly approvals: Readonly<Record<string, boolean>>
  keyState(provider: Provider): KeyState
  readonly main: { readonly model: string; readonly routedTo: string | undefined } | undefined
  readonly counts: { readonly steps: number; readonly requests: number; readonly failures: number }
  /** Auto mode's line: its classifier, passes and refusals. */
  readonly auto: string
  readonly lastFailure: string | undefined
  readonly curl: CurlFacts | undefined
  readonly curlPath: string
}

export function routingStatus(f: RoutingStatusFacts): string[] {
  const { read, curl } = f
  const lines: string[] = []
  if (read.state === 'missing') lines.push(configMissing(f.configPath))
  else if (read.state === 'unreadable') lines.push(configUnreadable(f.configPath, read.error))
  else {
    const { config, errors, warnings } = read
    lines.push(configLoaded(f.configPath, Object.keys(config.providers).length, Object.keys(config.models).length, errors.length), ...errors.map(configErrorLine), ...warnings.map(configWarningLine))
    for (const p of Object.values(config.providers)) {
      lines.push(providerLine(p.id, p.api, p.baseUrl, f.approvals[p.id] ?? false, sourceOfKey(p.auth).replace(/^key /, ''), f.keyState(p)), presetLine(p.preset, familyOf(p)))
    }
    // A loaded alias's provider is loaded too (readConfig drops an alias whose provider is not).
    for (const m of Object.values(config.models)) lines.push(aliasLine(m.alias, m.label, m.providerId, m.model, m.context, [...dialectOf(config.providers[m.providerId]!, m.model).behaviours]))
  }
  if (f.main) lines.push(mainLine(f.main.model, f.main.routedTo))
  lines.push(countsLine(f.counts.steps, f.counts.requests, f.counts.failures), f.auto)
  if (f.lastFailure) lines.push(lastFailureLine(f.lastFailure))
  lines.push(!curl ? curlNotChecked(f.curlPath) : 'problem' in curl ? curlProblemLine(curl.problem) : curlLine(curl.path, curl.version, curl.mode === 'json'))
  return lines
}
