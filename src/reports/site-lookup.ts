/**
 * The site a command names: an origin (`https://example.com`, any URL of it) is looked up as
 * normalised (R-1..R-5); a bare host (`example.com`) matches every monitored origin on that
 * host, whatever the scheme and port, and must match exactly one; a host with a port
 * (`example.com:8080`) matches that port under http or https.
 */
import type { PolicyKind } from '../policy/effective-policy.js';
import type { FetchOutcome } from '../policy/fetch-outcome.js';
import { InvalidUrlError, normalizeOrigin, parseUserUrl } from '../robots/origin.js';
import type { Queryable } from './site-errors.js';
import { SiteReportError } from './site-errors.js';

/**
 * Change kinds that start a new stretch of outcome or policy: "since when" a site's policy holds is
 * the night of the latest change of one of these kinds (the site_status view says the same in SQL).
 */
export const POLICY_EVENTS = ['first_seen', 'outcome', 'policy', 'fallback_started', 'fallback_ended'];

/** A stored night of a site: its run, what the fetch got, and the policy that followed. */
export interface NightPolicy {
  /** The run's clock (audit_runs.run_at). */
  night: Date;
  runId: number;
  runKey: string;
  outcome: FetchOutcome;
  /** The final HTTP status; null when no answer arrived (R-15). */
  status: number | null;
  errorCode: string | null;
  policy: PolicyKind;
  /** The spec rule behind the policy: R-10, R-11, R-12, D-4, R-13, R-15 or D-3. */
  policyReason: string;
  /** Start of the 5xx / network-failure streak the night is in (R-13, R-15, D-3); null when reached. */
  unreachableSince: Date | null;
}

/** The columns of a night's policy as the site queries select them (snapshots joined to its run). */
export interface NightPolicyRow extends Record<string, unknown> {
  run_at: Date;
  run_id: number;
  run_key: string;
  outcome: FetchOutcome;
  status: number | null;
  error_code: string | null;
  policy: PolicyKind;
  policy_reason: string;
  unreachable_since: Date | null;
}

export function nightPolicyOf(row: NightPolicyRow): NightPolicy {
  return {
    night: row.run_at,
    runId: row.run_id,
    runKey: row.run_key,
    outcome: row.outcome,
    status: row.status,
    errorCode: row.error_code,
    policy: row.policy,
    policyReason: row.policy_reason,
    unreachableSince: row.unreachable_since,
  };
}

export interface SiteRef {
  id: number;
  origin: string;
}

/** What a name can match: exact origins, and prefixes `scheme://host:` meaning "any port on this host". */
export interface SiteCandidates {
  exact: string[];
  portPrefixes: string[];
}

/** Same test as parseUserUrl: `example.com:8080/x` has no scheme; `http://x` has one. */
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:(?!\d)/i;

const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The origins a `<site>` argument may mean. Throws SiteReportError (usage) when it is not a site. */
export function siteCandidates(input: string): SiteCandidates {
  const trimmed = input.trim();
  try {
    if (HAS_SCHEME.test(trimmed)) return { exact: [normalizeOrigin(trimmed)], portPrefixes: [] };
    const url = parseUserUrl(trimmed);
    const host = url.hostname;
    const authority = trimmed.split(/[/?#]/)[0] ?? '';
    const port = /:(\d+)$/.exec(authority)?.[1];
    if (port !== undefined) {
      const n = Number(port);
      return { exact: [`https://${host}${n === 443 ? '' : `:${n}`}`, `http://${host}${n === 80 ? '' : `:${n}`}`], portPrefixes: [] };
    }
    return { exact: [`https://${host}`, `http://${host}`], portPrefixes: [`https://${host}:`, `http://${host}:`] };
  } catch (err) {
    if (!(err instanceof InvalidUrlError)) throw err;
    throw new SiteReportError('usage', `not a site: ${err.message} (name an origin such as https://example.com, or a host such as example.com)`);
  }
}

/**
 * The monitored site `input` names. Throws SiteReportError: `usage` when it is not a site name,
 * `not_found` when no monitored origin matches or a bare host matches several (they are listed).
 */
export async function findSite(db: Queryable, input: string): Promise<SiteRef> {
  const { exact, portPrefixes } = siteCandidates(input);
  // "Any port": a range the origin index answers (a port is digits, which sort as digits in any
  // collation), refined by LIKE; LIKE alone would read every site.
  const values: unknown[] = [exact];
  const anyPort = portPrefixes.map((prefix) => {
    values.push(`${prefix}0`, `${prefix}99999`, `${likeEscape(prefix)}%`);
    const n = values.length;
    return ` or (origin between $${n - 2} and $${n - 1} and origin like $${n})`;
  });
  const { rows } = await db.query<{ id: number; origin: string }>(`select id, origin from sites where origin = any($1::text[])${anyPort.join('')} order by origin`, values);
  if (rows.length === 1) return rows[0]!;
  if (rows.length === 0) {
    const named = portPrefixes.length === 0 && exact.length === 1 ? exact[0] : input.trim();
    throw new SiteReportError('not_found', `not monitored: ${named} (robots-audit sites list shows the monitored sites)`);
  }
  throw new SiteReportError('not_found', `${input.trim()} matches several sites: ${rows.map((r) => r.origin).join(', ')}; name one by its origin`);
}
