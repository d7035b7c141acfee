import { LRUCache } from 'lru-cache';

/**
 * A map of at most `max` entries that forgets the least recently used one first (the maintained
 * `lru-cache` package). Every cache an API or worker process keeps for itself is one of these, so
 * none grows with the data or the traffic (docs/scaling.md lists them with their sizes). `onDrop`
 * hears of each entry that leaves, whether evicted, replaced by another value, deleted or
 * cleared, for caches whose values hold something to release elsewhere (a schema compiled into
 * an Ajv instance).
 */
export class Lru<K extends NonNullable<unknown>, V extends NonNullable<unknown>> extends LRUCache<K, V> {
  constructor(max: number, onDrop?: (key: K, value: V) => void) {
    if (!Number.isInteger(max) || max < 1) throw new Error(`An LRU cache holds at least one entry (got ${max})`);
    super({ max, ...(onDrop ? { dispose: (value: V, key: K) => onDrop(key, value) } : {}) });
  }
}

/**
 * A cache bounded by the bytes its values take (as `sizeOf` estimates them), not by their number:
 * for values whose sizes vary by orders of magnitude (documents of pages). A value larger than the
 * whole bound is not kept.
 */
export class SizedLru<K extends NonNullable<unknown>, V extends NonNullable<unknown>> extends LRUCache<K, V> {
  constructor(maxBytes: number, sizeOf: (value: V, key: K) => number) {
    if (!Number.isInteger(maxBytes) || maxBytes < 1) throw new Error(`A sized cache holds at least one byte (got ${maxBytes})`);
    super({ maxSize: maxBytes, maxEntrySize: maxBytes, sizeCalculation: (value, key) => Math.max(1, Math.ceil(sizeOf(value, key))) });
  }
}
