/**
 * The versions of a site's robots.txt (`robots-audit diff`): a version is a body the site
 * served, from the first night it was fetched until another body was (nights that fetched no
 * body, a 5xx or a 404, do not end it). A body served again later is a new version: A, B, A is
 * three versions. Numbered from 1, the oldest stored.
 *
 * Which version a `--from` / `--to` names: a night (`2026-03-01`: the version in force at the
 * end of that UTC day; an ISO time: at that instant) or a run (its id, or its key such as
 * `nightly-2026-03-01`: the version in force on that run's night).
 */
import type { Queryable } from './site-errors.js';
import { SiteReportError } from './site-errors.js';
import type { SiteRef } from './site-lookup.js';

export interface SiteVersion {
  /** 1 for the oldest stored version. */
  number: number;
  bodyId: number;
  sha256: string;
  bytes: number;
  /** The first night that fetched it. */
  firstNight: Date;
  firstRunId: number;
  firstRunKey: string;
  /** The last night that fetched it before another body was fetched. */
  lastNight: Date;
  lastRunKey: string;
  /** Nights that fetched it (pruned nights are not counted). */
  nights: number;
}

/**
 * Every version, oldest first. One pass over the site's nights that have a body, in run-clock
 * order through the snapshots' primary key: a version starts where the body differs from the
 * previous night's (islands of equal body_id).
 */
export async function siteVersions(db: Queryable, site: SiteRef): Promise<SiteVersion[]> {
  const { rows } = await db.query<{
    version: number;
    body_id: number;
    sha256: string;
    bytes: number;
    first_at: Date;
    first_run_id: number;
    first_run_key: string;
    last_at: Date;
    last_run_key: string;
    nights: number;
  }>(
    `with fetched as (
       select n.run_at, n.run_id, n.body_id,
              case when n.body_id is distinct from lag(n.body_id) over (order by n.run_at, n.run_id) then 1 else 0 end as starts
         from snapshots n
        where n.site_id = $1 and n.body_id is not null
     ), numbered as (
       select f.*, sum(f.starts) over (order by f.run_at, f.run_id) as version from fetched f
     ), versions as (
       select version, min(body_id) as body_id, min(run_at) as first_at, max(run_at) as last_at, count(*)::int as nights,
              (array_agg(run_id order by run_at, run_id))[1] as first_run_id,
              (array_agg(run_id order by run_at desc, run_id desc))[1] as last_run_id
         from numbered group by version
     )
     select v.version::int as version, v.body_id, encode(b.sha256, 'hex') as sha256, b.size as bytes,
            v.first_at, v.first_run_id, fr.run_key as first_run_key, v.last_at, lr.run_key as last_run_key, v.nights
       from versions v
       join bodies b on b.id = v.body_id
       join audit_runs fr on fr.id = v.first_run_id
       join audit_runs lr on lr.id = v.last_run_id
      order by v.version`,
    [site.id],
  );
  return rows.map((r) => ({
    number: r.version,
    bodyId: r.body_id,
    sha256: r.sha256,
    bytes: r.bytes,
    firstNight: r.first_at,
    firstRunId: r.first_run_id,
    firstRunKey: r.first_run_key,
    lastNight: r.last_at,
    lastRunKey: r.last_run_key,
    nights: r.nights,
  }));
}

/** What a `--from` / `--to` value names. */
export type VersionRef =
  | { kind: 'day'; input: string; day: string }
  | { kind: 'instant'; input: string; at: Date }
  | { kind: 'run_id'; input: string; id: number }
  | { kind: 'run_key'; input: string; key: string };

const DAY = /^\d{4}-\d{2}-\d{2}$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T/;
const DAY_MS = 24 * 60 * 60 * 1000;

/** `YYYY-MM-DD` names a day of the calendar (Date would roll 2026-02-30 over to March 2). */
function isCalendarDay(day: string): boolean {
  const at = new Date(`${day}T00:00:00Z`);
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === day;
}

/**
 * Reads a `--from` / `--to` value: a run id (digits), a night (`YYYY-MM-DD`, or an ISO time
 * `YYYY-MM-DDTHH:MM[:SS][Z|±HH:MM]`, UTC without a zone), or else a run key. Throws SiteReportError (usage) for a
 * date or time that does not exist (`2026-02-30`).
 */
export function parseVersionRef(option: string, input: string): VersionRef {
  const value = input.trim();
  if (/^\d+$/.test(value)) {
    const id = Number(value);
    if (!Number.isSafeInteger(id) || id > 2_147_483_647) throw new SiteReportError('usage', `${option} "${input}": not a run id`);
    return { kind: 'run_id', input, id };
  }
  if (DAY.test(value)) {
    if (!isCalendarDay(value)) throw new SiteReportError('usage', `${option} "${input}": not a date`);
    return { kind: 'day', input, day: value };
  }
  if (INSTANT.test(value)) {
    // A time without a zone is UTC, as every night is shown.
    const at = new Date(/(?:[zZ]|[+-]\d{2}:?\d{2})$/.test(value) ? value : `${value}Z`);
    if (!isCalendarDay(value.slice(0, 10)) || Number.isNaN(at.getTime())) throw new SiteReportError('usage', `${option} "${input}": not an ISO time`);
    return { kind: 'instant', input, at };
  }
  if (value === '') throw new SiteReportError('usage', `${option}: empty (a night YYYY-MM-DD, an ISO time, a run id or a run key)`);
  return { kind: 'run_key', input, key: value };
}

/** The night a reference points at: versions first fetched up to it (inclusive or not) are candidates. */
interface NightBound {
  at: Date;
  /** With the run, ties on the run clock are cut by run id, as the nights are ordered. */
  runId: number | null;
  inclusive: boolean;
  /** For messages. */
  label: string;
}

async function boundOf(db: Queryable, ref: VersionRef, option: string): Promise<NightBound> {
  switch (ref.kind) {
    case 'day':
      return { at: new Date(new Date(`${ref.day}T00:00:00Z`).getTime() + DAY_MS), runId: null, inclusive: false, label: `night ${ref.day}` };
    case 'instant':
      return { at: ref.at, runId: null, inclusive: true, label: `${ref.at.toISOString()}` };
    case 'run_id':
    case 'run_key': {
      const { rows } =
        ref.kind === 'run_id'
          ? await db.query<{ id: number; run_key: string; run_at: Date }>('select id, run_key, run_at from audit_runs where id = $1', [ref.id])
          : await db.query<{ id: number; run_key: string; run_at: Date }>('select id, run_key, run_at from audit_runs where run_key = $1', [ref.key]);
      const run = rows[0];
      if (!run) {
        const what = ref.kind === 'run_id' ? `no run with id ${ref.id}` : 'no run with that key, and not a night (YYYY-MM-DD or an ISO time) or a run id';
        throw new SiteReportError('not_found', `${option} "${ref.input}": ${what}`);
      }
      return { at: run.run_at, runId: run.id, inclusive: true, label: `run ${run.run_key}` };
    }
  }
}

function startsBy(version: SiteVersion, bound: NightBound): boolean {
  const t = version.firstNight.getTime();
  const b = bound.at.getTime();
  if (t !== b) return t < b;
  if (!bound.inclusive) return false;
  return bound.runId === null || version.firstRunId <= bound.runId;
}

/**
 * The version in force on the night `ref` names: the latest first fetched on or before it.
 * Throws SiteReportError (not_found) for an unknown run, or a night before the first version.
 */
export async function versionAt(db: Queryable, site: SiteRef, versions: readonly SiteVersion[], ref: VersionRef, option: string): Promise<SiteVersion> {
  const bound = await boundOf(db, ref, option);
  let found: SiteVersion | undefined;
  for (const version of versions) if (startsBy(version, bound)) found = version;
  if (!found) {
    const first = versions[0];
    const since = first ? `; the first stored is of ${first.firstNight.toISOString()}` : '';
    throw new SiteReportError('not_found', `${option} "${ref.input}": no robots.txt of ${site.origin} was stored by ${bound.label}${since}`);
  }
  return found;
}

/** The bodies' bytes by id. */
export async function loadBodies(db: Queryable, ids: readonly number[]): Promise<Map<number, Uint8Array>> {
  const { rows } = await db.query<{ id: number; content: Buffer }>('select id, content from bodies where id = any($1::int[])', [[...new Set(ids)]]);
  return new Map(rows.map((r) => [r.id, new Uint8Array(r.content.buffer, r.content.byteOffset, r.content.byteLength)]));
}
