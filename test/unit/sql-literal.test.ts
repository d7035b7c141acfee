import { describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { PostgreSqlPlatform } from '@mikro-orm/postgresql';
import { inChunks, stringLiteral } from '../../src/db/sql.ts';

/**
 * Long string parameters are quoted by `sql()` itself: the ORM's quoting appends a character at a
 * time, which for a 10 MB batch of documents held the event loop for seconds. The literal must be
 * exactly the one the ORM would have written.
 */
describe('string literals for long parameters', () => {
  const platform = new PostgreSqlPlatform();

  it("are the ORM's literals, character for character", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("'", '\\', 'a', '"', '\n', 'é', '😀', '?', ' ', '\u0001')).map((chars) => chars.join('')),
        (text) => {
          expect(stringLiteral(text)).toBe(platform.quoteValue(text));
        },
      ),
      { numRuns: 2000 },
    );
    expect(stringLiteral("it's a \\ path")).toBe(" E'it''s a \\\\ path'");
  });
});

describe('bulk writes in chunks', () => {
  it('cuts by count and, when asked, by size, never leaving an item out', async () => {
    const chunks: number[][] = [];
    await inChunks([5, 5, 5, 20, 1, 1], 4, async (chunk) => void chunks.push(chunk), { of: (n) => n, max: 10 });
    expect(chunks).toEqual([[5, 5], [5], [20], [1, 1]]);
    const byCount: number[][] = [];
    await inChunks([1, 2, 3, 4, 5], 2, async (chunk) => void byCount.push(chunk));
    expect(byCount).toEqual([[1, 2], [3, 4], [5]]);
  });
});
