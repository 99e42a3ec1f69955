// Tool-call captions (wsflow spec §6): a finished tool row drawn as a short caption a second, cheap
// model call wrote. Display only: the model reads the raw result, and the expanded view, a running
// call and the live group draw raw. This file binds the core's edges to the port; nothing else.
import type { Feature } from '../../registry.ts'
import type { CaptionsPort as Port } from './bind.ts'
import { createCaptions, settingsOf } from './core.ts'
import { drawCall, drawEmpty, drawRun } from './draw.tsx'
import { STATUS_COUNTS, STATUS_SETTINGS } from './strings.ts'
import { groupUnit, isRun, toolUseUnit } from './units.ts'

export function createCaptionsFeature(): Feature<Port> {
  // Per registration: a reload starts it over, and a drawn unit is asked once more.
  const captions = createCaptions()
  return {
  name: 'captions',
  // Two packages captioning the same rows would double the model calls and fight over the drawing.
  sessionActing: true,
  // The rows it captions: a call, a group of calls, a result.
  draws: ['ToolUse', 'ToolGroup', 'ToolResult'],
  hooks: {
    'session.start': (port, e, next, ctx) => {
      const { settings, problems } = settingsOf(ctx.options, ctx.defaults)
      problems.forEach(ctx.log)
      // The core's edges are the port's own (arrows over `$`, bind.ts) and the feature's debug line.
      captions.start({ ...port, log: ctx.log }, settings)
      return next(e)
    },
    // Outside the rewrite hooks beneath, so what is captured is the result the lead reads.
    'tool.call': async (_port, e, next) => {
      const res = await next(e)
      captions.captured(e, res)
      return res
    },
    'session.compact': async (_port, e, next) => {
      const res = await next(e)
      captions.compacted(e.trigger, e.agentId, res)
      return res
    },
    'session.end': (_port, e, next) => {
      captions.end()
      return next(e)
    },
    // The row hooks never wait on the model: a unit with no caption draws raw and is queued.
    'ui.render': (port, e, next) => {
      // Only a lone call's caption draws its result; an expanded or failed result draws raw.
      if (e.component === 'ToolResult') return e.props.isExpanded || e.props.isErrored || !captions.toolCaption(e.props.tool_use_id) ? next(e) : drawEmpty(port.elements(e))
      const unit = e.component === 'ToolGroup' ? groupUnit(e.props) : e.component === 'ToolUse' ? toolUseUnit(e.props) : undefined
      if (!unit) return next(e)
      // A ToolUse row, or a group of one, is a lone call: its key is the call's id.
      const caption = isRun(unit) ? captions.runCaption(unit.key) : captions.toolCaption(unit.key)
      if (!caption) {
        captions.request(unit)
        return next(e)
      }
      const ui = port.elements(e)
      const columns = e.viewport?.columns
      return 'summary' in caption ? drawRun(ui, unit.calls, caption, columns) : drawCall(ui, unit.calls[0]!, caption, columns)
    },
  },
  status(_port, ctx) {
    const { settings, problems } = settingsOf(ctx.options, ctx.defaults)
    return [STATUS_SETTINGS(settings), STATUS_COUNTS(captions.stats()), ...problems]
  },
  }
}
