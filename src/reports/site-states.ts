/**
 * The states a site can be in after its latest night: the overview's summary cards count them
 * and list them (`/?show=failing`), and `report status` narrows by them for the dashboard's CSV.
 * The names alone, so that the filters (report-filters.ts) can name a state without importing
 * the reports that decide it (site-state-conditions.ts).
 */

/** The states the summary cards count, each a filter of the list (`/?show=failing`). */
export const SITE_STATES = ['audited', 'ok', 'failing', 'unavailable', 'disallow_all', 'fallback', 'changed', 'never', 'unverified', 'flapping'] as const;
export type SiteState = (typeof SITE_STATES)[number];
