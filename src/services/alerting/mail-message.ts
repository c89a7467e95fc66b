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
 */
import { replaceHiddenChars, plainMarker, revealHiddenChars } from '../../robots/hidden-chars.js';
import type { AlertDetails, AlertDraft, AlertFlip, AlertSeverity } from './alert-rules.js';
import { outcomeLabel } from './alert-rules.js';
import { digestTitle, digestWaitNote, severityLabel } from './messages.js';
import type { DigestOptions } from './messages.js';

/** Flips listed in one alert mail; the count of all is said beside. */
export const MAIL_MAX_FLIPS = 50;
/** Characters of the text diff in one alert mail. */
export const MAIL_TEXT_DIFF_MAX_CHARS = 10_000;
/** Alerts listed in a digest mail; the others are counted. */
export const MAIL_DIGEST_MAX_ALERTS = 500;
/** Flips shown under each alert of a digest. */
export const MAIL_DIGEST_FLIPS_PER_ALERT = 3;
/** Characters of a subject line (RFC 5322 asks for lines under 78; mail clients cut long subjects anyway). */
export const MAIL_SUBJECT_MAX_CHARS = 150;
/** Characters of any one value rendered from an alert's details. */
const VALUE_MAX_CHARS = 2_000;

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

type Block =
  | { type: 'heading'; text: string; href?: string }
  | { type: 'fields'; rows: [string, string][] }
  | { type: 'list'; title: string; items: string[] }
  | { type: 'table'; title: string; head: string[]; rows: string[][] }
  | { type: 'code'; title: string; text: string }
  | { type: 'link'; label: string; href: string }
  | { type: 'note'; text: string };

const verdict = (v: boolean | null) => (v === null ? 'none' : v ? 'allowed' : 'disallowed');
const ruleText = (r: AlertFlip['ruleBefore']) => (r === null ? 'no rule' : `line ${r.line}: ${r.kind === 'allow' ? 'Allow' : 'Disallow'}: ${r.value}`);
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

function flipRows(flips: readonly AlertFlip[]): string[][] {
  return flips.map((f) => [f.url, `${f.agent} (${f.agentFamily})`, `${verdict(f.from)} → ${verdict(f.to)}`, ruleText(f.ruleBefore), ruleText(f.ruleAfter)]);
}

/** The details, field by field: those this module knows in a shape of their own, every other as a labelled value. */
function detailBlocks(details: AlertDetails): Block[] {
  const blocks: Block[] = [];
  const fields: [string, string][] = [];
  const known = new Set(['flips', 'flipsTotal', 'agents', 'diffLines', 'agentsAdded', 'agentsRemoved', 'sitemapsAdded', 'sitemapsRemoved', 'policy', 'gaps', 'gapsTotal']);
  if (details.policy) {
    const p = details.policy;
    fields.push(['Policy', `${p.from ?? 'none'} → ${p.to} (${p.reason}; robots.txt answered ${outcomeLabel(p.outcomeFrom)} → ${outcomeLabel(p.outcomeTo)})`]);
  }
  if (details.agents?.length) fields.push(['Agents', details.agents.join(', ')]);
  if (details.agentsAdded?.length) fields.push(['Groups added', details.agentsAdded.join(', ')]);
  if (details.agentsRemoved?.length) fields.push(['Groups removed', details.agentsRemoved.join(', ')]);
  for (const [key, value] of Object.entries(details as Record<string, unknown>)) {
    if (known.has(key) || value === undefined) continue;
    fields.push([labelOf(key), cut(valueText(value), VALUE_MAX_CHARS)]);
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
  if (details.sitemapsAdded?.length || details.sitemapsRemoved?.length) {
    blocks.push({ type: 'list', title: 'Sitemaps', items: [...(details.sitemapsRemoved ?? []).map((u) => `- ${u}`), ...(details.sitemapsAdded ?? []).map((u) => `+ ${u}`)] });
  }
  if (details.diffLines?.length) blocks.push({ type: 'code', title: 'What changed, as crawlers read it', text: details.diffLines.join('\n') });
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

function renderText(blocks: readonly Block[]): string {
  const out: string[] = [];
  for (const b of blocks) {
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
        out.push(`${b.title}:`, ...b.items.map((i) => `  ${show(i)}`), '');
        break;
      case 'table':
        out.push(`${b.title}:`);
        for (const row of b.rows) {
          out.push(`  ${show(row[0] ?? '')}`);
          row.slice(1).forEach((cell, i) => out.push(`    ${b.head[i + 1]}: ${show(cell)}`));
        }
        out.push('');
        break;
      case 'code':
        out.push(`${b.title}:`, ...show(b.text).replace(/\n+$/, '').split('\n').map((l) => `  ${l}`), '');
        break;
      case 'link':
        out.push(`${b.label}: ${b.href}`, '');
        break;
      case 'note':
        out.push('--', show(b.text));
        break;
    }
  }
  return `${out.join('\n').trimEnd()}\n`;
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

function renderHtml(blocks: readonly Block[]): string {
  const out: string[] = [];
  for (const b of blocks) {
    switch (b.type) {
      case 'heading':
        out.push(b.href ? `<h2><a href="${escapeHtml(b.href)}">${html(b.text)}</a></h2>` : `<h2>${html(b.text)}</h2>`);
        break;
      case 'fields':
        out.push(`<table style="${STYLE.table}">${b.rows.map(([l, v]) => `<tr><th style="${STYLE.cell}">${escapeHtml(l)}</th><td style="${STYLE.cell}">${html(v)}</td></tr>`).join('')}</table>`);
        break;
      case 'list':
        out.push(`<p><b>${escapeHtml(b.title)}</b></p><ul>${b.items.map((i) => `<li><code>${html(i)}</code></li>`).join('')}</ul>`);
        break;
      case 'table': {
        const head = `<tr>${b.head.map((h) => `<th style="${STYLE.cell}">${escapeHtml(h)}</th>`).join('')}</tr>`;
        const rows = b.rows.map((r) => `<tr>${r.map((c) => `<td style="${STYLE.cell}">${html(c)}</td>`).join('')}</tr>`).join('');
        out.push(`<p><b>${escapeHtml(b.title)}</b></p><table style="${STYLE.table}">${head}${rows}</table>`);
        break;
      }
      case 'code':
        out.push(`<p><b>${escapeHtml(b.title)}</b></p><pre style="${STYLE.pre}">${html(b.text)}</pre>`);
        break;
      case 'link':
        out.push(`<p><a href="${escapeHtml(b.href)}">${escapeHtml(b.label)}</a></p>`);
        break;
      case 'note':
        out.push(`<p style="${STYLE.note}">${html(b.text)}</p>`);
        break;
    }
  }
  return `<!doctype html>\n<html><head><meta charset="utf-8"></head><body style="${STYLE.body}">\n${out.join('\n')}\n</body></html>\n`;
}

function mail(subject: string, blocks: readonly Block[]): MailContent {
  return { subject: subjectLine(subject), text: renderText(blocks), html: renderHtml(blocks) };
}

// ---------------------------------------------------------------------------------------------
// The three messages.

export function alertMail(alert: AlertDraft, options: AlertMailOptions): MailContent {
  const label = severityLabel(alert.severity);
  const blocks: Block[] = [
    { type: 'heading', text: `[${label}] ${alert.title}` },
    {
      type: 'fields',
      rows: [
        ['Site', alert.origin || 'none (an alert about the run)'],
        ['Alert', `${alert.kind} (${alert.severity})`],
        ['Run', alert.runId],
        ['Raised', utc(options.raisedAt)],
      ],
    },
    ...detailBlocks(alert.details),
  ];
  if (options.textDiff) blocks.push({ type: 'code', title: 'robots.txt, before and after (unified diff)', text: cut(options.textDiff, MAIL_TEXT_DIFF_MAX_CHARS) });
  if (options.dashboardUrl && alert.origin) blocks.push({ type: 'link', label: `${alert.origin} on the dashboard`, href: siteHref(options.dashboardUrl, alert.origin) });
  blocks.push(footer([alert.kind, `run ${alert.runId}`, alert.dedupeKey]));
  return mail(`[robots-audit] ${label}: ${alert.title}`, blocks);
}

const RANK: Readonly<Record<AlertSeverity, number>> = { critical: 0, warning: 1, info: 2 };

/** One mail for a run: a summary, then each site (most severe first) with its alerts and their first flips. */
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

  const blocks: Block[] = [{ type: 'heading', text: summary }];
  const waits = digestWaitNote(options);
  if (waits) blocks.push({ type: 'note', text: waits });
  if (alerts.length === 0) blocks.push({ type: 'note', text: 'No alert at or above this channel\'s minimum severity in this run.' });
  for (const [origin, list] of bySite) {
    blocks.push(options.dashboardUrl && origin ? { type: 'heading', text: origin, href: siteHref(options.dashboardUrl, origin) } : { type: 'heading', text: origin || 'The run itself' });
    const items: string[] = [];
    for (const a of list) {
      items.push(`[${severityLabel(a.severity)}] ${a.kind}: ${a.title}`);
      const flips = a.details.flips ?? [];
      for (const f of flips.slice(0, MAIL_DIGEST_FLIPS_PER_ALERT)) items.push(`    ${f.url} · ${f.agent}: ${verdict(f.from)} → ${verdict(f.to)} (${ruleText(f.ruleAfter ?? f.ruleBefore)})`);
      const more = (a.details.flipsTotal ?? flips.length) - Math.min(flips.length, MAIL_DIGEST_FLIPS_PER_ALERT);
      if (more > 0) items.push(`    … ${plural(more, 'more flip')}`);
    }
    blocks.push({ type: 'list', title: plural(list.length, 'alert'), items });
  }
  if (sorted.length > kept.length) blocks.push({ type: 'note', text: `… ${plural(sorted.length - kept.length, 'more alert')} not listed` });
  if (options.dashboardUrl) blocks.push({ type: 'link', label: `Run ${options.runId} on the dashboard`, href: runHref(options.dashboardUrl, options.runId) });
  blocks.push(footer([options.late ? `late digest of run ${options.runId}` : `digest of run ${options.runId}`, `${options.late ? 'sites in' : 'finished'} ${utc(options.finishedAt)}`]));
  return mail(`[robots-audit] ${summary.replace('robots-audit ', '')}`, blocks);
}

/** `robots-audit alerts test`: proof that the channel's mail arrives, shaped like the real ones. */
export function testMail(channelId: number, at: Date): MailContent {
  return mail('[robots-audit] test message', [
    { type: 'heading', text: 'Test message from robots-audit' },
    { type: 'fields', rows: [['Channel', String(channelId)], ['Sent', utc(at)]] },
    { type: 'note', text: 'This address receives robots.txt alerts. Nothing to do.' },
  ]);
}
