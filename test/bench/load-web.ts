/**
 * The benchmark's web: one node:http server on 127.0.0.1 that answers for any number of hosts
 * `s<i>.load.test` (pinned to 127.0.0.1 with ROBOTS_AUDIT_RESOLVE), each with a real robots.txt
 * of the corpus (the sample's robots files in turn), every 50th a 404. Run as its own process,
 * so that its CPU is not the measuring process's:
 *
 *   node --import tsx test/bench/load-web.ts
 *
 * It prints `{"port": N}` on stdout when it listens, then takes commands as JSON lines on stdin:
 * `{"latency": [minMs, maxMs]}` delays every answer by a uniform random time in that range (real
 * internet latency); `{"latency": null}` answers at once; `{"change": [from, to]}` appends a rule
 * to the bodies of the sites with from <= i < to; `{"count": true}` prints the requests answered
 * since the last count. Each command is acknowledged with a JSON line.
 */
import http from 'node:http';
import readline from 'node:readline';
import { loadRobotsSample } from '../helpers/corpus.js';

const NOT_FOUND_EVERY = 50;
const bodies = loadRobotsSample()
  .filter((f) => f.kind === 'robots')
  .map((f) => f.body);
let latency: [number, number] | null = null;
let changed: [number, number] = [0, 0];
let answered = 0;
const CHANGE = Buffer.from('\nUser-agent: *\nDisallow: /bench-changed/\n');

function siteIndex(host: string | undefined): number | null {
  const m = /^s(\d+)\.load\.test(?::\d+)?$/.exec(host ?? '');
  return m ? Number(m[1]) : null;
}

const server = http.createServer((req, res) => {
  const reply = () => {
    answered += 1;
    const i = siteIndex(req.headers.host);
    if (i === null || req.url !== '/robots.txt' || i % NOT_FOUND_EVERY === 0) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    let body = bodies[i % bodies.length]!;
    if (i >= changed[0] && i < changed[1]) body = Buffer.concat([body, CHANGE]);
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': String(body.length) }).end(body);
  };
  if (latency) setTimeout(reply, latency[0] + Math.random() * (latency[1] - latency[0]));
  else reply();
});
// Node's default keep-alive (5 s, announced as `Keep-Alive: timeout=5`), as Apache's default: a
// server announcing less than undici's 2 s threshold (1 s here before) makes undici close the
// connection itself after the answer, which a fetch on the real web seldom meets.
server.maxConnections = 10_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`${JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 })}\n`);
});

for await (const line of readline.createInterface({ input: process.stdin })) {
  const command = JSON.parse(line) as { latency?: [number, number] | null; change?: [number, number]; count?: boolean };
  if ('latency' in command) latency = command.latency ?? null;
  if (command.change) changed = command.change;
  if (command.count) {
    process.stdout.write(`${JSON.stringify({ answered })}\n`);
    answered = 0;
  } else process.stdout.write(`${JSON.stringify({ ok: true })}\n`);
}
server.close();
