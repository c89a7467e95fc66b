/**
 * ROBOTS_AUDIT_WORKER_HEAP_GROWTH_PERCENT: a process that keeps ~60 MB and allocates fast reserves
 * far less heap with the cap than with V8's own growth; the option refuses what is not a percent.
 * The process runs with the young generation the image gives a worker (the Dockerfile's
 * NODE_OPTIONS: 16 MB semi-spaces). Node 24's own, up to 64 MB semi-spaces, lets this garbage die
 * young: the old generation, which the cap sizes, then hardly grows with the cap or without it.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { limitHeapGrowth } from '../../../workers/heap-growth.js';
import { runtimeImageEnvironment } from '../../helpers/dockerfile.js';

const churn = fileURLToPath(new URL('../../helpers/heap-churn.ts', import.meta.url));
const image = runtimeImageEnvironment();

function peakHeap(percent: number): number {
  const out = execFileSync(process.execPath, ['--import', 'tsx', churn, String(percent)], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: image.NODE_OPTIONS ?? '' } });
  return (JSON.parse(out) as { peakHeapBytes: number }).peakHeapBytes;
}

describe('worker heap growth', () => {
  it('capped at 30%, the heap stays well below what V8 lets it reach on its own', () => {
    const own = peakHeap(0);
    const capped = peakHeap(30);
    // Measured on a loaded machine: 430-610 MB on its own, ~235 MB capped, on Node 20 and 24.
    expect(capped).toBeLessThan(own * 0.75);
    expect(capped).toBeLessThan(300e6);
  }, 60_000);

  it.each([[-1], [1.5], [Number.NaN]])('refuses %s', (percent) => {
    expect(() => limitHeapGrowth(percent)).toThrow(RangeError);
  });
});
