import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { CACHE_SHARES, cacheBytes, DEFAULT_CACHE_MEMORY, SizedLru, setCacheMemory, sharedCache } from '../../../src/domain/lru.ts';

/** A cache of entries of one byte each holds at most `max` of them. */
const counted = <K extends NonNullable<unknown>, V extends NonNullable<unknown>>(max: number, onDrop?: (key: K, value: V) => void) =>
  new SizedLru<K, V>(max, () => 1, onDrop);

/** The bounded cache every per-process cache of the service is made of. */
describe('SizedLru as a count', () => {
  it('never holds more than its size and keeps the most recently used entries (against a model)', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('get' as const), key: fc.integer({ min: 0, max: 9 }) }),
      fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 9 }), value: fc.integer() }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 9 }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(op, { maxLength: 60 }), (max, ops) => {
        const lru = counted<number, number>(max);
        // The model: keys from least to most recently used.
        let model: [number, number][] = [];
        for (const o of ops) {
          const at = model.findIndex(([k]) => k === o.key);
          if (o.kind === 'get') {
            expect(lru.get(o.key)).toBe(at >= 0 ? model[at][1] : undefined);
            if (at >= 0) model = [...model.filter(([k]) => k !== o.key), model[at]];
          } else if (o.kind === 'set') {
            lru.set(o.key, o.value);
            model = [...model.filter(([k]) => k !== o.key), [o.key, o.value] as [number, number]].slice(-max);
          } else {
            expect(lru.delete(o.key)).toBe(at >= 0);
            model = model.filter(([k]) => k !== o.key);
          }
          expect(lru.size).toBe(model.length);
          expect(lru.size).toBeLessThanOrEqual(max);
        }
        for (const [k] of model) expect(lru.has(k)).toBe(true);
      }),
    );
  });

  it('tells of every entry that leaves: evicted, replaced, deleted or cleared', () => {
    const dropped: string[] = [];
    const lru = counted<string, number>(2, (key, value) => dropped.push(`${key}=${value}`));
    lru.set('a', 1).set('b', 2);
    lru.get('a');
    lru.set('c', 3); // evicts b, the least recently used
    expect(dropped).toEqual(['b=2']);
    lru.set('a', 10); // replaced
    lru.set('a', 10); // the same value again: nothing leaves
    expect(dropped).toEqual(['b=2', 'a=1']);
    lru.delete('c');
    lru.delete('missing');
    lru.clear();
    expect(dropped).toEqual(['b=2', 'a=1', 'c=3', 'a=10']);
    expect(lru.size).toBe(0);
  });

  it('refuses a bound below one byte', () => {
    expect(() => new SizedLru(0, () => 1)).toThrow(/at least one byte/);
  });
});

describe('SizedLru', () => {
  it('keeps the bytes of its values within its bound, dropping the least recently used first', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.string({ maxLength: 40 })), { maxLength: 80 }), (writes) => {
        const cache = new SizedLru<number, string>(100, (value) => value.length);
        for (const [key, value] of writes) {
          cache.set(key, value);
          let bytes = 0;
          for (const kept of cache.values()) bytes += Math.max(1, kept.length);
          expect(bytes).toBeLessThanOrEqual(100);
        }
      }),
    );
    const cache = new SizedLru<string, string>(10, (value) => value.length);
    cache.set('a', 'xxxx');
    cache.set('b', 'yyyy');
    cache.get('a');
    cache.set('c', 'zzzz');
    expect([...cache.keys()].sort()).toEqual(['a', 'c']);
    // A value larger than the whole bound is not kept.
    cache.set('huge', 'x'.repeat(11));
    expect(cache.has('huge')).toBe(false);
  });
});

describe('cache shares', () => {
  it('stay within CACHE_MEMORY together', () => {
    const total = Object.values(CACHE_SHARES).reduce((sum, share) => sum + share, 0);
    expect(total).toBeLessThanOrEqual(1);
    for (const share of Object.values(CACHE_SHARES)) expect(share).toBeGreaterThan(0);
  });

  it('size each cache from CACHE_MEMORY as set when the cache is first used', () => {
    setCacheMemory(1024 * 1024);
    expect(cacheBytes('documentLinks')).toBe(128 * 1024);
    const cache = sharedCache<string, string>('conditions', (value) => value.length);
    cache().set('a', 'x'.repeat(32 * 1024));
    expect(cache().has('a')).toBe(true);
    setCacheMemory(DEFAULT_CACHE_MEMORY);
    // The cache keeps the bound it was made with.
    expect(cache().maxSize).toBe(32 * 1024);
    expect(() => setCacheMemory(0)).toThrow(/positive/);
  });
});
