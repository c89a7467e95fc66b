/**
 * What the server gives every page module it registers: the database, the compute thread and the
 * renderer. Its own module so that page modules need not import routes.ts, which registers them.
 */
import type { FastifyReply } from 'fastify';
import type pg from 'pg';
import type { PageCompute } from './page-compute.js';

export interface PageContext {
  pool: pg.Pool;
  /** What pages compute from a site's bytes or a draft: in a thread, with a deadline (page-compute.ts). */
  compute: PageCompute;
  render(reply: FastifyReply, template: string, data: Record<string, unknown>, status?: number): FastifyReply;
}
