/**
 * The dashboard's "Test a draft": paste or upload a draft robots.txt of a site (500 KiB at most)
 * and see what `robots-audit test-draft` says, on the page: the verdicts that would flip, the
 * alerts the night after the deploy would raise, the rules each crawler gains and loses, the `*`
 * paths newly open, the lint findings, the draft with its lines. The same read and the same
 * service as the command (src/reports/site-draft-baseline.ts, src/services/draft-check.ts).
 *
 * It only computes, in a thread with a deadline (page-compute.ts): it reads the site's latest night
 * on the dashboard's read-only sessions and writes nothing. Its form is the dashboard's one POST besides logging in, so it is guarded
 * against cross-site requests three ways: a form token only this page hands out (an HMAC under a
 * key of the process, which no other site can read), the browser's `Origin` and
 * `Sec-Fetch-Site` when it sends them, and, with a dashboard token, the SameSite=Strict session
 * cookie every request needs (server.ts), as every page does.
 */
import fastifyMultipart from '@fastify/multipart';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { siteDraftBaseline } from '../reports/site-draft-baseline.js';
import { USAGE_PURPOSE_LABELS } from '../reports/web-ai-matrix.js';
import { findSite } from '../reports/web-site.js';
import { SEVERITIES } from '../night/vocabulary.js';
import { MAX_DRAFT_BYTES } from './draft-result.js';
import { parseParams } from './query-params.js';
import { NotFound } from './not-found.js';
import type { PageContext } from './page-context.js';

export { MAX_DRAFT_BYTES, PAGE_MAX_FLIP_GROUPS } from './draft-result.js';

const draftParams = z.object({ origin: z.string().min(1).max(2_000) });

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

export function registerDraftPage(app: FastifyInstance, ctx: PageContext): void {
  const { pool, render, compute } = ctx;
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
    render(reply, 'draft', { nav: 'overview', purposeLabels: USAGE_PURPOSE_LABELS, formToken, severities: SEVERITIES, maxBytes: MAX_DRAFT_BYTES, failOn: 'critical', pasted: '', result: null, error: null, ...data }, status);

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
      // Comparing two 500 KiB files may take seconds: in the thread, with a deadline (page-compute.ts).
      const computed = await compute.draft({
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
        result: computed.ok ? computed.value : null,
        error: computed.ok ? null : computed.note,
      });
    });
  });
}
