import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { Lru, SizedLru } from '../../../src/domain/lru.ts';

/** The bounded cache every per-process cache of the service is made of. */
describe('Lru', () => {
  it('never holds more than its size and keeps the most recently used entries (against a model)', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('get' as const), key: fc.integer({ min: 0, max: 9 }) }),
      fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 9 }), value: fc.integer() }),
      fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 9 }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 5 }), fc.array(op, { maxLength: 60 }), (max, ops) => {
        const lru = new Lru<number, number>(max);
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
    const lru = new Lru<string, number>(2, (key, value) => dropped.push(`${key}=${value}`));
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

  it('refuses a size below one', () => {
    expect(() => new Lru(0)).toThrow(/at least one/);
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
