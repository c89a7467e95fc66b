/**
 * Issue 17, item 1: a body under the 500 KiB cut with 15,000 user-agent lines over 27,000
 * rules in one group. Every step that reads it works per rule set, not per agent x rule (house
 * style, habit 12): before, lint ran ~27 s and the body index and the diff ran the process out
 * of memory (3.8 GB).
 */
import { describe, expect, it } from 'vitest';
import { lintRobotsTxt, parseRobotsTxt } from '../../../src/robots/index.js';
import { MAX_DIFF_AGENTS_LISTED, MAX_DIFF_RULES_LISTED, diffRobotsTxt, describeRobotsDiff } from '../../../src/robots/diff.js';
import { indexBody } from '../../../src/night/body-index.js';
import { letterName, manyAgentsOneGroup } from '../../helpers/hostile-bodies.js';

const body = manyAgentsOneGroup();
const robots = parseRobotsTxt(body);

describe('15,000 agents over 27,000 rules in one group (R-34, R-18)', () => {
  it('fits in the 500 KiB Google reads', () => {
    expect(body.length).toBeLessThan(500 * 1024);
    expect(robots.agents()).toHaveLength(15_000);
    expect(robots.groups[0]?.rules).toHaveLength(27_000);
  });

  it('every agent refers to the one rule list of its group', () => {
    const first = robots.rulesFor(letterName(0));
    expect(first).toHaveLength(27_000);
    for (const i of [1, 7_000, 14_999]) expect(robots.rulesFor(letterName(i))).toBe(first);
  });

  it('lint checks the rule set once: one conflicting-rule per disallow that an allow repeats', () => {
    const conflicts = lintRobotsTxt(body).filter((d) => d.code === 'conflicting-rule');
    // Disallows are every 5th rule over 1,296 paths, allows the others: every disallow is repeated by an allow.
    expect(conflicts).toHaveLength(27_000 / 5);
  });

  it('the body index stores the group and its 15,000 agents once, and each rule without them', () => {
    const index = indexBody(robots, ['googlebot', letterName(3)]);
    expect(index.groups).toEqual([{ groupNo: 0, userAgents: expect.any(Array) }]);
    expect(index.groups[0]?.userAgents).toHaveLength(15_000);
    expect(index.rules).toHaveLength(27_000);
    expect(Object.keys(index.rules[0]!)).toEqual(['line', 'groupNo', 'kind', 'value', 'pattern']);
  });

  it('the diff compares the rule set once, lists at most MAX_DIFF_RULES_LISTED rules and MAX_DIFF_AGENTS_LISTED agents', () => {
    const before = parseRobotsTxt('User-agent: *\nDisallow: /\n');
    const diff = diffRobotsTxt(before, robots, { before: null, after: body });
    // `*` and 15,000 agents changed: MAX_DIFF_AGENTS_LISTED listed, the rest counted, all named.
    expect(diff.agents).toHaveLength(MAX_DIFF_AGENTS_LISTED);
    expect(diff.agentsNotListed).toBe(15_001 - MAX_DIFF_AGENTS_LISTED);
    expect(diff.agentsAdded).toHaveLength(15_000);
    expect(JSON.stringify(diff).length).toBeLessThan(512 * 1024);
    const listed = diff.agents.reduce((n, a) => n + a.rulesAdded.length + a.rulesRemoved.length, 0);
    expect(listed).toBe(MAX_DIFF_RULES_LISTED);
    // `*` first, its one rule removed; then 27,000 rules over 1,296 paths x 2 kinds: 2,592
    // distinct rules for the first agent, those past the list's budget counted.
    expect(diff.agents[0]).toMatchObject({ token: '*', change: 'removed', rulesRemoved: [expect.objectContaining({ value: '/' })] });
    expect(diff.agents[1]?.rulesNotListed).toBe(2_592 - (MAX_DIFF_RULES_LISTED - 1));
    expect(diff.agents[2]).toMatchObject({ rulesAdded: [], rulesNotListed: 2_592 });
    expect(describeRobotsDiff(diff).some((l) => l.includes('more rules not listed'))).toBe(true);
    expect(describeRobotsDiff(diff).at(-1)).toBe(`… ${15_001 - MAX_DIFF_AGENTS_LISTED} more groups changed, not listed`);
  });

  it('the rule set is compiled once for every agent that uses it', () => {
    const one = robots.select(letterName(1))!;
    const other = robots.select(letterName(14_000))!;
    expect(one.compiled).toHaveLength(27_000);
    expect(other.compiled).toBe(one.compiled);
  });

  it('a crawler the group names is decided by it', () => {
    expect(robots.check('https://x.example/0', letterName(42))).toEqual({ allowed: true, line: expect.any(Number) });
  });
});

describe('a diff past MAX_DIFF_AGENTS_LISTED agents', () => {
  it('still lists an agent whose disallow-everything rule came, wherever it sorts', () => {
    const groups = Array.from({ length: MAX_DIFF_AGENTS_LISTED + 100 }, (_, i) => `User-agent: a${letterName(i)}\nDisallow: /x\n`);
    const after = parseRobotsTxt(`${groups.join('\n')}\nUser-agent: zzzz\nDisallow: /\n`);
    const diff = diffRobotsTxt(parseRobotsTxt(''), after);
    expect(diff.agents).toHaveLength(MAX_DIFF_AGENTS_LISTED + 1);
    expect(diff.agents.at(-1)).toMatchObject({ token: 'zzzz', disallowAllAdded: true });
    expect(diff.agentsNotListed).toBe(100);
  });
});
