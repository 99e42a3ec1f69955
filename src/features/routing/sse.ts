// Server-sent events (the WHATWG event-stream format) read incrementally from text pieces split
// anywhere, a CRLF included. Only `event` and `data` matter to a one-shot request: `id` and
// `retry` steer reconnection, which routing never does.

export type SseEvent = { readonly event?: string; readonly data: string }

const LF = 10
const CR = 13

export function createSseParser() {
  /** The current line's pieces, joined once the line ends: a long line arriving in many pieces stays linear. */
  let line: string[] = []
  /** The last piece ended in CR: a LF opening the next one belongs to that line end. */
  let afterCr = false
  let started = false
  let data: string[] | undefined
  let event: string | undefined
  let out: SseEvent[] = []

  const dispatch = () => {
    if (data !== undefined) out.push(event === undefined ? { data: data.join('\n') } : { event, data: data.join('\n') })
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

  const take = () => {
    const events = out
    out = []
    return events
  }

  return {
    /** The events this piece completes. */
    push(piece: string): SseEvent[] {
      let from = 0
      if (!started && piece) {
        started = true
        if (piece.startsWith('\uFEFF')) from = 1
      }
      for (let i = from; i < piece.length; i++) {
        const c = piece.charCodeAt(i)
        if (c !== LF && c !== CR) continue
        if (c === LF && afterCr && i === from && line.length === 0) {
          afterCr = false
          from = i + 1
          continue
        }
        line.push(piece.slice(from, i))
        field(line.join(''))
        line = []
        afterCr = c === CR
        from = i + 1
      }
      if (from < piece.length) {
        line.push(piece.slice(from))
        afterCr = false
      }
      return take()
    },
    /** The stream ended: a last line without its line end, and a last event without its blank line, still count. */
    end(): SseEvent[] {
      if (line.length) field(line.join(''))
      line = []
      dispatch()
      return take()
    },
  }
}
