/**
 * Issue 26, item 7: the shapes of file that still stalled a command after issue 17, each read
 * where it stalled. Each test asks for the answer, not for a time (the times are in `npm run
 * bench:hostile`, docs/benchmarks.md): before the fixes, each of these ran for minutes, past the
 * test's timeout.
 */
import { describe, expect, it } from 'vitest';
import { parseRobotsTxt } from '../../../src/robots/index.js';
import { crawlersToCompare, diffCrawlerRules, MAX_CRAWLERS_COMPARED, namedCrawlers } from '../../../src/crawlers/crawler-diff.js';
import { describeRobotsDiff, DESCRIBE_MAX_LINES_PER_PART, diffRobotsTxt } from '../../../src/robots/diff.js';
import { profileVerdict } from '../../../src/robots/profiles/index.js';
import { starRuleGaps, MAX_STAR_RULE_WORK } from '../../../src/robots/star-rule-gaps.js';
import { crawlerLines, MAX_CRAWLER_ENTRIES_LISTED } from '../../../src/reports/site-diff.format.js';
import { checkDraft } from '../../../src/services/draft-check.js';
import { letterName, manyAgentGroups, manyAgentsOneGroup, manySitemaps, wildcardGroups, wildcardRules } from '../../helpers/hostile-bodies.js';

const URLS = ['https://example.com/0', 'https://example.com/1', 'https://example.com/zz', 'https://example.com/a1?x', `https://example.com/${'a'.repeat(299)}`];

describe('Protego and robots-parser: a group of 15,000 agents over 27,000 rules', () => {
  const many = manyAgentsOneGroup();
  // The same group naming one agent: the library's answer for that agent, from a file it reads in a moment.
  const one = manyAgentsOneGroup(1);

  it.each([['scrapy-protego'], ['node-robots-parser']] as const)('%s answers every agent of the group as it answers the group of that agent alone', (profile) => {
    // The big file's rules come 14,999 user-agent lines later (robots-parser names the deciding line).
    const shifted = (v: { allowed: boolean; line?: number | null }) => ({ allowed: v.allowed, line: v.line ? v.line - 14_999 : v.line });
    for (const url of URLS) {
      const alone = profileVerdict(profile, one, url, letterName(0));
      for (const agent of [letterName(0), letterName(7_000), letterName(14_999)]) {
        expect(shifted(profileVerdict(profile, many, url, agent)), `${url} ${agent}`).toEqual({ allowed: alone.allowed, line: alone.line });
      }
    }
  });

  it.each([['scrapy-protego'], ['node-robots-parser']] as const)('%s: a crawler the file does not name falls to no group: allowed', (profile) => {
    expect(profileVerdict(profile, many, URLS[0]!, 'Unnamed-Bot-9').allowed).toBe(true);
  });
});

describe('star-rule gaps: 50 named groups beside `*`, 8,500 wildcard rules', () => {
  const robots = parseRobotsTxt(wildcardGroups());

  it('stops at MAX_STAR_RULE_WORK rules weighed, says so, and keeps what it found in order', () => {
    const found = starRuleGaps(robots);
    expect(found.complete).toBe(false);
    expect(found.gaps.length).toBeGreaterThan(0);
    // Checked before each probe: past the bound by at most one probe's weight (51 groups of 170 rules).
    expect(found.work).toBeGreaterThan(MAX_STAR_RULE_WORK);
    expect(found.work).toBeLessThan(MAX_STAR_RULE_WORK + 51 * 170);
    const lines = found.gaps.map((g) => g.starLine);
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
  });

  it('the wildcard file has no named group: nothing to weigh', () => {
    expect(starRuleGaps(parseRobotsTxt(wildcardRules()))).toEqual({ gaps: [], complete: true, work: 0 });
  });
});

describe('the diff of 14,000 renamed agents, and of 9,000 changed sitemaps', () => {
  it('per crawler: MAX_CRAWLERS_COMPARED crawlers, MAX_CRAWLER_ENTRIES_LISTED entries printed, the rest counted', () => {
    const before = parseRobotsTxt(manyAgentGroups('x'));
    const after = parseRobotsTxt(manyAgentGroups('y'));
    const compared = crawlersToCompare(before, after, ['Googlebot']);
    expect(compared.crawlers).toHaveLength(MAX_CRAWLERS_COMPARED);
    expect(compared.crawlers[0]).toBe('*');
    expect(compared.crawlers).toContain('Googlebot');
    expect(compared.notCompared).toBe(namedCrawlers(before).length + namedCrawlers(after).length + 2 - MAX_CRAWLERS_COMPARED);
    const lines = crawlerLines(diffCrawlerRules(before, after, compared.crawlers), compared.notCompared);
    expect(lines.filter((l) => !l.startsWith(' '))).toHaveLength(MAX_CRAWLER_ENTRIES_LISTED + 3);
    expect(lines.at(-3)).toMatch(/^… and [\d,]+ more changes$/);
    expect(lines.at(-1)).toBe(`not compared: ${compared.notCompared.toLocaleString('en-US')} more crawlers the files name`);
  });

  it('records and sitemaps: DESCRIBE_MAX_LINES_PER_PART lines each, the rest counted', () => {
    const records = diffRobotsTxt(parseRobotsTxt(manyAgentGroups('x')), parseRobotsTxt(manyAgentGroups('y')));
    const recordLines = describeRobotsDiff(records, ['records']);
    expect(recordLines).toHaveLength(DESCRIBE_MAX_LINES_PER_PART + 1);
    expect(recordLines.at(-1)).toBe(`… ${records.records.length - DESCRIBE_MAX_LINES_PER_PART} more records changed not listed`);
    const sitemaps = diffRobotsTxt(parseRobotsTxt(manySitemaps('a')), parseRobotsTxt(manySitemaps('b')));
    const sitemapLines = describeRobotsDiff(sitemaps, ['sitemaps']);
    expect(sitemapLines).toHaveLength(2 * (DESCRIBE_MAX_LINES_PER_PART + 1));
    expect(sitemapLines).toContain(`… ${sitemaps.sitemapsAdded.length - DESCRIBE_MAX_LINES_PER_PART} more sitemaps added not listed`);
  });
});

describe('test-draft: a draft of wildcard groups against 15,000 agents in force', () => {
  const current = manyAgentsOneGroup();
  const report = checkDraft({
    origin: 'https://hostile.example',
    current: { outcome: 'ok', policy: 'rules', policyReason: 'R-10', rulesBody: current, lastGoodBody: current },
    draft: wildcardGroups(),
    maxBodyBytes: 512_000,
    targets: [{ url: `https://hostile.example/${'a'.repeat(299)}`, isRoot: false, agents: [{ token: 'Googlebot', family: 'search', category: 'search' }] }],
    rootCrawlers: [],
    diffCrawlers: ['Googlebot', 'GPTBot'],
    failOn: 'critical',
  });

  it('compares MAX_CRAWLERS_COMPARED crawlers, those asked for among them, and counts the rest', () => {
    expect(report.crawlers).toHaveLength(MAX_CRAWLERS_COMPARED);
    expect(report.crawlers.map((c) => c.crawler)).toEqual(expect.arrayContaining(['*', 'Googlebot', 'GPTBot']));
    expect(report.crawlersNotCompared).toBeGreaterThan(14_000);
  });

  it('lint reports the star-rule gaps once, with the bound that stopped them', () => {
    const stopped = report.lint.filter((d) => d.code === 'star-rule-not-inherited' && d.message.includes('stopped here'));
    expect(stopped).toHaveLength(1);
  });
});
