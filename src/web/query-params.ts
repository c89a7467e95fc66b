/**
 * The dashboard's query strings, checked: a page's URL is its state (shareable), so every
 * parameter has a type and a default, and a value that is not one of them is a clear 400, not a
 * silent default.
 */
import { z } from 'zod';
import { parseSince, ReportInputError } from '../reports/index.js';
import { OVERVIEW_SORTS } from '../reports/web-overview.js';
import { EVENT_TYPES, SEVERITIES } from '../reports/web-events.js';
import type { EventCursor } from '../reports/web-events.js';
import { AI_CATEGORIES } from '../reports/web-ai-matrix.js';
import { DELIVERY_STATUSES } from '../reports/web-runs.js';
import { PAGE_SIZES } from '../reports/web-paging.js';

const text = z.string().max(300).optional();
const page = z.coerce.number().int().min(1).max(1_000_000).default(1);
const size = z.coerce
  .number()
  .int()
  .refine((n) => (PAGE_SIZES as readonly number[]).includes(n), `one of ${PAGE_SIZES.join(', ')}`)
  .optional();

export const overviewParams = z.object({
  portfolio: text,
  q: text,
  sort: z.enum(OVERVIEW_SORTS).default('site'),
  dir: z.enum(['asc', 'desc']).optional(),
  page,
  size,
});

export const siteParams = z.object({
  origin: z.string().min(1).max(2_000),
  version: z.coerce.number().int().min(1).optional(),
});

export const eventParams = z.object({
  portfolio: text,
  type: z.enum(EVENT_TYPES).optional(),
  kind: z
    .string()
    .max(50)
    .regex(/^[a-z0-9_]*$/, 'a kind such as rules or ai_access_changed')
    .optional(),
  severity: z.enum(SEVERITIES).optional(),
  crawler: text,
  since: text,
  until: text,
  after: text,
  size,
});

export const aiParams = z.object({ portfolio: text, q: text, category: z.enum(AI_CATEGORIES).optional(), page, size });
export const runsParams = z.object({ page, size });
export const deliveriesParams = z.object({ status: z.enum(DELIVERY_STATUSES).optional(), page, size });
export const chartsParams = z.object({ portfolio: text });
export const runIdParams = z.object({ id: z.coerce.number().int().min(1).max(2_147_483_647) });

/** A bad query string: 400 with this message. */
export class BadRequest extends Error {
  override name = 'BadRequest';
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
