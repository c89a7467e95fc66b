/**
 * The dashboard's query strings, checked: a page's URL is its state (shareable), so every
 * parameter has a type and a default, and a value that is not one of them is a clear 400, not a
 * silent default.
 */
import { z } from 'zod';
import { parseSince, ReportInputError } from '../reports/index.js';
import { OVERVIEW_SORTS, SITE_STATES } from '../reports/web-overview.js';
import { EVENT_TYPES } from '../reports/web-events.js';
import { DELIVERY_STATUSES, SEVERITIES } from '../night/vocabulary.js';
import type { EventCursor } from '../reports/web-events.js';
import { AI_CATEGORIES, USAGE_FILTERS } from '../reports/web-ai-matrix.js';
import { PAGE_SIZES } from '../reports/web-paging.js';
import { codePointLabel, hiddenCharsIn } from '../robots/hidden-chars.js';

const text = z.string().max(300).optional();
/** A form sends an empty value for its "any" choice: the same as leaving the parameter out. */
const blankIsAbsent = (v: unknown) => (v === '' ? undefined : v);
const choice = <T extends readonly [string, ...string[]]>(values: T) => z.preprocess(blankIsAbsent, z.enum(values).optional());
const id = () => z.preprocess(blankIsAbsent, z.coerce.number().int().min(1).max(2_147_483_647).optional());
const page = z.coerce.number().int().min(1).max(1_000_000).default(1);
/** A change kind, a flip cause or an alert kind. */
const kind = z
  .string()
  .max(50)
  .regex(/^[a-z0-9_]*$/, 'a kind such as rules or ai_access_changed')
  .optional();
/** A crawler's product token (T14: letters, digits, `-`, `_`), as the pages take one. */
const token = z
  .string()
  .max(100)
  .regex(/^[A-Za-z0-9_-]*$/, 'a crawler token such as GPTBot')
  .optional();
/** Crawler tokens, one or several (`?crawler=GPTBot&crawler=CCBot`). */
const tokens = z
  .union([z.string(), z.array(z.string()).max(200)])
  .optional()
  .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]).filter((t) => t !== ''))
  .pipe(z.array(z.string().max(100).regex(/^[A-Za-z0-9_-]+$/, 'a crawler token such as GPTBot')));
const size = z.preprocess(
  (v) => (v === '' ? undefined : v),
  z.coerce
    .number()
    .int()
    .refine((n) => (PAGE_SIZES as readonly number[]).includes(n), `one of ${PAGE_SIZES.join(', ')}`)
    .optional(),
);

export const overviewParams = z.object({
  portfolio: text,
  q: text,
  show: choice(SITE_STATES),
  sort: z.preprocess(blankIsAbsent, z.enum(OVERVIEW_SORTS).default('site')),
  dir: choice(['asc', 'desc']),
  page,
  size,
});

export const siteParams = z.object({
  origin: z.string().min(1).max(2_000),
  version: id(),
  /** The "check any URL" box: a path or a URL of the site, and a crawler. */
  url: z.string().max(2_000).optional(),
  ua: token,
});

export const eventParams = z.object({
  portfolio: text,
  type: choice(EVENT_TYPES),
  kind,
  severity: choice(SEVERITIES),
  crawler: text,
  since: text,
  until: text,
  after: text,
  size,
});

export const aiParams = z.object({ portfolio: text, q: text, category: choice(AI_CATEGORIES), crawler: tokens, blocks: token, usage: choice(USAGE_FILTERS), page, size });
/** The Compliance pages (`report compliance` and `report violations`): their filters, and a page. */
export const complianceParams = z.object({ portfolio: text, since: text, crawler: token, q: text, page, size });
export type ComplianceParams = z.infer<typeof complianceParams>;
export const nightParams = z.object({
  run: id(),
  portfolio: text,
  severity: choice(SEVERITIES),
  page,
  size,
});
export const runsParams = z.object({ page, size });
/** Every filter a page may pass on to a CSV download; each report applies those it has. */
export const csvParams = z.object({
  portfolio: text,
  q: text,
  show: choice(SITE_STATES),
  since: text,
  until: text,
  kind,
  severity: choice(SEVERITIES),
  crawler: token,
  blocks: token,
  usage: choice(USAGE_FILTERS),
});
export const deliveriesParams = z.object({ status: choice(DELIVERY_STATUSES), page, size });
export const chartsParams = z.object({ portfolio: text });
export const runIdParams = z.object({ id: z.coerce.number().int().min(1).max(2_147_483_647) });

/** A bad query string: 400 with this message. */
export class BadRequest extends Error {
  override name = 'BadRequest';
}

/**
 * Every parameter of a request's path and query, checked before any route reads it: each must
 * be valid percent-encoded UTF-8 and hold no control, bidirectional or invisible character (a
 * NUL would reach Postgres, which refuses it; U+202E would make a search box read backwards).
 * Throws BadRequest naming the parameter.
 */
export function assertCleanUrl(rawUrl: string): void {
  const at = rawUrl.indexOf('?');
  const path = at === -1 ? rawUrl : rawUrl.slice(0, at);
  assertClean('the path', path, false);
  if (at === -1) return;
  for (const pair of rawUrl.slice(at + 1).split('&')) {
    if (pair === '') continue;
    const eq = pair.indexOf('=');
    const name = decodePart('a parameter name', eq === -1 ? pair : pair.slice(0, eq), true);
    assertClean(name, eq === -1 ? '' : pair.slice(eq + 1), true);
  }
}

const LAYOUT_CHARS = [
  { codePoint: 0x09, name: 'CHARACTER TABULATION' },
  { codePoint: 0x0a, name: 'LINE FEED' },
];

function decodePart(what: string, raw: string, plusIsSpace: boolean): string {
  try {
    return decodeURIComponent(plusIsSpace ? raw.replaceAll('+', ' ') : raw);
  } catch {
    throw new BadRequest(`${what}: not valid percent-encoded UTF-8 (${raw.length > 40 ? `${raw.slice(0, 40)}…` : raw})`);
  }
}

function assertClean(name: string, raw: string, plusIsSpace: boolean): void {
  const shown = name.length > 40 ? `${name.slice(0, 40)}…` : name;
  const value = decodePart(shown, raw, plusIsSpace);
  // Tab and line feed are layout in a text, not in a parameter: refused with the rest.
  const c = LAYOUT_CHARS.find((l) => value.includes(String.fromCodePoint(l.codePoint))) ?? hiddenCharsIn(`${name}${value}`)[0];
  if (c) {
    throw new BadRequest(`${shown.replace(/[^\x20-\x7e]/g, '?')}: holds ${codePointLabel(c.codePoint)} ${c.name}, a character the dashboard does not take in a parameter`);
  }
}

export function parseParams<T extends z.ZodType>(schema: T, input: unknown): z.infer<T> {
  const result = schema.safeParse(input);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new BadRequest(`${issue.path.join('.') || 'query'}: ${issue.message}`);
  }
  return result.data;
}

/** `since` / `until` as `report --since` reads them (YYYY-MM-DD, ISO with zone, <n>d). */
export function parseNight(name: string, value: string | undefined, latest: Date | null): Date | null {
  if (value === undefined || value.trim() === '') return null;
  try {
    return parseSince(value, latest);
  } catch (err) {
    if (err instanceof ReportInputError) throw new BadRequest(err.message.replace('--since', name));
    throw err;
  }
}

/** The events cursor travels as `<ISO time>~<rank>~<id>~<origin>` (the origin last: it may hold anything). */
export function encodeCursor(c: EventCursor): string {
  return `${c.at.toISOString()}~${c.rank}~${c.id}~${c.origin}`;
}

export function decodeCursor(value: string | undefined): EventCursor | null {
  if (value === undefined || value === '') return null;
  const m = /^([^~]+)~([123])~(\d{1,18})~(.+)$/.exec(value);
  const at = m ? new Date(m[1]!) : null;
  if (!m || !at || Number.isNaN(at.getTime())) throw new BadRequest('after: not a cursor of this page');
  return { at, rank: Number(m[2]), id: Number(m[3]), origin: m[4]! };
}
