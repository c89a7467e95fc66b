/**
 * The analysis job (issue 26) on real nights: the run's completion queues it and the workers
 * store each body's portability findings; bodies left without them (a lost job, a database
 * migrated from before 0019) are queued by what the scheduler's reconcile loop calls, once, under
 * one job id; a body whose analysis runs past its deadline is stored as failed with the reason,
 * while a thread that answers nothing at all marks no body.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPortabilityAnalysis, queueAnalysis } from '../../../src/services/portability-analysis.service.js';
import { PORTABILITY_VERSION, portabilityOf } from '../../../src/robots/profiles/portability.js';
import { addSites, replayNight, rows, settleAnalysis } from '../../helpers/nightly.js';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';

const GRIN = 'User-agent: GPTBot\nDisallow: /search?*\n';
const SHOP = 'User-agent: *\nDisallow: /cart\n';

let p: Pipeline;

beforeAll(async () => {
  p = await startPipeline();
  await addSites(p, ['grin', 'shop']);
  await replayNight(p, '2026-03-01T03:00:00.000Z', { grin: GRIN, shop: SHOP });
}, 120_000);

afterAll(async () => {
  await p?.close();
});

const stored = () => rows<{ id: number; content: Buffer; portability: unknown; portability_version: number }>(p, 'select id, content, portability, portability_version from bodies order by id');

describe('after a run', () => {
  it('its completion queued the analysis, and the workers stored what portabilityOf finds', async () => {
    await settleAnalysis(p);
    const bodies = await stored();
    expect(bodies).toHaveLength(2);
    for (const b of bodies) {
      expect(b.portability_version).toBe(PORTABILITY_VERSION);
      expect(b.portability).toEqual(JSON.parse(JSON.stringify({ outcome: 'analysed', ...portabilityOf(b.content) })));
    }
    const done = await p.rt.queues.analysis.getJobs(['completed']);
    expect(done.map((j) => j.id)).toContain(`portability-v${PORTABILITY_VERSION}-b${bodies[0]!.id}`);
  });
});

describe('bodies left behind', () => {
  it('are queued by the reconcile loop once, under one job id, and analysed by the workers', async () => {
    await p.db.pool.query('update bodies set portability = null, portability_version = 0');
    const [first] = await stored();
    const paused = p.workers!.workers.find((w) => w.name === 'analysis')!;
    await paused.pause();
    try {
      const id = await queueAnalysis(p.db.pool, p.rt.queues.analysis);
      expect(id).toBe(`portability-v${PORTABILITY_VERSION}-b${first!.id}`);
      expect(await queueAnalysis(p.db.pool, p.rt.queues.analysis)).toBe(id);
      expect(await p.rt.queues.analysis.getJobCounts('waiting', 'prioritized')).toMatchObject({ waiting: 1 });
    } finally {
      paused.resume();
    }
    await settleAnalysis(p);
    expect((await stored()).every((b) => b.portability_version === PORTABILITY_VERSION)).toBe(true);
    // Nothing waits: nothing is queued.
    expect(await queueAnalysis(p.db.pool, p.rt.queues.analysis)).toBeNull();
  });
});

describe('a body past its deadline', () => {
  it('is stored as failed with the reason, never analysed again by this version', async () => {
    await p.db.pool.query('update bodies set portability = null, portability_version = 0');
    const slow = createPortabilityAnalysis({
      pool: p.db.pool,
      // The thread's answers: the first body runs past the deadline; an empty file answers at once.
      analyse: async (body) =>
        body.length === 0 || body.length === SHOP.length
          ? { ok: true, value: portabilityOf(body), ms: 1 }
          : { ok: false, reason: 'timeout', message: 'took longer than 20 s', ms: 20_000 },
    });
    expect(await slow.analysePending()).toEqual({ analysed: 1, failed: 1, more: false });
    const bodies = await stored();
    expect(bodies.find((b) => b.content.length === GRIN.length)).toMatchObject({
      portability: { outcome: 'failed', reason: 'the analysis took longer than 20 s' },
      portability_version: PORTABILITY_VERSION,
    });
    expect(await slow.analysePending()).toEqual({ analysed: 0, failed: 0, more: false });
  });

  it('unless the thread answers nothing at all: no body is blamed, the job fails and is retried', async () => {
    await p.db.pool.query('update bodies set portability = null, portability_version = 0');
    const dead = createPortabilityAnalysis({ pool: p.db.pool, analyse: async () => ({ ok: false, reason: 'timeout', message: 'took longer than 20 s', ms: 20_000 }) });
    await expect(dead.analysePending()).rejects.toThrow(/the analysis thread does not answer/);
    expect((await stored()).every((b) => b.portability_version === 0)).toBe(true);
    await queueAnalysis(p.db.pool, p.rt.queues.analysis);
    await settleAnalysis(p);
  });
});
