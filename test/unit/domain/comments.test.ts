import { describe, expect, it } from '@jest/globals';
import { aggregateReactions, canResolve, commentPermissions, parseAuthors } from '../../../src/domain/comments.ts';

describe('comment permissions', () => {
  it('lets readers view, participants reply, authors edit and delete, admins delete', () => {
    expect(commentPermissions('read', false)).toEqual({ view: true, edit: false, reply: false, delete: false });
    expect(commentPermissions('read', true)).toEqual({ view: true, edit: false, reply: false, delete: false });
    expect(commentPermissions('comment', false)).toEqual({ view: true, edit: false, reply: true, delete: false });
    expect(commentPermissions('comment', true)).toEqual({ view: true, edit: true, reply: true, delete: true });
    expect(commentPermissions('create', false)).toEqual({ view: true, edit: false, reply: true, delete: false });
    expect(commentPermissions('admin', false)).toEqual({ view: true, edit: false, reply: true, delete: true });
    expect(commentPermissions(null, true)).toEqual({ view: false, edit: false, reply: false, delete: false });
  });

  it('lets the author or a reviewer resolve', () => {
    expect(canResolve('comment', true)).toBe(true);
    expect(canResolve('comment', false)).toBe(false);
    expect(canResolve('edit', false)).toBe(false);
    expect(canResolve('review', false)).toBe(true);
    expect(canResolve('admin', false)).toBe(true);
    expect(canResolve('read', true)).toBe(false);
  });
});

describe('aggregateReactions', () => {
  const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

  it('groups by emoji in order of first use, users in order, each user once', () => {
    const groups = aggregateReactions([
      { emoji: '🎉', userId: 'b', reactedAt: at(3) },
      { emoji: '👍', userId: 'a', reactedAt: at(1) },
      { emoji: '👍', userId: 'b', reactedAt: at(2) },
      { emoji: '👍', userId: 'a', reactedAt: at(4) },
    ]);
    expect(groups).toEqual([
      {
        emoji: '👍',
        count: 2,
        users: [
          { userId: 'a', reactedAt: at(1) },
          { userId: 'b', reactedAt: at(2) },
        ],
      },
      { emoji: '🎉', count: 1, users: [{ userId: 'b', reactedAt: at(3) }] },
    ]);
    expect(aggregateReactions([])).toEqual([]);
  });
});

describe('parseAuthors', () => {
  it('accepts repeated and comma-separated values', () => {
    expect(parseAuthors(undefined)).toEqual([]);
    expect(parseAuthors('a')).toEqual(['a']);
    expect(parseAuthors(['a,b', 'c', ' b ', ',', ''])).toEqual(['a', 'b', 'c']);
  });
});
