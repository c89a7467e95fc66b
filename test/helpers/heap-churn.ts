/**
 * A child process for the heap-growth test: keeps ~60 MB alive, as a worker does, and allocates
 * short-lived garbage fast for 1.5 s and 4 million objects at least; prints the largest heap V8
 * reserved meanwhile. The count is for a loaded machine, where 1.5 s of garbage is too little for
 * V8 to grow its heap as it does on its own (Node 24 least), and the cap would have nothing to show.
 * Argument: the heap growth percent given to limitHeapGrowth (0: V8's own choice).
 */
import { limitHeapGrowth } from '../../workers/heap-growth.js';

limitHeapGrowth(Number(process.argv[2]));
const kept: Array<{ i: number; s: string }> = [];
for (let i = 0; i < 400_000; i++) kept.push({ i, s: `${'k'.repeat(100)}${i}` });
let peak = 0;
let allocated = 0;
const until = Date.now() + 1_500;
while (Date.now() < until || allocated < 4_000_000) {
  const garbage: Array<{ i: number; s: string }> = [];
  for (let i = 0; i < 20_000; i++) garbage.push({ i, s: `${'g'.repeat(50)}${i}` });
  allocated += garbage.length;
  peak = Math.max(peak, process.memoryUsage().heapTotal);
}
process.stdout.write(JSON.stringify({ kept: kept.length, allocated, peakHeapBytes: peak }));
