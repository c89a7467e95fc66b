import { threadTasks } from '../../../src/offload/thread-tasks.js';

/** Tasks for thread-pool.int.test.ts: one that answers, one that spins, one that eats its heap, one that throws. */
function echo(input: { text: string; bytes: Uint8Array }): { text: string; length: number } {
  return { text: input.text.toUpperCase(), length: input.bytes.length };
}

function spin(ms: number): number {
  const until = Date.now() + ms;
  let n = 0;
  while (Date.now() < until) n += 1;
  return n;
}

function hog(): number {
  const kept: number[][] = [];
  for (;;) kept.push(new Array<number>(1_000_000).fill(kept.length));
}

function fail(message: string): never {
  throw new Error(message);
}

export default threadTasks({ echo, spin, hog, fail });
