import type { FilterQuery } from '@mikro-orm/core';
import type { Static } from 'typebox';
import { Comment, CommentReaction, CommentReply } from '../../db/comment-entities.ts';
import { changeReactions, countOpenComments as countOpen, repliersOf, targetPagesOf, type ReactionTarget } from '../../db/comments.ts';
import { pageInRevision } from '../../db/content.ts';
import { type Space, User } from '../../db/entities.ts';
import type { Em } from '../../db/orm.ts';
import { aggregateReactions, canResolve, parseAuthors, type ReactionGroup } from '../../domain/comments.ts';
import { documentToMarkdown } from '../../domain/content/document.ts';
import { newId } from '../../domain/ids.ts';
import { atLeast, type Role } from '../../domain/roles.ts';
import { requireRole } from '../access.ts';
import { resolveTarget } from '../content/service.ts';
import type { ScopeRef } from '../content/schemas.ts';
import type { Ctx } from '../context.ts';
import { badRequest, forbidden, notFound } from '../errors.ts';
import { paginateEntity, type SortKey } from '../pagination.ts';
import { urlsFor } from '../object-urls.ts';
import {
  presentComment,
  presentReply,
  targetPageInfo,
  type BodyFormat,
  type CommentFacts,
  type ReplySummary,
  type TargetPageInfo,
  type Viewpoint,
} from './present.ts';
import type {
  CommentRef,
  ListCommentsQuery,
  ListRepliesQuery,
  PostCommentBody,
  PostReplyBody,
  ReplyRef,
  UpdateCommentBody,
  UpdateReplyBody,
} from './schemas.ts';

/**
 * The rules of comments and replies, on a space's content or inside a change request (each scope
 * sees only its own comments): who may post, edit, resolve, react and delete; the facts shown
 * with them (replies, reactions, users, target page); and the counters other resources show.
 */

const BY_POSTING: SortKey[] = [
  { field: 'postedAt', kind: 'date' },
  { field: 'id', kind: 'string' },
];

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
export async function loadScope(ctx: Ctx, params: ScopeRef): Promise<CommentScope> {
  const { space, role, changeRequest } = await resolveTarget(ctx, params);
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
  target: ReactionTarget,
  userId: string,
  added: string[] = [],
  removed: string[] = [],
): Promise<void> {
  const both = added.filter((e) => removed.includes(e));
  if (both.length > 0) throw badRequest(`addedReactions and removedReactions both name ${both.join(', ')}`);
  await changeReactions(em, target, userId, added, removed);
}

// ---------------------------------------------------------------------------------------------
// Operations

const viewpoint = (ctx: Ctx, scope: CommentScope, format: BodyFormat | undefined): Viewpoint => ({
  caller: ctx.caller,
  role: scope.role,
  format: format ?? 'markdown',
  urls: urlsFor(ctx.deps.config.publicUrl),
});

/** A comment as the caller sees it, read again (after a write) in a unit of work of its own. */
async function showComment(ctx: Ctx, scope: CommentScope, id: string, format?: BodyFormat) {
  const comment = await requireComment(ctx.em.fork(), scope, id);
  const facts = await commentFacts(ctx.em, [comment]);
  return presentComment(comment, facts, viewpoint(ctx, scope, format));
}

async function showReply(ctx: Ctx, scope: CommentScope, comment: Comment, id: string, format?: BodyFormat) {
  const reply = await requireReply(ctx.em.fork(), comment, id);
  const facts = await replyFacts(ctx.em, [reply]);
  return presentReply(reply, comment, facts, viewpoint(ctx, scope, format));
}

/** The comments of the scope, newest first unless told otherwise, filtered by status, page and authors. */
export async function listComments(ctx: Ctx, params: ScopeRef, query: Static<typeof ListCommentsQuery>) {
  const scope = await loadScope(ctx, params);
  const filter: FilterQuery<Comment> = { spaceId: scope.space.id, changeRequestId: scope.changeRequest?.id ?? null };
  if (query.status === 'open') filter.resolvedAt = null;
  if (query.status === 'resolved') filter.resolvedAt = { $ne: null };
  if (query.targetPage !== undefined) filter.pageId = query.targetPage;
  const authors = parseAuthors(query.authors);
  if (authors.length > 0) filter.postedBy = { $in: authors };
  const page = await paginateEntity(ctx.em, Comment, filter, BY_POSTING, query, (c) => c, { order: query.order ?? 'desc' });
  const facts = await commentFacts(ctx.em, page.items);
  const view = viewpoint(ctx, scope, query.format);
  return { ...page, items: page.items.map((c) => presentComment(c, facts, view)) };
}

/** A new comment on the scope's current revision (optionally on one of its pages); needs `comment`. */
export async function postComment(ctx: Ctx, params: ScopeRef, body: Static<typeof PostCommentBody>) {
  const { em, caller } = ctx;
  const scope = await loadScope(ctx, params);
  requireRole(scope.role, 'comment', 'comment here');
  const markdown = bodyMarkdown(body.body, 'body.body');
  const revisionId = currentRevision(scope);
  if (body.page !== undefined && !(await pageInRevision(em, revisionId, body.page))) {
    throw badRequest(`page: there is no page ${body.page} in the ${scope.changeRequest ? 'change request' : "space's current revision"}`);
  }
  const id = newId();
  await em.transactional(async (tx) => {
    tx.create(Comment, {
      id,
      spaceId: scope.space.id,
      changeRequestId: scope.changeRequest?.id ?? null,
      revisionId,
      pageId: body.page ?? null,
      nodeId: body.node ?? null,
      markdown,
      postedBy: caller.user.id,
      postedAt: new Date(),
      editedAt: null,
      resolvedAt: null,
      resolvedBy: null,
    });
  });
  return showComment(ctx, scope, id);
}

export async function getComment(ctx: Ctx, params: CommentRef, format: BodyFormat | undefined) {
  const scope = await loadScope(ctx, params);
  return showComment(ctx, scope, params.commentId, format);
}

/** Body (its author), resolution (its author or `review`) and the caller's reactions (`comment`). */
export async function updateComment(ctx: Ctx, params: CommentRef, body: Static<typeof UpdateCommentBody>) {
  const { em, caller } = ctx;
  const scope = await loadScope(ctx, params);
  const comment = await requireComment(em, scope, params.commentId);
  const isAuthor = comment.postedBy === caller.user.id;
  if (body.body !== undefined && !(isAuthor && atLeast(scope.role, 'comment')))
    throw forbidden('Only the author of a comment can edit its body');
  if (body.resolved !== undefined && !canResolve(scope.role, isAuthor)) {
    throw forbidden('Only the author of a comment or someone with the review role can resolve or reopen it');
  }
  if (body.addedReactions?.length || body.removedReactions?.length) requireRole(scope.role, 'comment', 'react to comments');
  const markdown = body.body === undefined ? undefined : bodyMarkdown(body.body, 'body.body');
  const now = new Date();
  const changes: Partial<Comment> = {};
  if (markdown !== undefined && markdown !== comment.markdown) Object.assign(changes, { markdown, editedAt: now });
  if (body.resolved === true && !comment.resolvedAt) Object.assign(changes, { resolvedAt: now, resolvedBy: caller.user.id });
  if (body.resolved === false && comment.resolvedAt) Object.assign(changes, { resolvedAt: null, resolvedBy: null });
  await em.transactional(async (tx) => {
    if (Object.keys(changes).length > 0) await tx.nativeUpdate(Comment, { id: comment.id }, changes);
    await applyReactions(tx, { commentId: comment.id }, caller.user.id, body.addedReactions, body.removedReactions);
  });
  return showComment(ctx, scope, comment.id);
}

/** Deletes a comment and its replies (its author, or an admin of the space); false when there was no such comment. */
export async function deleteComment(ctx: Ctx, params: CommentRef): Promise<boolean> {
  const { em, caller } = ctx;
  const scope = await loadScope(ctx, params);
  const comment = await loadComment(em, scope, params.commentId);
  if (!comment) return false;
  const isAuthor = comment.postedBy === caller.user.id;
  if (!((isAuthor && atLeast(scope.role, 'comment')) || atLeast(scope.role, 'admin'))) {
    throw forbidden('Only the author of a comment or an admin of the space can delete it');
  }
  await em.nativeDelete(Comment, { id: comment.id });
  return true;
}

export async function listReplies(ctx: Ctx, params: CommentRef, query: Static<typeof ListRepliesQuery>) {
  const scope = await loadScope(ctx, params);
  const comment = await requireComment(ctx.em, scope, params.commentId);
  const page = await paginateEntity(ctx.em, CommentReply, { commentId: comment.id }, BY_POSTING, query, (r) => r);
  const facts = await replyFacts(ctx.em, page.items);
  const view = viewpoint(ctx, scope, query.format);
  return { ...page, items: page.items.map((r) => presentReply(r, comment, facts, view)) };
}

export async function postReply(ctx: Ctx, params: CommentRef, body: Static<typeof PostReplyBody>, format: BodyFormat | undefined) {
  const { em, caller } = ctx;
  const scope = await loadScope(ctx, params);
  const comment = await requireComment(em, scope, params.commentId);
  requireRole(scope.role, 'comment', 'reply to comments here');
  const markdown = bodyMarkdown(body.body, 'body.body');
  const id = newId();
  await em.transactional(async (tx) => {
    tx.create(CommentReply, { id, commentId: comment.id, markdown, postedBy: caller.user.id, postedAt: new Date(), editedAt: null });
  });
  return showReply(ctx, scope, comment, id, format);
}

export async function getReply(ctx: Ctx, params: ReplyRef, format: BodyFormat | undefined) {
  const scope = await loadScope(ctx, params);
  const comment = await requireComment(ctx.em, scope, params.commentId);
  return showReply(ctx, scope, comment, params.commentReplyId, format);
}

/** Body (its author) and the caller's reactions (`comment`). */
export async function updateReply(ctx: Ctx, params: ReplyRef, body: Static<typeof UpdateReplyBody>) {
  const { em, caller } = ctx;
  const scope = await loadScope(ctx, params);
  const comment = await requireComment(em, scope, params.commentId);
  const found = await requireReply(em, comment, params.commentReplyId);
  const isAuthor = found.postedBy === caller.user.id;
  if (body.body !== undefined && !(isAuthor && atLeast(scope.role, 'comment')))
    throw forbidden('Only the author of a reply can edit its body');
  if (body.addedReactions?.length || body.removedReactions?.length) requireRole(scope.role, 'comment', 'react to replies');
  const markdown = body.body === undefined ? undefined : bodyMarkdown(body.body, 'body.body');
  await em.transactional(async (tx) => {
    if (markdown !== undefined && markdown !== found.markdown)
      await tx.nativeUpdate(CommentReply, { id: found.id }, { markdown, editedAt: new Date() });
    await applyReactions(tx, { replyId: found.id }, caller.user.id, body.addedReactions, body.removedReactions);
  });
  return showReply(ctx, scope, comment, found.id);
}

/** Deletes a reply (its author, or an admin of the space); false when there was no such reply. */
export async function deleteReply(ctx: Ctx, params: ReplyRef): Promise<boolean> {
  const { em, caller } = ctx;
  const scope = await loadScope(ctx, params);
  const comment = await requireComment(em, scope, params.commentId);
  const found = await em.findOne(CommentReply, { id: params.commentReplyId, commentId: comment.id });
  if (!found) return false;
  const isAuthor = found.postedBy === caller.user.id;
  if (!((isAuthor && atLeast(scope.role, 'comment')) || atLeast(scope.role, 'admin'))) {
    throw forbidden('Only the author of a reply or an admin of the space can delete it');
  }
  await em.nativeDelete(CommentReply, { id: found.id });
  return true;
}

// ---------------------------------------------------------------------------------------------
// Counters

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

/**
 * The target page of each comment (see db/comments.ts `targetPagesOf`); a page found nowhere is
 * shown by its id, outdated.
 */
async function targetPages(em: Em, comments: Comment[]): Promise<Map<string, TargetPageInfo>> {
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
  for (const row of await repliersOf(em, commentIds)) {
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
export async function replyFacts(em: Em, replies: CommentReply[]): Promise<CommentFacts> {
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
