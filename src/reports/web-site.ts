/**
 * The dashboard's site page: one site's nights, its versions with both diffs, the verdicts in
 * force (tracked URLs x agents, each with the line that decides it), its alerts, and its
 * robots.txt with line numbers and lint diagnostics. Every query is bounded by the site (and by
 * a count where a site's history grows every night).
 */
import type pg from 'pg';
import { describeRobotsDiff } from '../robots/diff.js';
import type { RobotsDiff } from '../robots/diff.js';
import { lintAndParse, parseRobotsTxt } from '../robots/index.js';
import type { Diagnostic } from '../robots/index.js';
import { followedGroup, followedGroupText } from '../crawlers/followed-group.js';
import { lintWithCrawlers } from '../crawlers/usage-lint.js';
import { findCrawlerRules, parserOf, robotsTxtUseText } from '../crawlers/crawler-rules.js';
import type { FactBasis } from '../crawlers/crawler-rules.js';
import type { ParserProfileName } from '../robots/profiles/index.js';
import { describeSites } from './web-overview.js';
import type { OverviewRow } from './web-overview.js';
import { bodyLines } from './web-paging.js';
import { hiddenCharsIn } from '../robots/hidden-chars.js';
import type { HiddenChar } from '../robots/hidden-chars.js';
import { move } from './report-changes.js';
import { PORTABILITY_VERSION } from '../robots/profiles/portability.js';
import type { PortabilityResult, StoredPortability } from '../robots/profiles/portability.js';
import { USAGE_PURPOSES } from '../night/vocabulary.js';
import type { StoredPreference, UsagePurpose } from '../night/vocabulary.js';
import type { UsageRule, UsageRules } from '../night/input.js';

/** Nights on the timeline: a bit more than a year. */
export const TIMELINE_NIGHTS = 400;
/** Changes listed (the newest); older ones stay in `report changes` and SQL. */
export const SITE_CHANGES = 100;
export const SITE_ALERTS = 50;
/** Usage-preference changes listed (the newest); `report` and SQL (usage_flips) keep them all. */
export const SITE_USAGE_FLIPS = 100;
/** Lint diagnostics listed on the page (a 500 KiB file may have one per line); `robots-audit lint` lists them all. */
export const SITE_LINT_SHOWN = 500;

export interface TimelineNight {
  runId: number;
  at: Date;
  outcome: string;
  status: number | null;
  policy: string;
  policyReason: string;
  changed: boolean;
}

export interface SiteChange {
  runId: number;
  at: Date;
  kinds: string[];
  outcome: string;
  policy: string;
  /** The semantic diff as short lines (describeRobotsDiff); empty when the rules did not change. */
  semantic: string[];
  hasTextDiff: boolean;
}

export interface DiffLine {
  kind: 'add' | 'remove' | 'hunk' | 'meta' | 'context';
  text: string;
}

export interface SelectedVersion extends SiteChange {
  textDiff: DiffLine[];
}

export interface MatrixCell {
  allowed: boolean;
  ruleLine: number | null;
  /** The deciding line as written in the rules body; null when no rule decided. */
  ruleText: string | null;
  since: Date;
  /** The verdict under the crawler's own parser where it differs from `allowed` (src/crawlers/parser-verdicts.ts); null otherwise. */
  parser: { profile: string; basis: FactBasis; allowed: boolean } | null;
}

/** What the crawler rules say of one agent of the matrix (docs/crawlers.md, "Crawler rules"). */
export interface MatrixCrawler {
  token: string;
  /** The documented rule that chose its group in the rules body in force, with its source (R-42, Applebot, special-case crawlers); null when it follows its own group or `*`. */
  groupRule: string | null;
  /** What its operator says of its use of robots.txt, when it is not simply "honours". */
  robotsTxtNote: string | null;
  /** The parser it is known or assumed to use; the verdicts are Google's parser's. */
  parser: { profile: ParserProfileName | 'unknown'; basis: FactBasis; source: string | null };
}

export interface VerdictMatrix {
  agents: string[];
  /** One per agent, in the same order. */
  crawlers: MatrixCrawler[];
  urls: { url: string; isRoot: boolean; cells: (MatrixCell | null)[] }[];
}

/**
 * The "AI usage preferences" panel (docs/usage-preferences.md): per purpose, what the tracked
 * URLs x agents are told now, the pairs told the same by the same line shown as one row; and the
 * site's latest changes of them, night by night.
 */
export interface UsagePanel {
  purposes: PurposeUsage[];
  changes: UsageChange[];
  /** Whether any pair is told anything (allowed or refused) now. */
  stated: boolean;
}

export interface PurposeUsage {
  purpose: UsagePurpose;
  /** The pairs told allowed or refused, grouped by URL, preference and deciding line. */
  stated: { url: string; isRoot: boolean; preference: 'allowed' | 'refused'; rule: UsageRule; agents: string[] }[];
  /** Pairs told nothing, and pairs whose crawler may not fetch the URL (no preference applies: D-9). */
  unknown: number;
  notCrawlable: number;
}

export interface UsageChange {
  runId: number;
  at: Date;
  url: string;
  isRoot: boolean;
  purpose: UsagePurpose;
  from: StoredPreference;
  to: StoredPreference;
  ruleBefore: UsageRule | null;
  ruleAfter: UsageRule | null;
  agents: string[];
}

export interface SiteAlert {
  at: Date | null;
  severity: string;
  kind: string;
  title: string;
}

/**
 * The rules other parsers read differently from Google's (issue 19: the portability panel), as
 * the analysis job stored them after the night's run (issue 26): never computed by the page.
 * `pending`: not analysed yet (by this PORTABILITY_VERSION); `failed`: too costly to analyse.
 */
export type PortabilityPanel = { state: 'analysed'; result: PortabilityResult } | { state: 'pending' } | { state: 'failed'; reason: string };

/** A computation the page could not wait for: the note it shows instead (src/web/page-compute.ts). */
export type Computed<T> = { ok: true; value: T } | { ok: false; note: string };

export interface FileView {
  /** The night this copy was fetched. */
  fetchedAt: Date | null;
  bytes: number;
  /** Its lines, counted (the rows are rendered with the lint, off the event loop: src/web/page-compute.ts). */
  lineCount: number;
  /** Its lint, the first SITE_LINT_SHOWN; null when not computed (`notComputed` says why). */
  diagnostics: Diagnostic[] | null;
  /** Diagnostics in all. */
  diagnosticsTotal: number;
  /** Why the lint (and the crawler rules of the verdicts) are not shown: the file is too costly to analyse here. */
  notComputed: string | null;
  /** Its rules decide the verdicts now (policy `rules`), or it is kept for reference only. */
  decides: boolean;
  /** The hidden characters the file holds (the note above it names them). */
  hidden: HiddenChar[];
  portability: PortabilityPanel;
}

/** What the site page computes from the site's bytes, beside what it reads. */
export interface SiteFileInput {
  /** The robots.txt last fetched with a 2xx (linted), or null. */
  content: Uint8Array | null;
  /** The body whose rules decide (policy `rules`), or null. */
  rulesContent: Uint8Array | null;
  /** The matrix's agents: the crawler rule that chose each one's group in `rulesContent`. */
  agents: string[];
}

export interface SiteFileAnalysis {
  /** The first SITE_LINT_SHOWN diagnostics. */
  diagnostics: Diagnostic[] | null;
  diagnosticsTotal: number;
  /** One per agent, in order: the documented crawler rule that chose its group, or null. */
  groupRules: (string | null)[];
}

/**
 * The page's computations over a site's bytes (pure): lint of the file, and the crawler rule
 * behind each agent's group. Up to a second or more on a 500 KiB file: the dashboard runs it in a
 * thread with a deadline (src/web/page-compute.ts), never on its event loop.
 */
export function analyseSiteFile(input: SiteFileInput): SiteFileAnalysis {
  const rules = input.rulesContent ? parseRobotsTxt(input.rulesContent) : null;
  const diagnostics = input.content ? lintWithCrawlers(lintAndParse(input.content)) : null;
  return {
    diagnostics: diagnostics?.slice(0, SITE_LINT_SHOWN) ?? null,
    diagnosticsTotal: diagnostics?.length ?? 0,
    groupRules: input.agents.map((token) => (rules === null ? null : followedGroupText(token, followedGroup(rules, token, findCrawlerRules(token))))),
  };
}

/** Computes in the request: for callers that bound it themselves. */
export const analyseSiteFileHere = async (input: SiteFileInput): Promise<Computed<SiteFileAnalysis>> => ({ ok: true, value: analyseSiteFile(input) });

export interface SitePage {
  site: OverviewRow;
  labels: Record<string, string>;
  timeline: TimelineNight[];
  changes: SiteChange[];
  version: SelectedVersion | null;
  matrix: VerdictMatrix;
  alerts: SiteAlert[];
  usage: UsagePanel;
  file: FileView | null;
}

/** The site's id by origin, or null. */
export async function findSite(pool: pg.Pool, origin: string): Promise<number | null> {
  const { rows } = await pool.query<{ id: number }>('select id from sites where origin = $1', [origin]);
  return rows[0]?.id ?? null;
}

interface ChangeRow {
  run_id: number;
  at: Date;
  kinds: string[];
  outcome_from: string | null;
  outcome_to: string;
  policy_from: string | null;
  policy_to: string;
  rule_diff: RobotsDiff | null;
  has_text: boolean;
}

function siteChange(r: ChangeRow): SiteChange {
  return {
    runId: r.run_id,
    at: r.at,
    kinds: r.kinds,
    outcome: move(r.outcome_from, r.outcome_to),
    policy: move(r.policy_from, r.policy_to),
    semantic: r.rule_diff ? describeRobotsDiff(r.rule_diff) : [],
    hasTextDiff: r.has_text,
  };
}

/** A unified diff's lines, classed for colour. */
export function diffLines(text: string): DiffLine[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines.map((line) => {
    const kind: DiffLine['kind'] = line.startsWith('@@')
      ? 'hunk'
      : line.startsWith('+++') || line.startsWith('---') || line.startsWith('\\') || line.startsWith('…')
        ? 'meta'
        : line.startsWith('+')
          ? 'add'
          : line.startsWith('-')
            ? 'remove'
            : 'context';
    return { kind, text: line };
  });
}

/**
 * The site's page, or null when no site has that id. `versionRunId`: the change to show with
 * its diffs (default: the newest change whose text or rules changed). `analyse` computes what the
 * page needs from the site's bytes (analyseSiteFile; the dashboard's runs in a thread, bounded).
 */
export async function sitePage<A extends SiteFileAnalysis>(
  pool: pg.Pool,
  siteId: number,
  versionRunId: number | null,
  analyse: (input: SiteFileInput) => Promise<Computed<A>>,
): Promise<(SitePage & { analysis: A | null }) | null> {
  // One round of queries: a site that is gone (removed since the caller found its id) is null.
  const [[described], labels, timeline, changes, verdicts, alerts, bodies, usageChanges] = await Promise.all([
    describeSites(pool, [siteId]),
    pool.query<{ labels: Record<string, string> }>('select labels from sites where id = $1', [siteId]),
    loadTimeline(pool, siteId),
    pool.query<ChangeRow>(
      `select c.run_id, r.run_at as at, c.kinds, c.outcome_from, c.outcome_to, c.policy_from, c.policy_to, c.rule_diff, c.text_diff is not null as has_text
       from snapshot_changes c join audit_runs r on r.id = c.run_id
       where c.site_id = $1 order by r.run_at desc, c.run_id desc limit $2`,
      [siteId, SITE_CHANGES],
    ),
    loadVerdicts(pool, siteId),
    pool.query<SiteAlert>(
      `select r.run_at as at, l.severity, l.kind, l.title from alerts l left join audit_runs r on r.id = l.run_id
       where l.site_id = $1 order by l.id desc limit $2`,
      [siteId, SITE_ALERTS],
    ),
    loadBodies(pool, siteId),
    loadUsageChanges(pool, siteId),
  ]);
  if (!described) return null;
  const list = changes.rows.map(siteChange);
  const chosen =
    versionRunId === null ? list.find((c) => c.hasTextDiff || c.semantic.length > 0) : list.find((c) => c.runId === versionRunId);
  const agents = agentsOf(verdicts);
  const [version, analysed] = await Promise.all([
    chosen ? loadVersion(pool, siteId, chosen) : null,
    bodies.file || bodies.rulesContent ? analyse({ content: bodies.content, rulesContent: bodies.rulesContent, agents }) : null,
  ]);
  const file: FileView | null = bodies.file
    ? {
        ...bodies.file,
        diagnostics: analysed?.ok ? analysed.value.diagnostics : null,
        diagnosticsTotal: analysed?.ok ? analysed.value.diagnosticsTotal : 0,
        notComputed: analysed && !analysed.ok ? analysed.note : null,
      }
    : null;
  return {
    site: described,
    labels: labels.rows[0]?.labels ?? {},
    timeline,
    changes: list,
    version,
    matrix: verdictMatrix(verdicts, agents, bodies.rulesLines, analysed?.ok ? analysed.value.groupRules : agents.map(() => null)),
    alerts: alerts.rows,
    usage: usagePanel(verdicts, usageChanges),
    file,
    analysis: analysed?.ok ? analysed.value : null,
  };
}

/** The matrix's agents, by name. */
function agentsOf(verdicts: VerdictRow[]): string[] {
  return [...new Set(verdicts.map((r) => r.token))].sort((a, b) => a.toLowerCase().localeCompare(b.toLowerCase()));
}

async function loadTimeline(pool: pg.Pool, siteId: number): Promise<TimelineNight[]> {
  const { rows } = await pool.query<TimelineNight & { run_id: number; policy_reason: string }>(
    `select n.run_id, n.run_at as at, n.outcome, n.status, n.policy, n.policy_reason,
            exists (select 1 from snapshot_changes c where c.site_id = n.site_id and c.run_id = n.run_id) as changed
     from (select * from snapshots where site_id = $1 order by run_at desc, run_id desc limit $2) n
     order by n.run_at, n.run_id`,
    [siteId, TIMELINE_NIGHTS],
  );
  return rows.map((r) => ({ runId: r.run_id, at: r.at, outcome: r.outcome, status: r.status, policy: r.policy, policyReason: r.policy_reason, changed: r.changed }));
}

async function loadVersion(pool: pg.Pool, siteId: number, change: SiteChange): Promise<SelectedVersion> {
  const { rows } = await pool.query<{ text_diff: string | null }>('select text_diff from snapshot_changes where site_id = $1 and run_id = $2', [
    siteId,
    change.runId,
  ]);
  return { ...change, textDiff: rows[0]?.text_diff ? diffLines(rows[0].text_diff) : [] };
}

interface VerdictRow {
  url: string;
  is_root: boolean;
  token: string;
  allowed: boolean;
  rule_line: number | null;
  since: Date;
  parser_profile: string | null;
  parser_allowed: boolean | null;
  usage_search: boolean | null;
  usage_ai_train: boolean | null;
  usage_ai_input: boolean | null;
  usage_rules: UsageRules | null;
}

async function loadVerdicts(pool: pg.Pool, siteId: number): Promise<VerdictRow[]> {
  const { rows } = await pool.query<VerdictRow>(
    `select t.url, t.is_root, a.token, v.allowed, v.rule_line, v.valid_from as since, v.parser_profile, v.parser_allowed,
            v.usage_search, v.usage_ai_train, v.usage_ai_input, v.usage_rules
     from tracked_urls t
     join verdicts v on v.tracked_url_id = t.id and v.to_run_id is null
     join user_agents a on a.id = v.user_agent_id
     where t.site_id = $1
     order by t.is_root desc, t.url, lower(a.token)`,
    [siteId],
  );
  return rows;
}

/** The verdicts in force, by URL and agent, each with the text of its deciding line in `rulesLines`; `groupRules` as analyseSiteFile gave them. */
function verdictMatrix(verdicts: VerdictRow[], agents: string[], lines: string[], groupRules: (string | null)[]): VerdictMatrix {
  const crawlers = agents.map((token, i): MatrixCrawler => {
    const parser = parserOf(token);
    return {
      token,
      groupRule: groupRules[i] ?? null,
      robotsTxtNote: robotsTxtUseText(token),
      parser: { profile: parser.profile, basis: parser.basis, source: parser.source },
    };
  });
  const byUrl = new Map<string, { url: string; isRoot: boolean; cells: (MatrixCell | null)[] }>();
  for (const r of verdicts) {
    let row = byUrl.get(r.url);
    if (!row) byUrl.set(r.url, (row = { url: r.url, isRoot: r.is_root, cells: agents.map(() => null) }));
    row.cells[agents.indexOf(r.token)] = {
      allowed: r.allowed,
      ruleLine: r.rule_line,
      ruleText: r.rule_line === null ? null : (lines[r.rule_line - 1] ?? null),
      since: r.since,
      parser: r.parser_profile === null || r.parser_allowed === null ? null : parserCell(r.token, r.parser_profile, r.parser_allowed),
    };
  }
  return { agents, crawlers, urls: [...byUrl.values()] };
}

const USAGE_COLUMN = { search: 'usage_search', 'ai-train': 'usage_ai_train', 'ai-input': 'usage_ai_input' } as const satisfies Record<UsagePurpose, keyof VerdictRow>;

/** The panel from the verdicts in force (in URL and agent order) and the latest changes. */
function usagePanel(verdicts: readonly VerdictRow[], changes: UsageChange[]): UsagePanel {
  const purposes = USAGE_PURPOSES.map((purpose): PurposeUsage => {
    const rows = new Map<string, PurposeUsage['stated'][number]>();
    let unknown = 0;
    let notCrawlable = 0;
    for (const v of verdicts) {
      const stated = v[USAGE_COLUMN[purpose]];
      const rule = v.usage_rules?.[purpose];
      if (!v.allowed) notCrawlable += 1;
      else if (stated === null || rule === undefined) unknown += 1;
      else {
        const preference = stated ? 'allowed' : 'refused';
        const key = JSON.stringify([v.url, preference, rule.line, rule.value, rule.since]);
        const row = rows.get(key) ?? rows.set(key, { url: v.url, isRoot: v.is_root, preference, rule, agents: [] }).get(key)!;
        row.agents.push(v.token);
      }
    }
    return { purpose, stated: [...rows.values()], unknown, notCrawlable };
  });
  return { purposes, changes, stated: purposes.some((p) => p.stated.length > 0) };
}

/** The site's latest usage-preference changes, the agents of one URL, purpose and change as one. */
async function loadUsageChanges(pool: pg.Pool, siteId: number): Promise<UsageChange[]> {
  const { rows } = await pool.query<{
    run_id: number;
    at: Date;
    url: string;
    is_root: boolean;
    purpose: UsagePurpose;
    from: StoredPreference;
    to: StoredPreference;
    rule_before: UsageRule | null;
    rule_after: UsageRule | null;
    agents: string[];
  }>(
    `select u.run_id, r.run_at as at, t.url, t.is_root, u.purpose, u.from_preference as "from", u.to_preference as "to", u.rule_before, u.rule_after,
            array_agg(a.token order by lower(a.token)) as agents
     from (select * from usage_flips where site_id = $1 order by id desc limit $2) u
     join audit_runs r on r.id = u.run_id
     join tracked_urls t on t.id = u.tracked_url_id
     join user_agents a on a.id = u.user_agent_id
     group by u.run_id, r.run_at, t.url, t.is_root, u.purpose, u.from_preference, u.to_preference, u.rule_before, u.rule_after
     order by r.run_at desc, t.is_root desc, t.url, u.purpose`,
    [siteId, SITE_USAGE_FLIPS],
  );
  return rows.map((r) => ({ runId: r.run_id, at: r.at, url: r.url, isRoot: r.is_root, purpose: r.purpose, from: r.from, to: r.to, ruleBefore: r.rule_before, ruleAfter: r.rule_after, agents: r.agents }));
}

/** A stored parser verdict, labelled known or assumed as the crawler rules say of that profile now. */
function parserCell(token: string, profile: string, allowed: boolean): NonNullable<MatrixCell['parser']> {
  const now = parserOf(token);
  // The stored profile is the crawler's unless its facts changed since (the next night evaluates again).
  return { profile, basis: now.profile === profile ? now.basis : 'assumed', allowed };
}

/** The hidden characters of a file's lines, each once, in the order first met. */
function hiddenOf(lines: string[]): HiddenChar[] {
  const found = new Map<number, HiddenChar>();
  for (const line of lines) for (const c of hiddenCharsIn(line)) if (!found.has(c.codePoint)) found.set(c.codePoint, c);
  return [...found.values()];
}

/** The panel from the stored analysis: only one made by this PORTABILITY_VERSION is read. */
export function portabilityPanel(stored: StoredPortability | null, version: number): PortabilityPanel {
  if (stored === null || version !== PORTABILITY_VERSION) return { state: 'pending' };
  if (stored.outcome === 'failed') return { state: 'failed', reason: stored.reason };
  const { outcome: _outcome, ...result } = stored;
  return { state: 'analysed', result };
}

interface LoadedBodies {
  /** The file view but what is computed from its bytes. */
  file: Omit<FileView, 'diagnostics' | 'diagnosticsTotal' | 'notComputed'> | null;
  content: Uint8Array | null;
  rulesContent: Uint8Array | null;
  rulesLines: string[];
}

/**
 * The robots.txt last fetched with a 2xx (the current file, null when the site never served one)
 * with its stored portability findings, and the body whose rules apply (policy `rules`): the same
 * file unless the 30-day fallback applies an older copy. Each body is read and decoded once.
 */
async function loadBodies(pool: pg.Pool, siteId: number): Promise<LoadedBodies> {
  const { rows } = await pool.query<{
    content: Buffer | null;
    fetched_at: Date | null;
    decides: boolean;
    rules_content: Buffer | null;
    portability: StoredPortability | null;
    portability_version: number | null;
  }>(
    `select good.content, x.last_good_run_at as fetched_at,
            (x.policy = 'rules' and x.rules_body_id = x.last_good_body_id) as decides, rules.content as rules_content,
            good.portability, good.portability_version
     from site_state x
     left join bodies good on good.id = x.last_good_body_id
     left join bodies rules on rules.id = x.rules_body_id and x.policy = 'rules' and x.rules_body_id is distinct from x.last_good_body_id
     where x.site_id = $1`,
    [siteId],
  );
  const row = rows[0];
  if (!row) return { file: null, content: null, rulesContent: null, rulesLines: [] };
  const lines = row.content ? bodyLines(row.content) : [];
  const file = row.content
    ? {
        fetchedAt: row.fetched_at,
        bytes: row.content.length,
        lineCount: lines.length,
        hidden: hiddenOf(lines),
        decides: row.decides,
        portability: portabilityPanel(row.portability, row.portability_version ?? 0),
      }
    : null;
  // The body whose rules decide (policy `rules`): the crawler rule each agent's group comes from is read in it.
  const rulesContent = row.decides ? row.content : row.rules_content;
  return { file, content: row.content, rulesContent, rulesLines: row.decides ? lines : row.rules_content ? bodyLines(row.rules_content) : [] };
}
