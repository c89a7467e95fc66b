import { describe, expect, it } from 'vitest';
import { LruCache } from '../../../src/cli/lru-cache.js';

describe('LruCache: bounded by entries', () => {
  it('evicts the least recently used entry past maxEntries', () => {
    const cache = new LruCache<number>({ maxEntries: 2, maxBytes: 1000 });
    cache.set('a', 1, 1);
    cache.set('b', 2, 1);
    expect(cache.get('a')).toBe(1); // a is now the most recent
    cache.set('c', 3, 1);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBe(1);
    expect(cache.get('c')).toBe(3);
    expect(cache.size).toBe(2);
  });

  it('keeps nothing with maxEntries 0', () => {
    const cache = new LruCache<number>({ maxEntries: 0, maxBytes: 1000 });
    cache.set('a', 1, 1);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.size).toBe(0);
  });
});

describe('LruCache: bounded by bytes', () => {
  it('evicts oldest entries until the total fits', () => {
    const cache = new LruCache<string>({ maxEntries: 100, maxBytes: 10 });
    cache.set('a', 'A', 4);
    cache.set('b', 'B', 4);
    cache.set('c', 'C', 4);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('b')).toBe('B');
    expect(cache.get('c')).toBe('C');
    expect(cache.totalBytes).toBe(8);
  });

  it('does not keep an entry larger than maxBytes, and forgets the old value of its key', () => {
    const cache = new LruCache<string>({ maxEntries: 100, maxBytes: 10 });
    cache.set('k', 'small', 2);
    cache.set('k', 'huge', 11);
    expect(cache.get('k')).toBeUndefined();
    expect(cache.totalBytes).toBe(0);
  });

  it('replacing a key counts its new size only', () => {
    const cache = new LruCache<string>({ maxEntries: 100, maxBytes: 10 });
    cache.set('k', 'v1', 6);
    cache.set('k', 'v2', 7);
    expect(cache.get('k')).toBe('v2');
    expect(cache.totalBytes).toBe(7);
    expect(cache.size).toBe(1);
  });
});
