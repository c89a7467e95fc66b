/**
 * Issue 29: what claiming a crawler costs per log line. Not a test: it prints ns per User-Agent
 * for crawler headers and for browser headers (98% of a log), with the shipped catalogue.
 *
 *   node --import tsx test/bench/agent-match.ts [--lines 2000000]
 *
 * The budget is ~1 µs per 150-byte header: ten million lines in seconds, not minutes.
 */
import { catalogue } from '../../src/crawlers/index.js';
import { compileAgentMatcher } from '../../src/crawlers/identity/index.js';

const CRAWLERS = [
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Googlebot/2.1; +http://www.google.com/bot.html) Chrome/131.0.6778.204 Safari/537.36',
  'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.3; +https://openai.com/gptbot',
  'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; ClaudeBot/1.0; +claudebot@anthropic.com)',
];
const BROWSERS = [
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  'Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
];

const linesArg = process.argv.indexOf('--lines');
const LINES = linesArg > 0 ? Number(process.argv[linesArg + 1]) : 2_000_000;
const claimedBy = compileAgentMatcher(catalogue().map((e) => e.token));

function nsPerHeader(headers: readonly string[]): { ns: number; bytes: number; claims: number } {
  let claims = 0;
  for (let i = 0; i < 50_000; i++) if (claimedBy(headers[i % headers.length]!) !== null) claims++; // warm-up
  claims = 0;
  const started = process.hrtime.bigint();
  for (let i = 0; i < LINES; i++) if (claimedBy(headers[i % headers.length]!) !== null) claims++;
  const ns = Number(process.hrtime.bigint() - started) / LINES;
  const bytes = headers.reduce((n, h) => n + h.length, 0) / headers.length;
  return { ns, bytes, claims };
}

for (const [name, headers] of [['crawlers', CRAWLERS], ['browsers', BROWSERS]] as const) {
  const { ns, bytes, claims } = nsPerHeader(headers);
  console.log(`${name.padEnd(9)} ${ns.toFixed(0).padStart(5)} ns/UA  (${bytes.toFixed(0)} bytes average, ${LINES.toLocaleString('en')} lines, ${claims.toLocaleString('en')} claims)`);
}
