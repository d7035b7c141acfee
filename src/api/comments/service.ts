import { Comment, CommentReaction, CommentReply } from '../../db/comment-entities.ts';
import { Space, User } from '../../db/entities.ts';
import type { Em } from '../../db/orm.ts';
import { aggregateReactions, type ReactionGroup } from '../../domain/comments.ts';
import { documentToMarkdown } from '../../domain/content/document.ts';
import { newId } from '../../domain/ids.ts';
import type { Role } from '../../domain/roles.ts';
import type { FastifyRequest } from 'fastify';
import { textArray } from '../../db/sql.ts';
import { resolveTarget } from '../content/target.ts';
import { badRequest, notFound } from '../errors.ts';

/**
 * Loading and changing comments: where a comment lives (a space's content or a change request),
 * the facts shown with it (replies, reactions, users, target page), and the counters other
 * resources show.
 */

/** Raw SQL on the entity manager's connection, inside its transaction when it has one. */
function exec<T>(em: Em, query: string, params: unknown[]): Promise<T[]> {
  return em.getConnection().execute<T[]>(query, params, 'all', em.getTransactionContext());
}

export interface ChangeRequestRef {
  id: string;
  revisionId: string;
}

/** Where comments are read and written: a space's content, or one change request of it. */
export interface CommentScope {
  space: Space;
  role: Role | null;
  changeRequest: ChangeRequestRef | null;
}

/**
 * The space (404 when the caller cannot see it) and, on change-request routes, the change request
 * (by id or number; 404 when the space has no such change request).
 */
export async function loadScope(request: FastifyRequest): Promise<CommentScope> {
  const { space, role, changeRequest } = await resolveTarget(request);
  return { space, role, changeRequest: changeRequest ? { id: changeRequest.id, revisionId: changeRequest.revision_id } : null };
}

/** The revision comments of this scope are posted against now. */
export const currentRevision = (scope: CommentScope) => scope.changeRequest?.revisionId ?? scope.space.revisionId;

export async function loadComment(em: Em, scope: CommentScope, commentId: string): Promise<Comment | null> {
  return em.findOne(Comment, { id: commentId, spaceId: scope.space.id, changeRequestId: scope.changeRequest?.id ?? null });
}

export async function requireComment(em: Em, scope: CommentScope, commentId: string): Promise<Comment> {
  const comment = await loadComment(em, scope, commentId);
  if (!comment) throw notFound('Comment');
  return comment;
}

export async function requireReply(em: Em, comment: Comment, replyId: string): Promise<CommentReply> {
  const reply = await em.findOne(CommentReply, { id: replyId, commentId: comment.id });
  if (!reply) throw notFound('Comment reply');
  return reply;
}

/** Whether a page exists in a revision. */
export async function pageExists(em: Em, revisionId: string, pageId: string): Promise<boolean> {
  const rows = await exec<unknown>(em, 'select 1 from revision_page where revision_id = ? and page_id = ?', [revisionId, pageId]);
  return rows.length > 0;
}

/** The markdown of a body as sent (`{markdown}` or a GitBook `{document}`); 400 naming `field` when it is empty. */
export function bodyMarkdown(body: { markdown?: string; document?: unknown }, field: string): string {
  const markdown = body.markdown ?? (body.document !== undefined ? documentToMarkdown(body.document) : '');
  if (markdown.trim() === '') throw badRequest(`${field} must have some content: send {"markdown": "..."} or a non-empty {"document"}`);
  return markdown;
}

/**
 * Applies a caller's reaction changes to a comment or a reply. Adding a reaction the caller already
 * made keeps the first one (and its date); removing one they never made does nothing.
 */
export async function applyReactions(
  em: Em,
  target: { commentId: string } | { replyId: string },
  userId: string,
  added: string[] = [],
  removed: string[] = [],
): Promise<void> {
  const both = added.filter((e) => removed.includes(e));
  if (both.length > 0) throw badRequest(`addedReactions and removedReactions both name ${both.join(', ')}`);
  const column = 'commentId' in target ? 'comment_id' : 'reply_id';
  const id = 'commentId' in target ? target.commentId : target.replyId;
  const now = new Date();
  for (const emoji of new Set(added)) {
    await exec(
      em,
      `insert into comment_reaction (id, ${column}, user_id, emoji, reacted_at) values (?, ?, ?, ?, ?)
       on conflict (${column}, user_id, emoji) where ${column} is not null do nothing`,
      [newId(), id, userId, emoji, now],
    );
  }
  if (removed.length > 0) {
    await exec(em, `delete from comment_reaction where ${column} = ? and user_id = ? and emoji = any(?::text[])`, [id, userId, textArray(removed)]);
  }
}

// ---------------------------------------------------------------------------------------------
// Counters

async function countOpen(em: Em, column: 'space_id' | 'change_request_id', ids: string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>(ids.map((id) => [id, 0]));
  if (ids.length === 0) return counts;
  const rows = await exec<{ id: string; n: number }>(
    em,
    `select ${column} as id, count(*)::int as n from comment
      where ${column} = any(?::text[]) and resolved_at is null${column === 'space_id' ? ' and change_request_id is null' : ''}
      group by ${column}`,
    [textArray(ids)],
  );
  for (const row of rows) counts.set(row.id, Number(row.n));
  return counts;
}

/**
 * Open (unresolved) comments on the content of each space, for the Space `comments` field: one
 * query for any number of spaces; every given id is in the map (0 when none). Comments made inside
 * change requests are counted on their change request instead.
 */
export function countOpenComments(em: Em, spaceIds: string[]): Promise<Map<string, number>> {
  return countOpen(em, 'space_id', spaceIds);
}

/** Open (unresolved) comments inside each change request, for its `comments` field: one query; 0 when none. */
export function countOpenCommentsOnChangeRequests(em: Em, changeRequestIds: string[]): Promise<Map<string, number>> {
  return countOpen(em, 'change_request_id', changeRequestIds);
}

// ---------------------------------------------------------------------------------------------
// What is shown with comments and replies

export interface TargetPageInfo {
  id: string;
  title?: string;
  emoji?: string;
  icon?: string;
  createdAt?: string;
  updatedAt?: string;
  path?: string;
  outdated: boolean;
}

export interface ReplySummary {
  count: number;
  repliers: { userId: string; count: number; updatedAt: Date }[];
}

/** Facts loaded in a few queries for a page of comments or replies, then used to present each. */
export interface CommentFacts {
  users: Map<string, User>;
  reactions: Map<string, ReactionGroup[]>;
  replies: Map<string, ReplySummary>;
  pages: Map<string, TargetPageInfo>;
}

interface PageRow {
  comment_id: string;
  page_id: string;
  meta: Record<string, unknown> | null;
  in_current: boolean;
  changed: boolean;
  path: string | null;
}

/**
 * The target page of each comment, as it is in the current revision of the comment's scope (or,
 * when it is gone from there, as it was when the comment was posted), with its path. `outdated`
 * is true once the page was removed or its content changed since the comment was posted.
 */
async function targetPages(em: Em, comments: Comment[]): Promise<Map<string, TargetPageInfo>> {
  const withPage = comments.filter((c) => c.pageId);
  const out = new Map<string, TargetPageInfo>();
  if (withPage.length === 0) return out;
  const rows = await exec<PageRow>(
    em,
    `with recursive c as (
       select c.id as comment_id, c.page_id, c.revision_id as posted_revision,
              coalesce(cr.revision_id, s.revision_id) as current_revision
         from comment c
         join space s on s.id = c.space_id
         left join change_request cr on cr.id = c.change_request_id
        where c.id = any(?::text[]) and c.page_id is not null
     ), pick as (
       select c.comment_id, c.page_id,
              case when cur.page_id is not null then c.current_revision else c.posted_revision end as revision_id,
              coalesce(cur.meta, old.meta) as meta,
              cur.page_id is not null as in_current,
              (cur.page_id is null or (old.page_id is not null and old.document_hash <> cur.document_hash)) as changed
         from c
         left join revision_page cur on cur.revision_id = c.current_revision and cur.page_id = c.page_id
         left join revision_page old on old.revision_id = c.posted_revision and old.page_id = c.page_id
     ), up as (
       select pick.comment_id, rp.revision_id, rp.parent_id, rp.meta->>'slug' as slug, 0 as depth
         from pick join revision_page rp on rp.revision_id = pick.revision_id and rp.page_id = pick.page_id
       union all
       select up.comment_id, rp.revision_id, rp.parent_id, rp.meta->>'slug', up.depth + 1
         from up join revision_page rp on rp.revision_id = up.revision_id and rp.page_id = up.parent_id
        where up.depth < 100
     )
     select pick.comment_id, pick.page_id, pick.meta, pick.in_current, pick.changed,
            (select string_agg(coalesce(up.slug, ''), '/' order by up.depth desc) from up where up.comment_id = pick.comment_id) as path
       from pick`,
    [textArray(withPage.map((c) => c.id))],
  );
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const date = (value: unknown) => (typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : undefined);
  for (const row of rows) {
    const meta = row.meta ?? {};
    const info: TargetPageInfo = { id: row.page_id, outdated: row.changed };
    const title = typeof meta.title === 'string' ? meta.title : undefined;
    if (title !== undefined) info.title = title;
    for (const [key, value] of [['emoji', text(meta.emoji)], ['icon', text(meta.icon)], ['createdAt', date(meta.createdAt)], ['updatedAt', date(meta.updatedAt)]] as const) {
      if (value !== undefined) info[key] = value;
    }
    if (row.meta && row.path !== null) info.path = row.path;
    out.set(row.comment_id, info);
  }
  for (const c of withPage) if (!out.has(c.id)) out.set(c.id, { id: c.pageId!, outdated: true });
  return out;
}

async function reactionsOf(em: Em, column: 'commentId' | 'replyId', ids: string[]): Promise<Map<string, ReactionGroup[]>> {
  const out = new Map<string, ReactionGroup[]>();
  if (ids.length === 0) return out;
  const rows = await em.find(CommentReaction, { [column]: { $in: ids } }, { orderBy: { reactedAt: 'asc', id: 'asc' } });
  const byTarget = new Map<string, CommentReaction[]>();
  for (const row of rows) {
    const key = row[column]!;
    byTarget.set(key, [...(byTarget.get(key) ?? []), row]);
  }
  for (const [key, list] of byTarget) out.set(key, aggregateReactions(list));
  return out;
}

async function replySummaries(em: Em, commentIds: string[]): Promise<Map<string, ReplySummary>> {
  const out = new Map<string, ReplySummary>(commentIds.map((id) => [id, { count: 0, repliers: [] }]));
  if (commentIds.length === 0) return out;
  const rows = await exec<{ comment_id: string; posted_by: string | null; n: number; updated_at: Date | string }>(
    em,
    `select comment_id, posted_by, count(*)::int as n, max(coalesce(edited_at, posted_at)) as updated_at
       from comment_reply where comment_id = any(?::text[])
      group by comment_id, posted_by
      order by comment_id, updated_at desc`,
    [textArray(commentIds)],
  );
  for (const row of rows) {
    const summary = out.get(row.comment_id)!;
    summary.count += Number(row.n);
    if (row.posted_by) summary.repliers.push({ userId: row.posted_by, count: Number(row.n), updatedAt: new Date(row.updated_at) });
  }
  return out;
}

async function usersOf(em: Em, ids: (string | null | undefined)[]): Promise<Map<string, User>> {
  const wanted = [...new Set(ids.filter((id): id is string => !!id))];
  if (wanted.length === 0) return new Map();
  const users = await em.find(User, { id: { $in: wanted } });
  return new Map(users.map((u) => [u.id, u]));
}

/** Everything shown with these comments, in five queries whatever their number. */
export async function commentFacts(em: Em, comments: Comment[]): Promise<CommentFacts> {
  const ids = comments.map((c) => c.id);
  const [reactions, replies, pages] = await Promise.all([reactionsOf(em, 'commentId', ids), replySummaries(em, ids), targetPages(em, comments)]);
  const users = await usersOf(em, [
    ...comments.flatMap((c) => [c.postedBy, c.resolvedBy]),
    ...[...reactions.values()].flat().flatMap((g) => g.users.map((u) => u.userId)),
    ...[...replies.values()].flatMap((r) => r.repliers.map((u) => u.userId)),
  ]);
  return { users, reactions, replies, pages };
}

/** Everything shown with these replies. */
export async function replyFacts(em: Em, replies: CommentReply[]): Promise<CommentFacts> {
  const reactions = await reactionsOf(em, 'replyId', replies.map((r) => r.id));
  const users = await usersOf(em, [...replies.map((r) => r.postedBy), ...[...reactions.values()].flat().flatMap((g) => g.users.map((u) => u.userId))]);
  return { users, reactions, replies: new Map(), pages: new Map() };
}
