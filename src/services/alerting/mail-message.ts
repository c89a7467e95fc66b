/**
 * What an alert looks like in a mailbox (pure): the subject, a plain-text part and an HTML part
 * that say the same thing, for one alert, for the digest of a run, and for `alerts test`.
 *
 * Every alert is rendered from its own data, whatever its kind: the title, severity, site and
 * run, then each field of its details (flips with their deciding lines, agents, the semantic
 * diff, sitemaps, the policy change, opened `*` paths), and any field this module does not know,
 * as labelled values, so that a kind added to the alert rules later reads well without a change
 * here. A site's text (URLs, rules, titles) is data: escaped in HTML, and its control and
 * direction-changing characters shown as `<U+XXXX>` in both parts (house style, habit 13).
 *
 * Sizes (size-limits.ts): each part stays under its maximum (MAIL_TEXT_MAX_BYTES,
 * MAIL_HTML_MAX_BYTES) whatever the alert holds. A digest lists sites while they fit and counts
 * the alerts left out; past that (a site's text made of hidden characters, whose markers weigh
 * far more than the characters), the heaviest list, table or code block is cut from its end, and
 * a last line says how much was left out.
 */
import { replaceHiddenChars, plainMarker, revealHiddenChars } from '../../robots/hidden-chars.js';
import type { AlertDetails, AlertDraft, VerdictFlip } from '../../night/alerts.js';
import type { AlertSeverity } from '../../night/vocabulary.js';
import { outcomeLabel } from './alert-rules.js';
import { boundAlertDetails, boundTitle, clipText } from './alert-bounds.js';
import { digestTitle, digestWaitNote, severityLabel } from './messages.js';
import type { DigestOptions } from './messages.js';
import { MAIL_DIGEST_FLIPS_PER_ALERT, MAIL_DIGEST_MAX_ALERTS, MAIL_HTML_MAX_BYTES, MAIL_MAX_FLIPS, MAIL_SUBJECT_MAX_CHARS, MAIL_TEXT_DIFF_MAX_CHARS, MAIL_TEXT_MAX_BYTES, MAIL_VALUE_MAX_CHARS, MAX_ALERT_DETAILS_BYTES, MAX_DETAIL_TEXT_CHARS } from './size-limits.js';

export {
  MAIL_DIGEST_FLIPS_PER_ALERT,
  MAIL_DIGEST_MAX_ALERTS,
  MAIL_MAX_FLIPS,
  MAIL_SUBJECT_MAX_CHARS,
  MAIL_TEXT_DIFF_MAX_CHARS,
} from './size-limits.js';

export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

export interface AlertMailOptions {
  raisedAt: Date;
  /** The night's unified text diff, when the alert is about a body change. */
  textDiff?: string | null;
  /** ROBOTS_AUDIT_DASHBOARD_URL: links to the site's page and the run's. */
  dashboardUrl?: string | null;
}

export interface DigestMailOptions extends DigestOptions {
  dashboardUrl?: string | null;
}

// ---------------------------------------------------------------------------------------------
// The content as blocks, rendered once as text and once as HTML.

/** `cut`: entries (items, rows, lines) left out at the end to keep the mail within its size. */
type Block =
  | { type: 'heading'; text: string; href?: string }
  | { type: 'fields'; rows: [string, string][] }
  | { type: 'list'; title: string; items: string[]; cut?: number }
  | { type: 'table'; title: string; head: string[]; rows: string[][]; cut?: number }
  | { type: 'code'; title: string; text: string; cut?: number }
  | { type: 'link'; label: string; href: string }
  | { type: 'note'; text: string };

const verdict = (v: boolean | null) => (v === null ? 'none' : v ? 'allowed' : 'disallowed');
const ruleText = (r: VerdictFlip['ruleBefore']) => (r === null ? 'no rule' : `line ${r.line}: ${r.kind === 'allow' ? 'Allow' : 'Disallow'}: ${r.value}`);
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const cut = (text: string, max: number) => (text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text);
const utc = (d: Date) => `${d.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

/** `flipsTotal` → `Flips total`: a detail's key as a label. */
function labelOf(key: string): string {
  const words = key.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** Any value of an alert's details as one line: scalars as they are, lists joined, objects as `key: value` pairs. */
function valueText(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.length === 0 ? 'none' : value.map(valueText).join(', ');
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => `${k}: ${valueText(v)}`)
      .join('; ');
  }
  return String(value);
}

/** The page of a site on the dashboard, and of a run. */
const siteHref = (base: string, origin: string) => `${base}/site?origin=${encodeURIComponent(origin)}`;
const runHref = (base: string, runId: string) => `${base}/runs/${encodeURIComponent(runId)}`;

function flipRows(flips: readonly VerdictFlip[]): string[][] {
  return flips.map((f) => [f.url, `${f.agent} (${f.agentFamily})`, `${verdict(f.from)} → ${verdict(f.to)}`, ruleText(f.ruleBefore), ruleText(f.ruleAfter)]);
}

/** The details, field by field: those this module knows in a shape of their own, every other as a labelled value. */
function detailBlocks(details: AlertDetails): Block[] {
  const blocks: Block[] = [];
  const fields: [string, string][] = [];
  const known = new Set(['flips', 'flipsTotal', 'agents', 'diffLines', 'agentsAdded', 'agentsRemoved', 'sitemapsAdded', 'sitemapsRemoved', 'policy', 'gaps', 'gapsTotal', 'compliance', 'truncated']);
  if (details.policy) {
    const p = details.policy;
    fields.push(['Policy', `${p.from ?? 'none'} → ${p.to} (${p.reason}; robots.txt answered ${outcomeLabel(p.outcomeFrom)} → ${outcomeLabel(p.outcomeTo)})`]);
  }
  if (details.agents?.length) fields.push(['Agents', cut(details.agents.join(', '), MAIL_VALUE_MAX_CHARS)]);
  if (details.agentsAdded?.length) fields.push(['Groups added', cut(details.agentsAdded.join(', '), MAIL_VALUE_MAX_CHARS)]);
  if (details.agentsRemoved?.length) fields.push(['Groups removed', cut(details.agentsRemoved.join(', '), MAIL_VALUE_MAX_CHARS)]);
  for (const [key, value] of Object.entries(details as Record<string, unknown>)) {
    if (known.has(key) || value === undefined) continue;
    fields.push([labelOf(key), cut(valueText(value), MAIL_VALUE_MAX_CHARS)]);
  }
  if (fields.length > 0) blocks.push({ type: 'fields', rows: fields });

  if (details.flips?.length) {
    const total = details.flipsTotal ?? details.flips.length;
    const shown = details.flips.slice(0, MAIL_MAX_FLIPS);
    blocks.push({
      type: 'table',
      title: `Verdicts that flipped (${shown.length < total ? `${shown.length} of ${total}` : total})`,
      head: ['URL', 'Crawler', 'Verdict', 'Deciding line before', 'Deciding line now'],
      rows: flipRows(shown),
    });
  }
  if (details.gaps?.length) {
    const total = details.gapsTotal ?? details.gaps.length;
    blocks.push({
      type: 'table',
      title: `Paths of * now open to a named crawler (${total}): it obeys only its own group`,
      head: ['Path', 'Crawlers', '* rule at line', 'Their group at line'],
      rows: details.gaps.slice(0, MAIL_MAX_FLIPS).map((g) => [g.path, g.crawlers.join(', '), String(g.starLine), String(g.groupLine)]),
    });
  }
  if (details.compliance) {
    const c = details.compliance;
    fields.push(['Crawler', c.crawler], ['Requests', `${c.requests}, ${utc(new Date(c.firstAt))} to ${utc(new Date(c.lastAt))}`]);
    const shown = c.examples.slice(0, MAIL_MAX_FLIPS);
    blocks.push({
      type: 'table',
      title: `Requests (${shown.length < c.requests ? `${shown.length} of ${c.requests}` : c.requests})`,
      head: ['Time', 'URL', 'Deciding line', 'From'],
      rows: shown.map((e) => [utc(new Date(e.at)), e.url, e.rule ?? 'full disallow', e.ip ?? '']),
    });
  }
  if (details.sitemapsAdded?.length || details.sitemapsRemoved?.length) {
    blocks.push({ type: 'list', title: 'Sitemaps', items: [...(details.sitemapsRemoved ?? []).map((u) => `- ${u}`), ...(details.sitemapsAdded ?? []).map((u) => `+ ${u}`)] });
  }
  if (details.diffLines?.length) blocks.push({ type: 'code', title: 'What changed, as crawlers read it', text: details.diffLines.join('\n') });
  if (details.truncated) {
    blocks.push({ type: 'note', text: `Lists of this alert were cut further than their own limits, to keep it under ${MAX_ALERT_DETAILS_BYTES / 1024} KiB; their counts say how many there were.` });
  }
  return blocks;
}

function footer(parts: string[]): Block {
  return { type: 'note', text: `robots-audit · ${parts.join(' · ')}` };
}

// ---------------------------------------------------------------------------------------------
// Rendering.

/** One line of a site's text for a subject: hidden characters as markers, no line breaks, cut. */
function subjectLine(text: string): string {
  const line = revealHiddenChars(text).replace(/\s+/g, ' ').trim();
  return line.length > MAIL_SUBJECT_MAX_CHARS ? `${line.slice(0, MAIL_SUBJECT_MAX_CHARS - 1)}…` : line;
}

const show = (text: string) => revealHiddenChars(text);

/** What a cut block says it left out, as its last line. */
const cutLine = (b: { type: string; cut?: number }) =>
  b.cut ? `… ${b.cut} more ${b.type === 'table' ? 'rows' : 'lines'} not shown (the size limit of this mail)` : null;

/** One block of the text part: its lines, joined. */
function blockText(b: Block): string {
  const out: string[] = [];
  switch (b.type) {
    case 'heading':
      out.push(show(b.text), '');
      break;
    case 'fields': {
      const width = Math.max(...b.rows.map(([label]) => label.length));
      for (const [label, value] of b.rows) out.push(`${`${label}:`.padEnd(width + 1)} ${show(value)}`);
      out.push('');
      break;
    }
    case 'list':
      out.push(`${b.title}:`, ...b.items.map((i) => `  ${show(i)}`));
      if (b.cut) out.push(`  ${cutLine(b)}`);
      out.push('');
      break;
    case 'table':
      out.push(`${b.title}:`);
      for (const row of b.rows) {
        out.push(`  ${show(row[0] ?? '')}`);
        row.slice(1).forEach((cell, i) => out.push(`    ${b.head[i + 1]}: ${show(cell)}`));
      }
      if (b.cut) out.push(`  ${cutLine(b)}`);
      out.push('');
      break;
    case 'code':
      out.push(`${b.title}:`, ...show(b.text).replace(/\n+$/, '').split('\n').map((l) => `  ${l}`));
      if (b.cut) out.push(`  ${cutLine(b)}`);
      out.push('');
      break;
    case 'link':
      out.push(`${b.label}: ${b.href}`, '');
      break;
    case 'note':
      out.push('--', show(b.text));
      break;
  }
  return out.join('\n');
}

function renderText(blocks: readonly Block[]): string {
  return `${blocks.map(blockText).join('\n').trimEnd()}\n`;
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
/** A site's text as HTML: escaped, hidden characters as visible markers. */
const html = (text: string) => replaceHiddenChars(text, (c) => `<code>${escapeHtml(plainMarker(c))}</code>`, escapeHtml);

const STYLE = {
  body: 'font-family: -apple-system, Segoe UI, Helvetica, Arial, sans-serif; font-size: 14px; color: #1f2328; line-height: 1.45;',
  table: 'border-collapse: collapse; margin: 4px 0 16px;',
  cell: 'border: 1px solid #d0d7de; padding: 4px 8px; text-align: left; vertical-align: top;',
  pre: 'background: #f6f8fa; padding: 8px; overflow-x: auto; font-size: 12px;',
  note: 'color: #656d76; font-size: 12px;',
};

/** One block of the HTML part. */
function blockHtml(b: Block): string {
  const cutNote = (block: { type: string; cut?: number }) => (block.cut ? `<p style="${STYLE.note}">${escapeHtml(cutLine(block)!)}</p>` : '');
  switch (b.type) {
    case 'heading':
      return b.href ? `<h2><a href="${escapeHtml(b.href)}">${html(b.text)}</a></h2>` : `<h2>${html(b.text)}</h2>`;
    case 'fields':
      return `<table style="${STYLE.table}">${b.rows.map(([l, v]) => `<tr><th style="${STYLE.cell}">${escapeHtml(l)}</th><td style="${STYLE.cell}">${html(v)}</td></tr>`).join('')}</table>`;
    case 'list':
      return `<p><b>${escapeHtml(b.title)}</b></p><ul>${b.items.map((i) => `<li><code>${html(i)}</code></li>`).join('')}</ul>${cutNote(b)}`;
    case 'table': {
      const head = `<tr>${b.head.map((h) => `<th style="${STYLE.cell}">${escapeHtml(h)}</th>`).join('')}</tr>`;
      const rows = b.rows.map((r) => `<tr>${r.map((c) => `<td style="${STYLE.cell}">${html(c)}</td>`).join('')}</tr>`).join('');
      return `<p><b>${escapeHtml(b.title)}</b></p><table style="${STYLE.table}">${head}${rows}</table>${cutNote(b)}`;
    }
    case 'code':
      return `<p><b>${escapeHtml(b.title)}</b></p><pre style="${STYLE.pre}">${html(b.text)}</pre>${cutNote(b)}`;
    case 'link':
      return `<p><a href="${escapeHtml(b.href)}">${escapeHtml(b.label)}</a></p>`;
    case 'note':
      return `<p style="${STYLE.note}">${html(b.text)}</p>`;
  }
}

function renderHtml(blocks: readonly Block[]): string {
  return `<!doctype html>\n<html><head><meta charset="utf-8"></head><body style="${STYLE.body}">\n${blocks.map(blockHtml).join('\n')}\n</body></html>\n`;
}

// ---------------------------------------------------------------------------------------------
// Sizes.

const bytes = (text: string) => Buffer.byteLength(text);

/** A field value shorter than this is not worth cutting further. */
const SHORTEST_CUT_VALUE = 64;

/** A block with entries it can leave out (list items, table rows, code lines, a long field value). */
function canShrink(b: Block): boolean {
  if (b.type === 'list') return b.items.length > 0;
  if (b.type === 'table') return b.rows.length > 0;
  if (b.type === 'code') return b.text.length > 0;
  if (b.type === 'fields') return b.rows.some(([, v]) => v.length > SHORTEST_CUT_VALUE);
  return false;
}

/** `b` without about `share` (0..1) of its weight: entries from its end, or the end of its long values. */
function shrink(b: Block, share: number): Block {
  const drop = (n: number) => Math.min(n, Math.max(1, Math.ceil(n * share)));
  switch (b.type) {
    case 'list': {
      const n = drop(b.items.length);
      return { ...b, items: b.items.slice(0, b.items.length - n), cut: (b.cut ?? 0) + n };
    }
    case 'table': {
      const n = drop(b.rows.length);
      return { ...b, rows: b.rows.slice(0, b.rows.length - n), cut: (b.cut ?? 0) + n };
    }
    case 'code': {
      const lines = b.text.split('\n');
      const n = drop(lines.length);
      return { ...b, text: lines.slice(0, lines.length - n).join('\n'), cut: (b.cut ?? 0) + n };
    }
    case 'fields': {
      // Every long value gives up its share: the rows are few, their values are what weighs.
      const shorter = (value: string) => {
        if (value.length <= SHORTEST_CUT_VALUE) return value;
        const keep = Math.max(0, Math.floor(value.length * (1 - share)) - SHORTEST_CUT_VALUE);
        return `${value.slice(0, keep)}… (cut: the size limit of this mail)`;
      };
      return { ...b, rows: b.rows.map(([label, value]): [string, string] => [label, shorter(value)]) };
    }
    default:
      return b;
  }
}

/**
 * The blocks with both parts within MAIL_TEXT_MAX_BYTES and MAIL_HTML_MAX_BYTES: while a part is
 * over, its heaviest block that can give something up leaves out what the overshoot weighs. A
 * part weighs what its blocks weigh, and the separators and the frame around them (the text part
 * may weigh a little less: its trailing blank lines are trimmed), so each block is rendered once,
 * and again only when it is cut.
 */
function fitParts(blocks: readonly Block[]): Block[] {
  const out = [...blocks];
  const weigh = (b: Block) => ({ text: bytes(blockText(b)), html: bytes(blockHtml(b)) });
  const weights = out.map(weigh);
  const frame = { text: out.length, html: bytes(renderHtml([])) + out.length };
  for (;;) {
    const textOver = weights.reduce((n, w) => n + w.text, frame.text) - MAIL_TEXT_MAX_BYTES;
    const htmlOver = weights.reduce((n, w) => n + w.html, frame.html) - MAIL_HTML_MAX_BYTES;
    if (textOver <= 0 && htmlOver <= 0) return out;
    const part = htmlOver / MAIL_HTML_MAX_BYTES >= textOver / MAIL_TEXT_MAX_BYTES ? 'html' : 'text';
    const over = part === 'html' ? htmlOver : textOver;
    let heaviest = -1;
    for (let i = 0; i < out.length; i++) if (canShrink(out[i]!) && (heaviest < 0 || weights[i]![part] > weights[heaviest]![part])) heaviest = i;
    // Headings, links and notes only: each is short by construction.
    if (heaviest < 0) return out;
    // A little more than the overshoot, for the line that says what was cut.
    const share = Math.min(1, (over + 200) / weights[heaviest]![part]);
    out[heaviest] = shrink(out[heaviest]!, share);
    weights[heaviest] = weigh(out[heaviest]!);
  }
}

function mail(subject: string, blocks: readonly Block[]): MailContent {
  const fitted = fitParts(blocks);
  return { subject: subjectLine(subject), text: renderText(fitted), html: renderHtml(fitted) };
}

// ---------------------------------------------------------------------------------------------
// The three messages.

export function alertMail(alert: AlertDraft, options: AlertMailOptions): MailContent {
  const label = severityLabel(alert.severity);
  const blocks: Block[] = [
    { type: 'heading', text: `[${label}] ${boundTitle(alert.title)}` },
    {
      type: 'fields',
      rows: [
        ['Site', alert.origin || 'none (an alert about the run)'],
        ['Alert', `${alert.kind} (${alert.severity})`],
        ['Run', alert.runId],
        ['Raised', utc(options.raisedAt)],
      ],
    },
    // Bounded when raised; an alert stored before the bound came in is bounded here (as its webhook is).
    ...detailBlocks(boundAlertDetails(alert.details)),
  ];
  if (options.textDiff) blocks.push({ type: 'code', title: 'robots.txt, before and after (unified diff)', text: cut(options.textDiff, MAIL_TEXT_DIFF_MAX_CHARS) });
  if (options.dashboardUrl && alert.origin) blocks.push({ type: 'link', label: `${alert.origin} on the dashboard`, href: siteHref(options.dashboardUrl, alert.origin) });
  blocks.push(footer([alert.kind, `run ${alert.runId}`, alert.dedupeKey]));
  return mail(`[robots-audit] ${label}: ${boundTitle(alert.title)}`, blocks);
}

const RANK: Readonly<Record<AlertSeverity, number>> = { critical: 0, warning: 1, info: 2 };

/** A site's part of a digest: its heading, and its alerts with their first flips. */
function siteBlocks(origin: string, list: readonly AlertDraft[], dashboardUrl: string | null | undefined): Block[] {
  const heading: Block = dashboardUrl && origin ? { type: 'heading', text: origin, href: siteHref(dashboardUrl, origin) } : { type: 'heading', text: origin || 'The run itself' };
  const items: string[] = [];
  for (const a of list) {
    items.push(`[${severityLabel(a.severity)}] ${a.kind}: ${boundTitle(a.title)}`);
    const flips = a.details.flips ?? [];
    for (const f of flips.slice(0, MAIL_DIGEST_FLIPS_PER_ALERT)) {
      const line = `${f.url} · ${f.agent}: ${verdict(f.from)} → ${verdict(f.to)} (${ruleText(f.ruleAfter ?? f.ruleBefore)})`;
      items.push(`    ${clipText(line, MAX_DETAIL_TEXT_CHARS)}`);
    }
    const more = (a.details.flipsTotal ?? flips.length) - Math.min(flips.length, MAIL_DIGEST_FLIPS_PER_ALERT);
    if (more > 0) items.push(`    … ${plural(more, 'more flip')}`);
  }
  return [heading, { type: 'list', title: plural(list.length, 'alert'), items }];
}

/**
 * One mail for a run: a summary, then each site (most severe first) with its alerts and their
 * first flips, while the sites fit in MAIL_DIGEST_MAX_ALERTS alerts and in both parts' sizes;
 * the alerts of the sites left out are counted.
 */
export function digestMail(alerts: readonly AlertDraft[], options: DigestMailOptions): MailContent {
  const counts: Record<AlertSeverity, number> = { critical: 0, warning: 0, info: 0 };
  for (const a of alerts) counts[a.severity] += 1;
  const sorted = [...alerts].sort((a, b) => RANK[a.severity] - RANK[b.severity] || a.origin.localeCompare(b.origin) || a.kind.localeCompare(b.kind));
  const kept = sorted.slice(0, MAIL_DIGEST_MAX_ALERTS);
  const bySite = new Map<string, AlertDraft[]>();
  for (const a of kept) bySite.set(a.origin, [...(bySite.get(a.origin) ?? []), a]);
  // Alerts about the run itself (no site) are listed under the run, not counted as a site.
  const sites = new Set(alerts.map((a) => a.origin).filter((o) => o !== '')).size;
  const summary = `${digestTitle(options)}: ${counts.critical} critical, ${counts.warning} warning, ${counts.info} info on ${plural(sites, 'site')}`;

  const head: Block[] = [{ type: 'heading', text: summary }];
  const waits = digestWaitNote(options);
  if (waits) head.push({ type: 'note', text: waits });
  if (alerts.length === 0) head.push({ type: 'note', text: 'No alert at or above this channel\'s minimum severity in this run.' });
  const tail = (notListed: number): Block[] => [
    ...(notListed > 0 ? [{ type: 'note', text: `… ${plural(notListed, 'more alert')} not listed` } as const] : []),
    ...(options.dashboardUrl ? [{ type: 'link', label: `Run ${options.runId} on the dashboard`, href: runHref(options.dashboardUrl, options.runId) } as const] : []),
    footer([options.late ? `late digest of run ${options.runId}` : `digest of run ${options.runId}`, `${options.late ? 'sites in' : 'finished'} ${utc(options.finishedAt)}`]),
  ];
  // Sites in order while both parts stay within their sizes (the tail weighed with the largest
  // count it can say); the first always, cut by fitParts if it alone is too large.
  let textBytes = bytes(renderText([...head, ...tail(sorted.length)]));
  let htmlBytes = bytes(renderHtml([...head, ...tail(sorted.length)]));
  const listed: Block[] = [];
  let listedAlerts = 0;
  for (const [origin, list] of bySite) {
    const site = siteBlocks(origin, list, options.dashboardUrl);
    const t = site.reduce((n, b) => n + bytes(blockText(b)) + 1, 0);
    const h = site.reduce((n, b) => n + bytes(blockHtml(b)) + 1, 0);
    if (listed.length > 0 && (textBytes + t > MAIL_TEXT_MAX_BYTES || htmlBytes + h > MAIL_HTML_MAX_BYTES)) break;
    listed.push(...site);
    listedAlerts += list.length;
    textBytes += t;
    htmlBytes += h;
  }
  return mail(`[robots-audit] ${summary.replace('robots-audit ', '')}`, [...head, ...listed, ...tail(sorted.length - listedAlerts)]);
}

/** `robots-audit alerts test`: proof that the channel's mail arrives, shaped like the real ones. */
export function testMail(channelId: number, at: Date): MailContent {
  return mail('[robots-audit] test message', [
    { type: 'heading', text: 'Test message from robots-audit' },
    { type: 'fields', rows: [['Channel', String(channelId)], ['Sent', utc(at)]] },
    { type: 'note', text: 'This address receives robots.txt alerts. Nothing to do.' },
  ]);
}
