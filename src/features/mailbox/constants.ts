// The mailbox's constants: one home each, with the reason.

/** The tool the model sends with; the person's command is `/<pkg> mail <key> <text>`. */
export const TOOL_NAME = 'mailbox_send'

/** The option that says whether keel names a session whose engine name is derived (`auto`) or leaves it (`off`). */
export const NAMING_OPTION = 'mailboxNaming'
export type Naming = 'auto' | 'off'
export const NAMING_DEFAULT: Naming = 'auto'

/** The option for the retention period in days (`RETENTION_DAYS_DEFAULT`). */
export const RETENTION_OPTION = 'mailboxRetentionDays'

/** The option for the idle scan interval in seconds; 0 turns the idle scan off (start and turn ends still scan). */
export const SCAN_OPTION = 'mailboxScanSeconds'
/** 60 s: a spool poll at this rate costs no measurable CPU (NOTES §8: 250 ms per 20 s idle, as with no poll). */
export const SCAN_SECONDS_DEFAULT = 60

/**
 * 7 days: mail to a session that has not started for a week is most likely mail to a track of work
 * that is over; keeping it longer only grows a prompt nobody asked for at a far later resume.
 */
export const RETENTION_DAYS_DEFAULT = 7
export const DAY_MS = 86_400_000

/**
 * A dropped mail (its `.dropped` file still holds the text, so a person can read it) is removed one
 * more retention period later: long enough for the sender's status to report the drop.
 */
export const DROPPED_KEPT_FACTOR = 2

/**
 * 64 KiB of UTF-8 per mail text. Native delivery carried 300 kB whole (design A13), so the cap is not
 * the transport's: it bounds what one mail puts into the receiver's context (about 16k tokens). A
 * longer text belongs in a file, and the mail names the file.
 */
export const MAIL_TEXT_MAX_BYTES = 64 * 1024

/**
 * A spool file larger than this is not read (corrupt): the text's JSON escaping is at most 6 bytes a
 * byte (`\u0001`), and the envelope around it is small.
 */
export const MAIL_FILE_MAX_BYTES = 6 * MAIL_TEXT_MAX_BYTES + 4096

/**
 * One delivered prompt holds at most this much mail text (the rest waits for the next batch: the
 * turn the prompt starts ends with a scan). At least one mail always goes, whatever its size.
 */
export const BATCH_MAX_BYTES = 4 * MAIL_TEXT_MAX_BYTES
/** And at most this many mails: a prompt a model can still answer mail by mail. */
export const BATCH_MAX_MAILS = 20

/**
 * A spool file that does not parse is "not yet" (a writer without rename is still writing it, B1)
 * until it is this old by its modification time; after that it is corrupt. A 3.5 MB `$.fs.write`
 * took at most 46 ms (B1), so a minute is far past any live writer.
 */
export const HALF_WRITTEN_GRACE_MS = 60_000

/**
 * A temporary file of the safe writer (`TEMP_PATTERN`) older than this is a crashed writer's
 * leftover and is removed. A live one exists for a few milliseconds (write, read back, rename).
 */
export const TEMP_STALE_MS = 10 * 60_000

/**
 * A claim by another session that has not become `.done` within this time is taken as abandoned (its
 * holder died) and the mail is claimed again and redelivered, framed "may repeat". An hour: a live
 * holder delivers a claimed mail at its next tool boundary or turn end, far sooner; only a second
 * holder of the key (warned in status) can lose the race and see a duplicate.
 */
export const CLAIM_STALE_MS = 60 * 60_000

/** The store entry of a session's key: `mailbox-key:<sessionId>` = `{ key, at }`. */
export const KEY_STORE_PREFIX = 'mailbox-key:'
/** Store entries outlive `session.end`; one not refreshed for 30 days is pruned (as the spec's `ws-lead-key:`). */
export const KEY_STORE_TTL_MS = 30 * DAY_MS

/** The store entry of a session's sent mail: `mailbox-outbox:<sessionId>` = `OutboxRecord[]`. */
export const OUTBOX_STORE_PREFIX = 'mailbox-outbox:'
/** The outbox keeps this many records at most (oldest go first): the status names what waits, not a history. */
export const OUTBOX_MAX_RECORDS = 100

/**
 * A key is at most 64 characters (code points) and its folder name at most 255 bytes (NAME_MAX on
 * Linux and macOS; the percent encoding of a non-ASCII character can take 12 bytes).
 */
export const KEY_MAX_CHARS = 64
export const FOLDER_NAME_MAX = 255

/** A minted key's random part: 4 base32 characters (20 bits), `<dir slug>-<4 base32>`. */
export const MINTED_SUFFIX_CHARS = 4
/** The directory slug of a minted key is cut to this many characters. */
export const SLUG_MAX_CHARS = 24
/** The slug when the directory gives none. */
export const SLUG_FALLBACK = 'session'

/** A mail id: 16 base32 characters (80 bits of the edge's randomness). */
export const MAIL_ID_CHARS = 16
/** A delivery's nonce (strings.batchHead): 8 base32 characters (40 bits), unguessable when a mail's text is written. */
export const NONCE_CHARS = 8
/** RFC 4648 base32, lower case: letters and 2-7, safe in file names on every file system. */
export const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567'

/** `sentAt` is written with 13 digits in file names, so names sort by time (13 digits last until 2286). */
export const SENT_AT_DIGITS = 13

/** The mail file format's version. */
export const MAIL_VERSION = 1

export const SPOOL_DIR = 'mailbox'
/** The engine's session registry under the config root: `sessions/<CLAUDE_PID>.json`. */
export const SESSIONS_DIR = 'sessions'

/**
 * The note at the spool's root, written once when the folder is made: the safe writer writes only
 * inside a real folder (`within`), so the root must exist before the first mail; the note says what
 * the folder is to a person who finds it.
 */
export const SPOOL_NOTE = 'README'

/**
 * After a `/clear` (no session.start follows) the session id is read until it is no longer the one
 * that ended: every 50 ms, at most 40 times (2 s); then the mailbox goes on under what it read.
 */
export const NEW_ID_POLL_MS = 50
export const NEW_ID_POLLS = 40

/**
 * A headless session (`-p`, the SDK: nobody at the prompt) takes spooled mail only once it has been
 * idle this long. A one-shot `-p` run starts its prompt's turn 0.2-0.6 s after session.start and
 * exits 0.04-0.19 s after that turn ends (3 runs measured): mail taken in between would run a turn
 * of its own before the exit and its answer would become the run's printed result. So a `-p` run
 * leaves its key's mail waiting for a session that stays, and an SDK session takes it when idle.
 */
export const HEADLESS_IDLE_MS = 1500
