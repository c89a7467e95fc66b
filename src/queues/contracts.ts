/**
 * Queue names, job names and one zod payload schema per job (house style, habit 1). Jobs carry
 * ids, never bodies (habit 5): Postgres is the system of record.
 */
import { z } from 'zod';

export const QUEUES = {
  /** A batch of sites of one run: each site's fetch and night, in one pass. */
  fetch: 'fetch',
  /** One site of one run: a retry after a 5xx or network failure, or a site a batch handed over. */
  site: 'site',
  /** Deliver one alert (or one run digest) to one channel. */
  alerts: 'alerts',
  /** Runs started by the nightly job scheduler. */
  runs: 'runs',
  /** Analyses of stored bodies after a run (issue 26: portability findings), off the nights' path. */
  analysis: 'analysis',
} as const;

export const JOBS = {
  fetchSites: 'fetch-sites',
  fetchSite: 'fetch-site',
  deliverAlert: 'deliver-alert',
  startRun: 'start-run',
  analysePortability: 'analyse-portability',
} as const;

const id = z.number().int().positive();

/** Sites of a batch, at most this many (ROBOTS_AUDIT_BATCH_SIZE is capped by it). */
export const MAX_BATCH_SITES = 10_000;

export const fetchSitesPayload = z.object({ runId: id, batch: z.number().int().min(0), siteIds: z.array(id).min(1).max(MAX_BATCH_SITES) });
export type FetchSitesPayload = z.infer<typeof fetchSitesPayload>;

export const fetchSitePayload = z.object({ runId: id, siteId: id });
export type FetchSitePayload = z.infer<typeof fetchSitePayload>;

export const deliverAlertPayload = z.object({ deliveryId: id });
export type DeliverAlertPayload = z.infer<typeof deliverAlertPayload>;

export const startRunPayload = z.object({
  /** Restrict the run to one portfolio (by name); null: every enabled site. */
  portfolio: z.string().min(1).nullable().default(null),
  /**
   * What one run covers: a night (the nightly schedule: a second firing the same night is the
   * same run), or one firing (a portfolio's own schedule, which may fire every few minutes).
   */
  runPer: z.enum(['night', 'firing']).default('night'),
});
export type StartRunPayload = z.infer<typeof startRunPayload>;

/**
 * Analyse the bodies whose portability findings are missing or of an older version, from the
 * first of them (the job's key: a job is added again only once that body is done).
 */
export const analysePortabilityPayload = z.object({ version: z.number().int().positive(), firstBodyId: id });
export type AnalysePortabilityPayload = z.infer<typeof analysePortabilityPayload>;

/**
 * Deterministic job ids from domain keys (habit 4): never all digits, no `:` (BullMQ uses it
 * as a key separator). Adding a job whose id exists is a no-op, so a second enqueue adds nothing.
 */
export const jobIds = {
  fetchSites: (p: Pick<FetchSitesPayload, 'runId' | 'batch'>) => `batch-r${p.runId}-b${p.batch}`,
  fetchSite: (p: FetchSitePayload) => `site-r${p.runId}-s${p.siteId}`,
  deliverAlert: (p: DeliverAlertPayload) => `deliver-d${p.deliveryId}`,
  analysePortability: (p: AnalysePortabilityPayload) => `portability-v${p.version}-b${p.firstBodyId}`,
} as const;
