import { atLeast, type Role } from './roles.ts';

/**
 * Who may do what with comments, and how reactions and filters are read. Reading needs `read` on
 * the space; posting, replying and reacting need `comment`; a body is edited only by its author;
 * a comment is resolved by its author or by anyone with `review`; a comment or reply is deleted by
 * its author or by an admin of the space.
 */

export interface CommentPermissions {
  view: boolean;
  edit: boolean;
  reply: boolean;
  delete: boolean;
}

/** Permissions of the caller on a comment or a reply, given their role on the space and authorship. */
export function commentPermissions(role: Role | null, isAuthor: boolean): CommentPermissions {
  const participant = atLeast(role, 'comment');
  return {
    view: atLeast(role, 'read'),
    edit: isAuthor && participant,
    reply: participant,
    delete: (isAuthor && participant) || atLeast(role, 'admin'),
  };
}

/** Whether the caller may resolve (or reopen) a comment. */
export function canResolve(role: Role | null, isAuthor: boolean): boolean {
  return atLeast(role, 'review') || (isAuthor && atLeast(role, 'comment'));
}

export interface ReactionRow {
  emoji: string;
  userId: string;
  reactedAt: Date;
}

export interface ReactionGroup {
  emoji: string;
  count: number;
  users: { userId: string; reactedAt: Date }[];
}

/**
 * Reactions grouped by emoji: emojis in the order they were first used, users in the order they
 * reacted. A user counts once per emoji.
 */
export function aggregateReactions(rows: ReactionRow[]): ReactionGroup[] {
  const sorted = [...rows].sort((a, b) => a.reactedAt.getTime() - b.reactedAt.getTime());
  const groups = new Map<string, ReactionGroup>();
  for (const row of sorted) {
    let group = groups.get(row.emoji);
    if (!group) {
      group = { emoji: row.emoji, count: 0, users: [] };
      groups.set(row.emoji, group);
    }
    if (group.users.some((u) => u.userId === row.userId)) continue;
    group.users.push({ userId: row.userId, reactedAt: row.reactedAt });
    group.count++;
  }
  return [...groups.values()];
}

/**
 * The author ids of an `authors` filter, given as repeated query parameters, comma-separated, or
 * both: trimmed, without empties, each once.
 */
export function parseAuthors(values: string[] | string | undefined): string[] {
  const list = values === undefined ? [] : Array.isArray(values) ? values : [values];
  return [
    ...new Set(
      list
        .flatMap((v) => v.split(','))
        .map((v) => v.trim())
        .filter((v) => v !== ''),
    ),
  ];
}
