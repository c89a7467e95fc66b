/**
 * Pages from templates: eta, with every `<%= %>` escaped (autoEscape) so that what a website
 * wrote (a robots.txt line, a path, an alert title) is shown as text, never read as markup.
 * Only markup this program builds goes out unescaped, with `<%~ %>`: the SVG of svg-charts.ts
 * and a site's text through `it.h.text()` (html-text.ts), which escape their own text.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Eta } from 'eta';
import type { PolicyReason } from '../policy/effective-policy.js';
import { POLICY_REASON_TEXT } from '../reports/site-text.js';
import type { HiddenChar } from '../robots/hidden-chars.js';
import { hiddenCharName, siteTextAttribute, siteTextHtml } from './html-text.js';
import { parserVerdictText, profileRelease } from '../crawlers/parser-verdicts.js';

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

/** A time as HTML: a `<time>` element the stylesheet keeps on one line (a date never wraps mid-string). */
const timeElement = (d: Date | null | undefined, shown: string) => (d ? `<time datetime="${d.toISOString()}">${shown}</time>` : shown);
export const timeHtml = (d: Date | null | undefined) => timeElement(d, shortTime(d));
export const dayHtml = (d: Date | null | undefined) => timeElement(d, shortDay(d));

export const number = (n: number) => n.toLocaleString('en-US');

/** `1 site`, `2 sites`, `1,204 sites`. */
export const plural = (n: number, one: string, many = `${one}s`) => `${number(n)} ${n === 1 ? one : many}`;

/** A link to `base` with the query's parameters, empty values left out; a list gives the parameter once per value. */
export function link(base: string, params: Record<string, string | number | readonly string[] | null | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (Array.isArray(v)) for (const item of v) q.append(k, item);
    else if (v !== null && v !== undefined && v !== '') q.set(k, String(v));
  }
  const s = q.toString();
  return s === '' ? base : `${base}?${s}`;
}

export const siteLink = (origin: string, extra: Record<string, string | number | null> = {}) => link('/site', { origin, ...extra });

/** The words of a policy reason (`R-10` → `robots.txt fetched: its rules apply`). */
export const reasonText = (reason: string | null | undefined) => (reason ? (POLICY_REASON_TEXT[reason as PolicyReason] ?? reason) : '');

/** The helpers every template gets as `it.h`, whatever the page. */
export const HELPERS = { shortTime, shortDay, timeHtml, dayHtml, number, plural, link, siteLink, reasonText, parserVerdictText, profileRelease };

/**
 * The helpers of one page: HELPERS, and a site's text as HTML (`<%~ it.h.text(x) %>`) that
 * collects the hidden characters it showed, so the layout (rendered after the page's body)
 * can put the note about them at the top.
 */
export function pageHelpers() {
  const seen = new Map<number, HiddenChar>();
  return {
    ...HELPERS,
    text: (text: string | null | undefined) => (text === null || text === undefined ? '' : siteTextHtml(text, seen)),
    /** Hidden characters shown by markup built elsewhere (the file's rows, page-compute.ts): the layout's note names them too. */
    saw: (chars: readonly HiddenChar[]) => void chars.forEach((c) => seen.set(c.codePoint, c)),
    attr: siteTextAttribute,
    hiddenName: hiddenCharName,
    hiddenShown: () => [...seen.values()],
  };
}
export type Helpers = ReturnType<typeof pageHelpers>;
