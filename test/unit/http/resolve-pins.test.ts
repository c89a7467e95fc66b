import { describe, expect, it } from 'vitest';
import { findPin, normalizeHostname, parseResolvePins } from '../../../src/http/resolve-pins.js';

describe('resolve pins: parsing `host=ip` and `*.suffix=ip`', () => {
  it.each<[string, { name: string; wildcard: boolean; address: string; family: 4 | 6 }]>([
    ['a.test=127.0.0.1', { name: 'a.test', wildcard: false, address: '127.0.0.1', family: 4 }],
    ['*.test=127.0.0.1', { name: '.test', wildcard: true, address: '127.0.0.1', family: 4 }],
    ['Example.COM.=10.0.0.1', { name: 'example.com', wildcard: false, address: '10.0.0.1', family: 4 }],
    [' blocked.test = 10.0.0.1 ', { name: 'blocked.test', wildcard: false, address: '10.0.0.1', family: 4 }],
    ['v6.test=::1', { name: 'v6.test', wildcard: false, address: '::1', family: 6 }],
    ['v6.test=[::1]', { name: 'v6.test', wildcard: false, address: '::1', family: 6 }],
    ['*.Sub.Example=2001:db8:0:0:0:0:0:1', { name: '.sub.example', wildcard: true, address: '2001:db8::1', family: 6 }],
  ])('%s', (entry, pin) => {
    expect(parseResolvePins([entry])).toEqual([pin]);
  });

  it.each(['a.test', '=127.0.0.1', 'a.test=', 'a.test=localhost', 'a.test=127.1', '*.=127.0.0.1', '*=127.0.0.1', 'a*.test=127.0.0.1', 'a.test:80=127.0.0.1'])(
    'refuses "%s"',
    (entry) => {
      expect(() => parseResolvePins([entry])).toThrow(/invalid resolve pin/);
    },
  );
});

describe('resolve pins: which pin applies to a name', () => {
  const pins = parseResolvePins(['*.test=127.0.0.1', 'evil.test=10.255.255.1', '*.deep.test=127.0.0.2', 'exact.example=127.0.0.3']);

  it.each<[string, string | null]>([
    ['a.test', '127.0.0.1'],
    ['x.y.test', '127.0.0.1'],
    ['A.TEST', '127.0.0.1'],
    ['a.test.', '127.0.0.1'],
    ['evil.test', '10.255.255.1'], // an exact pin beats the wildcard
    ['sub.evil.test', '127.0.0.1'], // an exact pin is not a wildcard
    ['x.deep.test', '127.0.0.2'], // the longest wildcard suffix wins
    ['deep.test', '127.0.0.1'],
    ['test', null], // a wildcard needs a label before its suffix
    ['atest', null],
    ['exact.example', '127.0.0.3'],
    ['www.exact.example', null],
    ['example.com', null],
  ])('%s -> %s', (host, address) => {
    expect(findPin(pins, host)?.address ?? null).toBe(address);
  });

  it('normalises host names the way URLs and DNS agree on', () => {
    expect(normalizeHostname('[::1]')).toBe('::1');
    expect(normalizeHostname('WWW.Example.COM.')).toBe('www.example.com');
  });
});
