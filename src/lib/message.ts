// The one way a caught value becomes the text a log line or a notice carries.

/** An Error's message, anything else as a string. */
export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err))

/** A failure's debug line, `<what>: <message>`, written to whatever logs (a feature's context, its edges). */
export const logFailure = (sink: { log(line: string): void }, what: string, err: unknown): void => sink.log(`${what}: ${messageOf(err)}`)

/**
 * Undefined, whatever it is given: `.catch(toUndefined)` makes a failed read unknown, and a result
 * not needed goes with `.then(toUndefined, …)`.
 */
export const toUndefined = (): undefined => undefined
