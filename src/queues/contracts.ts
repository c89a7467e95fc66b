/**
 * Queue names, job names and one zod payload schema per job (house style, habit 1). Jobs carry
 * ids, never bodies (habit 5): Postgres is the system of record.
 */
import { z } from 'zod';

export const QUEUES = {
  /** Fetch one site's robots.txt for one run and store its snapshot. */
  fetch: 'fetch',
  /** Compare a stored snapshot with the site's previous one; verdicts, flips, alerts. */
  diff: 'diff',
  /** Deliver one alert (or one run digest) to one channel. */
  alerts: 'alerts',
  /** Runs started by the nightly job scheduler. */
  runs: 'runs',
} as const;

export const JOBS = {
  fetchSite: 'fetch-site',
  diffSite: 'diff-site',
  deliverAlert: 'deliver-alert',
  startRun: 'start-run',
} as const;

const id = z.number().int().positive();

export const fetchSitePayload = z.object({ runId: id, siteId: id });
export type FetchSitePayload = z.infer<typeof fetchSitePayload>;

export const diffSitePayload = z.object({ runId: id, siteId: id });
export type DiffSitePayload = z.infer<typeof diffSitePayload>;

export const deliverAlertPayload = z.object({ deliveryId: id });
export type DeliverAlertPayload = z.infer<typeof deliverAlertPayload>;

export const startRunPayload = z.object({
  /** Restrict the run to one portfolio (by name); null: every enabled site. */
  portfolio: z.string().min(1).nullable().default(null),
});
export type StartRunPayload = z.infer<typeof startRunPayload>;

/**
 * Deterministic job ids from domain keys (habit 4): never all digits, no `:` (BullMQ uses it
 * as a key separator). Adding a job whose id exists is a no-op, so a second enqueue adds nothing.
 */
export const jobIds = {
  fetchSite: (p: FetchSitePayload) => `fetch-r${p.runId}-s${p.siteId}`,
  diffSite: (p: DiffSitePayload) => `diff-r${p.runId}-s${p.siteId}`,
  deliverAlert: (p: DeliverAlertPayload) => `deliver-d${p.deliveryId}`,
} as const;
