// Units: what one caption covers. A lone call (a ToolUse row, or a group of one) or a finished run
// the engine folded into one ToolGroup. Each unit costs one caption; a run is never captioned call
// by call as well. A row that is running, expanded or live draws raw and makes no unit.
import type { RenderPropsOf } from 'claude-code'
import { isString } from '../../lib/shape.ts'

export type UnitCall = { id: string; tool: string; input: unknown; isErrored: boolean }
/** `key`: the lone call's id, or a run's ids joined with ','. */
export type Unit = { key: string; calls: readonly UnitCall[] }

type DrawnCall = { tool_use_id?: string; tool: string; input: unknown; isRunning: boolean; isErrored: boolean; isInterrupted: boolean; output?: unknown }

/** A row is drawn before its call runs (input streaming, a permission prompt): that is not resolved. */
export const isResolved = (call: Pick<DrawnCall, 'isRunning' | 'output'>): boolean => !call.isRunning && call.output !== undefined

export const isRun = (unit: Unit): boolean => unit.calls.length > 1

/** A group's call ids are checked (groupUnit) before its unit is returned. */
const unitCall = (call: DrawnCall): UnitCall => ({
  id: call.tool_use_id as string,
  tool: call.tool,
  input: call.input,
  isErrored: call.isErrored || call.isInterrupted,
})

export function groupUnit(props: RenderPropsOf['ToolGroup']): Unit | undefined {
  const calls = props.calls.map(unitCall)
  if (props.isExpanded || props.isActive || !calls.length) return
  // Not calls only: other rows (recalled memory, hook timing) unless the reason is a failed call.
  if (props.isCallsOnly === false && !calls.some((c) => c.isErrored)) return
  if (!props.calls.every((c) => isString(c.tool_use_id) && isResolved(c))) return
  return { key: calls.map((c) => c.id).join(','), calls }
}

/** A ToolUse row is a group of one call. */
export function toolUseUnit(props: RenderPropsOf['ToolUse']): Unit | undefined {
  return groupUnit({ calls: [props], isActive: false, isExpanded: props.isExpanded } as RenderPropsOf['ToolGroup'])
}
