// Every number and fixed name the captions feature uses, each with the reason it has that value.

// Options (userConfig fields) the feature reads; the switch is the feature's own name.
export const MODEL_OPTION = 'captionsModel'
export const STYLE_OPTION = 'captionsStyle'
export const CONTEXT_TOKENS_OPTION = 'captionsContextTokens'
export const LANGUAGE_OPTION = 'captionsLanguage'

/** How often the queue is sent: long enough that a burst of calls lands in one request. */
export const FLUSH_MS = 1500
/** Calls per request: a unit is never split, so one unit may exceed it and go alone. */
export const BATCH_CALLS = 24
/** A lone call's input and output clip: enough to caption, cheap to send. */
export const FIELD_CAP = 3000
/** A run's per-call clip: a run's caption is one summary, so each call needs less. */
export const RUN_FIELD_CAP = 1200
/** History text and thinking blocks: the why of a call lives in prose. */
export const TEXT_CAP = 4000
/** History tool_use and tool_result blocks: the mirror needs their gist, not their bulk. */
export const TRAFFIC_CAP = 600
/** Captured calls kept (oldest evicted first): a unit is drawn soon after its call ends. */
export const CAPTURED_LIMIT = 400
/** Past this share of the window the mirror's pivot jumps forward ... */
export const PIVOT_HIGH = 0.7
/** ... to keep this share: the cached prefix breaks once per jump, not at every flush. */
export const PIVOT_LOW = 0.35
/** The caption call's bound: a stuck call must not hold the queue. */
export const TIMEOUT_MS = 30_000
/** Tokens per character before any reply has measured it (a cautious guess: 2 chars a token). */
export const INITIAL_TOKENS_PER_CHAR = 0.5
/** Output budget per unit and per call: a lone caption is ~3 short fields, a run adds a subtitle a call. */
export const TOKENS_PER_UNIT = 300
export const TOKENS_PER_CALL = 40
/** A subtitle is one glance: at most this many characters, cut in the middle. */
export const SUBTITLE_CAP = 60
/** Input fields that name a call's target, in the order a subtitle prefers them. */
export const TARGET_FIELDS = ['file_path', 'notebook_path', 'path', 'command', 'pattern', 'url', 'query', 'description'] as const
/** The size figure's color: it reads apart from the dim caption text. */
export const SIZE_COLOR = 'cyan'
/** The subtitle's color: the target is what the eye looks for. */
export const SUBTITLE_COLOR = 'suggestion'
/** A failed call's marker color. */
export const ERROR_COLOR = 'error'
