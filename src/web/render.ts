/**
 * Pages from templates: eta, with every `<%= %>` escaped (autoEscape) so that what a website
 * wrote (a robots.txt line, a path, an alert title) is shown as text, never read as markup.
 * Only markup this program builds (the SVG of svg-charts.ts, which escapes its own text) goes
 * out unescaped, with `<%~ %>`.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';

/**
 * The templates and static files sit beside this module: under src/web/ for the sources, and
 * under dist/src/web/ once built (`npm run build` copies them there).
 */
export const WEB_ROOT = path.dirname(fileURLToPath(import.meta.url));

export function createRenderer(): Eta {
  return new Eta({ views: path.join(WEB_ROOT, 'templates'), autoEscape: true, cache: true, autoTrim: [false, 'nl'] });
}

/** `2026-11-23 02:00` (UTC): nights are minutes apart at most. */
export function shortTime(d: Date | null | undefined): string {
  return d ? d.toISOString().slice(0, 16).replace('T', ' ') : '–';
}

export function shortDay(d: Date | null | undefined): string {
  return d ? d.toISOString().slice(0, 10) : '–';
}

export const number = (n: number) => n.toLocaleString('en-US');

/** A link to `base` with the query's parameters, empty values left out. */
export function link(base: string, params: Record<string, string | number | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s === '' ? base : `${base}?${s}`;
}

export const siteLink = (origin: string, extra: Record<string, string | number | null> = {}) => link('/site', { origin, ...extra });

/** The helpers every template gets as `it.h`. */
export const HELPERS = { shortTime, shortDay, number, link, siteLink };
export type Helpers = typeof HELPERS;
