/**
 * Bodies a hostile or careless website may serve, generated rather than stored: each is under
 * Google's 500 KiB cut (R-18) but arranged to make per-agent x per-rule work explode (house
 * style, habit 12). Issue 17 item 1 found the first one taking every worker down.
 */

/** R-18: the bytes Google reads; every hostile body here fits in them. */
const GOOGLE_CUT_BYTES = 500 * 1024;

/** A distinct name of letters for each index (T16: a user-agent token is read up to its first digit). */
export function letterName(i: number): string {
  let name = '';
  let n = i;
  do {
    name = String.fromCharCode(0x61 + (n % 26)) + name;
    n = Math.floor(n / 26);
  } while (n > 0);
  return name;
}

/**
 * One group of `agents` distinct user-agent lines over `rules` rules (one disallow in five,
 * paths reused once the short ones run out): by default 15,000 agents and 27,000 rules, the
 * shape issue 17 measured, in under 500 KiB. `prefix` (letters) starts every agent's name, so
 * that two prefixes give two files that share no agent.
 */
export function manyAgentsOneGroup(agents = 15_000, rules = 27_000, prefix = ''): Uint8Array {
  const lines: string[] = [];
  for (let i = 0; i < agents; i++) lines.push(`user-agent:${prefix}${letterName(i)}`);
  for (let i = 0; i < rules; i++) {
    const path = `/${(i % 1296).toString(36)}`;
    lines.push(i % 5 === 0 ? `disallow:${path}` : `allow:${path}`);
  }
  const body = new TextEncoder().encode(lines.join('\n') + '\n');
  if (body.length >= GOOGLE_CUT_BYTES) throw new Error(`hostile body is ${body.length} bytes, past the 500 KiB cut`);
  return body;
}

/** Bytes the bodies below fill: just under the cut, the whole of it read. */
const NEAR_CUT_BYTES = GOOGLE_CUT_BYTES - 1024;

/** `head`, then the lines `line(0)`, `line(1)`, ... while they fit in NEAR_CUT_BYTES. */
function filledWith(head: string, line: (i: number) => string): Uint8Array {
  const lines = head === '' ? [] : [head];
  let size = head.length + 1;
  for (let i = 0; ; i++) {
    const next = line(i);
    if (size + next.length + 1 > NEAR_CUT_BYTES) break;
    lines.push(next);
    size += next.length + 1;
  }
  return new TextEncoder().encode(lines.join('\n') + '\n');
}

/**
 * About 500 KiB of `Sitemap:` lines (some 9,000), each URL naming `version`: two versions share
 * no sitemap, so the night from one to the other changes every one of them (issue 26).
 */
export function manySitemaps(version: string): Uint8Array {
  return filledWith('User-agent: *\nDisallow: /private/', (i) => `Sitemap: https://www.example.com/sitemaps/${version}/products-${i}.xml`);
}

/**
 * About 500 KiB of one other record (R6: a key Google knows and does not use) in the `*` group,
 * each value naming `version`: one record with some 12,000 values, all changed between versions.
 */
export function manyRecords(key: 'Content-Signal' | 'Clean-param', version: string): Uint8Array {
  const value = key === 'Content-Signal' ? (i: number) => `search=yes, ai-train=no, v=${version}${i}` : (i: number) => `${version}${i}&sid /catalog/`;
  return filledWith('User-agent: *\nDisallow: /private/', (i) => `${key}: ${value(i)}`);
}

/**
 * About 500 KiB of groups, one agent each (named by `prefix` and letters) with a `Crawl-delay`
 * and a rule: some 14,000 agents, each its own record scope, so a change of prefix changes as
 * many groups and as many records.
 */
export function manyAgentGroups(prefix: string): Uint8Array {
  return filledWith('', (i) => `User-agent: ${prefix}${letterName(i)}\nCrawl-delay: 5\nDisallow: /`);
}

/**
 * Issue 26: a legal file of wildcard rules, one `*` group of ~8,300 lines such as
 * `Disallow: /*a*a*a*a*a*a*a*a*a*a*aaa*aa$`, as a user measured it: each rule a few stars and
 * runs of `a`, which a backtracking matcher (Protego's, robots-parser's regular expressions)
 * takes minutes over, and which the portability analysis can only sample.
 */
export function wildcardRules(bytes = GOOGLE_CUT_BYTES - 200): Uint8Array {
  const lines = ['User-agent: *'];
  let size = lines[0]!.length + 1;
  for (let i = 0; ; i++) {
    const line = `Disallow: /*${'a*'.repeat(10)}${'a'.repeat(3 + (i % 5))}*${'a'.repeat(2 + (i % 4))}$`;
    if (size + line.length + 1 > bytes) break;
    lines.push(line);
    size += line.length + 1;
  }
  return new TextEncoder().encode(lines.join('\n') + '\n');
}

/**
 * Issue 28: the wildcard file's shape as usage preferences: one `*` group of ~7,000
 * `Content-Usage` lines with wildcard paths (`Content-Usage: /*a*a*...*aaa$ train-ai=n`), each
 * matched against every path checked, as Disallow rules are; `value` changes between versions.
 */
export function wildcardUsageLines(value: 'y' | 'n', bytes = GOOGLE_CUT_BYTES - 200): Uint8Array {
  const lines = ['User-agent: *'];
  let size = lines[0]!.length + 1;
  for (let i = 0; ; i++) {
    const line = `Content-Usage: /*${'a*'.repeat(10)}${'a'.repeat(3 + (i % 5))}*${'a'.repeat(2 + (i % 4))}$ train-ai=${value}, search=y`;
    if (size + line.length + 1 > bytes) break;
    lines.push(line);
    size += line.length + 1;
  }
  return new TextEncoder().encode(lines.join('\n') + '\n');
}

/**
 * The same shape with every rule distinct, in 50 groups that each name a crawler beside `*`: what
 * lint's star-rule gaps and the semantic diff compare group against group.
 */
export function wildcardGroups(groups = 50, rulesPerGroup = 170): Uint8Array {
  const lines: string[] = [];
  let i = 0;
  for (let g = 0; g < groups; g++) {
    lines.push(`User-agent: bot${letterName(g)}`, 'User-agent: *');
    for (let r = 0; r < rulesPerGroup; r++, i++) lines.push(`Disallow: /*${'a*'.repeat(8)}${i.toString(36)}*${'a'.repeat(2 + (i % 5))}$`);
  }
  const body = new TextEncoder().encode(lines.join('\n') + '\n');
  if (body.length >= GOOGLE_CUT_BYTES) throw new Error(`hostile body is ${body.length} bytes, past the 500 KiB cut`);
  return body;
}
