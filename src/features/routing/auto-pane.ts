// The review pane (issue 20, klyth F20): where a person can see it, a routed call auto mode may pass is
// shown to them first, its exact action escaped, for 8 seconds, with only Allow once and Deny (Esc
// denies). One review at a time; its answer lives only in memory. Drawn from the surface's element
// table, opened and drawn as the setup pane is (pane.ts, bind.ts).
import type { PaneElements } from './pane.ts'
import { toUndefined } from '../../lib/message.ts'
import type { RoutingPort } from './bind.ts'
import { REVIEW_BUDGET_MS, REVIEW_COLUMNS, REVIEW_PANE, REVIEW_PANE_ROWS, REVIEW_ROWS, REVIEW_SECONDS } from './constants.ts'
import { REVIEW_ALLOW, REVIEW_DENY, REVIEW_HELP, REVIEW_TITLE } from './strings.ts'

/** Allow once; why not (Deny, Esc, no pane placed, another review up, too little of the hook's budget, the turn interrupted; too large to show); undefined: 8 s unanswered, it lapsed. */
export type ReviewAnswer = 'allow' | 'denied' | 'large' | undefined
export type ReviewPort = Pick<RoutingPort, 'openPane' | 'closePane' | 'paneShown' | 'redraw' | 'every'>

/**
 * The action as the pane shows it, every control, format and line-separator character but the layout's
 * newlines written `\uXXXX` (nothing can hide or reorder what is read); undefined when it would not fit
 * the pane whole (what is approved must be seen whole).
 */
export function reviewText(action: object): string | undefined {
  const text = JSON.stringify(action, null, 2).replace(/(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  return text.split('\n').reduce((rows, line) => rows + Math.ceil((line.length + 1) / REVIEW_COLUMNS), 0) > REVIEW_ROWS ? undefined : text
}

export function createReview() {
  let view: { readonly text: string; seconds: number; settle(answer: ReviewAnswer): void } | undefined
  return {
    async ask(port: ReviewPort, action: object, hook: { readonly budget: { readonly remainingMs: number }; readonly signal: AbortSignal }): Promise<ReviewAnswer> {
      const text = reviewText(action)
      if (!text) return 'large'
      // The wait is the hook's own time (routing NOTES §3): 8 s must fit what is left of its 10.
      if (view || hook.budget.remainingMs < REVIEW_BUDGET_MS) return 'denied'
      let settle!: (answer: ReviewAnswer) => void
      const answered = new Promise<ReviewAnswer>((resolve) => (settle = resolve))
      const shown = (view = { text, seconds: REVIEW_SECONDS, settle })
      hook.signal.addEventListener('abort', () => settle('denied'))
      let stop: () => void = toUndefined
      try {
        // Once the pane is up, each second the count drawn again and Esc (the pane closed by the person) heard as Deny; at 0 it lapses.
        if (await port.openPane({ id: REVIEW_PANE, title: REVIEW_TITLE, rows: REVIEW_PANE_ROWS })) stop = port.every(1000, () => {
          if (!--shown.seconds) settle(undefined)
          port.redraw()
          port.paneShown(REVIEW_PANE).then((up) => up || settle('denied'), () => settle('denied'))
        })
        else settle('denied')
        return await answered
      } finally {
        // (A close that fails fails the hook: the engine's answer stands.)
        stop()
        view = undefined
        await port.closePane(REVIEW_PANE)
      }
    },
    /** The pane: the count, what each answer does, the action, the two buttons; undefined when no review is up. */
    draw(els: PaneElements) {
      const v = view
      return v && els.Box({
        flexDirection: 'column',
        children: [
          els.Text({ bold: true, children: `${REVIEW_TITLE}: ${v.seconds}s` }),
          els.Text({ children: REVIEW_HELP }),
          els.Text({ children: v.text }),
          els.Box({ children: [els.Button({ key: 'allow-once', label: REVIEW_ALLOW, onPress: () => v.settle('allow') }), els.Button({ key: 'deny', label: REVIEW_DENY, onPress: () => v.settle('denied') })] }),
        ],
      })
    },
  }
}
