// Every number and fixed name the routing feature uses, each with the reason it has that value.

/** No byte from the provider for this long stops the stream: a stalled provider must not hold a turn forever. */
export const IDLE_TIMEOUT_MS = 120_000
/** Retries before any output (429, 5xx, curl 7 and 52): enough for a blip, few enough to stay inside a hook's budget. */
export const RETRY_LIMIT = 2
/** The first retry's wait when the provider names none; each further retry doubles it. */
export const RETRY_BASE_DELAY_MS = 500
/** The longest `retry-after` honoured: a hook's own time is 10 s, and a longer wait is better told than slept. */
export const RETRY_AFTER_CAP_MS = 4_000
/** Budget kept back after a retry's sleep, so the retried request still has time to start. */
export const RETRY_BUDGET_RESERVE_MS = 1_000
/** One `json = "…"` line's escaped UTF-8: curl refuses a config line of 200 000 characters; 64 KiB is far below it. */
export const JSON_PIECE_BYTES = 64 * 1024
/** A key is kept in module memory this long, so a key command does not run for every step. */
export const KEY_CACHE_MS = 10 * 60_000
/** A key command that runs longer is stopped and the step fails visibly. */
export const HELPER_TIMEOUT_MS = 10_000
/** The engine's own request reaches `http.fetch` in 15–67 ms; none within this means it never will (Bedrock, Vertex, a guard). */
export const CAPTURE_TIMEOUT_MS = 5_000
/** The status a routed failure that carries no provider status (curl, a stall, a broken stream) goes back to the engine with: a bad gateway. */
export const GATEWAY_FAILED = 502

/** The transport, absolute so a project's PATH cannot slip in another curl (§3.3); `-K -` reads the config from stdin. */
export const CURL_PATH = '/usr/bin/curl'
export const CURL_ARGS = ['-q', '-sS', '-N', '-i', '-K', '-'] as const
/** curl joins repeated `json` pieces from this version on; older curls send the body from a file. */
export const CURL_JSON_SINCE = { major: 7, minor: 82 } as const
/** `printenv` by absolute path: `$.env.get` takes literal names only, so `{env}` auth runs it as a key command. */
export const PRINTENV_PATH = '/usr/bin/printenv'

/** Secrets shorter than this are not searched for in texts: they would redact common words. */
export const MIN_SECRET_LENGTH = 8
/** What a secret reads as in any text keel shows. */
export const REDACTED = '[redacted]'

/** The `$.store` key of a session's replay records (replay.ts), by its id. */
export const REPLAY_KEY_PREFIX = 'route:replay:'
/** The `$.store` key prefix of a provider's approval (§3.5). */
export const TRUST_KEY_PREFIX = 'route:trust:'
/** Minted tool-use ids: valid Anthropic ids, so the conversation survives a switch back to Claude. */
export const TOOL_ID_PREFIX = 'toolu_keel_'
/** Random bytes in a minted id: unique across sessions that share a transcript folder. */
export const TOOL_ID_RANDOM_BYTES = 8

/** The local `count_tokens` estimate: characters per token, the usual rule of thumb for English and code. */
export const CHARS_PER_TOKEN = 4
/** An image counts as this many tokens in the estimate: its base64 length says nothing about its cost. */
export const IMAGE_TOKEN_ESTIMATE = 1_600

/** The engine's billing system block, which no provider must see. */
export const BILLING_HEADER_PREFIX = 'x-anthropic-billing-header'
/** Identity lines the engine adds to the system prompt; a routed model is not a Claude agent. */
export const ENGINE_IDENTITY_LINES: readonly string[] = [
  "You are a Claude agent, built on Anthropic's Claude Agent SDK.",
  "You are Claude Code, Anthropic's official CLI for Claude.",
]
/**
 * The environment reminder naming the engine's model: the sentence, and the `The exact model ID is …`
 * sentence when it follows. A model name may hold dots (`Opus 5.5`), so a sentence ends at a dot
 * followed by a space or the line's end.
 */
export const POWERED_BY_PATTERN = /You are powered by the model\b.*?\.(?=\s|$)(?: The exact model ID is .*?\.(?=\s|$))?/gm
/** A tool the engine declares for its own bookkeeping; no provider can call it. */
export const DEFERRED_PLACEHOLDER_TOOL = 'DeferredToolPlaceholder'
/** The name of Anthropic's own server-side search, the only tool of WebSearch's inner request (NOTES §13.2). */
export const WEB_SEARCH_TOOL = 'web_search'

/** An alias is an engine model name (§3.5): short, lower-case, no spaces. */
export const ALIAS_PATTERN = /^[a-z0-9][a-z0-9._:-]{0,63}$/
/** Claude's own aliases: an alias with one of these names would take Claude's traffic. */
export const CLAUDE_ALIASES: readonly string[] = 'opus sonnet haiku fable best default opusplan'.split(' ')
export const CLAUDE_ID_PREFIX = 'claude-'
/** A provider id is typed in `/<pkg> route trust <id>`: one word. */
export const PROVIDER_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/
/** An HTTP header name (RFC 9110 token). */
export const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/
/** Headers keel itself sets to frame the request; a provider's `headers` may not replace them. */
export const FRAMING_HEADERS: readonly string[] = 'content-type content-length accept expect host transfer-encoding connection'.split(' ')
/** Loopback hosts, where plain http never leaves the machine. */
export const LOOPBACK_HOSTS: readonly string[] = ['localhost', '[::1]']
export const LOOPBACK_V4_PATTERN = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/

/** Text blocks folded into one message read as paragraphs. */
export const BLOCK_SEPARATOR = '\n\n'

/** The longest provider message a failure line quotes: one line of the status, not a page. */
export const MESSAGE_CAP = 300
/** The longest piece of an unreadable stream event a failure line quotes: enough to recognise it. */
export const SAMPLE_CAP = 80

/** The OpenAI-compatible path under a provider's documented base URL, which ends in its version (`…/v1`). */
export const OPENAI_CHAT_PATH = '/chat/completions'
/** The Responses API's path under the same base URL. */
export const RESPONSES_PATH = '/responses'
/** The Anthropic-compatible path under an `ANTHROPIC_BASE_URL`-style base (no version in it). */
export const ANTHROPIC_MESSAGES_PATH = '/v1/messages'
/** Sent when the engine's request names none; every Anthropic-compatible endpoint takes it. */
export const ANTHROPIC_VERSION = '2023-06-01'
/** Engine request headers a redirected request keeps: the API version and the body's framing. */
export const REDIRECT_KEPT_HEADERS: readonly string[] = ['anthropic-version', 'content-type', 'accept']
/** Body fields a redirect drops: `metadata` holds the device and session ids; `context_management` needs the dropped beta header. */
export const REDIRECT_DROPPED_FIELDS: readonly string[] = ['metadata', 'context_management']

/** The name OpenAI's `response_format.json_schema` requires; the engine's format carries none. */
export const STRUCTURED_OUTPUT_NAME = 'answer'

/** Gemini's documented stand-in for the thought signature of a call its model did not make (RULES.md G2). */
export const SKIP_SIGNATURE = { extra_content: { google: { thought_signature: 'skip_thought_signature_validator' } } }

/** keel's home's folder of usage files, one a session (usage.ts). */
export const USAGE_DIR = 'usage'
/** The sessions the usage folder keeps (those whose transcript is gone go first), and the days the long view covers. */
export const USAGE_SESSIONS_KEPT = 200
export const USAGE_DAYS = 30

/** Auto mode (auto.ts): routed calls remembered until their check (a step's calls are checked at once; a bound, not a window). */
export const AUTO_ROUTED_KEPT = 256
/** The person's latest prompts the classifier reads, each cut to this many characters (its request stays small). */
export const AUTO_PROMPTS_KEPT = 5
export const AUTO_PROMPT_CHARS = 4000
/** The nonce around the classifier's quoted data: 128 bits, so no data can guess it. */
export const CLASSIFIER_NONCE_BYTES = 16
/** The classifier's reply is one short JSON verdict. */
export const CLASSIFIER_MAX_TOKENS = 300
/** How long a classifier answer is waited for before the call stays refused. */
export const CLASSIFIER_TIMEOUT_MS = 60_000
/** The panes' ids (`$.ui.open`): one per engine, and routing acts in one package of a session. */
export const SETUP_PANE = 'routing-setup'
export const USAGE_PANE = 'routing-usage'
/** A pane's body rows: the setup form's eight and the longest answer setup gives (its four steps, wrapped); the usage view's two headings and its aliases' lines fit too. */
export const PANE_ROWS = 20
/** The review pane (auto-pane.ts, klyth F20): its id, the seconds a person has, and the rows and columns its action may fill (it is shown whole or not at all; the pane sits beside the transcript from 144 columns). */
export const REVIEW_PANE = 'routing-review'
export const REVIEW_SECONDS = 8
export const REVIEW_ROWS = 16
/** The pane's body rows: the action's, the count, what the answers do (four lines wrapped), the buttons. */
export const REVIEW_PANE_ROWS = 24
export const REVIEW_COLUMNS = 60
/** The hook's budget a review needs: its 10 s run on through the 8 s wait (routing NOTES §3), and the classifier after a lapse is a `$` call, free. */
export const REVIEW_BUDGET_MS = 9_500
