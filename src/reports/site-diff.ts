/**
 * Two versions of a site's robots.txt compared (`robots-audit diff`): the unified text diff,
 * the semantic diff of the engine (groups, sitemaps, other records,
 * T49) and, per crawler, the rules it gains and loses (src/crawlers/crawler-diff.ts). The crawlers
 * are `*`, every crawler either version names, and the default agents (`user_agents`), so that
 * a crawler that only follows `*` is seen to change with it.
 */
import { crawlersToCompare, diffCrawlerRules } from '../crawlers/crawler-diff.js';
import type { CrawlerRuleChange } from '../crawlers/crawler-diff.js';
import { diffRobotsTxt, unifiedTextDiff } from '../robots/diff.js';
import type { RobotsDiff } from '../robots/diff.js';
import { parseRobotsTxt } from '../robots/parse.js';
import type { Queryable } from './site-errors.js';
import { SiteReportError } from './site-errors.js';
import type { SiteRef } from './site-lookup.js';
import { loadBodies, parseVersionRef, siteVersions, versionAt } from './site-versions.js';
import type { SiteVersion } from './site-versions.js';

export interface SiteDiffOptions {
  /** `--from`: a night, a run id or a run key; default: the version before `to`. */
  from?: string;
  /** `--to`: default: the latest version. */
  to?: string;
}

export type SiteDiffReport =
  /** Fewer than two versions stored, and no end named: nothing to compare. */
  | { kind: 'too_few_versions'; site: SiteRef; versions: SiteVersion[] }
  /** `--to` names the first version and no `--from` is given: nothing before it. */
  | { kind: 'first_version'; site: SiteRef; version: SiteVersion; versionCount: number }
  /** Both ends are the same version. */
  | { kind: 'same_version'; site: SiteRef; version: SiteVersion; versionCount: number }
  | {
      kind: 'diff';
      site: SiteRef;
      versionCount: number;
      from: SiteVersion;
      to: SiteVersion;
      /** Unified diff of the text ('' when the bytes are the same). */
      textDiff: string;
      semantic: RobotsDiff;
      /** Every crawler looked at, changed or not: `*` first, then the named ones, then the default agents. */
      crawlers: CrawlerRuleChange[];
      /** Crawlers past MAX_CRAWLERS_COMPARED, not compared (the files' own, in file order). */
      crawlersNotCompared: number;
    };

export async function siteDiff(db: Queryable, site: SiteRef, options: SiteDiffOptions = {}): Promise<SiteDiffReport> {
  // The references are read before any query, so a malformed one fails first.
  const fromRef = options.from === undefined ? null : parseVersionRef('--from', options.from);
  const toRef = options.to === undefined ? null : parseVersionRef('--to', options.to);
  const versions = await siteVersions(db, site);
  if (versions.length === 0 && (fromRef || toRef)) {
    throw new SiteReportError('not_found', `no robots.txt of ${site.origin} has been stored yet`);
  }
  if (!fromRef && !toRef && versions.length < 2) return { kind: 'too_few_versions', site, versions };

  const to = toRef ? await versionAt(db, site, versions, toRef, '--to') : versions[versions.length - 1]!;
  let from: SiteVersion;
  if (fromRef) {
    from = await versionAt(db, site, versions, fromRef, '--from');
  } else {
    const before = versions[to.number - 2];
    if (!before) return { kind: 'first_version', site, version: to, versionCount: versions.length };
    from = before;
  }
  if (from.number === to.number) return { kind: 'same_version', site, version: to, versionCount: versions.length };

  const bodies = await loadBodies(db, [from.bodyId, to.bodyId]);
  const beforeBytes = bodies.get(from.bodyId) ?? new Uint8Array();
  const afterBytes = bodies.get(to.bodyId) ?? new Uint8Array();
  const before = parseRobotsTxt(beforeBytes);
  const after = parseRobotsTxt(afterBytes);
  const { rows } = await db.query<{ token: string }>('select token from user_agents where is_default order by lower(token)');
  const compared = crawlersToCompare(before, after, rows.map((r) => r.token));
  return {
    kind: 'diff',
    site,
    versionCount: versions.length,
    from,
    to,
    textDiff: unifiedTextDiff(beforeBytes, afterBytes),
    semantic: diffRobotsTxt(before, after, { before: beforeBytes, after: afterBytes }),
    crawlers: diffCrawlerRules(before, after, compared.crawlers),
    crawlersNotCompared: compared.notCompared,
  };
}
