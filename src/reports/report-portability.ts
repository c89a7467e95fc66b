/**
 * `report portability` (issue 19, item 4): across the portfolio, the sites whose AI-crawler block
 * is not read as intended by some parser profile: one row per rule that blocks an AI crawler (in
 * a group naming one, or `Disallow: /` in the `*` group) under Google's parser while
 * a profile's library lets the example URL through (or raises on the file). Read from the findings
 * the analysis job keeps for each site's robots.txt as last fetched (`bodies.portability`, issue
 * 26): the report computes nothing. `--since`: sites whose file changed on or after that night.
 */
import type pg from 'pg';
import { findCrawler } from '../crawlers/catalogue.js';
import { isAiCategory } from '../crawlers/categories.js';
import { ANY_CRAWLER, PORTABILITY_PROFILES, PORTABILITY_VERSION } from '../robots/profiles/portability.js';
import type { PortabilityFinding, StoredPortability } from '../robots/profiles/portability.js';
import type { ReportColumn, ReportRow } from './format.js';
import type { ReportSource } from './report-source.js';
import { inPortfolio } from './report-filters.js';
import type { ReportFilters } from './report-filters.js';

export const PORTABILITY_COLUMNS: readonly ReportColumn[] = [
  { key: 'origin', header: 'SITE', type: 'text', shrink: true },
  { key: 'line', header: 'LINE', type: 'number' },
  { key: 'rule', header: 'RULE', type: 'text', shrink: true },
  { key: 'agents', header: 'AGENTS', type: 'list', shrink: true },
  { key: 'path', header: 'EXAMPLE', type: 'text', shrink: true },
  { key: 'google', header: 'GOOGLE', type: 'text' },
  { key: 'pythonUrllib', header: 'PYTHON-URLLIB', type: 'text' },
  { key: 'pythonUrllibRfc9309', header: 'PYTHON-URLLIB-RFC9309', type: 'text' },
  { key: 'scrapyProtego', header: 'SCRAPY-PROTEGO', type: 'text' },
  { key: 'scrapyProtego07', header: 'SCRAPY-PROTEGO-0.7', type: 'text' },
  { key: 'nodeRobotsParser', header: 'NODE-ROBOTS-PARSER', type: 'text' },
  { key: 'reason', header: 'WHY', type: 'text', shrink: true },
];

interface PortabilitySiteRow extends Record<string, unknown> {
  origin: string;
  portability: StoredPortability;
}

/** Sites read from the cursor at a time: each brings its body's findings (50 at most). */
const PORTABILITY_BATCH_ROWS = 200;

function word(answer: boolean | 'error'): string {
  return answer === 'error' ? 'error' : answer ? 'allowed' : 'disallowed';
}

function isAiCrawler(agent: string): boolean {
  const entry = findCrawler(agent);
  return entry !== null && isAiCategory(entry.category);
}

/**
 * A finding is an AI-crawler block not read as intended: Google disallows, some profile does not.
 * The block is a rule of a group naming an AI crawler of the catalogue, or a whole-site
 * `Disallow: /` of the `*` group (which every AI crawler without a group of its own follows);
 * a path rule of `*` is not an AI-crawler block and is left to the site's panel.
 */
export function isBrokenAiBlock(f: PortabilityFinding): boolean {
  if (f.verdicts.google !== false) return false;
  const concerned = f.agents.some((a) => (a === ANY_CRAWLER ? f.path === '/' : isAiCrawler(a)));
  return concerned && PORTABILITY_PROFILES.some((p) => f.verdicts[p] !== false);
}

/** The crawlers of a finding the report is about: `*` (for a whole-site block) and the AI crawlers. */
function concernedAgents(f: PortabilityFinding): string[] {
  return f.agents.filter((a) => (a === ANY_CRAWLER ? f.path === '/' : isAiCrawler(a)));
}

/** One row per rule (issue 26), the crawlers it concerns in one cell. */
export function portabilityRows(origin: string, findings: readonly PortabilityFinding[]): ReportRow[] {
  return findings.filter(isBrokenAiBlock).map((f) => ({
    origin,
    line: f.line,
    rule: f.rule,
    agents: concernedAgents(f),
    path: f.path,
    google: word(f.verdicts.google),
    pythonUrllib: word(f.verdicts['python-urllib']),
    pythonUrllibRfc9309: word(f.verdicts['python-urllib-rfc9309']),
    scrapyProtego: word(f.verdicts['scrapy-protego']),
    scrapyProtego07: word(f.verdicts['scrapy-protego-0.7']),
    nodeRobotsParser: word(f.verdicts['node-robots-parser']),
    reason: f.reason,
  }));
}

/** The sites of the report: their latest body, within the filters (`$1` portfolio, `$2` since, `$3` search). */
const SITES = `from site_state x
          join sites s on s.id = x.site_id
          join snapshots n on n.site_id = x.site_id and n.run_at = x.run_at and n.run_id = x.run_id
          join bodies b on b.id = n.body_id
          left join audit_runs lc on lc.id = x.last_change_run_id
          where ${inPortfolio('x.site_id')}
            and ($2::timestamptz is null or lc.run_at >= $2)
            and ($3::text is null or strpos(s.origin, $3) > 0)`;

/**
 * Reads each site's findings as the analysis job stored them (`bodies.portability`, issue 26):
 * nothing is computed here. Only the sites whose body has findings are read; those whose body is
 * not analysed yet by this PORTABILITY_VERSION (the job runs after each run), or could not be
 * (`failed`), are left out and counted by `notes`.
 */
export function portabilitySource(pool: pg.Pool, filters: ReportFilters): ReportSource<PortabilitySiteRow> {
  const params = [filters.portfolioId, filters.since, filters.search ?? null, PORTABILITY_VERSION];
  return {
    columns: PORTABILITY_COLUMNS,
    sql: `select s.origin, b.portability
          ${SITES}
            and b.portability_version = $4 and b.portability->>'outcome' = 'analysed' and jsonb_array_length(b.portability->'findings') > 0
          order by s.origin`,
    params,
    batchRows: PORTABILITY_BATCH_ROWS,
    rows: (batch) => batch.flatMap((site) => (site.portability.outcome === 'analysed' ? portabilityRows(site.origin, site.portability.findings) : [])),
    async notes() {
      const { rows } = await pool.query<{ pending: number; failed: number; reason: string | null }>(
        `select count(*) filter (where b.portability_version <> $4)::int as pending,
                count(*) filter (where b.portability_version = $4 and b.portability->>'outcome' = 'failed')::int as failed,
                min(b.portability->>'reason') filter (where b.portability_version = $4 and b.portability->>'outcome' = 'failed') as reason
          ${SITES}`,
        params,
      );
      const { pending = 0, failed = 0, reason = null } = rows[0] ?? {};
      return [
        ...(pending > 0 ? [`${sitesText(pending)} whose robots.txt is not analysed yet ${pending === 1 ? 'is' : 'are'} left out (analysed after the night's run)`] : []),
        ...(failed > 0 ? [`${sitesText(failed)} whose robots.txt could not be analysed ${failed === 1 ? 'is' : 'are'} left out (${reason ?? 'too costly'})`] : []),
      ];
    },
  };
}

const sitesText = (n: number) => `${n.toLocaleString('en-US')} site${n === 1 ? '' : 's'}`;
