/**
 * ROBOTS_AUDIT_WORKER_HEAP_GROWTH_PERCENT: a process that keeps ~60 MB and allocates fast reserves
 * far less heap with the cap than with V8's own growth; the option refuses what is not a percent.
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { limitHeapGrowth } from '../../../workers/heap-growth.js';

const churn = fileURLToPath(new URL('../../helpers/heap-churn.ts', import.meta.url));

function peakHeap(percent: number): number {
  const out = execFileSync(process.execPath, ['--import', 'tsx', churn, String(percent)], { encoding: 'utf8' });
  return (JSON.parse(out) as { peakHeapBytes: number }).peakHeapBytes;
}

describe('worker heap growth', () => {
  it('capped at 30%, the heap stays well below what V8 lets it reach on its own', () => {
    const own = peakHeap(0);
    const capped = peakHeap(30);
    // Measured: ~460-580 MB on its own, ~235 MB capped.
    expect(capped).toBeLessThan(own * 0.75);
    expect(capped).toBeLessThan(300e6);
  }, 30_000);

  it.each([[-1], [1.5], [Number.NaN]])('refuses %s', (percent) => {
    expect(() => limitHeapGrowth(percent)).toThrow(RangeError);
  });
});
