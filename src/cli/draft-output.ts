/**
 * What `robots-audit test-draft` writes (pure): a table for people, one JSON object for scripts,
 * or GitHub Actions workflow commands (`::error file=…,line=…::…`) that a pull request shows on
 * the draft's lines. Every text that came from a robots.txt or a site goes through
 * `terminalText`: control and direction-changing characters are shown as `<U+XXXX>`, never
 * written as they are (house style, habit 13); in workflow commands they are escaped besides.
 */
import { describeRobotsDiff, ruleLine } from '../robots/diff.js';
import type { Diagnostic } from '../robots/types.js';
import { crawlerChangeJson, crawlerLines } from '../reports/site-diff.format.js';
import { hiddenCharsNote, terminalText } from '../reports/terminal-text.js';
import { plural } from '../reports/site-text.js';
import type { CitedRule } from '../night/alerts.js';
import { groupFlips, groupUsageFlips } from '../services/draft-check.js';
import type { DraftAlert, DraftReport, DraftUsageRule, FlipGroup, UsageFlipGroup } from '../services/draft-check.js';

/** Flip lines the table shows (`--format json` lists every flip). */
export const TABLE_MAX_FLIP_GROUPS = 40;
/** Usage-change lines the table shows (`--format json` lists every change). */
export const TABLE_MAX_USAGE_GROUPS = 40;
/** Crawlers named on one flip line; the others are counted. */
export const TABLE_MAX_CRAWLERS_PER_LINE = 8;
/** Flipped URLs an annotation names; the others are counted. */
export const ANNOTATION_MAX_URLS = 5;

/** Where the two files came from, for people and for the JSON. */
export interface DraftSources {
  /** The draft as given: a path, `-`, or a URL. */
  draft: string;
  /** `database` (the site's latest night), or the `--current` file or URL. */
  current: { kind: 'database'; night: Date; runKey: string } | { kind: 'file' | 'url'; source: string };
}

const safe = (text: string) => terminalText(text);
const verdict = (allowed: boolean) => (allowed ? 'allowed' : 'disallowed');
const ruleText = (r: CitedRule | null) => (r === null ? 'no rule matches' : `line ${r.line}: ${safe(ruleLine(r))}`);

/** The deciding line in force: a rule, or the policy when no rule is read (full allow or disallow). */
function ruleInForce(report: DraftReport, r: CitedRule | null): string {
  return r === null && report.current.policy !== 'rules' ? `${report.current.policy} (${report.current.policyReason})` : ruleText(r);
}

/** A usage preference's deciding line: `line 4 (Content-Signal ai-train): ai-train=no, search=yes`. */
export function usageRuleText(r: DraftUsageRule | null): string {
  if (r === null) return 'not stated';
  return `line ${r.line} (${r.mechanism === 'content-signal' ? 'Content-Signal' : 'Content-Usage'} ${safe(r.label)}): ${safe(r.value)}`;
}

function crawlerList(group: FlipGroup | UsageFlipGroup): string {
  const names = group.crawlers.map((c) => c.token);
  const shown = names.slice(0, TABLE_MAX_CRAWLERS_PER_LINE).join(', ');
  const more = names.length > TABLE_MAX_CRAWLERS_PER_LINE ? ` and ${names.length - TABLE_MAX_CRAWLERS_PER_LINE} more` : '';
  const families = [...new Set(group.crawlers.map((c) => c.category ?? c.family))].join(', ');
  return `${safe(shown)}${more} (${families})`;
}

function currentText(report: DraftReport, sources: DraftSources): string {
  const c = report.current;
  const where = sources.current.kind === 'database' ? `the latest night, ${sources.current.runKey}` : `${sources.current.kind} ${safe(sources.current.source)}`;
  const bytes = c.bytes === null ? 'no body' : plural(c.bytes, 'byte');
  return `${c.policy} (${c.policyReason}, ${c.outcome}; ${where}; ${bytes})`;
}

function sizeText(report: DraftReport): string {
  const { bytes, limit, ignored } = report.size;
  if (ignored === 0) return `${plural(bytes, 'byte')}, within the ${limit.toLocaleString('en-US')}-byte cut (R-18)`;
  return `${plural(bytes, 'byte')}: crawlers read the first ${limit.toLocaleString('en-US')} and ignore the last ${ignored.toLocaleString('en-US')} (R-18)`;
}

function alertSummary(report: DraftReport): string {
  const failing = report.alerts.filter((a) => a.failing);
  if (failing.length > 0) {
    return `FAIL: ${plural(failing.length, 'alert')} at or above ${report.failOn} (${failing.map((a) => a.kind).join(', ')}): exit 1`;
  }
  const below = report.alerts.filter((a) => a.aboutAccess).length;
  return `PASS: no access alert at or above ${report.failOn}${below > 0 ? ` (${below} below it)` : ''}: exit 0`;
}

export function formatDraftTable(report: DraftReport, sources: DraftSources): string {
  const out: string[] = [];
  out.push(`${report.origin}: draft ${sources.draft === '-' ? 'from standard input' : safe(sources.draft)} (${sizeText(report)})`);
  out.push(`  against the robots.txt in force: ${currentText(report, sources)}`);
  out.push(`  ${report.compared.toLocaleString('en-US')} verdicts compared (tracked URLs x their agents, and / for every catalogued crawler)`);
  out.push('');
  if (report.kinds.includes('identical')) out.push('The draft is the file in force, byte for byte: nothing would change.', '');

  const groups = groupFlips(report.flips);
  if (groups.length === 0) {
    out.push('No verdict would flip.');
  } else {
    out.push(`Verdicts that would flip (${report.flips.length}):`);
    for (const g of groups.slice(0, TABLE_MAX_FLIP_GROUPS)) {
      const level = g.alert ? g.alert.severity : '-';
      out.push(`  ${level.padEnd(8)}  ${verdict(g.before)} -> ${verdict(g.after)}  ${safe(g.url)}  ${crawlerList(g)}`);
      out.push(`  ${''.padEnd(8)}  in force: ${ruleInForce(report, g.ruleBefore)}; draft: ${ruleText(g.ruleAfter)}${g.alert ? ` [${g.alert.kind}]` : ''}`);
    }
    if (groups.length > TABLE_MAX_FLIP_GROUPS) out.push(`  … ${groups.length - TABLE_MAX_FLIP_GROUPS} more (--format json lists every flip)`);
  }

  const usage = groupUsageFlips(report.usageFlips);
  if (usage.length > 0) {
    out.push('', `Usage preferences that would change (${report.usageFlips.length}; tracked URLs x their agents, where both files let the crawler fetch the URL):`);
    for (const g of usage.slice(0, TABLE_MAX_USAGE_GROUPS)) {
      const level = g.alert ? g.alert.severity : '-';
      out.push(`  ${level.padEnd(8)}  ${g.purpose}: ${g.before} -> ${g.after}  ${safe(g.url)}  ${crawlerList(g)}`);
      out.push(`  ${''.padEnd(8)}  in force: ${usageRuleText(g.ruleBefore)}; draft: ${usageRuleText(g.ruleAfter)}${g.alert ? ` [${g.alert.kind}]` : ''}`);
    }
    if (usage.length > TABLE_MAX_USAGE_GROUPS) out.push(`  … ${usage.length - TABLE_MAX_USAGE_GROUPS} more (--format json lists every change)`);
  }

  out.push('', 'Alerts the night after the deploy would raise:');
  if (report.alerts.length === 0) out.push('  none');
  for (const a of report.alerts) {
    const lines = a.lines.length > 0 ? ` (draft line${a.lines.length === 1 ? '' : 's'} ${a.lines.join(', ')})` : '';
    out.push(`  ${a.failing ? 'FAIL' : '    '}  ${a.severity.padEnd(8)}  ${a.kind}: ${safe(a.title)}${lines}`);
  }

  const changed = report.crawlers.filter((c) => c.changed);
  if (changed.length > 0) {
    out.push('', 'Per crawler (+ gained, - lost):');
    out.push(...crawlerLines(report.crawlers, report.crawlersNotCompared).map((l) => `  ${safe(l)}`));
  }
  const others = describeRobotsDiff(report.semantic, ['sitemaps', 'records']);
  if (others.length > 0) out.push('', 'Sitemaps and other records:', ...others.map((l) => `  ${safe(l)}`));
  if (report.starGapsOpened.length > 0) {
    out.push('', 'Paths of * newly open to a named crawler (it obeys only its own group, R-40):');
    for (const g of report.starGapsOpened) out.push(`  ${safe(g.path)} (* line ${g.starLine}) open to ${safe(g.tokens.join(', '))} (group at line ${g.groupLine})`);
  }
  out.push('', `Lint of the draft (${plural(report.lint.length, 'finding')}):`);
  for (const d of report.lint) out.push(`  ${d.line}:${d.severity}:${d.code}: ${safe(d.message)}`);
  out.push('', alertSummary(report));
  const note = hiddenCharsNote(siteTexts(report));
  if (note) out.push(note);
  return `${out.join('\n')}\n`;
}

/** Every text of the report that came from a file or a site, for the hidden-characters note. */
function* siteTexts(report: DraftReport): Iterable<string> {
  for (const f of report.flips) {
    yield f.url;
    if (f.ruleBefore) yield f.ruleBefore.value;
    if (f.ruleAfter) yield f.ruleAfter.value;
  }
  for (const f of report.usageFlips) {
    if (f.ruleBefore) yield f.ruleBefore.value;
    if (f.ruleAfter) yield f.ruleAfter.value;
  }
  for (const a of report.alerts) yield a.title;
  for (const d of report.lint) yield d.message;
  for (const c of report.crawlers) for (const r of [...c.gained, ...c.lost]) yield r.value;
}


/** The JSON of `--format json` (keys are only ever added). */
export function draftJson(report: DraftReport, sources: DraftSources) {
  const current = sources.current;
  return {
    site: report.origin,
    draft: { source: sources.draft, bytes: report.size.bytes, limit: report.size.limit, ignoredBytes: report.size.ignored },
    current: {
      source: current.kind === 'database' ? 'database' : current.source,
      night: current.kind === 'database' ? current.night.toISOString() : null,
      runKey: current.kind === 'database' ? current.runKey : null,
      outcome: report.current.outcome,
      policy: report.current.policy,
      policyReason: report.current.policyReason,
      bytes: report.current.bytes,
    },
    failOn: report.failOn,
    failing: report.failing,
    exitCode: report.failing ? 1 : 0,
    kinds: report.kinds,
    compared: report.compared,
    flips: report.flips.map((f) => ({
      url: f.url,
      isRoot: f.isRoot,
      crawler: f.crawler,
      category: f.category,
      family: f.family,
      tracked: f.tracked,
      allowedBefore: f.before,
      allowedAfter: f.after,
      ruleBefore: f.ruleBefore,
      ruleAfter: f.ruleAfter,
      alert: f.alert?.kind ?? null,
      severity: f.alert?.severity ?? null,
    })),
    usageFlips: report.usageFlips.map((f) => ({
      url: f.url,
      isRoot: f.isRoot,
      crawler: f.crawler,
      category: f.category,
      family: f.family,
      purpose: f.purpose,
      preferenceBefore: f.before,
      preferenceAfter: f.after,
      ruleBefore: f.ruleBefore,
      ruleAfter: f.ruleAfter,
      alert: f.alert?.kind ?? null,
      severity: f.alert?.severity ?? null,
    })),
    alerts: report.alerts.map((a) => ({ kind: a.kind, severity: a.severity, title: a.title, aboutAccess: a.aboutAccess, failing: a.failing, lines: a.lines, details: a.details })),
    crawlers: report.crawlers.map(crawlerChangeJson),
    crawlersNotCompared: report.crawlersNotCompared,
    starGapsOpened: report.starGapsOpened,
    sitemapsAdded: report.semantic.sitemapsAdded,
    sitemapsRemoved: report.semantic.sitemapsRemoved,
    records: report.semantic.records,
    lint: report.lint,
    textDiff: report.textDiff,
  };
}

// ---------------------------------------------------------------------------------------------
// GitHub Actions workflow commands
// (https://docs.github.com/actions/reference/workflows-and-actions/workflow-commands): a command's
// message escapes `%`, CR and LF; its properties (file, title) also `:` and `,`.

export function escapeCommandData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeCommandProperty(text: string): string {
  return escapeCommandData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

type AnnotationLevel = 'error' | 'warning' | 'notice';

function command(level: AnnotationLevel, file: string | null, line: number | null, title: string, message: string): string {
  const props = [file !== null ? `file=${escapeCommandProperty(file)}` : null, file !== null && line !== null ? `line=${line}` : null, `title=${escapeCommandProperty(title)}`]
    .filter((p) => p !== null)
    .join(',');
  return `::${level} ${props}::${escapeCommandData(safe(message))}`;
}

/** An alert that fails the check is an error; the others keep their weight: warnings, and notices for info. */
function alertLevel(a: DraftAlert): AnnotationLevel {
  if (a.failing) return 'error';
  return a.severity === 'info' ? 'notice' : 'warning';
}

const lintLevel = (d: Diagnostic): AnnotationLevel => (d.severity === 'error' ? 'error' : d.severity === 'warning' ? 'warning' : 'notice');

/** What the flips decided by one draft line are: `Googlebot, Bingbot: https://…/ allowed -> disallowed; …`. */
function flipsAt(report: DraftReport, alert: DraftAlert, line: number): string {
  const groups = groupFlips(report.flips.filter((f) => f.alert?.kind === alert.kind && f.ruleAfter?.line === line));
  if (groups.length === 0) return '';
  const shown = groups.slice(0, ANNOTATION_MAX_URLS).map((g) => `${g.url} ${verdict(g.before)} -> ${verdict(g.after)} for ${crawlerList(g)}`);
  const more = groups.length > ANNOTATION_MAX_URLS ? `; and ${groups.length - ANNOTATION_MAX_URLS} more` : '';
  return `: ${shown.join('; ')}${more}`;
}

/**
 * One annotation per access alert and draft line (or per alert, on the file, when it stands for
 * no line of the draft), one per lint finding, then a plain summary line. `file`: the draft's
 * path in the repository, null when it came from standard input or a URL (the annotations then
 * go to the run's summary, unattached).
 */
export function githubAnnotations(report: DraftReport, file: string | null): string {
  const out: string[] = [];
  for (const a of report.alerts.filter((x) => x.aboutAccess)) {
    const title = `robots-audit ${a.severity}: ${a.kind}`;
    if (a.lines.length === 0 || file === null) out.push(command(alertLevel(a), file, null, title, a.title));
    else for (const line of a.lines) out.push(command(alertLevel(a), file, line, title, `${a.title}${flipsAt(report, a, line)}`));
  }
  for (const d of report.lint) out.push(command(lintLevel(d), file, d.line, `robots-audit lint: ${d.code}`, d.message));
  const usage = report.usageFlips.length > 0 ? `, ${plural(report.usageFlips.length, 'usage preference')} would change` : '';
  out.push(`robots-audit test-draft ${report.origin}: ${plural(report.flips.length, 'verdict')} would flip${usage}; ${alertSummary(report)}`);
  return `${out.join('\n')}\n`;
}
