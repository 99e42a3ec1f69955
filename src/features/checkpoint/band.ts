// The heads-up band above the prompt (spec B.11): its words, and Now and Snooze. Pure: it builds
// the tree from the surface's element table, whichever surface asks.
import { BAND_AUTO, BAND_CLICK_ONLY, BUTTON_NOW, BUTTON_SNOOZE } from './strings.ts'
import { CLICK_ONLY_MODE } from './constants.ts'

type Element = unknown
/** The three constructors of `$.ui.resolve(e)` the band draws with, as every surface has them. */
export type BandElements = {
  Box(props: { children?: unknown }): Element
  Text(props: { dimColor?: boolean; children?: unknown }): Element
  Button(props: { key?: string; label?: string; onPress: () => void }): Element
}

export function bandTree(els: BandElements, mode: string | undefined, onNow: () => void, onSnooze: () => void): Element {
  return els.Box({
    children: [
      // Every mode but click-only is the automatic one's band (B.11).
      els.Text({ dimColor: true, children: mode === CLICK_ONLY_MODE ? BAND_CLICK_ONLY : BAND_AUTO }),
      els.Button({ key: 'now', label: BUTTON_NOW, onPress: onNow }),
      els.Button({ key: 'snooze', label: BUTTON_SNOOZE, onPress: onSnooze }),
    ],
  })
}
