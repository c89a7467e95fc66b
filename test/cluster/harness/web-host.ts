/**
 * The cluster's "web" host: the audited sites `c<i>.test`, served by one node:http server on the
 * address given, port 80, with real-world latency. Run inside the web host's namespace:
 *
 *   node --import tsx test/cluster/harness/web-host.ts <address>
 *
 * It prints `{"listening": true}` on stdout, then takes commands as JSON lines on stdin, each
 * acknowledged with a JSON line: `{"version": k}` makes every site serve night k's file (one rule
 * of its own a night, so every site changes and alerts each night); `{"latency": [min, max]}`
 * delays every answer by a uniform random time, ms; `{"counts": true}` answers the requests for
 * /robots.txt per site since the start, `{"c0.test": 3, ...}`.
 */
import http from 'node:http';
import readline from 'node:readline';

const address = process.argv[2];
if (!address) throw new Error('usage: web-host.ts <address>');
let version = 0;
let latency: [number, number] = [0, 0];
const counts = new Map<string, number>();

/** What site `host` serves on night `v`. */
function siteBody(host: string, v: number): string {
  return `# ${host}, night ${v}\nUser-agent: *\nDisallow: /private/\nDisallow: /night-${v}/\n\nUser-agent: GPTBot\nDisallow: /${v % 2 === 0 ? '' : 'archive/'}\n`;
}

const server = http.createServer((req, res) => {
  const host = (req.headers.host ?? '').replace(/:\d+$/, '');
  const reply = () => {
    if (req.url !== '/robots.txt' || !/^c\d+\.test$/.test(host)) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    counts.set(host, (counts.get(host) ?? 0) + 1);
    res.writeHead(200, { 'content-type': 'text/plain' }).end(siteBody(host, version));
  };
  const [min, max] = latency;
  if (max > 0) setTimeout(reply, min + Math.random() * (max - min));
  else reply();
});
server.keepAliveTimeout = 5_000;
server.listen(80, address, () => process.stdout.write(`${JSON.stringify({ listening: true })}\n`));

for await (const line of readline.createInterface({ input: process.stdin })) {
  const command = JSON.parse(line) as { version?: number; latency?: [number, number]; counts?: boolean };
  if (command.version !== undefined) version = command.version;
  if (command.latency !== undefined) latency = command.latency;
  process.stdout.write(`${JSON.stringify(command.counts ? Object.fromEntries(counts) : { ok: true })}\n`);
}
server.close();
