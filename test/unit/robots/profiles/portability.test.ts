/**
 * Portability (issue 19, item 4): the rules the parser profiles read differently from Google's
 * parser, with an example URL, every profile's verdict and the reason in words.
 */
import { describe, expect, it } from 'vitest';
import {
  PORTABILITY_MAX_AGENTS_PER_RULE,
  PORTABILITY_MAX_CHECKS,
  PORTABILITY_MAX_FINDINGS,
  PORTABILITY_MAX_RULE_COMPARISONS,
  examplePath,
  portabilityOf,
} from '../../../../src/robots/profiles/portability.js';
import { isBrokenAiBlock, portabilityRows } from '../../../../src/reports/report-portability.js';

const text = (s: string) => new TextEncoder().encode(s);

describe('portabilityOf', () => {
  it.each([
    // [why, robots.txt, expected finding (line, rule, agent, path, differing, reason)]
    [
      'a wildcard rule python-urllib reads literally',
      'User-agent: *\nDisallow: /*.pdf$\n',
      { line: 2, rule: 'Disallow: /*.pdf$', agents: ['*'], agentsNotChecked: 0, path: '/x.pdf', differing: ['python-urllib'], reason: 'python-urllib does not read wildcards, so /x.pdf stays allowed' },
    ],
    [
      'an empty line that ends the GPTBot group for python-urllib',
      'User-agent: GPTBot\n\nDisallow: /\n',
      { line: 3, rule: 'Disallow: /', agents: ['GPTBot'], agentsNotChecked: 0, path: '/', differing: ['python-urllib'], reason: 'python-urllib ends a group at an empty line, so / stays allowed' },
    ],
    [
      'a file Scrapy cannot decode and so reads as empty',
      'User-agent: CCBot\nDisallow: /\n# caf\xe9\n',
      { line: 2, rule: 'Disallow: /', agents: ['CCBot'], agentsNotChecked: 0, path: '/', differing: ['scrapy-protego'], reason: 'Scrapy reads a file that is not valid UTF-8 as empty, so / stays allowed' },
    ],
  ])('%s', (_why, robots, expected) => {
    const body = robots.includes('\xe9') ? Uint8Array.from([...robots].map((c) => c.charCodeAt(0))) : text(robots);
    const { findings, total, complete } = portabilityOf(body);
    expect(findings).toEqual([expect.objectContaining(expected)]);
    expect(total).toBe(1);
    expect(complete).toBe(true);
  });

  it('has no finding when every profile agrees with Google', () => {
    expect(portabilityOf(text('User-agent: GPTBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private/\n')).findings).toEqual([]);
  });

  it('gives every profile\'s verdict', () => {
    const [f] = portabilityOf(text('User-agent: *\nDisallow: /*.pdf$\n')).findings;
    expect(f!.verdicts).toEqual({ google: false, 'python-urllib': true, 'python-urllib-rfc9309': false, 'scrapy-protego': false, 'scrapy-protego-0.7': false, 'node-robots-parser': false });
  });

  it(`lists at most ${PORTABILITY_MAX_FINDINGS} findings and counts the rest`, () => {
    const rules = Array.from({ length: 80 }, (_, i) => `Disallow: /*.ext${i}$`).join('\n');
    const { findings, total } = portabilityOf(text(`User-agent: *\n${rules}\n`));
    expect(findings).toHaveLength(PORTABILITY_MAX_FINDINGS);
    expect(total).toBe(80);
  });

  it('gives one finding per rule, the crawlers of its group listed (issue 26)', () => {
    const google = ['Googlebot', 'Googlebot-Image', 'Googlebot-News', 'AdsBot-Google'];
    const body = text(`${google.map((a) => `User-agent: ${a}`).join('\n')}\nDisallow: /search?*\n`);
    const { findings, total } = portabilityOf(body);
    expect(total).toBe(1);
    expect(findings).toEqual([expect.objectContaining({ line: 5, rule: 'Disallow: /search?*', agents: google, agentsNotChecked: 0, differing: ['python-urllib'] })]);
  });

  it('lists only the crawlers of the rule\'s group that some profile reads differently', () => {
    // python-urllib gives a crawler the first group whose name is part of its own: GPTBot reads
    // the `gpt` group; CCBot and ClaudeBot read theirs as Google does.
    const body = text('User-agent: gpt\nAllow: /\n\nUser-agent: GPTBot\nUser-agent: CCBot\nUser-agent: ClaudeBot\nDisallow: /\n');
    const { findings } = portabilityOf(body);
    expect(findings.map((f) => [f.line, f.agents, f.differing])).toEqual([[7, ['GPTBot'], ['python-urllib']]]);
  });

  it(`asks about at most ${PORTABILITY_MAX_AGENTS_PER_RULE} crawlers of a group per rule and counts the others`, () => {
    const agents = Array.from({ length: PORTABILITY_MAX_AGENTS_PER_RULE + 7 }, (_, i) => `User-agent: bot${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}`);
    const [f] = portabilityOf(text(`${agents.join('\n')}\nDisallow: /*.pdf$\n`)).findings;
    expect(f!.agents).toHaveLength(PORTABILITY_MAX_AGENTS_PER_RULE);
    expect(f!.agentsNotChecked).toBe(7);
  });

  it('stops at its bound on a 500 KiB file of wildcard rules, saying how far it got', () => {
    const rules = Array.from({ length: 11_000 }, (_, i) => `Disallow: /*a*a*a*a*a*a*a*a*${i.toString(36)}*aa$`);
    const result = portabilityOf(text(`User-agent: *\n${rules.join('\n')}\n`));
    expect(result.complete).toBe(false);
    expect(result.rules).toBe(11_000);
    // Google and the five exact profiles each read every rule once per question.
    const questionCost = 11_000 * 6;
    expect(result.rulesExamined).toBe(Math.floor(PORTABILITY_MAX_RULE_COMPARISONS / questionCost));
    expect(result.findings).toHaveLength(result.rulesExamined);
  });

  it(`asks at most ${PORTABILITY_MAX_CHECKS} questions of an ordinary file`, () => {
    const rules = Array.from({ length: PORTABILITY_MAX_CHECKS + 10 }, (_, i) => `Disallow: /p${i}`);
    const result = portabilityOf(text(`User-agent: *\n${rules.join('\n')}\n`));
    expect(result.complete).toBe(PORTABILITY_MAX_RULE_COMPARISONS / ((PORTABILITY_MAX_CHECKS + 10) * 4) >= PORTABILITY_MAX_CHECKS + 10);
    expect(result.rulesExamined).toBeLessThanOrEqual(PORTABILITY_MAX_CHECKS);
  });

  it.each([
    ['/*.pdf$', '/x.pdf'],
    ['/private/', '/private/'],
    ['*/tmp', '/x/tmp'],
    ['/a**b', '/axb'],
  ])('examplePath(%s) = %s', (value, path) => {
    expect(examplePath(value)).toBe(path);
  });
});

describe('report portability rows: AI-crawler blocks not read as intended', () => {
  it('keeps a blocked AI crawler or * that some profile lets through, and nothing else', () => {
    const body = text('User-agent: GPTBot\n\nDisallow: /\n\nUser-agent: Googlebot\n\nDisallow: /\n\nUser-agent: *\nDisallow: /*.pdf$\n\nUser-agent: *\n\nDisallow: /\n');
    const { findings } = portabilityOf(body);
    expect(findings.map((f) => `${f.agents.join(',')} ${f.path}`)).toEqual(['GPTBot /', 'Googlebot /', '* /x.pdf', '* /']);
    // Googlebot is not an AI crawler; a path rule of * is not an AI-crawler block; Disallow: / of * is.
    expect(findings.map(isBrokenAiBlock)).toEqual([true, false, false, true]);
    expect(portabilityRows('https://example.com', findings)).toEqual([
      expect.objectContaining({ origin: 'https://example.com', line: 3, agents: ['GPTBot'], google: 'disallowed', pythonUrllib: 'allowed', pythonUrllibRfc9309: 'disallowed', scrapyProtego: 'disallowed', scrapyProtego07: 'disallowed', nodeRobotsParser: 'disallowed' }),
      expect.objectContaining({ line: 14, agents: ['*'], path: '/', pythonUrllib: 'allowed', reason: 'python-urllib ends a group at an empty line, so / stays allowed' }),
    ]);
  });
});
