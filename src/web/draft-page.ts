/**
 * The dashboard's "Test a draft": paste or upload a draft robots.txt of a site (500 KiB at most)
 * and see what `robots-audit test-draft` says, on the page: the verdicts that would flip, the
 * alerts the night after the deploy would raise, the rules each crawler gains and loses, the `*`
 * paths newly open, the lint findings, the draft with its lines. The same read and the same
 * service as the command (src/reports/site-draft-baseline.ts, src/services/draft-check.ts).
 *
 * It only computes: it reads the site's latest night on the dashboard's read-only sessions and
 * writes nothing. Its form is the dashboard's one POST besides logging in, so it is guarded
 * against cross-site requests three ways: a form token only this page hands out (an HMAC under a
 * key of the process, which no other site can read), the browser's `Origin` and
 * `Sec-Fetch-Site` when it sends them, and, with a dashboard token, the SameSite=Strict session
 * cookie every request needs (server.ts), as every page does.
 */
import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { crawlerLines } from '../reports/site-diff.format.js';
import { siteDraftBaseline } from '../reports/site-draft-baseline.js';
import { findSite } from '../reports/web-site.js';
import { GOOGLE_MAX_ROBOTS_BYTES } from '../robots/lint.js';
import { revealHiddenChars } from '../robots/hidden-chars.js';
import { checkDraft, groupFlips } from '../services/draft-check.js';
import { SEVERITIES } from '../services/alerting/severities.js';
import type { DraftReport } from '../services/draft-check.js';
import { parseParams } from './query-params.js';
import type { PageContext } from './routes.js';
import { NotFound } from './routes.js';

/** The most a draft may weigh: what Google reads of a robots.txt, and so all that counts. */
export const MAX_DRAFT_BYTES = GOOGLE_MAX_ROBOTS_BYTES;
/** Flip lines shown; the count of the others beside. */
export const PAGE_MAX_FLIP_GROUPS = 200;

const draftParams = z.object({ origin: z.string().min(1).max(2_000) });
const UTF8 = new TextDecoder('utf-8', { fatal: false });

/** A draft too large, a form without its token or from another site: the page says which, with its status. */
class DraftRequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The form's fields as they came. */
interface DraftForm {
  origin: string;
  token: string;
  failOn: string;
  pasted: string;
  uploaded: Buffer | null;
}

async function readForm(request: FastifyRequest): Promise<DraftForm> {
  if (!request.isMultipart()) throw new DraftRequestError(415, 'Send the form as multipart/form-data (the page\'s own form does).');
  const form: DraftForm = { origin: '', token: '', failOn: 'critical', pasted: '', uploaded: null };
  try {
    for await (const part of request.parts()) {
      if (part.type === 'file') {
        const bytes = await part.toBuffer();
        if (part.fieldname === 'file' && bytes.length > 0) form.uploaded = bytes;
        continue;
      }
      if (part.valueTruncated) throw new DraftRequestError(413, `The draft is larger than ${MAX_DRAFT_BYTES.toLocaleString('en-US')} bytes (500 KiB): crawlers read no more (R-18).`);
      const value = typeof part.value === 'string' ? part.value : '';
      if (part.fieldname === 'origin') form.origin = value;
      else if (part.fieldname === 'token') form.token = value;
      else if (part.fieldname === 'fail_on') form.failOn = value;
      else if (part.fieldname === 'draft') form.pasted = value;
    }
  } catch (err) {
    if (err instanceof DraftRequestError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE' || code === 'FST_FILES_LIMIT' || code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
      throw new DraftRequestError(413, `The draft is larger than ${MAX_DRAFT_BYTES.toLocaleString('en-US')} bytes (500 KiB), or the form has more than its fields: crawlers read no more than 500 KiB (R-18).`);
    }
    throw err;
  }
  return form;
}

/** The draft's lines as text for the page: UTF-8, hidden characters as `<U+XXXX>`. */
function draftLines(draft: Uint8Array): string[] {
  const lines = UTF8.decode(draft).split(/\r\n|\r|\n/);
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines.map(revealHiddenChars);
}

/** What the template shows of a report: the engine's data, with every text from a file made visible. */
function pageResult(report: DraftReport, draft: Uint8Array) {
  const groups = groupFlips(report.flips);
  const marked = new Map<number, string>();
  for (const a of report.alerts) for (const line of a.lines) if (!marked.has(line)) marked.set(line, a.failing ? 'fail' : a.severity);
  for (const d of report.lint) if (!marked.has(d.line)) marked.set(d.line, 'lint');
  const show = revealHiddenChars;
  return {
    report,
    flipGroups: groups.slice(0, PAGE_MAX_FLIP_GROUPS).map((g) => ({
      ...g,
      url: show(g.url),
      ruleBefore: g.ruleBefore && { ...g.ruleBefore, value: show(g.ruleBefore.value) },
      ruleAfter: g.ruleAfter && { ...g.ruleAfter, value: show(g.ruleAfter.value) },
    })),
    flipGroupsHidden: Math.max(0, groups.length - PAGE_MAX_FLIP_GROUPS),
    alerts: report.alerts.map((a) => ({ ...a, title: show(a.title) })),
    crawlerLines: report.crawlers.some((c) => c.changed) ? crawlerLines(report.crawlers).map(show) : [],
    starGaps: report.starGapsOpened.map((g) => ({ ...g, path: show(g.path) })),
    lint: report.lint.map((d) => ({ ...d, message: show(d.message) })),
    lines: draftLines(draft.subarray(0, Math.min(draft.length, MAX_DRAFT_BYTES))).map((text, i) => ({ n: i + 1, text, mark: marked.get(i + 1) ?? '' })),
  };
}

export function registerDraftPage(app: FastifyInstance, ctx: PageContext): void {
  const { pool, render } = ctx;
  // The form token: an HMAC under a key of this process. A page of another site cannot read it.
  const formKey = randomBytes(32);
  const formToken = createHmac('sha256', formKey).update('robots-audit test-draft form v1').digest('base64url');
  const sameToken = (given: string) => {
    const a = Buffer.from(given);
    const b = Buffer.from(formToken);
    return a.length === b.length && timingSafeEqual(a, b);
  };

  /** A POST from this dashboard's own page: its token, and no browser saying it comes from elsewhere. */
  function checkSameSite(request: FastifyRequest, form: DraftForm): void {
    const fetchSite = request.headers['sec-fetch-site'];
    if (fetchSite !== undefined && fetchSite !== 'same-origin') throw new DraftRequestError(403, 'Refused: the form was sent from another site.');
    // `null` says nothing either way: this dashboard's Referrer-Policy (no-referrer) makes a
    // browser send it on the page's own form posts.
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== 'null') {
      let host: string | null = null;
      try {
        host = new URL(origin).host;
      } catch {
        host = null;
      }
      if (host !== request.headers.host) throw new DraftRequestError(403, 'Refused: the form was sent from another site.');
    }
    if (!sameToken(form.token)) throw new DraftRequestError(403, 'Refused: the form has no valid token. Open "Test a draft" again from the site\'s page.');
  }

  const page = (reply: FastifyReply, data: Record<string, unknown>, status = 200) =>
    render(reply, 'draft', { nav: 'overview', formToken, severities: SEVERITIES, maxBytes: MAX_DRAFT_BYTES, failOn: 'critical', pasted: '', result: null, error: null, ...data }, status);

  async function baselineOf(originInput: string) {
    const id = await findSite(pool, originInput);
    if (id === null) throw new NotFound(`No site is monitored at ${originInput}.`);
    const { rows } = await pool.query<{ origin: string }>('select origin from sites where id = $1', [id]);
    try {
      return await siteDraftBaseline(pool, { id, origin: rows[0]!.origin });
    } catch (err) {
      if ((err as { kind?: string }).kind === 'not_found') throw new NotFound((err as Error).message);
      throw err;
    }
  }

  app.register(async (scope) => {
    await scope.register(fastifyMultipart, {
      throwFileSizeLimit: true,
      limits: { fileSize: MAX_DRAFT_BYTES, fieldSize: MAX_DRAFT_BYTES, files: 1, fields: 4, parts: 5, fieldNameSize: 20 },
    });

    scope.get('/draft', async (request, reply) => {
      const q = parseParams(draftParams, request.query);
      const base = await baselineOf(q.origin);
      return page(reply, { title: `Test a draft: ${base.site.origin}`, site: base.site, current: base.current });
    });

    // Two drafts' worth (a pasted one and an uploaded one) and the form around them.
    scope.post('/draft', { bodyLimit: 2 * MAX_DRAFT_BYTES + 64 * 1024 }, async (request, reply) => {
      let form: DraftForm;
      try {
        form = await readForm(request);
        checkSameSite(request, form);
      } catch (err) {
        if (!(err instanceof DraftRequestError)) throw err;
        return render(reply, 'error', { title: err.status === 413 ? 'Draft too large' : 'Refused', message: err.message }, err.status);
      }
      const { origin } = parseParams(draftParams, { origin: form.origin });
      const failOn = (SEVERITIES as readonly string[]).includes(form.failOn) ? (form.failOn as (typeof SEVERITIES)[number]) : 'critical';
      const base = await baselineOf(origin);
      const pageOf = { title: `Test a draft: ${base.site.origin}`, site: base.site, current: base.current, failOn };
      if (form.uploaded === null && form.pasted === '') return page(reply, { ...pageOf, error: 'Paste a draft or choose a file.' }, 400);
      // An uploaded file as its bytes; a pasted draft as the browser sent it (UTF-8).
      const draft = form.uploaded ?? Buffer.from(form.pasted, 'utf8');
      const report = checkDraft({
        origin: base.site.origin,
        current: base.current,
        draft,
        maxBodyBytes: MAX_DRAFT_BYTES,
        targets: base.targets,
        rootCrawlers: base.catalogue,
        diffCrawlers: base.defaultAgents,
        failOn,
      });
      return page(reply, {
        ...pageOf,
        pasted: form.uploaded ? '' : form.pasted,
        uploadedBytes: form.uploaded?.length ?? null,
        result: pageResult(report, draft),
      });
    });
  });
}
