import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { positionBetween } from '../../../src/domain/positions.ts';

describe('positions', () => {
  it('places a key strictly between its neighbours', () => {
    const a = positionBetween(null, null);
    const b = positionBetween(a, null);
    const mid = positionBetween(a, b);
    expect(a < mid && mid < b).toBe(true);
    expect(positionBetween(null, a) < a).toBe(true);
  });

  it('keeps order through any sequence of insertions', () => {
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 60 }), (picks) => {
        const keys: string[] = [];
        for (const pick of picks) {
          const at = pick % (keys.length + 1);
          keys.splice(at, 0, positionBetween(keys[at - 1] ?? null, keys[at] ?? null));
        }
        for (let i = 1; i < keys.length; i++) if (!(keys[i - 1] < keys[i])) return false;
        return true;
      }),
    );
  });

  it('refuses neighbours given in the wrong order', () => {
    const a = positionBetween(null, null);
    const b = positionBetween(a, null);
    expect(() => positionBetween(b, a)).toThrow(RangeError);
  });
});
