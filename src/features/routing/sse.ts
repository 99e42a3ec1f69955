// Server-sent events (the WHATWG event-stream format) read incrementally from text pieces split
// anywhere, a CRLF included. Only `event` and `data` matter to a one-shot request: `id` and
// `retry` steer reconnection, which routing never does.

export type SseEvent = { readonly event?: string; readonly data: string }

/** A line end: CRLF, CR or LF. */
const LINE_END = /\r\n|\r|\n/

export function createSseParser() {
  /** The current line's pieces, joined once the line ends: a long line arriving in many pieces stays linear. */
  let line: string[] = []
  /** The last piece ended in CR: a LF opening the next one belongs to that line end. */
  let afterCr = false
  let started = false
  let data: string[] | undefined
  let event: string | undefined
  const out: SseEvent[] = []

  const dispatch = () => {
    if (data !== undefined) out.push({ ...(event !== undefined && { event }), data: data.join('\n') })
    data = undefined
    event = undefined
  }

  const field = (text: string) => {
    if (text === '') return dispatch()
    if (text.startsWith(':')) return
    const colon = text.indexOf(':')
    const name = colon < 0 ? text : text.slice(0, colon)
    const value = colon < 0 ? '' : text.slice(text[colon + 1] === ' ' ? colon + 2 : colon + 1)
    if (name === 'data') (data ??= []).push(value)
    else if (name === 'event') event = value
  }

  const take = () => out.splice(0)

  return {
    /** The events this piece completes. */
    push(piece: string): SseEvent[] {
      // An empty piece changes nothing: a CR before it still pairs with a LF after it.
      if (!piece) return []
      // A BOM opens the stream only; a LF after a piece's closing CR ended that line already.
      const skip = (!started && piece.startsWith('\uFEFF')) || (afterCr && piece.startsWith('\n'))
      started = true
      afterCr = piece.endsWith('\r')
      const [rest = '', ...lines] = piece.slice(skip ? 1 : 0).split(LINE_END)
      line.push(rest)
      // Each line end closes the current line; what follows the last one opens the next.
      for (const next of lines) {
        field(line.join(''))
        line = [next]
      }
      return take()
    },
    /** The stream ended: a last line without its line end, and a last event without its blank line, still count. */
    end(): SseEvent[] {
      field(line.join(''))
      line = []
      dispatch()
      return take()
    },
  }
}
