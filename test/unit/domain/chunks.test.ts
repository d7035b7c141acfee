import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { inChunks } from '../../../src/domain/chunks.ts';

describe('bulk writes in chunks', () => {
  it('cuts by count and, when asked, by size, never leaving an item out', async () => {
    const chunks: number[][] = [];
    await inChunks([5, 5, 5, 20, 1, 1], 4, async (chunk) => void chunks.push(chunk), { of: (n) => n, max: 10 });
    expect(chunks).toEqual([[5, 5], [5], [20], [1, 1]]);
    const byCount: number[][] = [];
    await inChunks([1, 2, 3, 4, 5], 2, async (chunk) => void byCount.push(chunk));
    expect(byCount).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('keeps every item once, in order, within both bounds unless one item alone exceeds the size', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: 50 }), { maxLength: 60 }),
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 100 }),
        async (items, size, max) => {
          const chunks: number[][] = [];
          await inChunks(items, size, async (chunk) => void chunks.push(chunk), { of: (n) => n, max });
          expect(chunks.flat()).toEqual(items);
          for (const chunk of chunks) {
            expect(chunk.length).toBeGreaterThan(0);
            expect(chunk.length).toBeLessThanOrEqual(size);
            if (chunk.length > 1) expect(chunk.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(max);
          }
        },
      ),
    );
  });
});
