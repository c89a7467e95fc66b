/**
 * A night replayed before the site's latest one (`audit --at` an earlier date: a backfill). It is
 * compared with the night before it on the run clock, not with the latest; the verdict spans are
 * cut around it, so that "the verdict on night N" stays right for every night; and the site's
 * state stays the latest night's, so the next night is compared with that one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPipeline } from '../../helpers/pipeline.js';
import type { Pipeline } from '../../helpers/pipeline.js';
import type { Night } from '../../helpers/nightly.js';
import { addSites, changeOf, flipsOf, replayNight, rows, track, verdictsOn } from '../../helpers/nightly.js';

const NIGHT = (day: number) => `2026-06-0${day}T03:00:00.000Z`;
const OPEN = 'User-agent: *\nDisallow: /private/\n';
const CLOSED = 'User-agent: *\nDisallow: /private/\nDisallow: /products/\n';

let p: Pipeline;
let siteId: number;
const nights: Record<number, Night> = {};

const productsFor = async (runId: number, token = 'Googlebot') =>
  (await verdictsOn(p, runId, siteId)).find((v) => v.url.endsWith('/products/a') && v.token === token)?.allowed;

beforeAll(async () => {
  p = await startPipeline();
  ({ shop: siteId } = await addSites(p, ['shop'], 'shop'));
  await track(p, 'shop', ['/products/a']);
  // Nights 1 and 3 serve the open file; night 2, replayed last, served the closed one.
  nights[1] = await replayNight(p, NIGHT(1), { shop: OPEN }, { portfolio: 'shop' });
  nights[3] = await replayNight(p, NIGHT(3), { shop: OPEN }, { portfolio: 'shop' });
  nights[2] = await replayNight(p, NIGHT(2), { shop: CLOSED }, { portfolio: 'shop' });
});
afterAll(async () => p?.close());

describe('a backfilled night (night 2 stored after night 3)', () => {
  it('is compared with night 1: its change and its flips', async () => {
    expect((await changeOf(p, nights[2]!.runId, siteId))?.kinds).toEqual(['raw', 'rules']);
    const flips = await flipsOf(p, nights[2]!.runId, siteId);
    expect(flips.length).toBeGreaterThan(0);
    for (const f of flips) expect(f).toMatchObject({ url: `${p.origin('shop')}/products/a`, from_allowed: true, to_allowed: false, cause: 'rules_changed' });
  });

  it('the verdict of every night is that night\'s: allowed, disallowed, allowed', async () => {
    expect([await productsFor(nights[1]!.runId), await productsFor(nights[2]!.runId), await productsFor(nights[3]!.runId)]).toEqual([true, false, true]);
  });

  it('the spans are cut around it: [1, 2) allowed, [2, 3) disallowed, [3, ...) allowed', async () => {
    const spans = await rows<{ from_run_id: number; to_run_id: number | null; allowed: boolean }>(
      p,
      `select v.from_run_id, v.to_run_id, v.allowed from verdicts v join tracked_urls t on t.id = v.tracked_url_id join user_agents a on a.id = v.user_agent_id
        where t.site_id = $1 and t.url like '%/products/a' and a.token = 'Googlebot' order by v.valid_from`,
      [siteId],
    );
    expect(spans).toEqual([
      { from_run_id: nights[1]!.runId, to_run_id: nights[2]!.runId, allowed: true },
      { from_run_id: nights[2]!.runId, to_run_id: nights[3]!.runId, allowed: false },
      { from_run_id: nights[3]!.runId, to_run_id: null, allowed: true },
    ]);
  });

  it('leaves the state the latest night\'s: the next night is compared with night 3', async () => {
    const [state] = await rows<{ run_id: number }>(p, 'select run_id from site_state where site_id = $1', [siteId]);
    expect(state!.run_id).toBe(nights[3]!.runId);
    const night4 = await replayNight(p, '2026-06-04T03:00:00.000Z', { shop: OPEN }, { portfolio: 'shop' });
    expect(await changeOf(p, night4.runId, siteId)).toBeUndefined();
    expect(await flipsOf(p, night4.runId, siteId)).toEqual([]);
    expect(await productsFor(night4.runId)).toBe(true);
  });
});
