/**
 * What an alert looks like on the wire (pure): the JSON body of a Standard Webhooks delivery
 * and the Slack incoming-webhook message, for one alert and for the digest of a run.
 *
 * Each stays under its maximum whatever the alert holds (size-limits.ts, with Slack's limits
 * and where they are documented): an alert's webhook carries its details as stored and the text
 * diff in the bytes that remain; a digest lists its alerts while they fit and counts the rest; a
 * Slack message keeps within 50 blocks, 3,000 characters a section and a budget for all blocks.
 */
import type { AlertDetails, AlertDraft, VerdictFlip } from '../../night/alerts.js';
import type { AlertSeverity } from '../../night/vocabulary.js';
import { boundAlertDetails, boundTitle, readCountedList } from './alert-bounds.js';
import { SLACK_BLOCKS_BUDGET_CHARS, SLACK_DIFF_MAX_CHARS, SLACK_MAX_BLOCKS, SLACK_MAX_FLIPS, SLACK_SECTION_MAX_CHARS, SLACK_TEXT_MAX_CHARS, WEBHOOK_ALERT_MAX_BYTES, WEBHOOK_DIGEST_MAX_ALERTS, WEBHOOK_DIGEST_MAX_BYTES, WEBHOOK_TEXT_DIFF_MAX_CHARS } from './size-limits.js';

export const WEBHOOK_EVENT_ALERT = 'robots_audit.alert';
export const WEBHOOK_EVENT_DIGEST = 'robots_audit.digest';

const SEVERITY_RANK: Readonly<Record<AlertSeverity, number>> = { critical: 0, warning: 1, info: 2 };
const SEVERITY_LABEL: Readonly<Record<AlertSeverity, string>> = { critical: 'CRITICAL', warning: 'WARNING', info: 'INFO' };

export function severityLabel(severity: AlertSeverity): string {
  return SEVERITY_LABEL[severity];
}

// ---------------------------------------------------------------------------------------------
// Webhook (JSON) payloads.

/** An alert as a webhook names it: its draft's fields, with the dedupe key as `id` (stable across retries and re-runs). */
export type AlertView = { id: string } & Pick<AlertDraft, 'severity' | 'kind' | 'title' | 'runId' | 'siteId' | 'origin'>;

export interface AlertWebhookPayload {
  type: typeof WEBHOOK_EVENT_ALERT;
  /** When the alert was raised (ISO 8601), not when this attempt is sent. */
  timestamp: string;
  data: AlertView & { details: AlertDetails; textDiff?: string; textDiffTruncated?: boolean };
}

export interface DigestWebhookPayload {
  type: typeof WEBHOOK_EVENT_DIGEST;
  timestamp: string;
  data: {
    runId: string;
    counts: Record<AlertSeverity, number>;
    sites: number;
    alerts: AlertView[];
    /** Alerts left out past `WEBHOOK_DIGEST_MAX_ALERTS`. */
    omitted: number;
    /** A late digest: the alerts of the sites that were pending when the run completed (issue 26). */
    late: boolean;
    /** The run's digest: the sites pending when it completed, and when their retry was due then. */
    pending: { origin: string; until: string }[];
  };
}

export type WebhookPayload = AlertWebhookPayload | DigestWebhookPayload;

const viewOf = (a: AlertDraft): AlertView => ({
  id: a.dedupeKey,
  severity: a.severity,
  kind: a.kind,
  // Bounded when raised; an alert stored before the bound came in is bounded here.
  title: boundTitle(a.title),
  runId: a.runId,
  siteId: a.siteId,
  origin: a.origin,
});

/** Bytes `text` takes inside a JSON string (its escapes in UTF-8), without the quotes. */
export function jsonStringBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text)) - 2;
}

/**
 * Bytes one UTF-16 unit takes inside a JSON string (as JSON.stringify escapes it, in UTF-8); a
 * surrogate pair is counted on its first unit and read as one, so a low surrogate met alone is lone.
 */
function jsonUnitBytes(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22 || c === 0x5c) return 2;
  if (c < 0x20) return c === 0x08 || c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d ? 2 : 6;
  if (c < 0x80) return 1;
  if (c < 0x800) return 2;
  if (c >= 0xd800 && c <= 0xdbff) {
    const next = text.charCodeAt(i + 1);
    return next >= 0xdc00 && next <= 0xdfff ? 4 : 6;
  }
  if (c >= 0xdc00 && c <= 0xdfff) return 6;
  return 3;
}

const TRUNCATED = '\n… truncated';

/**
 * At most `maxChars` characters of `text` that take at most `maxBytes` inside a JSON string, the
 * cut said by a last line `… truncated` (whose bytes are counted), never inside a surrogate pair.
 */
function truncateText(text: string, maxChars: number, maxBytes: number): { text: string; truncated: boolean } {
  if (text.length <= maxChars && jsonStringBytes(text) <= maxBytes) return { text, truncated: false };
  const room = maxBytes - jsonStringBytes(TRUNCATED);
  let end = 0;
  let bytes = 0;
  while (end < Math.min(text.length, maxChars)) {
    const size = jsonUnitBytes(text, end);
    const units = size === 4 ? 2 : 1;
    if (bytes + size > room || end + units > maxChars) break;
    bytes += size;
    end += units;
  }
  return { text: `${text.slice(0, end)}${TRUNCATED}`, truncated: true };
}

export interface AlertMessageOptions {
  /** When the alert was raised. */
  raisedAt: Date;
  /** The unified text diff of the night (`unifiedTextDiff`), if the alert is about a body change. */
  textDiff?: string;
}

/** Bytes of `,"textDiff":"","textDiffTruncated":false`, the fields around the text diff, with room to spare. */
const TEXT_DIFF_FIELDS_BYTES = 48;

/**
 * One alert: its details as stored (bounded again, in case the alert was stored before its
 * bound), then the text diff in what remains of WEBHOOK_ALERT_MAX_BYTES, at most
 * WEBHOOK_TEXT_DIFF_MAX_CHARS characters.
 */
export function alertWebhookPayload(alert: AlertDraft, options: AlertMessageOptions): AlertWebhookPayload {
  const data: AlertWebhookPayload['data'] = { ...viewOf(alert), details: boundAlertDetails(alert.details) };
  const payload: AlertWebhookPayload = { type: WEBHOOK_EVENT_ALERT, timestamp: options.raisedAt.toISOString(), data };
  if (options.textDiff) {
    const room = WEBHOOK_ALERT_MAX_BYTES - Buffer.byteLength(webhookBody(payload)) - TEXT_DIFF_FIELDS_BYTES;
    const diff = truncateText(options.textDiff, WEBHOOK_TEXT_DIFF_MAX_CHARS, Math.max(0, room));
    data.textDiff = diff.text;
    data.textDiffTruncated = diff.truncated;
  }
  return payload;
}

function bySeverityThenOrigin(a: AlertDraft, b: AlertDraft): number {
  return SEVERITY_RANK[a.severity] - SEVERITY_RANK[b.severity] || a.origin.localeCompare(b.origin) || a.kind.localeCompare(b.kind);
}

function countBySeverity(alerts: readonly AlertDraft[]): Record<AlertSeverity, number> {
  const counts: Record<AlertSeverity, number> = { critical: 0, warning: 0, info: 0 };
  for (const a of alerts) counts[a.severity] += 1;
  return counts;
}

/** A site its run did not wait for (issue 26): pending when the run completed, its retry due `until`. */
export interface PendingSite {
  origin: string;
  until: Date;
}

export interface DigestOptions {
  runId: string;
  /** When the run finished (a late digest: when its last late site came in). */
  finishedAt: Date;
  /** The late digest: the alerts of the sites that were pending when the run completed, come in since. */
  late?: boolean;
  /** The run's digest: the sites pending when it completed (their alerts come in its late digest). */
  pending?: readonly PendingSite[];
}

/** Pending sites named in a Slack or mail digest; the others are counted. */
export const DIGEST_PENDING_SHOWN = 20;

/** `robots-audit run 7`, or for its late digest `robots-audit run 7, late sites`. */
export function digestTitle(options: Pick<DigestOptions, 'runId' | 'late'>): string {
  return `robots-audit run ${options.runId}${options.late ? ', late sites' : ''}`;
}

/**
 * What a digest says about waits: the sites its run did not wait for and until when (with the
 * first DIGEST_PENDING_SHOWN named), or, for a late digest, what its sites are. Null: nothing to say.
 */
export function digestWaitNote(options: DigestOptions): string | null {
  if (options.late) return `These sites were pending when run ${options.runId} completed (waiting for a retry it did not wait for); their nights came in since.`;
  const pending = options.pending ?? [];
  if (pending.length === 0) return null;
  const named = pending.slice(0, DIGEST_PENDING_SHOWN).map((p) => `${p.origin} until ${p.until.toISOString()}`);
  const more = pending.length - named.length;
  return `Pending (the run did not wait for their retry; their alerts come in a late digest): ${named.join('; ')}${more > 0 ? `; … ${more} more` : ''}`;
}

/** Bytes kept free in a digest for `omitted`'s digits. */
const OMITTED_DIGITS_BYTES = 16;

/**
 * The alerts of a run, most severe first: at most WEBHOOK_DIGEST_MAX_ALERTS of them, fewer if
 * their views would take the body past WEBHOOK_DIGEST_MAX_BYTES; `omitted` counts the others.
 */
export function digestWebhookPayload(alerts: readonly AlertDraft[], options: DigestOptions): DigestWebhookPayload {
  const sorted = [...alerts].sort(bySeverityThenOrigin);
  const payload: DigestWebhookPayload = {
    type: WEBHOOK_EVENT_DIGEST,
    timestamp: options.finishedAt.toISOString(),
    data: {
      runId: options.runId,
      counts: countBySeverity(alerts),
      sites: new Set(alerts.map((a) => a.siteId)).size,
      alerts: [],
      omitted: 0,
      late: options.late ?? false,
      pending: (options.late ? [] : (options.pending ?? [])).slice(0, WEBHOOK_DIGEST_MAX_ALERTS).map((p) => ({ origin: p.origin, until: p.until.toISOString() })),
    },
  };
  let bytes = Buffer.byteLength(webhookBody(payload)) + OMITTED_DIGITS_BYTES;
  for (const alert of sorted.slice(0, WEBHOOK_DIGEST_MAX_ALERTS)) {
    const view = viewOf(alert);
    // Its JSON and the comma before it.
    const size = Buffer.byteLength(JSON.stringify(view)) + 1;
    if (bytes + size > WEBHOOK_DIGEST_MAX_BYTES) break;
    payload.data.alerts.push(view);
    bytes += size;
  }
  payload.data.omitted = sorted.length - payload.data.alerts.length;
  return payload;
}

/** The exact bytes to sign and send: minified JSON (re-serialising on the receiver breaks signatures). */
export function webhookBody(payload: WebhookPayload): string {
  return JSON.stringify(payload);
}

// ---------------------------------------------------------------------------------------------
// Slack incoming-webhook messages (Block Kit, mrkdwn).

export type SlackBlock =
  | { type: 'section'; text: { type: 'mrkdwn'; text: string } }
  | { type: 'context'; elements: Array<{ type: 'mrkdwn'; text: string }> }
  | { type: 'divider' };

export interface SlackMessage {
  /** Notification and fallback text. */
  text: string;
  blocks: SlackBlock[];
}

/** Slack's three control characters in mrkdwn (https://api.slack.com/reference/surfaces/formatting#escaping). */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A section's text within Slack's limit, whatever was put in it (the callers fit theirs already). */
const sectionText = (text: string) => (text.length <= SLACK_SECTION_MAX_CHARS ? text : `${text.slice(0, SLACK_SECTION_MAX_CHARS - TRUNCATED.length)}${TRUNCATED}`);
const section = (text: string): SlackBlock => ({ type: 'section', text: { type: 'mrkdwn', text: sectionText(text) } });
const context = (text: string): SlackBlock => ({ type: 'context', elements: [{ type: 'mrkdwn', text }] });

/** A block's characters as they count against SLACK_BLOCKS_BUDGET_CHARS: the bytes they take in the JSON body. */
function blockChars(block: SlackBlock): number {
  if (block.type === 'section') return jsonStringBytes(block.text.text);
  if (block.type === 'context') return block.elements.reduce((n, e) => n + jsonStringBytes(e.text), 0);
  return 0;
}

/** Cuts lines to fit `max` characters, saying how many were left out. */
function fitLines(lines: readonly string[], max: number): string {
  const out: string[] = [];
  let used = 0;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const tail = `… ${lines.length - i} more`;
    if (used + line.length + 1 > max - tail.length - 1) {
      out.push(tail);
      break;
    }
    out.push(line);
    used += line.length + 1;
  }
  return out.join('\n');
}

/** A code block whose content cannot close it early. */
function codeBlock(text: string, max: number): string {
  const safe = escapeMrkdwn(text).replace(/```/g, '`\u200b`\u200b`');
  const room = max - 8;
  const body = safe.length <= room ? safe : `${safe.slice(0, room - 12)}\n… truncated`;
  return `\`\`\`\n${body}\n\`\`\``;
}

const verdict = (v: boolean | null) => (v === null ? 'none' : v ? 'allowed' : 'disallowed');

/**
 * The entries of a list of the details, each after `sign`, as many as fit in `max` characters
 * once escaped, and a last line that counts the others: those the list itself counted (its
 * `… and N more` entry) and those left out here.
 */
function countedLines(sign: string, list: readonly string[], what: string, max: number): string[] {
  const { listed, more } = readCountedList(list);
  const out: string[] = [];
  let used = 0;
  for (const entry of listed) {
    const line = `${sign} ${entry}`;
    // Room kept for the last line.
    if (used + escapeMrkdwn(line).length + 1 > max - 40) break;
    out.push(line);
    used += escapeMrkdwn(line).length + 1;
  }
  const left = more + listed.length - out.length;
  if (left > 0) out.push(`${sign} … and ${left} more ${what}`);
  return out;
}

function flipLine(f: VerdictFlip): string {
  const rule = f.ruleAfter ?? f.ruleBefore;
  const why = rule ? ` (line ${rule.line}: ${rule.kind === 'allow' ? 'Allow' : 'Disallow'}: ${rule.value})` : '';
  return escapeMrkdwn(`• ${f.url} - ${f.agent}: ${verdict(f.from)} -> ${verdict(f.to)}${why}`);
}

export function slackAlertMessage(alert: AlertDraft, options: AlertMessageOptions): SlackMessage {
  const label = severityLabel(alert.severity);
  const d = alert.details;
  const blocks: SlackBlock[] = [section(`*[${label}]* ${escapeMrkdwn(boundTitle(alert.title))}\n*Site:* ${escapeMrkdwn(alert.origin)}`)];

  if (d.policy) {
    blocks.push(
      section(
        escapeMrkdwn(`Policy: ${d.policy.from ?? 'none'} -> ${d.policy.to} (${d.policy.reason}; fetch ${d.policy.outcomeFrom ?? 'none'} -> ${d.policy.outcomeTo})`),
      ),
    );
  }
  if (d.agents && d.agents.length > 0) blocks.push(section(`*Agents:* ${escapeMrkdwn(d.agents.join(', '))}`));
  if (d.challenge?.action) blocks.push(section(`*What to do:* ${escapeMrkdwn(d.challenge.action)}`));
  if (d.flapping) {
    const versions = d.flapping.versions.map((v) => `${v.sha256.slice(0, 12)} (first served ${v.firstSeen.slice(0, 10)})`);
    const lines = [`*Versions in rotation:* ${escapeMrkdwn(versions.join(', '))}`];
    if (d.flapping.stayed) lines.push(`*Stayed:* ${escapeMrkdwn(d.flapping.stayed.sha256.slice(0, 12))}`);
    const differences = (d.flapping.differences ?? []).slice(0, SLACK_MAX_FLIPS).map((x) =>
      escapeMrkdwn(`• ${x.url} - ${x.agent}: ${Object.entries(x.allowedBy).map(([sha, allowed]) => `${sha.slice(0, 12)} ${verdict(allowed)}`).join(', ')}`),
    );
    if (differences.length > 0) lines.push(`*Verdicts that differ between them (${d.flapping.differencesTotal ?? differences.length}):*\n${differences.join('\n')}`);
    blocks.push(section(fitLines(lines, SLACK_SECTION_MAX_CHARS - 40)));
  }
  if (d.sitemapsAdded?.length || d.sitemapsRemoved?.length) {
    // Each way gets half the section, and says how many it does not show: 8,000 sitemaps changed fill no section.
    const room = Math.floor((SLACK_SECTION_MAX_CHARS - 40) / 2);
    const lines = [...countedLines('-', d.sitemapsRemoved ?? [], 'sitemaps', room), ...countedLines('+', d.sitemapsAdded ?? [], 'sitemaps', room)];
    blocks.push(section(codeBlock(lines.join('\n'), SLACK_SECTION_MAX_CHARS)));
  }
  const diffText = options.textDiff ?? (d.diffLines && d.diffLines.length > 0 ? d.diffLines.join('\n') : undefined);
  if (diffText) blocks.push(section(codeBlock(diffText, Math.min(SLACK_DIFF_MAX_CHARS, SLACK_SECTION_MAX_CHARS))));

  if (d.compliance) {
    const c = d.compliance;
    const shown = c.examples.slice(0, SLACK_MAX_FLIPS).map((e) => escapeMrkdwn(`• ${e.at.slice(0, 19).replace('T', ' ')} ${e.url}${e.rule ? ` (${e.rule})` : ''}${e.ip ? ` from ${e.ip}` : ''}`));
    if (c.requests > shown.length) shown.push(`… ${c.requests - shown.length} more`);
    blocks.push(section(`*${escapeMrkdwn(c.crawler)}: ${c.requests} requests, ${escapeMrkdwn(c.firstAt.slice(0, 10))} to ${escapeMrkdwn(c.lastAt.slice(0, 10))}:*\n${fitLines(shown, SLACK_SECTION_MAX_CHARS - 80)}`));
  }
  if (d.flips && d.flips.length > 0) {
    const total = d.flipsTotal ?? d.flips.length;
    const shown = d.flips.slice(0, SLACK_MAX_FLIPS).map(flipLine);
    if (total > shown.length) shown.push(`… ${total - shown.length} more`);
    blocks.push(section(`*Flipped verdicts (${total}):*\n${fitLines(shown, SLACK_SECTION_MAX_CHARS - 40)}`));
  }
  blocks.push(context(escapeMrkdwn(`robots-audit · ${alert.kind} · run ${alert.runId} · ${alert.dedupeKey}`)));
  const fitted = fitBlocks(blocks, { maxBlocks: SLACK_MAX_BLOCKS, budgetChars: SLACK_BLOCKS_BUDGET_CHARS, unit: 'blocks' });
  return { text: `[${label}] ${boundTitle(alert.title)}`.slice(0, SLACK_TEXT_MAX_CHARS), blocks: fitted };
}

interface BlockLimits {
  maxBlocks: number;
  budgetChars: number;
  /** What a cut block stands for, in the `… N <unit> not shown` line. */
  unit: string;
}

/** Keeps blocks within a block count and a character budget; a last context block says what was cut. */
function fitBlocks(blocks: readonly SlackBlock[], limits: BlockLimits): SlackBlock[] {
  const tailReserve = 60;
  const out: SlackBlock[] = [];
  let chars = 0;
  for (let i = 0; i < blocks.length; i++) {
    const block = blocks[i]!;
    const size = blockChars(block);
    const last = i === blocks.length - 1;
    const fits = last
      ? out.length + 1 <= limits.maxBlocks && chars + size <= limits.budgetChars
      : out.length + 2 <= limits.maxBlocks && chars + size <= limits.budgetChars - tailReserve;
    if (!fits) {
      out.push(context(`… ${blocks.length - i} ${limits.unit} not shown`));
      return out;
    }
    out.push(block);
    chars += size;
  }
  return out;
}

/**
 * One message for a whole run: a summary line, then one section per site (most severe sites
 * first) listing its alerts, within Slack's block and character limits.
 */
export function slackDigestMessage(alerts: readonly AlertDraft[], options: DigestOptions): SlackMessage {
  const counts = countBySeverity(alerts);
  const bySite = new Map<string, AlertDraft[]>();
  for (const a of [...alerts].sort(bySeverityThenOrigin)) {
    const list = bySite.get(a.siteId) ?? [];
    list.push(a);
    bySite.set(a.siteId, list);
  }
  const summary = `${digestTitle(options)}: ${counts.critical} critical, ${counts.warning} warning, ${counts.info} info on ${bySite.size} ${bySite.size === 1 ? 'site' : 'sites'}`;
  const blocks: SlackBlock[] = [section(`*${escapeMrkdwn(summary)}*`)];
  const waits = digestWaitNote(options);
  if (waits) blocks.push(context(escapeMrkdwn(waits.slice(0, SLACK_SECTION_MAX_CHARS))));
  if (alerts.length === 0) return { text: summary, blocks };
  blocks.push({ type: 'divider' });

  // Sites come out in the order of their most severe alert (the map keeps insertion order).
  const siteBlocks: SlackBlock[] = [];
  for (const list of bySite.values()) {
    const lines = list.map((a) => `• *[${severityLabel(a.severity)}]* ${escapeMrkdwn(boundTitle(a.title))}`);
    siteBlocks.push(section(`*${escapeMrkdwn(list[0]!.origin)}*\n${fitLines(lines, SLACK_SECTION_MAX_CHARS - list[0]!.origin.length - 10)}`));
  }
  const fitted = fitBlocks(siteBlocks, {
    maxBlocks: SLACK_MAX_BLOCKS - blocks.length,
    budgetChars: SLACK_BLOCKS_BUDGET_CHARS - blocks.reduce((n, b) => n + blockChars(b), 0),
    unit: 'sites',
  });
  return { text: summary.slice(0, SLACK_TEXT_MAX_CHARS), blocks: [...blocks, ...fitted] };
}
