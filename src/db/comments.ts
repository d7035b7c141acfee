import { sql } from 'kysely';
import { newId } from '../domain/ids.ts';
import type { Comment, CommentReply } from './comment-entities.ts';
import type { User } from './entities.ts';
import { db, type Read } from './kysely.ts';
import type { Listing } from './listing.ts';
import type { Em } from './orm.ts';

/**
 * Comments, their replies and reactions (tables `comment`, `comment_reply`, `comment_reaction`;
 * the entities are in comment-entities.ts): the rows, their lists, the writes, and what is shown
 * with them (reactions, reply summaries, users, target pages) and counted of them.
 */

/** A comment as read: the entity's fields, its times as the database's text. */
export type CommentRow = Read<Comment>;

/** A reply as read: the entity's fields, its times as the database's text. */
export type ReplyRow = Read<CommentReply>;

/** Where a comment lives: a space's content (no change request) or one change request of it. */
export interface CommentPlace {
  spaceId: string;
  changeRequestId: string | null;
}

/** Every column of `comment` under the entity's field names. */
function commentRows(em: Em) {
  return db(em)
    .selectFrom('comment')
    .select([
      'id',
      'space_id as spaceId',
      'change_request_id as changeRequestId',
      'review_id as reviewId',
      'revision_id as revisionId',
      'page_id as pageId',
      'node_id as nodeId',
      'markdown',
      'posted_by as postedBy',
      'posted_at as postedAt',
      'edited_at as editedAt',
      'resolved_at as resolvedAt',
      'resolved_by as resolvedBy',
    ]);
}

/** Every column of `comment_reply` under the entity's field names. */
function replyRows(em: Em) {
  return db(em)
    .selectFrom('comment_reply')
    .select(['id', 'comment_id as commentId', 'markdown', 'posted_by as postedBy', 'posted_at as postedAt', 'edited_at as editedAt']);
}

/** Comments and replies are listed by posting time (newest first unless told otherwise). */
const BY_POSTING = [
  { field: 'postedAt', kind: 'date' },
  { field: 'id', kind: 'string' },
] as const;

/** The comment of that place; undefined when it has none with that id. */
export async function findComment(em: Em, place: CommentPlace, commentId: string): Promise<CommentRow | undefined> {
  return commentRows(em)
    .where('id', '=', commentId)
    .where('space_id', '=', place.spaceId)
    .where((eb) =>
      place.changeRequestId === null ? eb('change_request_id', 'is', null) : eb('change_request_id', '=', place.changeRequestId),
    )
    .executeTakeFirst();
}

/** The reply to that comment; undefined when it has none with that id. */
export async function findReply(em: Em, commentId: string, replyId: string): Promise<ReplyRow | undefined> {
  return replyRows(em).where('id', '=', replyId).where('comment_id', '=', commentId).executeTakeFirst();
}

export interface CommentFilter {
  status?: 'open' | 'resolved' | 'all';
  /** Only comments on this page. */
  pageId?: string;
  /** Only comments posted by one of these users (none: anyone's). */
  authors: string[];
  order: 'asc' | 'desc';
}

/** The comments of a place, filtered, by posting time. */
export function commentListing(em: Em, place: CommentPlace, filter: CommentFilter): Listing<CommentRow> {
  let query = commentRows(em)
    .where('space_id', '=', place.spaceId)
    .where((eb) =>
      place.changeRequestId === null ? eb('change_request_id', 'is', null) : eb('change_request_id', '=', place.changeRequestId),
    );
  if (filter.status === 'open') query = query.where('resolved_at', 'is', null);
  if (filter.status === 'resolved') query = query.where('resolved_at', 'is not', null);
  if (filter.pageId !== undefined) query = query.where('page_id', '=', filter.pageId);
  if (filter.authors.length > 0) query = query.where('posted_by', 'in', filter.authors);
  return { query, keys: [...BY_POSTING], order: filter.order };
}

/** The comments posted with these reviews (one at most each), by review id. */
export async function reviewComments(em: Em, reviewIds: string[]): Promise<Map<string, CommentRow>> {
  if (reviewIds.length === 0) return new Map();
  const rows = await commentRows(em).where('review_id', 'in', reviewIds).execute();
  return new Map(rows.map((r) => [r.reviewId!, r]));
}

/** The replies to a comment, oldest first. */
export function replyListing(em: Em, commentId: string): Listing<ReplyRow> {
  return { query: replyRows(em).where('comment_id', '=', commentId), keys: [...BY_POSTING] };
}

/** A new comment. */
export async function insertComment(em: Em, comment: Comment): Promise<void> {
  await db(em)
    .insertInto('comment')
    .values({
      id: comment.id,
      space_id: comment.spaceId,
      change_request_id: comment.changeRequestId ?? null,
      review_id: comment.reviewId ?? null,
      revision_id: comment.revisionId,
      page_id: comment.pageId ?? null,
      node_id: comment.nodeId ?? null,
      markdown: comment.markdown,
      posted_by: comment.postedBy ?? null,
      posted_at: comment.postedAt,
      edited_at: comment.editedAt ?? null,
      resolved_at: comment.resolvedAt ?? null,
      resolved_by: comment.resolvedBy ?? null,
    })
    .execute();
}

/** What an update of a comment may change. */
export type CommentChanges = Partial<Pick<Comment, 'markdown' | 'editedAt' | 'resolvedAt' | 'resolvedBy'>>;

/** Changes a comment's body or resolution (nothing when `changes` is empty). */
export async function updateCommentRow(em: Em, commentId: string, changes: CommentChanges): Promise<void> {
  const set = {
    ...(changes.markdown !== undefined ? { markdown: changes.markdown } : {}),
    ...(changes.editedAt !== undefined ? { edited_at: changes.editedAt } : {}),
    ...(changes.resolvedAt !== undefined ? { resolved_at: changes.resolvedAt } : {}),
    ...(changes.resolvedBy !== undefined ? { resolved_by: changes.resolvedBy } : {}),
  };
  if (Object.keys(set).length === 0) return;
  await db(em).updateTable('comment').set(set).where('id', '=', commentId).execute();
}

/** Deletes a comment; its replies and reactions go with it (foreign keys cascade). */
export async function deleteCommentRow(em: Em, commentId: string): Promise<void> {
  await db(em).deleteFrom('comment').where('id', '=', commentId).execute();
}

/** A new reply to a comment. */
export async function insertReply(em: Em, reply: CommentReply): Promise<void> {
  await db(em)
    .insertInto('comment_reply')
    .values({
      id: reply.id,
      comment_id: reply.commentId,
      markdown: reply.markdown,
      posted_by: reply.postedBy ?? null,
      posted_at: reply.postedAt,
      edited_at: reply.editedAt ?? null,
    })
    .execute();
}

/** Changes the body of a reply. */
export async function updateReplyBody(em: Em, replyId: string, markdown: string, at: Date): Promise<void> {
  await db(em).updateTable('comment_reply').set({ markdown, edited_at: at }).where('id', '=', replyId).execute();
}

/** Deletes a reply; its reactions go with it (foreign keys cascade). */
export async function deleteReplyRow(em: Em, replyId: string): Promise<void> {
  await db(em).deleteFrom('comment_reply').where('id', '=', replyId).execute();
}

/** What a reaction is on: a comment or a reply. */
export type ReactionTarget = { commentId: string } | { replyId: string };

/**
 * Adds the user's reactions (an existing one keeps its first date) and removes others (removing
 * one never made does nothing).
 */
export async function changeReactions(em: Em, target: ReactionTarget, userId: string, added: string[], removed: string[]): Promise<void> {
  const column = 'commentId' in target ? 'comment_id' : 'reply_id';
  const id = 'commentId' in target ? target.commentId : target.replyId;
  const now = new Date();
  const emojis = [...new Set(added)];
  if (emojis.length > 0) {
    await db(em)
      .insertInto('comment_reaction')
      .values(
        emojis.map((emoji) => ({
          id: newId(),
          comment_id: column === 'comment_id' ? id : null,
          reply_id: column === 'reply_id' ? id : null,
          user_id: userId,
          emoji,
          reacted_at: now,
        })),
      )
      // The unique indexes on (target, user, emoji) are partial: the conflict target names their predicate.
      .onConflict((oc) => oc.columns([column, 'user_id', 'emoji']).where(column, 'is not', null).doNothing())
      .execute();
  }
  if (removed.length > 0) {
    await db(em)
      .deleteFrom('comment_reaction')
      .where(column, '=', id)
      .where('user_id', '=', userId)
      .where('emoji', 'in', removed)
      .execute();
  }
}

/** A reaction as it is shown: on what, by whom, when. */
export interface ReactionOnRow {
  commentId: string | null;
  replyId: string | null;
  userId: string;
  emoji: string;
  reactedAt: Date;
}

/** The reactions on these comments (`commentId`) or replies (`replyId`), in the order they were made. */
export async function reactionsOn(em: Em, on: 'commentId' | 'replyId', ids: string[]): Promise<ReactionOnRow[]> {
  if (ids.length === 0) return [];
  const rows = await db(em)
    .selectFrom('comment_reaction')
    .select(['comment_id as commentId', 'reply_id as replyId', 'user_id as userId', 'emoji', 'reacted_at as reactedAt'])
    .where(on === 'commentId' ? 'comment_id' : 'reply_id', 'in', ids)
    .orderBy('reacted_at')
    .orderBy('id')
    .execute();
  return rows.map((r) => ({ ...r, reactedAt: new Date(r.reactedAt) }));
}

/** The users with these ids (those that still exist). */
export async function usersByIds(em: Em, ids: string[]): Promise<User[]> {
  if (ids.length === 0) return [];
  const rows = await db(em)
    .selectFrom('app_user')
    .select(['id', 'display_name as displayName', 'email', 'photo_url as photoUrl', 'created_at as createdAt'])
    .where('id', 'in', ids)
    .execute();
  return rows.map((u) => ({ ...u, createdAt: new Date(u.createdAt) }));
}

/**
 * Open (unresolved) comments per space (on its content, not inside change requests) or per change
 * request: one query; every given id is in the map (0 when none).
 */
export async function countOpenComments(em: Em, column: 'space_id' | 'change_request_id', ids: string[]): Promise<Map<string, number>> {
  const counts = new Map<string, number>(ids.map((id) => [id, 0]));
  if (ids.length === 0) return counts;
  let query = db(em)
    .selectFrom('comment')
    .select((eb) => [eb.ref(column).as('id'), eb.fn.countAll<string>().as('n')])
    .where(column, 'in', ids)
    .where('resolved_at', 'is', null)
    .groupBy(column);
  if (column === 'space_id') query = query.where('change_request_id', 'is', null);
  for (const row of await query.execute()) if (row.id !== null) counts.set(row.id, Number(row.n));
  return counts;
}

export interface ReplierRow {
  comment_id: string;
  posted_by: string | null;
  n: number;
  updated_at: Date | string;
}

/** Replies to each comment per author, with the author's last reply or edit, latest first per comment. */
export async function repliersOf(em: Em, commentIds: string[]): Promise<ReplierRow[]> {
  if (commentIds.length === 0) return [];
  const rows = await db(em)
    .selectFrom('comment_reply')
    .select((eb) => [
      'comment_id',
      'posted_by',
      eb.fn.countAll<string>().as('n'),
      eb.fn.max(eb.fn.coalesce('edited_at', 'posted_at')).as('updated_at'),
    ])
    .where('comment_id', 'in', commentIds)
    .groupBy(['comment_id', 'posted_by'])
    .orderBy('comment_id')
    .orderBy('updated_at', 'desc')
    .execute();
  return rows.map((r) => ({ ...r, n: Number(r.n) }));
}

export interface TargetPageRow {
  comment_id: string;
  page_id: string;
  meta: Record<string, unknown> | null;
  in_current: boolean;
  changed: boolean;
  path: string | null;
}

/** Pages are never nested deeper than this; the walk up stops there. */
const MAX_DEPTH = 100;

/** The `slug` of a page's metadata: the column is jsonb of no declared shape, so the field is read with `->>`. */
const slugOf = (alias: 'rp') => sql<string | null>`${sql.ref(`${alias}.meta`)}->>'slug'`;

/**
 * The target page of each comment, as it is in the current revision of the comment's scope (or,
 * when it is gone from there, as it was when the comment was posted), with its path; `changed`
 * once the page was removed or its content changed since the comment was posted.
 */
export async function targetPagesOf(em: Em, commentIds: string[]): Promise<TargetPageRow[]> {
  if (commentIds.length === 0) return [];
  return (
    db(em)
      // Recursiveness belongs to the whole `with`, and Kysely takes it from the first CTE.
      .withRecursive('target', (qc) =>
        qc
          .selectFrom('comment as c')
          .innerJoin('space as s', 's.id', 'c.space_id')
          .leftJoin('change_request as cr', 'cr.id', 'c.change_request_id')
          .select((eb) => [
            'c.id as comment_id',
            'c.page_id',
            'c.revision_id as posted_revision',
            eb.fn.coalesce('cr.revision_id', 's.revision_id').as('current_revision'),
          ])
          .where('c.id', 'in', commentIds)
          .where('c.page_id', 'is not', null)
          .$narrowType<{ page_id: string }>(),
      )
      .with('pick', (qc) =>
        qc
          .selectFrom('target as c')
          .leftJoin('revision_page as cur', (join) =>
            join.onRef('cur.revision_id', '=', 'c.current_revision').onRef('cur.page_id', '=', 'c.page_id'),
          )
          .leftJoin('revision_page as old', (join) =>
            join.onRef('old.revision_id', '=', 'c.posted_revision').onRef('old.page_id', '=', 'c.page_id'),
          )
          .select((eb) => [
            'c.comment_id',
            'c.page_id',
            eb
              .case()
              .when('cur.page_id', 'is not', null)
              .then(eb.ref('c.current_revision'))
              .else(eb.ref('c.posted_revision'))
              .end()
              .as('revision_id'),
            eb.fn.coalesce('cur.meta', 'old.meta').$castTo<Record<string, unknown> | null>().as('meta'),
            eb('cur.page_id', 'is not', null).$castTo<boolean>().as('in_current'),
            eb
              .or([
                eb('cur.page_id', 'is', null),
                eb.and([eb('old.page_id', 'is not', null), eb('old.document_hash', '<>', eb.ref('cur.document_hash'))]),
              ])
              .$castTo<boolean>()
              .as('changed'),
          ]),
      )
      .withRecursive('up(comment_id, revision_id, parent_id, slug, depth)', (qc) =>
        qc
          .selectFrom('pick')
          .innerJoin('revision_page as rp', (join) =>
            join.onRef('rp.revision_id', '=', 'pick.revision_id').onRef('rp.page_id', '=', 'pick.page_id'),
          )
          .select(['pick.comment_id', 'rp.revision_id', 'rp.parent_id', slugOf('rp').as('slug'), sql.lit(0).as('depth')])
          .unionAll(
            qc
              .selectFrom('up')
              .innerJoin('revision_page as rp', (join) =>
                join.onRef('rp.revision_id', '=', 'up.revision_id').onRef('rp.page_id', '=', 'up.parent_id'),
              )
              .select((eb) => [
                'up.comment_id',
                'rp.revision_id',
                'rp.parent_id',
                slugOf('rp').as('slug'),
                eb('up.depth', '+', 1).as('depth'),
              ])
              .where('up.depth', '<', MAX_DEPTH),
          ),
      )
      .selectFrom('pick')
      .select((eb) => [
        'pick.comment_id',
        'pick.page_id',
        'pick.meta',
        'pick.in_current',
        'pick.changed',
        eb
          .selectFrom('up')
          .select((e) =>
            e.fn
              .agg<string>('string_agg', [e.fn.coalesce('up.slug', sql.lit('')), sql.lit('/')])
              .orderBy('up.depth', 'desc')
              .as('path'),
          )
          .whereRef('up.comment_id', '=', 'pick.comment_id')
          .as('path'),
      ])
      .execute()
  );
}
