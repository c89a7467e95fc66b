/**
 * The demo's access log (issue 29): what the 2023 publishers' servers would have logged while
 * their robots.txt changed month by month, in nginx's vhost-combined format. Synthetic and
 * deterministic; the crawlers' addresses are inside (or, for the spoofer, outside) the ranges
 * their operators publish (src/demo/data/crawler-ranges/). What it shows, judged by the versions
 * the monthly nights saw:
 * - Googlebot reads robots.txt and fetches what it may: allowed;
 * - GPTBot crawls courier.demo before the GPTBot block (allowed), after it shipped but before the
 *   night that saw it (allowed: the version the nights had seen allowed it, and they cannot tell
 *   when in August the block shipped), and the day after that night: a violation, verified by
 *   OpenAI's ranges (it had even read the new robots.txt);
 * - CCBot crawls courier.demo a last time within 24 hours of the night that saw its block (the
 *   cache window), then stops;
 * - ChatGPT-User fetches a page a user asked for: robots.txt does not bind it (not bound);
 * - a "GPTBot" from an address OpenAI does not list: spoofed;
 * - browsers, which the import never keeps.
 * Pure.
 */

/** The addresses, each inside its operator's published ranges (the files of src/demo/data/crawler-ranges). */
const GOOGLEBOT_IP = '192.178.4.5';
const GPTBOT_IP = '132.196.86.17';
const CCBOT_IP = '3.41.188.33';
const CHATGPT_USER_IP = '104.210.139.200';
/** TEST-NET-3 (RFC 5737): no operator's. */
const SPOOFER_IP = '203.0.113.77';

const UA = {
  googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  gptbot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; GPTBot/1.0; +https://openai.com/gptbot)',
  ccbot: 'CCBot/2.0 (https://commoncrawl.org/faq/)',
  chatgptUser: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
  firefox: 'Mozilla/5.0 (X11; Linux x86_64; rv:115.0) Gecko/20100101 Firefox/115.0',
  safari: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.5 Safari/605.1.15',
} as const;

/** One request: when (UTC), which host, from where, what, and as whom. */
type DemoRequest = readonly [at: string, host: string, ip: string, path: string, ua: string];

const COURIER = 'courier.demo';
const WEEKLY = 'weekly-review.demo';

const REQUESTS: readonly DemoRequest[] = [
  // July 2023: every crawler welcome on courier.demo.
  ['2023-07-03T06:00:00Z', COURIER, GOOGLEBOT_IP, '/robots.txt', UA.googlebot],
  ['2023-07-03T06:00:04Z', COURIER, GOOGLEBOT_IP, '/world/2023/06/heatwave-across-europe', UA.googlebot],
  ['2023-07-03T07:12:00Z', COURIER, '198.51.100.23', '/world/2023/06/heatwave-across-europe', UA.firefox],
  ['2023-07-18T02:10:00Z', COURIER, GPTBOT_IP, '/robots.txt', UA.gptbot],
  ['2023-07-18T02:10:09Z', COURIER, GPTBOT_IP, '/world/2023/06/heatwave-across-europe', UA.gptbot],
  ['2023-07-20T11:00:00Z', WEEKLY, GPTBOT_IP, '/essays/2023/the-long-summer', UA.gptbot],
  // 8 August: courier.demo blocks GPTBot; the monthly night of 1 September sees it. GPTBot's
  // fetch in between is judged by the version the nights had seen: allowed.
  ['2023-08-15T04:30:00Z', COURIER, GPTBOT_IP, '/world/2023/08/wildfires', UA.gptbot],
  ['2023-08-30T23:00:00Z', COURIER, CCBOT_IP, '/world/2023/08/wildfires', UA.ccbot],
  // 1 September, 03:00: the night sees the block of GPTBot, ChatGPT-User and CCBot.
  ['2023-09-01T08:00:00Z', COURIER, CCBOT_IP, '/world/2023/08/harvest', UA.ccbot],
  ['2023-09-01T09:00:00Z', COURIER, GOOGLEBOT_IP, '/world/2023/08/harvest', UA.googlebot],
  ['2023-09-01T10:00:00Z', COURIER, '198.51.100.40', '/world/2023/08/harvest', UA.safari],
  // GPTBot reads the new robots.txt, and crawls on the next day all the same.
  ['2023-09-01T18:00:00Z', COURIER, GPTBOT_IP, '/robots.txt', UA.gptbot],
  ['2023-09-02T12:00:00Z', COURIER, GPTBOT_IP, '/world/2023/09/election-night', UA.gptbot],
  ['2023-09-02T12:00:07Z', COURIER, GPTBOT_IP, '/world/2023/09/markets', UA.gptbot],
  ['2023-09-03T12:00:00Z', COURIER, GPTBOT_IP, '/world/2023/09/storm', UA.gptbot],
  // A user asks ChatGPT about an article: a user-triggered fetch.
  ['2023-09-05T15:20:00Z', COURIER, CHATGPT_USER_IP, '/world/2023/09/election-night', UA.chatgptUser],
  // Someone else's crawler, calling itself GPTBot.
  ['2023-09-10T01:00:00Z', COURIER, SPOOFER_IP, '/world/2023/09/storm', UA.gptbot],
  ['2023-09-10T01:00:02Z', COURIER, SPOOFER_IP, '/account/settings', UA.gptbot],
  ['2023-09-12T06:00:00Z', COURIER, GOOGLEBOT_IP, '/world/2023/09/storm', UA.googlebot],
  // weekly-review.demo blocks GPTBot from 5 September (seen on 1 October) until December.
  ['2023-10-09T09:00:00Z', WEEKLY, GPTBOT_IP, '/essays/2023/the-long-summer', UA.gptbot],
];

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `[03/Jul/2023:06:00:00 +0000]`: nginx's $time_local, in UTC. */
function timeLocal(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(at.getUTCDate())}/${MONTHS[at.getUTCMonth()]}/${at.getUTCFullYear()}:${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())} +0000`;
}

/** The log, oldest line first, one line a request, ending with a newline. */
export function demoAccessLog(): string {
  return REQUESTS.map(([at, host, ip, path, ua]) => `${host} ${ip} - - [${timeLocal(new Date(at))}] "GET ${path} HTTP/1.1" 200 ${2_048 + path.length * 37} "-" "${ua}"\n`).join('');
}

/** The range files the demo imports before the log, by source: src/demo/data/crawler-ranges/. */
export const DEMO_RANGE_FILES: readonly { source: string; file: string }[] = [
  { source: 'googlebot', file: 'google-common-crawlers.json' },
  { source: 'gptbot', file: 'openai-gptbot.json' },
  { source: 'chatgpt-user', file: 'openai-chatgpt-user.json' },
  { source: 'ccbot', file: 'commoncrawl-ccbot.json' },
];

export const DEMO_RANGES_DIR = new URL('./data/crawler-ranges/', import.meta.url);
