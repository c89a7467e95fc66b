/**
 * Every size limit of an alert and of its deliveries, in one place (issue 26, item 6): what one
 * alert stores in `alerts.details`, and what a webhook, a Slack message and a mail carry. A
 * robots.txt of 500 KiB can hold 8,000 sitemaps, 15,000 agents or 10,000 other records,
 * all changed in one night; whatever changed, an alert lists up to a limit and counts the rest,
 * and every message stays under the maximum given here. The README's "Alerts" section has the
 * same table (a unit test keeps them in step). Pure: constants only.
 *
 * How a cut list reads (the convention issue 17 set for rule diffs, kept so that readers of the
 * details keep working): a list of strings ends with one entry `… and 4231 more sitemaps`; a list
 * of objects keeps its first entries and gives the count of all in `<list>Total` (`flipsTotal`,
 * `gapsTotal`, `differencesTotal`).
 */
import { DEFAULT_TEXT_DIFF_MAX_LINE_CHARS } from '../../robots/diff.js';

const KiB = 1024;

// ---------------------------------------------------------------------------------------------
// What one alert stores (alerts.details and alerts.title).

/**
 * Bytes of one alert's details as Postgres prints them (`details::text`, UTF-8): the last line of
 * defence. Past it the longest lists are cut further (the counts stay exact) and `truncated: true`
 * says so; the JSON stays whole.
 */
export const MAX_ALERT_DETAILS_BYTES = 64 * KiB;
/** Characters of an alert's title (a title names agents, keys and crawlers that a site wrote). */
export const MAX_ALERT_TITLE_CHARS = 300;
/** Names a title lists (agents, record keys, crawlers), the rest counted: `a, b, c and 14990 more`. */
export const MAX_TITLE_NAMES = 10;
/**
 * Characters of any one string in the details (a URL, a rule's value, a header's text): the
 * sitemaps protocol's limit on a URL, "less than 2,048 characters"
 * (https://www.sitemaps.org/protocol.html, `<loc>`). Longer ones end `… (N more characters)`.
 */
export const MAX_DETAIL_TEXT_CHARS = 2_048;
/** Characters of one line of a semantic diff in the details: as a line of the text diff. */
export const MAX_DIFF_LINE_CHARS = DEFAULT_TEXT_DIFF_MAX_LINE_CHARS;
/** Flips kept in one alert's details (and `*` gaps, and verdicts that differ between versions); the count of all beside. */
export const MAX_FLIPS_PER_ALERT = 200;
/** The requests a compliance alert lists as examples (`crawler_ignored_robots`, `crawler_spoofed`); the count says how many in all. */
export const MAX_COMPLIANCE_EXAMPLES_PER_ALERT = 20;
/**
 * Lines of a semantic diff (rules, or other records), and agents added or removed (or named by
 * `disallow_all_added`, or by one `*` gap), an alert lists at most (a file of 15,000 user-agents
 * over one group changes 15,000 agents at once; an alert is a message, and the night's full diff
 * is stored with its change): the rest is counted in one last entry.
 */
export const MAX_DIFF_LINES_PER_ALERT = 200;
export const MAX_AGENTS_PER_ALERT = 100;
/** Sitemaps added, and sitemaps removed, an alert lists at most each. */
export const MAX_SITEMAPS_PER_ALERT = 100;
/** Values of one record shown on its diff line, before and after each (10,000 `Clean-param:` lines are one record). */
export const MAX_RECORD_VALUES_PER_LINE = 10;

// ---------------------------------------------------------------------------------------------
// Webhooks (Standard Webhooks, JSON). The spec recommends payloads "usually smaller than 20kb"
// (https://github.com/standard-webhooks/standard-webhooks/blob/main/spec/standard-webhooks.md,
// "Payload size"); an ordinary alert is, and these bound the rest.

/**
 * Bytes of the body of one alert: its details as stored (at most MAX_ALERT_DETAILS_BYTES), the
 * envelope, and the text diff cut to what remains.
 */
export const WEBHOOK_ALERT_MAX_BYTES = 96 * KiB;
/** Characters of the unified text diff carried in an alert's webhook. */
export const WEBHOOK_TEXT_DIFF_MAX_CHARS = 10_000;
/** Bytes of the body of a run's digest: its alerts listed while they fit, the rest counted in `omitted`. */
export const WEBHOOK_DIGEST_MAX_BYTES = 256 * KiB;
/** Alerts listed in a digest payload; the rest are counted. */
export const WEBHOOK_DIGEST_MAX_ALERTS = 500;

// ---------------------------------------------------------------------------------------------
// Slack incoming webhooks (Block Kit). Slack's own limits: at most 50 blocks in a message
// (https://docs.slack.dev/reference/block-kit/blocks), 3,000 characters of text in a section
// block (https://docs.slack.dev/reference/block-kit/blocks/section-block), `text` truncated past
// 40,000 characters (https://api.slack.com/changelog/2018-04-truncating-really-long-messages); in
// practice messages whose blocks carry more than about 13,000 characters in all are refused
// (`msg_blocks_too_long`, https://github.com/slackapi/bolt-js/issues/2509), hence the budget.

export const SLACK_MAX_BLOCKS = 50;
export const SLACK_SECTION_MAX_CHARS = 3_000;
export const SLACK_TEXT_MAX_CHARS = 40_000;
/**
 * Characters of all blocks of one message, each counted as the bytes it takes in the JSON body
 * (so `é` counts 2 and a control character 6): under Slack's refusal, and a bound on the body.
 */
export const SLACK_BLOCKS_BUDGET_CHARS = 12_000;
/** Bytes of a Slack message's body: the block budget, the `text` (a title) and the blocks' JSON. */
export const SLACK_BODY_MAX_BYTES = 20 * KiB;
/** Diff characters shown in a Slack alert. */
export const SLACK_DIFF_MAX_CHARS = 2_500;
/** Flipped URLs listed in a Slack alert. */
export const SLACK_MAX_FLIPS = 20;

// ---------------------------------------------------------------------------------------------
// E-mail (a text and an HTML part). Gmail is widely reported to clip an HTML part past about
// 102 KB behind a "View entire message" link
// (https://www.spamresource.com/2022/01/what-is-gmail-clipping-and-what-to-do.html): an ordinary
// alert fits, a digest of hundreds of alerts may not (it still arrives whole); these bound the rest.

/** Bytes of a mail's text part (UTF-8): past it the longest lists are cut, and say how many more. */
export const MAIL_TEXT_MAX_BYTES = 256 * KiB;
/** Bytes of a mail's HTML part (UTF-8): markup, escapes and hidden-character markers included. */
export const MAIL_HTML_MAX_BYTES = 512 * KiB;
/** Flips listed in one alert mail; the count of all is said beside. */
export const MAIL_MAX_FLIPS = 50;
/** Characters of the text diff in one alert mail. */
export const MAIL_TEXT_DIFF_MAX_CHARS = 10_000;
/** Characters of any one value rendered from an alert's details. */
export const MAIL_VALUE_MAX_CHARS = 2_000;
/** Alerts listed in a digest mail; the others are counted. */
export const MAIL_DIGEST_MAX_ALERTS = 500;
/** Flips shown under each alert of a digest. */
export const MAIL_DIGEST_FLIPS_PER_ALERT = 3;
/** Characters of a subject line (RFC 5322 asks for lines under 78; mail clients cut long subjects anyway). */
export const MAIL_SUBJECT_MAX_CHARS = 150;
