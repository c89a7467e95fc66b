/** The default period of the event reports (changes, flips): the week before the latest night. */
import type pg from 'pg';
import type { ReportFilters } from './report-filters.js';
import { latestNight } from './report-filters.js';

export const RECENT_DAYS = 7;

/** `--since` when given, else RECENT_DAYS before the latest night (epoch when nothing ran yet). */
export async function recentSince(pool: pg.Pool, filters: ReportFilters): Promise<Date> {
  if (filters.since) return filters.since;
  const latest = await latestNight(pool);
  return latest ? new Date(latest.getTime() - RECENT_DAYS * 86_400_000) : new Date(0);
}
