// routing's panes, drawn from the surface's element table, whichever surface asks: the usage view's
// lines (issue 19 part 1), and the setup pane (part 3, klyth F24): the line's fields as a form. A pick or a keystroke only keeps the field; Set up (or Enter
// in a field) hands the fields to the same setup as the line, and the pane shows what it said: the
// bad fields named, or the steps. Pure: the feature keeps the fields and draws again.
import { PRESETS } from './dialect.ts'
import { OTHER_KINDS, type SetupFields } from './setup.ts'
import { PANE_FIELDS, PANE_SET_UP } from './strings.ts'

type Element = unknown
/** The constructors of `$.ui.resolve(e)` the pane draws with (the terminal's and the desktop's have them). */
export type PaneElements = {
  Box(props: { flexDirection?: 'column'; children?: unknown }): Element
  Text(props: { bold?: true; children?: unknown }): Element
  Input(props: { key: string; label?: string; placeholder?: string; value?: string; autoFocus?: true; onInput: (value: string) => void; onSubmit: (value: string) => void }): Element
  Select(props: { key: string; label?: string; value?: string; options: readonly { value: string }[]; onSelect: (value: string) => void }): Element
  Button(props: { key: string; label: string; onPress: () => void }): Element
}

/** What the form's first field picks from: every preset, then the other kinds. */
export const SETUP_KINDS = [...Object.keys(PRESETS), ...Object.keys(OTHER_KINDS)]

/** The form: the kind picked from SETUP_KINDS, each text field with its hint (a preset's base URL for its own), Set up, and what setup said. */
export function paneTree(els: PaneElements, fields: SetupFields, said: string, redraw: () => void, submit: () => void): Element {
  /** A pick or a keystroke kept in its field, then `then` (a redraw, a submit). */
  const keep = (name: keyof SetupFields, then?: () => void) => (value: string) => {
    fields[name] = value
    then?.()
  }
  return els.Box({
    flexDirection: 'column',
    children: [
      els.Select({ key: 'kind', label: PANE_FIELDS.kind[0], value: fields.kind, options: SETUP_KINDS.map((value) => ({ value })), onSelect: keep('kind', redraw) }),
      ...(['alias', 'model', 'baseUrl', 'context', 'key'] as const).map((name) =>
        els.Input({ key: name, label: PANE_FIELDS[name][0], placeholder: (name === 'baseUrl' && PRESETS[fields.kind]?.baseUrl) || PANE_FIELDS[name][1], value: fields[name] ?? '', onInput: keep(name), onSubmit: keep(name, submit) }),
      ),
      els.Button({ key: 'setup', label: PANE_SET_UP, onPress: submit }),
      els.Text({ children: said }),
    ],
  })
}

/** A text view's own lines (the usage view), a Text each: the pane shows what the text answer says. */
export const linesTree = (els: PaneElements, lines: readonly string[]): Element => els.Box({ flexDirection: 'column', children: lines.map((children) => els.Text({ children })) })
