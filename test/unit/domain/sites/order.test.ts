import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import {
  effectiveDefault,
  lastKey,
  moveKey,
  OrderError,
  sortOrdered,
  uniquePath,
  type Ordered,
} from '../../../../src/domain/sites/order.ts';

const ids = (items: Ordered[]) => sortOrdered(items).map((i) => i.id);

function build(n: number): Ordered[] {
  const out: Ordered[] = [];
  for (let i = 0; i < n; i++) out.push({ id: `i${i}`, position: lastKey(out) });
  return out;
}

function apply(items: Ordered[], id: string, position: { before?: string; after?: string }) {
  const key = moveKey(items, id, position);
  return items.map((i) => (i.id === id ? { ...i, position: key } : i));
}

describe('moveKey', () => {
  it('places an item before, after, between or at the end', () => {
    let items = build(4);
    items = apply(items, 'i3', { before: 'i0' });
    expect(ids(items)).toEqual(['i3', 'i0', 'i1', 'i2']);
    items = apply(items, 'i3', { after: 'i1' });
    expect(ids(items)).toEqual(['i0', 'i1', 'i3', 'i2']);
    items = apply(items, 'i0', {});
    expect(ids(items)).toEqual(['i1', 'i3', 'i2', 'i0']);
    items = apply(items, 'i0', { after: 'i1', before: 'i3' });
    expect(ids(items)).toEqual(['i1', 'i0', 'i3', 'i2']);
  });

  it('refuses pointers that are missing, the item itself, or not adjacent', () => {
    const items = build(3);
    expect(() => moveKey(items, 'i0', { before: 'nope' })).toThrow(OrderError);
    expect(() => moveKey(items, 'i0', { after: 'i0' })).toThrow(/being moved/);
    expect(() => moveKey(items, 'i0', { after: 'i2', before: 'i1' })).toThrow(/adjacent/);
  });

  it('keeps every other item in its order, whatever the moves', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(7), fc.nat(7), fc.boolean()), { maxLength: 40 }), (moves) => {
        let items = build(8);
        for (const [a, b, before] of moves) {
          if (a === b) continue;
          const moving = `i${a}`;
          const target = `i${b}`;
          const othersBefore = ids(items).filter((id) => id !== moving);
          items = apply(items, moving, before ? { before: target } : { after: target });
          const order = ids(items);
          expect(order.filter((id) => id !== moving)).toEqual(othersBefore);
          expect(order.indexOf(moving)).toBe(order.indexOf(target) + (before ? -1 : 1));
        }
      }),
    );
  });
});

describe('effectiveDefault', () => {
  it('is the flagged item, else the first in order', () => {
    const items = build(3).map((i) => ({ ...i, isDefault: i.id === 'i1' }));
    expect(effectiveDefault(items)?.id).toBe('i1');
    expect(effectiveDefault(items.filter((i) => i.id !== 'i1'))?.id).toBe('i0');
    expect(effectiveDefault([])).toBeUndefined();
  });
});

describe('uniquePath', () => {
  it('adds a numeric suffix when taken, within 100 characters', () => {
    expect(uniquePath('guide', [])).toBe('guide');
    expect(uniquePath('guide', ['guide', 'guide-2'])).toBe('guide-3');
    expect(uniquePath('x'.repeat(120), ['x'.repeat(100)])).toBe(`${'x'.repeat(98)}-2`);
    expect(uniquePath('', [])).toBe('section');
  });
});
