/**
 * The worker's heap growth: V8 sizes its heap by how fast the program allocates, not by what it
 * keeps, so a worker that keeps ~60 MB but allocates a few hundred MB a second would let its heap
 * grow past 300 MB before a full collection. `--heap-growing-percent` caps the growth after each
 * full collection. The flag is read at every collection, so setting it at start-up takes effect;
 * it cannot be given in NODE_OPTIONS, hence here.
 */
import v8 from 'node:v8';

export function limitHeapGrowth(percent: number): void {
  if (!Number.isInteger(percent) || percent < 0) throw new RangeError(`heap growth must be a whole number of percent, not ${percent}`);
  if (percent > 0) v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
