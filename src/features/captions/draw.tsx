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
function header(ui: Ui, call: UnitCall, subtitle: string, key?: string) {
  return (
    <ui.Box key={key} flexDirection="row">
      {call.isErrored ? <ui.Text color={ERROR_COLOR}>{MARK_FAILED}</ui.Text> : <ui.Text dimColor>{MARK_OK}</ui.Text>}
      <ui.Box flexShrink={1}>
        <ui.Text wrap="truncate-end">
          <ui.Text dimColor>{displayToolName(call.tool)}</ui.Text>
          {subtitle ? <ui.Text color={SUBTITLE_COLOR}>{'  ' + subtitle}</ui.Text> : null}
        </ui.Text>
      </ui.Box>
    </ui.Box>
  )
}

/** The header rows, then the caption's two lines beside the elbow that joins them to the rows. */
function frame(ui: Ui, width: number | undefined, headers: readonly JSX.Element[], first: JSX.Element, second: JSX.Element): RenderElement {
  const size = width === undefined ? {} : { width }
  return (
    <ui.Box flexDirection="column" {...size} paddingLeft={2} marginTop={1}>
      {[
        ...headers,
        <ui.Box flexDirection="row">
          <ui.Text dimColor>{ELBOW}</ui.Text>
          <ui.Box flexDirection="column" flexShrink={1}>
            {first}
            {second}
          </ui.Box>
        </ui.Box>,
      ]}
    </ui.Box>
  ) as RenderElement
}

export function drawCall(ui: Ui, call: UnitCall, caption: ToolCaption, width: number | undefined): RenderElement {
  return frame(
    ui,
    width,
    [header(ui, call, caption.subtitle)],
    <ui.Text dimColor wrap="wrap">{caption.intention}</ui.Text>,
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
    calls.map((call, i) => header(ui, call, caption.subtitles[i] ?? '', String(i))),
    <ui.Text dimColor wrap="wrap">{caption.summary}</ui.Text>,
    <ui.Text color={SIZE_COLOR}>{runSize(calls.length, caption.bytes)}</ui.Text>,
  )
}

/** A captioned lone call's row already draws its result: the result block draws nothing. */
export function drawEmpty(ui: Ui): RenderElement {
  return (<ui.Box />) as RenderElement
}
