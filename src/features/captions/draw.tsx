// The caption rows, drawn with the surface's own element table (`$.ui.resolve(e)`, passed in as `ui`).
// Every surface has Box and Text, so one tree serves them all.
import type { BoxProps, ElementConstructor, RenderElement, TextProps } from 'claude-code'
import { ERROR_COLOR, SIZE_COLOR, SUBTITLE_COLOR } from './constants.ts'
import { displayToolName } from './digest.ts'
import { ELBOW, kb, MARK_FAILED, MARK_OK, runSize } from './strings.ts'
import type { RunCaption, ToolCaption } from './core.ts'
import type { UnitCall } from './units.ts'

export type Ui = { Box: ElementConstructor<BoxProps>; Text: ElementConstructor<TextProps> }

/** `· <tool>  <subtitle>`: the call's name dim, its target in the subtitle color, cut at the row's end. */
function header({ Box, Text }: Ui, call: UnitCall, subtitle: string, key?: string) {
  return (
    <Box key={key} flexDirection="row">
      {call.isErrored ? <Text color={ERROR_COLOR}>{MARK_FAILED}</Text> : <Text dimColor>{MARK_OK}</Text>}
      <Box flexShrink={1}>
        <Text wrap="truncate-end">
          <Text dimColor>{displayToolName(call.tool)}</Text>
          {subtitle ? <Text color={SUBTITLE_COLOR}>{'  ' + subtitle}</Text> : null}
        </Text>
      </Box>
    </Box>
  )
}

/** The header rows, then beside the elbow that joins them to the rows the caption's text (dim) and its second line. */
function frame({ Box, Text }: Ui, width: number | undefined, headers: readonly JSX.Element[], text: string, second: JSX.Element): RenderElement {
  const size = width === undefined ? {} : { width }
  return (
    <Box flexDirection="column" {...size} paddingLeft={2} marginTop={1}>
      {[
        ...headers,
        <Box flexDirection="row">
          <Text dimColor>{ELBOW}</Text>
          <Box flexDirection="column" flexShrink={1}>
            <Text dimColor wrap="wrap">{text}</Text>
            {second}
          </Box>
        </Box>,
      ]}
    </Box>
  ) as RenderElement
}

export function drawCall(ui: Ui, call: UnitCall, caption: ToolCaption, width: number | undefined): RenderElement {
  return frame(
    ui,
    width,
    [header(ui, call, caption.subtitle)],
    caption.intention,
    <ui.Text wrap="wrap">
      <ui.Text color={SIZE_COLOR}>{kb(caption.bytes)}</ui.Text>
      <ui.Text dimColor>{' · ' + caption.result}</ui.Text>
    </ui.Text>,
  )
}

export function drawRun(ui: Ui, calls: readonly UnitCall[], caption: RunCaption, width: number | undefined): RenderElement {
  return frame(
    ui,
    width,
    // A missing subtitle draws none, as a blank one does.
    calls.map((call, i) => header(ui, call, caption.subtitles[i]!, String(i))),
    caption.summary,
    <ui.Text color={SIZE_COLOR}>{runSize(calls.length, caption.bytes)}</ui.Text>,
  )
}

/** A captioned lone call's row already draws its result: the result block draws nothing. */
export function drawEmpty(ui: Ui): RenderElement {
  return (<ui.Box />) as RenderElement
}
