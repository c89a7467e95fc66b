/**
 * Judges of the sites a log names: each site's robots.txt versions (the nights that may change
 * what a crawler reads) loaded once, each version's rules parsed once and decided through the
 * nightly evaluator (`policyEvaluator`: the group each crawler follows by its documented rules,
 * R-42, full allow and disallow), so a request is judged exactly as the night would have judged
 * the URL. At most `maxSites` sites are held; the least recently used go first.
 */
import { judgeRequest } from '../../compliance/judge-request.js';
import type { JudgedCrawler, RequestJudgement, VersionVerdict } from '../../compliance/judge-request.js';
import { PolicyTimeline } from '../../compliance/policy-timeline.js';
import { keptTarget } from '../../compliance/query-kept.js';
import { bodyContents, versionsOfSites } from '../../db/compliance.repo.js';
import type { StoredVersion } from '../../db/compliance.repo.js';
import type { Queryable } from '../../db/night-store/queryable.js';
import { policyEvaluator } from '../policy-evaluator.js';
import type { PolicyEvaluator } from '../policy-evaluator.js';

export interface JudgedVersion extends StoredVersion {
  evaluate: PolicyEvaluator;
}

interface SiteJudge {
  origin: string;
  timeline: PolicyTimeline<JudgedVersion>;
}

export interface JudgedRequest {
  judgement: RequestJudgement<JudgedVersion>;
  /** The target as stored: its query only where the version in force reads it. */
  storedPath: string;
}

/** Sites whose versions are held at once (a site holds its versions' parsed rules). */
export const MAX_JUDGED_SITES = 2_000;

export class SiteJudges {
  private readonly sites = new Map<number, SiteJudge>();

  constructor(
    private readonly db: Queryable,
    private readonly maxSites = MAX_JUDGED_SITES,
  ) {}

  /** Loads the sites not held yet: one query for their versions, one for their bodies. */
  async load(sites: ReadonlyMap<number, string>): Promise<void> {
    // The batch's sites held already become the most recently used: none is let go for another.
    for (const id of sites.keys()) this.touch(id);
    const missing = [...sites].filter(([id]) => !this.sites.has(id));
    if (missing.length === 0) return;
    const versions = await versionsOfSites(this.db, missing.map(([id]) => id));
    const bodyIds = [...new Set([...versions.values()].flat().flatMap((v) => (v.rulesBodyId === null ? [] : [v.rulesBodyId])))];
    const bodies = await bodyContents(this.db, bodyIds);
    for (const [id, origin] of missing) {
      const judged = (versions.get(id) ?? []).map((v): JudgedVersion => ({
        ...v,
        evaluate: policyEvaluator(v.policy, v.policy === 'rules' ? (bodies.get(v.rulesBodyId ?? -1) ?? null) : null),
      }));
      this.hold(id, { origin, timeline: new PolicyTimeline(judged) });
    }
  }

  /** Judges one request of a loaded site. */
  judge(siteId: number, request: { at: Date; target: string; crawler: JudgedCrawler; cacheHours: number }): JudgedRequest {
    const site = this.sites.get(siteId);
    if (site === undefined) throw new Error(`site ${siteId} was not loaded`);
    const urlOf = (target: string) => (target.startsWith('/') ? `${site.origin}${target}` : target);
    const verdictOf = (target: string) => (v: JudgedVersion): VersionVerdict => {
      const verdict = v.evaluate(urlOf(target), request.crawler.token);
      return { allowed: verdict.allowed, rule: verdict.rule === null ? null : { line: verdict.rule.line, kind: verdict.rule.kind, value: verdict.rule.value } };
    };
    const judgement = judgeRequest({ at: request.at, path: request.target, crawler: request.crawler, timeline: site.timeline, verdictOf: verdictOf(request.target), cacheHours: request.cacheHours });
    const inForce = judgement.inForce;
    // Asked only of a target with a query: does the version in force decide it alike without?
    const storedPath = keptTarget(
      request.target,
      (withoutQuery) =>
        inForce === null || inForce.evaluate(urlOf(withoutQuery), request.crawler.token).allowed === inForce.evaluate(urlOf(request.target), request.crawler.token).allowed,
    );
    return { judgement, storedPath };
  }

  private hold(id: number, judge: SiteJudge): void {
    if (this.sites.size >= this.maxSites) {
      const oldest = this.sites.keys().next();
      if (!oldest.done) this.sites.delete(oldest.value);
    }
    this.sites.set(id, judge);
  }

  /** Marks a site as recently used (a Map keeps insertion order: the oldest go first). */
  touch(id: number): void {
    const judge = this.sites.get(id);
    if (judge === undefined) return;
    this.sites.delete(id);
    this.sites.set(id, judge);
  }
}
