/**
 * The pieces of Python 3.11's str and urllib.parse the Python profiles stand on; expected values
 * recorded from Debian 12's /usr/bin/python3 (3.11.2).
 */
import { describe, expect, it } from 'vitest';
import { pyQuote, pySplitlines, pyStrip, pyUnquote, pyUrlparse, pyUrlunparse } from '../../../../src/robots/profiles/python-str.js';

describe('urlparse refuses what Python refuses (ValueError)', () => {
  it.each([
    ['//[v1.x]/a', true],
    ['//[v1]/a', false],
    ['//[::1]/a', true],
    ['//[1.2.3.4]/a', false],
    ['//[::1%eth0]/a', true],
    ['//[::ffff:1.2.3.4]/a', true],
    ['//a[::1]/x', false],
    ['//[::1]x/a', false],
    ['//[x/a', false],
  ])('%s: accepted %s', (url, accepted) => {
    if (accepted) expect(() => pyUrlparse(url)).not.toThrow();
    else expect(() => pyUrlparse(url)).toThrow();
  });
});

describe('str and urllib.parse', () => {
  it.each([
    // [python expression, ours, value]
    ["'a\\x1cb\\x85c\\u2028d\\r\\ne\\n'.splitlines()", () => pySplitlines('a\x1cb\x85c\u2028d\r\ne\n'), ['a', 'b', 'c', 'd', 'e']],
    ["'\\x1f x \\ufeff'.strip()", () => pyStrip('\x1f x \ufeff'), 'x \ufeff'],
    ["unquote('%C3%A9%zz%e9')", () => pyUnquote('%C3%A9%zz%e9'), '\u00e9%zz\ufffd'],
    ["quote('/a b*~é')", () => pyQuote('/a b*~\u00e9'), '/a%20b%2A~%C3%A9'],
    ["urlunparse(urlparse('HTTP://h/p;x?q#f'))", () => pyUrlunparse(pyUrlparse('HTTP://h/p;x?q#f')), 'http://h/p;x?q#f'],
    ["urlunparse(urlparse('/a?'))", () => pyUrlunparse(pyUrlparse('/a?')), '/a'],
  ])('%s', (_python, ours, value) => {
    expect(ours()).toEqual(value);
  });
});
