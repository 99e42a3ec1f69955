// When the automatic checkpoint runs, shows its band, or records why it did not (spec B.3, B.4). Pure.
import type { Options } from '../../runtime/options.ts'
import {
  AUTO_MODE, DESKTOP_ENTRYPOINTS, DESKTOP_SURFACE, HEADS_UP_TOKENS, MIN_TRIGGER_TOKENS, OFF_MODE, SNOOZE_STEP_TOKENS,
} from './constants.ts'

export type Settings = { thresholdTokens: number; allowanceTokens: number; mode: string }

/** What the harness says about its own compaction: `context.breakdown` of a summary usage read. */
export type Breakdown = { autoCompactThreshold?: number; isAutoCompactEnabled?: boolean }

/**
 * The feature's settings from the package's options. The runtime hands every field in, checked
 * against its rule (src/runtime/options.ts: a whole number within its bounds, a value of its
 * picker; a bad or missing one is its default), so nothing is checked again here.
 */
export const settingsFrom = (options: Options): Settings => ({
  thresholdTokens: options.autoCheckpointTokens as number,
  allowanceTokens: options.autoCheckpointAllowance as number,
  mode: options.autoCheckpointMode as string,
})

/** Why the trigger has the value it has: the owner's threshold, the harness's less the allowance, or the floor. */
export type TriggerSource = 'threshold' | 'harness' | 'floor'

export function triggerOf(settings: Settings, bd: Breakdown | undefined): { tokens: number; source: TriggerSource } {
  const harness = bd?.isAutoCompactEnabled && Number.isFinite(bd.autoCompactThreshold)
    ? bd.autoCompactThreshold! - settings.allowanceTokens
    : Infinity
  const below = Math.min(settings.thresholdTokens, harness)
  return below < MIN_TRIGGER_TOKENS
    ? { tokens: MIN_TRIGGER_TOKENS, source: 'floor' }
    : { tokens: below, source: harness < settings.thresholdTokens ? 'harness' : 'threshold' }
}

/** The desktop app started this session, and it is not a `-p` builder a launcher spawned. */
export function isDesktopStarted(entrypoint: string | undefined, child: string | undefined): boolean {
  return DESKTOP_ENTRYPOINTS.includes(entrypoint!) && !child
}

export function isAttended(isInteractive: boolean, desktopStarted: boolean, surfaces: readonly string[] | null): boolean {
  return isInteractive || desktopStarted || (Array.isArray(surfaces) && surfaces.includes(DESKTOP_SURFACE))
}

export type Reason = 'off' | 'headless' | 'running' | 'below-heads-up' | 'snoozed' | 'click-only' | 'busy' | 'below-trigger' | 'fire'

export type DecideInput = {
  tokens: number
  trigger: number
  mode: string
  isIdle: boolean
  isAttended: boolean
  isRunning: boolean
  snoozeUntilTokens: number | null
}

export type Decision = { showBand: boolean; fire: boolean; reason: Reason }

/** B.4.3: the first row that matches wins; its band, and its reason. Past every row, the checkpoint fires. */
export function decide({ tokens, trigger, mode, isIdle, isAttended: attended, isRunning, snoozeUntilTokens }: DecideInput): Decision {
  const snoozedUntil = snoozeUntilTokens ?? 0
  const rows: readonly [matches: boolean, showBand: boolean, reason: Reason][] = [
    [mode === OFF_MODE, false, 'off'],
    [!attended, false, 'headless'],
    [isRunning, false, 'running'],
    [tokens < trigger - HEADS_UP_TOKENS, false, 'below-heads-up'],
    // Every mode but auto and off is band-only; a snooze hides its band.
    [mode !== AUTO_MODE && tokens < snoozedUntil, false, 'snoozed'],
    [mode !== AUTO_MODE, true, 'click-only'],
    [!isIdle, true, 'busy'],
    [tokens < trigger, true, 'below-trigger'],
    // In auto mode a snooze keeps the band up, so Now stays one press away.
    [tokens < snoozedUntil, true, 'snoozed'],
  ]
  const [, showBand, reason] = rows.find(([matches]) => matches) ?? [true, true, 'fire']
  return { showBand, fire: reason === 'fire', reason }
}

/** A skip record's key: its reason and its side of the trigger. */
export const sideKey = (reason: string, tokens: number, trigger: number) => `${reason}:${tokens >= trigger ? 'past' : 'near'}`

/** The key a skip record is written under, once per change: none when the checkpoint fires, or below the band's reach. */
export function skipKey(decision: Decision, tokens: number, trigger: number): string | null {
  return decision.fire || tokens < trigger - HEADS_UP_TOKENS ? null : sideKey(decision.reason, tokens, trigger)
}

export const snooze = (tokens: number) => tokens + SNOOZE_STEP_TOKENS

/** One snooze step past the fill, but never beyond the middle of the headroom before the harness compacts. */
export function rearmAt(fill: number, harnessAt?: number): number {
  return fill + (harnessAt! > fill ? Math.min(SNOOZE_STEP_TOKENS, Math.max(1, Math.floor((harnessAt! - fill) / 2))) : SNOOZE_STEP_TOKENS)
}

/** The snooze after a compaction or a checkpoint that ended: none below the trigger, which governs alone there. */
export function rearmTo(tokens: number, trigger: number, bd: Breakdown | undefined): number | null {
  return tokens < trigger ? null : rearmAt(tokens, bd?.isAutoCompactEnabled ? bd.autoCompactThreshold : undefined)
}

export function notesChanged(before: string | null, after: string | null | undefined): boolean {
  // Notes there are (a text never empty), and not the ones before.
  return !!after && after !== before
}

/**
 * `auto` carries on by itself mid-turn; `precompute` installs nothing yet; a `plugin` compaction
 * resumes only when it is the checkpoint's own (`isOwn`): another feature's (the timing lever's)
 * says itself whether a prompt follows it.
 */
export function resumesAfter(trigger: string, isOwn: boolean): boolean {
  return trigger === 'manual' || (trigger === 'plugin' && isOwn)
}
