import { reactionsOn, repliersOf, targetPagesOf, usersByIds, type CommentRow, type ReplyRow } from '../../db/comments.ts';
import type { User } from '../../db/entities.ts';
import type { Em } from '../../db/orm.ts';
import { aggregateReactions, type ReactionGroup } from '../../domain/comments.ts';
import { targetPageInfo, type CommentFacts, type ReplySummary, type TargetPageInfo } from './present.ts';

/** What is shown with comments and replies (reactions, reply summaries, users, target pages), loaded for a page of them at once. */

/**
 * The target page of each comment (see db/comments.ts `targetPagesOf`); a page found nowhere is
 * shown by its id, outdated.
 */
async function targetPages(em: Em, comments: CommentRow[]): Promise<Map<string, TargetPageInfo>> {
  const withPage = comments.filter((c) => c.pageId);
  const out = new Map<string, TargetPageInfo>();
  if (withPage.length === 0) return out;
  for (const row of await targetPagesOf(
    em,
    withPage.map((c) => c.id),
  ))
    out.set(row.comment_id, targetPageInfo(row));
  for (const c of withPage) if (!out.has(c.id)) out.set(c.id, { id: c.pageId!, outdated: true });
  return out;
}

async function reactionsOf(em: Em, on: 'commentId' | 'replyId', ids: string[]): Promise<Map<string, ReactionGroup[]>> {
  const out = new Map<string, ReactionGroup[]>();
  const byTarget = new Map<string, Awaited<ReturnType<typeof reactionsOn>>>();
  for (const row of await reactionsOn(em, on, ids)) {
    const key = row[on]!;
    byTarget.set(key, [...(byTarget.get(key) ?? []), row]);
  }
  for (const [key, list] of byTarget) out.set(key, aggregateReactions(list));
  return out;
}

async function replySummaries(em: Em, commentIds: string[]): Promise<Map<string, ReplySummary>> {
  const out = new Map<string, ReplySummary>(commentIds.map((id) => [id, { count: 0, repliers: [] }]));
  for (const row of await repliersOf(em, commentIds)) {
    const summary = out.get(row.comment_id)!;
    summary.count += Number(row.n);
    if (row.posted_by) summary.repliers.push({ userId: row.posted_by, count: Number(row.n), updatedAt: new Date(row.updated_at) });
  }
  return out;
}

async function usersOf(em: Em, ids: (string | null | undefined)[]): Promise<Map<string, User>> {
  const wanted = [...new Set(ids.filter((id): id is string => !!id))];
  const users = await usersByIds(em, wanted);
  return new Map(users.map((u) => [u.id, u]));
}

/** Everything shown with these comments, in five queries whatever their number. */
export async function commentFacts(em: Em, comments: CommentRow[]): Promise<CommentFacts> {
  const ids = comments.map((c) => c.id);
  const [reactions, replies, pages] = await Promise.all([
    reactionsOf(em, 'commentId', ids),
    replySummaries(em, ids),
    targetPages(em, comments),
  ]);
  const users = await usersOf(em, [
    ...comments.flatMap((c) => [c.postedBy, c.resolvedBy]),
    ...[...reactions.values()].flat().flatMap((g) => g.users.map((u) => u.userId)),
    ...[...replies.values()].flatMap((r) => r.repliers.map((u) => u.userId)),
  ]);
  return { users, reactions, replies, pages };
}

/** Everything shown with these replies. */
export async function replyFacts(em: Em, replies: ReplyRow[]): Promise<CommentFacts> {
  const reactions = await reactionsOf(
    em,
    'replyId',
    replies.map((r) => r.id),
  );
  const users = await usersOf(em, [
    ...replies.map((r) => r.postedBy),
    ...[...reactions.values()].flat().flatMap((g) => g.users.map((u) => u.userId)),
  ]);
  return { users, reactions, replies: new Map(), pages: new Map() };
}
