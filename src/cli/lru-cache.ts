/**
 * A least-recently-used cache bounded both by entry count and by total size (the caller states
 * each entry's size). Built on Map's insertion order: a hit moves the entry to the back, eviction
 * takes from the front, so every operation is O(1).
 */

export interface LruCacheOptions {
  /** Most entries kept; 0 disables the cache. */
  maxEntries: number;
  /** Most total size kept, in the caller's unit (bytes); an entry larger than this is not kept. */
  maxBytes: number;
}

interface Slot<V> {
  value: V;
  size: number;
}

export class LruCache<V> {
  private readonly slots = new Map<string, Slot<V>>();
  private bytes = 0;
  /** The most recently used slot: a repeated hit on it needs no reordering. */
  private newest: Slot<V> | undefined;

  constructor(private readonly options: LruCacheOptions) {}

  get size(): number {
    return this.slots.size;
  }

  get totalBytes(): number {
    return this.bytes;
  }

  get(key: string): V | undefined {
    const slot = this.slots.get(key);
    if (slot === undefined) return undefined;
    if (slot !== this.newest) {
      this.slots.delete(key);
      this.slots.set(key, slot);
      this.newest = slot;
    }
    return slot.value;
  }

  set(key: string, value: V, size: number): void {
    const old = this.slots.get(key);
    if (old !== undefined) {
      this.slots.delete(key);
      this.bytes -= old.size;
    }
    if (size > this.options.maxBytes || this.options.maxEntries <= 0) return;
    const slot = { value, size };
    this.slots.set(key, slot);
    this.bytes += size;
    this.newest = slot;
    while (this.slots.size > this.options.maxEntries || this.bytes > this.options.maxBytes) {
      const oldest = this.slots.entries().next().value;
      if (oldest === undefined) break;
      this.slots.delete(oldest[0]);
      this.bytes -= oldest[1].size;
    }
  }
}
