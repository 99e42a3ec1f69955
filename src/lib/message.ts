// The one way a caught value becomes the text a log line or a notice carries.

/** An Error's message, anything else as a string. */
export const messageOf = (err: unknown): string => (err instanceof Error ? err.message : String(err))
