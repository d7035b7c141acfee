import type { Static } from 'typebox';
import { commentListing, deleteCommentRow, insertComment, updateCommentRow, type CommentChanges } from '../../db/comments.ts';
import { pageInRevision } from '../../db/content.ts';
import { transaction } from '../../db/orm.ts';
import { canResolve, parseAuthors } from '../../domain/comments.ts';
import { newId } from '../../domain/ids.ts';
import { atLeast } from '../../domain/roles.ts';
import { requireRole } from '../access.ts';
import type { ScopeRef } from '../content/schemas.ts';
import type { Ctx } from '../context.ts';
import { badRequest, forbidden } from '../errors.ts';
import { paginate } from '../pagination.ts';
import { bodyMarkdown } from './bodies.ts';
import { bodyDocuments } from './documents.ts';
import { commentFacts } from './facts.ts';
import { presentComment, type BodyFormat } from './present.ts';
import { applyReactions } from './reactions.ts';
import type { CommentRef, ListCommentsQuery, PostCommentBody, UpdateCommentBody } from './schemas.ts';
import { currentRevision, loadComment, loadScope, placeOf, requireComment, viewpoint, type CommentScope } from './scope.ts';

/**
 * Comments on a space's content or inside a change request: who may post, edit, resolve and delete
 * them, and the lists of them.
 */

/** A comment as the caller sees it, read again (after a write). */
async function showComment(ctx: Ctx, scope: CommentScope, id: string, format?: BodyFormat) {
  const comment = await requireComment(ctx.em, scope, id);
  const facts = await commentFacts(ctx.em, [comment]);
  facts.documents = await bodyDocuments(ctx, [comment.markdown], format);
  return presentComment(comment, facts, viewpoint(ctx, scope, format));
}

/** The comments of the scope, newest first unless told otherwise, filtered by status, page and authors. */
export async function listComments(ctx: Ctx, params: ScopeRef, query: Static<typeof ListCommentsQuery>) {
  const scope = await loadScope(ctx, params);
  const listing = commentListing(ctx.em, placeOf(scope), {
    status: query.status,
    pageId: query.targetPage,
    authors: parseAuthors(query.authors),
    order: query.order ?? 'desc',
  });
  const view = viewpoint(ctx, scope, query.format);
  return paginate(ctx.em, listing, query, async (comments) => {
    const facts = await commentFacts(ctx.em, comments);
    facts.documents = await bodyDocuments(
      ctx,
      comments.map((c) => c.markdown),
      view.format,
    );
    return comments.map((c) => presentComment(c, facts, view));
  });
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
  await insertComment(em, {
    id,
    ...placeOf(scope),
    reviewId: null,
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
  const changes: CommentChanges = {};
  if (markdown !== undefined && markdown !== comment.markdown) Object.assign(changes, { markdown, editedAt: now });
  if (body.resolved === true && !comment.resolvedAt) Object.assign(changes, { resolvedAt: now, resolvedBy: caller.user.id });
  if (body.resolved === false && comment.resolvedAt) Object.assign(changes, { resolvedAt: null, resolvedBy: null });
  await transaction(em, async (tx) => {
    await updateCommentRow(tx, comment.id, changes);
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
  await deleteCommentRow(em, comment.id);
  return true;
}
