/**
 * Portability (issue 19, item 4): the rules the parser profiles read differently from Google's
 * parser, with an example URL, every profile's verdict and the reason in words.
 */
import { describe, expect, it } from 'vitest';
import { PORTABILITY_MAX_FINDINGS, examplePath, portabilityOf } from '../../../../src/robots/profiles/portability.js';
import { isBrokenAiBlock, portabilityRows } from '../../../../src/reports/report-portability.js';

const text = (s: string) => new TextEncoder().encode(s);

describe('portabilityOf', () => {
  it.each([
    // [why, robots.txt, expected finding (line, rule, agent, path, differing, reason)]
    [
      'a wildcard rule python-urllib reads literally',
      'User-agent: *\nDisallow: /*.pdf$\n',
      { line: 2, rule: 'Disallow: /*.pdf$', agent: 'ExampleBot', starGroup: true, path: '/x.pdf', differing: ['python-urllib'], reason: 'python-urllib does not read wildcards, so /x.pdf stays allowed' },
    ],
    [
      'an empty line that ends the GPTBot group for python-urllib',
      'User-agent: GPTBot\n\nDisallow: /\n',
      { line: 3, rule: 'Disallow: /', agent: 'GPTBot', starGroup: false, path: '/', differing: ['python-urllib'], reason: 'python-urllib ends a group at an empty line, so / stays allowed' },
    ],
    [
      'a file Scrapy cannot decode and so reads as empty',
      'User-agent: CCBot\nDisallow: /\n# caf\xe9\n',
      { line: 2, rule: 'Disallow: /', agent: 'CCBot', starGroup: false, path: '/', differing: ['scrapy-protego'], reason: 'Scrapy reads a file that is not valid UTF-8 as empty, so / stays allowed' },
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
    expect(f!.verdicts).toEqual({ google: false, 'python-urllib': true, 'scrapy-protego': false, 'node-robots-parser': false });
  });

  it(`lists at most ${PORTABILITY_MAX_FINDINGS} findings and counts the rest`, () => {
    const rules = Array.from({ length: 80 }, (_, i) => `Disallow: /*.ext${i}$`).join('\n');
    const { findings, total } = portabilityOf(text(`User-agent: *\n${rules}\n`));
    expect(findings).toHaveLength(PORTABILITY_MAX_FINDINGS);
    expect(total).toBe(80);
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
    expect(findings.map((f) => `${f.agent} ${f.path}`)).toEqual(['GPTBot /', 'Googlebot /', 'ExampleBot /x.pdf', 'ExampleBot /']);
    // Googlebot is not an AI crawler; a path rule of * is not an AI-crawler block; Disallow: / of * is.
    expect(findings.map(isBrokenAiBlock)).toEqual([true, false, false, true]);
    expect(portabilityRows('https://example.com', findings)).toEqual([
      expect.objectContaining({ origin: 'https://example.com', line: 3, agent: 'GPTBot', google: 'disallowed', pythonUrllib: 'allowed', scrapyProtego: 'disallowed', nodeRobotsParser: 'disallowed' }),
      expect.objectContaining({ line: 14, agent: '*', path: '/', pythonUrllib: 'allowed', reason: 'python-urllib ends a group at an empty line, so / stays allowed' }),
    ]);
  });
});
