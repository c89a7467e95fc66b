/**
 * How the dashboard benches time a page and a download (dashboard.ts on the year's database,
 * million.ts on the million's): a page requested one at a time after a warm-up, its server time
 * read from the dashboard's Server-Timing header (request in to reply out); a CSV download read
 * whole, timed to its first byte and to its end.
 */
export const WARM_UP = 2;

export interface Timed {
  median: number;
  max: number;
  wall: number;
  status: number;
}

const upperMiddle = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** `path` requested `WARM_UP + runs` times, one at a time: the median and slowest server time of the last `runs`. */
export async function time(base: string, path: string, runs: number): Promise<Timed> {
  const server: number[] = [];
  const wall: number[] = [];
  let status = 0;
  for (let i = 0; i < WARM_UP + runs; i++) {
    const t = performance.now();
    const response = await fetch(base + path);
    await response.arrayBuffer();
    const elapsed = performance.now() - t;
    status = response.status;
    if (status !== 200) throw new Error(`${path}: HTTP ${status}`);
    const dur = /app;dur=([\d.]+)/.exec(response.headers.get('server-timing') ?? '')?.[1];
    if (dur === undefined) throw new Error(`${path}: no Server-Timing header`);
    if (i >= WARM_UP) {
      server.push(Number(dur));
      wall.push(elapsed);
    }
  }
  return { median: upperMiddle(server), max: Math.max(...server), wall: upperMiddle(wall), status };
}

export interface Download {
  name: string;
  path: string;
  firstByteMs: number;
  totalMs: number;
  bytes: number;
  rows: number;
}

/** One download read whole: time to its first byte, to its end, its size and rows. */
export async function download(base: string, name: string, path: string): Promise<Download> {
  const t = performance.now();
  const response = await fetch(base + path);
  if (response.status !== 200 || !response.body) throw new Error(`${path}: HTTP ${response.status}`);
  let firstByteMs = 0;
  let bytes = 0;
  let rows = 0;
  for await (const chunk of response.body) {
    if (bytes === 0) firstByteMs = performance.now() - t;
    bytes += chunk.byteLength;
    for (const b of chunk) if (b === 0x0a) rows += 1;
  }
  return { name, path, firstByteMs, totalMs: performance.now() - t, bytes, rows: rows - 1 };
}
