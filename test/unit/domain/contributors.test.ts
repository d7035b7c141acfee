import { describe, expect, it } from '@jest/globals';
import { mergeContributions } from '../../../src/domain/contributors.ts';

describe('mergeContributions', () => {
  it('adds up tallies of the same user and kind, keeping the latest time', () => {
    const merged = mergeContributions([
      { userId: 'u1', kind: 'edit', count: 1, last: '2026-01-01T10:00:00Z' },
      { userId: 'u1', kind: 'edit', count: 3, last: '2026-01-02T10:00:00.000Z' },
      { userId: 'u1', kind: 'comment', count: 2, last: new Date('2026-01-01T09:00:00Z') },
      { userId: 'u1', kind: 'comment', count: 1, last: '2025-12-31T09:00:00Z' },
    ]);
    expect(merged).toEqual([
      { userId: 'u1', kind: 'edit', count: 4, updatedAt: '2026-01-02T10:00:00.000Z' },
      { userId: 'u1', kind: 'comment', count: 3, updatedAt: '2026-01-01T09:00:00.000Z' },
    ]);
  });

  it('leaves out deleted users and empty tallies, and orders most recent first, then by user', () => {
    const merged = mergeContributions([
      { userId: null, kind: 'edit', count: 5, last: '2026-03-01T00:00:00Z' },
      { userId: 'u0', kind: 'comment', count: 0, last: '2026-03-01T00:00:00Z' },
      { userId: 'b', kind: 'edit', count: 1, last: '2026-02-01T00:00:00Z' },
      { userId: 'a', kind: 'edit', count: 1, last: '2026-02-01T00:00:00Z' },
      { userId: 'c', kind: 'comment', count: 1, last: '2026-02-02T00:00:00Z' },
    ]);
    expect(merged.map((c) => c.userId)).toEqual(['c', 'a', 'b']);
  });

  it('answers nothing for nothing', () => {
    expect(mergeContributions([])).toEqual([]);
  });
});
