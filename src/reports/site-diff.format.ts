/**
 * `robots-audit diff` output: the two versions, the unified text diff, then per crawler the
 * rules it gains (+) and loses (-), and the sitemaps and other records that changed; added
 * lines green and removed ones red when colour is on. Pure.
 */
import { terminalText } from './terminal-text.js';
import type { CrawlerRuleChange, DiffedGroup } from '../crawlers/crawler-diff.js';
import { describeRobotsDiff, ruleLine } from '../robots/diff.js';
import type { SiteDiffReport } from './site-diff.js';
import type { SiteVersion } from './site-versions.js';
import { formatNight, plural } from './site-text.js';

/** SGR codes (ECMA-48): foreground green, red, cyan, then the default foreground. */
const GREEN = '\u001b[32m';
const RED = '\u001b[31m';
const CYAN = '\u001b[36m';
const RESET = '\u001b[39m';

export interface DiffFormatOptions {
  color?: boolean;
}

/** The part of an output stream colour depends on (a tty.WriteStream has both). */
export interface ColorTarget {
  isTTY?: boolean;
  hasColors?: () => boolean;
}

/**
 * Whether to colour: `--color` / `--no-color` when given; else never when NO_COLOR is set in
 * the caller's environment overrides (CliIo.env, no-color.org); else only on a terminal that
 * Node says has colours (it reads NO_COLOR, FORCE_COLOR and TERM=dumb from the environment).
 */
export function useColor(flag: boolean | undefined, out: ColorTarget, overrides: Record<string, string> = {}): boolean {
  if (flag !== undefined) return flag;
  if (out.isTTY !== true || typeof out.hasColors !== 'function') return false;
  if (overrides.NO_COLOR !== undefined) return false;
  return out.hasColors();
}

const paint = (color: string, line: string) => `${color}${line}${RESET}`;

/**
 * Colours a unified diff: after the file headers (`---`, `+++`, up to the first hunk), lines
 * added green, removed red, hunk headers cyan.
 */
export function colorTextDiff(lines: readonly string[]): string[] {
  let inHunks = false;
  return lines.map((line) => {
    if (line.startsWith('@@')) {
      inHunks = true;
      return paint(CYAN, line);
    }
    if (!inHunks) return line;
    if (line.startsWith('+')) return paint(GREEN, line);
    if (line.startsWith('-')) return paint(RED, line);
    return line;
  });
}

/** Colours an indented `+ ...` line green and `- ...` red (the per-crawler and record lines). */
export function colorChangeLine(line: string): string {
  if (/^\s*\+ /.test(line)) return paint(GREEN, line);
  if (/^\s*- /.test(line)) return paint(RED, line);
  return line;
}

function versionLine(v: SiteVersion): string {
  const nights = v.nights === 1 ? `fetched on ${formatNight(v.firstNight)}` : `fetched ${formatNight(v.firstNight)} .. ${formatNight(v.lastNight)}, ${plural(v.nights, 'night')}`;
  return `version ${v.number}: ${nights} (first run ${v.firstRunKey}); ${plural(v.bytes, 'byte')}, sha256 ${v.sha256.slice(0, 12)}`;
}

function groupText(g: DiffedGroup): string {
  if (g.kind === 'none') return 'no group';
  if (g.kind === 'global') return 'the * group';
  return `the group User-agent: ${g.userAgents.join(', ')}`;
}

/** Entries (distinct changes) listed; the others are counted. */
export const MAX_CRAWLER_ENTRIES_LISTED = 100;
/** Crawler names listed per entry and on the unchanged line; the others are counted. */
export const MAX_CRAWLER_NAMES_LISTED = 50;

/** "a, b, c and 14,997 more". */
function namesText(names: readonly string[]): string {
  const shown = names.slice(0, MAX_CRAWLER_NAMES_LISTED).join(', ');
  return names.length > MAX_CRAWLER_NAMES_LISTED ? `${shown} and ${(names.length - MAX_CRAWLER_NAMES_LISTED).toLocaleString('en-US')} more` : shown;
}

/**
 * A crawler's change, without its name: what groups it follows, and its gains and losses.
 * Crawlers that follow the same groups share their lists (diffCrawlerRules), so those are keyed
 * by identity: a list of 27,000 rules is not written out once per crawler.
 */
function changeKey(c: CrawlerRuleChange, listIds: Map<object, number>): string {
  const id = (list: object) => {
    let n = listIds.get(list);
    if (n === undefined) listIds.set(list, (n = listIds.size));
    return n;
  };
  return `${JSON.stringify([c.before, c.after])}#${id(c.gained)}#${id(c.lost)}`;
}

/**
 * The per-crawler part: crawlers whose change is the same (every crawler that follows `*`
 * when a `*` rule changed) share one entry; the unchanged ones are named on one line. Bounded:
 * MAX_CRAWLER_ENTRIES_LISTED entries of MAX_CRAWLER_NAMES_LISTED names, the rules each list
 * keeps (MAX_CRAWLER_RULES_LISTED), the rest counted.
 */
export function crawlerLines(crawlers: readonly CrawlerRuleChange[], notCompared = 0): string[] {
  const entries = new Map<string, { names: string[]; change: CrawlerRuleChange }>();
  const unchanged: string[] = [];
  const listIds = new Map<object, number>();
  for (const c of crawlers) {
    if (!c.changed) {
      unchanged.push(c.crawler);
      continue;
    }
    const key = changeKey(c, listIds);
    const entry = entries.get(key);
    if (entry) entry.names.push(c.crawler);
    else entries.set(key, { names: [c.crawler], change: c });
  }
  const lines: string[] = [];
  let listed = 0;
  for (const { names, change } of entries.values()) {
    if (listed++ === MAX_CRAWLER_ENTRIES_LISTED) break;
    const regrouped = change.before.kind !== change.after.kind || change.before.token !== change.after.token;
    const groups = regrouped ? `${groupText(change.before)} → ${groupText(change.after)}` : groupText(change.after);
    lines.push(`${namesText(names)} (${groups})`);
    for (const r of change.lost) lines.push(`  - ${ruleLine(r)}`);
    if (change.lostTotal > change.lost.length) lines.push(`  - … and ${(change.lostTotal - change.lost.length).toLocaleString('en-US')} more rules`);
    for (const r of change.gained) lines.push(`  + ${ruleLine(r)}`);
    if (change.gainedTotal > change.gained.length) lines.push(`  + … and ${(change.gainedTotal - change.gained.length).toLocaleString('en-US')} more rules`);
    if (change.lostTotal === 0 && change.gainedTotal === 0) lines.push('  (the same rules)');
  }
  if (entries.size > MAX_CRAWLER_ENTRIES_LISTED) lines.push(`… and ${(entries.size - MAX_CRAWLER_ENTRIES_LISTED).toLocaleString('en-US')} more changes`);
  if (unchanged.length > 0) lines.push(`unchanged: ${namesText(unchanged)}`);
  if (notCompared > 0) lines.push(`not compared: ${notCompared.toLocaleString('en-US')} more crawlers the files name`);
  return lines;
}

export function formatSiteDiff(report: SiteDiffReport, options: DiffFormatOptions = {}): string {
  const { site } = report;
  switch (report.kind) {
    case 'too_few_versions': {
      const only = report.versions[0];
      if (!only) return `${site.origin}: no robots.txt stored yet: nothing to compare\n`;
      return `${site.origin}: one version of robots.txt stored (${versionLine(only)}): nothing to compare\n`;
    }
    case 'first_version':
      return `${site.origin}: ${versionLine(report.version)} is the first stored: nothing before it to compare\n`;
    case 'same_version':
      return `${site.origin}: no difference: both ends are version ${report.version.number} of ${report.versionCount} (${versionLine(report.version)})\n`;
    case 'diff':
      break;
  }
  const color = options.color === true;
  // A site's text is shown escaped (habit 13: ESC and BEL as <U+XXXX> markers), then coloured.
  const esc = (line: string) => terminalText(line, { color });
  const changeLine = color ? (line: string) => colorChangeLine(esc(line)) : esc;
  const out = [`${site.origin}: version ${report.from.number} → version ${report.to.number} (${plural(report.versionCount, 'version')} stored)`];
  out.push(`  before: ${versionLine(report.from)}`, `  after:  ${versionLine(report.to)}`, '');
  const textLines = report.textDiff.split('\n').map(esc);
  out.push(...(color ? colorTextDiff(textLines) : textLines), '');

  const semantic = report.semantic;
  if (semantic.kinds.includes('comments_only') || semantic.kinds.includes('identical')) {
    out.push('Rules, sitemaps and records: the same (only comments, blank lines, order or spelling differ)');
    return `${out.join('\n')}\n`;
  }
  out.push('Per crawler (+ gained, - lost):');
  out.push(...crawlerLines(report.crawlers, report.crawlersNotCompared).map((l) => changeLine(`  ${l}`)));
  const others = describeRobotsDiff(semantic, ['sitemaps', 'records']);
  if (others.length > 0) {
    out.push('', 'Sitemaps and other records:');
    out.push(...others.map((l) => changeLine(`  ${l}`)));
  }
  return `${out.join('\n')}\n`;
}

/** A crawler's change in JSON: its lists as kept (MAX_CRAWLER_RULES_LISTED), with their full counts. */
export function crawlerChangeJson(c: CrawlerRuleChange) {
  return { crawler: c.crawler, before: c.before, after: c.after, gained: c.gained, lost: c.lost, gainedTotal: c.gainedTotal, lostTotal: c.lostTotal, changed: c.changed };
}

function versionJson(v: SiteVersion) {
  return {
    number: v.number,
    sha256: v.sha256,
    bytes: v.bytes,
    firstNight: v.firstNight.toISOString(),
    firstRunKey: v.firstRunKey,
    lastNight: v.lastNight.toISOString(),
    lastRunKey: v.lastRunKey,
    nights: v.nights,
  };
}

/** The JSON of `diff --json` (stable: keys are only ever added). `from`/`to` null when there is no diff. */
export function siteDiffJson(report: SiteDiffReport) {
  const site = { id: report.site.id, origin: report.site.origin };
  if (report.kind === 'too_few_versions') return { site, result: report.kind, versions: report.versions.length, from: null, to: null };
  if (report.kind === 'first_version') return { site, result: report.kind, versions: report.versionCount, from: null, to: versionJson(report.version) };
  if (report.kind === 'same_version') {
    return { site, result: report.kind, versions: report.versionCount, from: versionJson(report.version), to: versionJson(report.version) };
  }
  return {
    site,
    result: report.kind,
    versions: report.versionCount,
    from: versionJson(report.from),
    to: versionJson(report.to),
    textDiff: report.textDiff,
    kinds: report.semantic.kinds,
    crawlers: report.crawlers.map(crawlerChangeJson),
    crawlersNotCompared: report.crawlersNotCompared,
    sitemapsAdded: report.semantic.sitemapsAdded,
    sitemapsRemoved: report.semantic.sitemapsRemoved,
    records: report.semantic.records,
  };
}
