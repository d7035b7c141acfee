import type { Static } from 'typebox';
import { deleteReplyRow, findReply, insertReply, replyListing, updateReplyBody, type CommentRow } from '../../db/comments.ts';
import { transaction } from '../../db/orm.ts';
import { newId } from '../../domain/ids.ts';
import { atLeast } from '../../domain/roles.ts';
import { requireRole } from '../access.ts';
import type { Ctx } from '../context.ts';
import { forbidden } from '../errors.ts';
import { paginate } from '../pagination.ts';
import { bodyMarkdown } from './bodies.ts';
import { bodyDocuments } from './documents.ts';
import { replyFacts } from './facts.ts';
import { presentReply, type BodyFormat } from './present.ts';
import { applyReactions } from './reactions.ts';
import type { CommentRef, ListRepliesQuery, PostReplyBody, ReplyRef, UpdateReplyBody } from './schemas.ts';
import { loadScope, requireComment, requireReply, viewpoint, type CommentScope } from './scope.ts';

/** Replies to a comment: who may post, edit and delete them, and the list of them. */

/** A reply as the caller sees it, read again (after a write). */
async function showReply(ctx: Ctx, scope: CommentScope, comment: CommentRow, id: string, format?: BodyFormat) {
  const reply = await requireReply(ctx.em, comment, id);
  const facts = await replyFacts(ctx.em, [reply]);
  facts.documents = await bodyDocuments(ctx, [reply.markdown], format);
  return presentReply(reply, comment, facts, viewpoint(ctx, scope, format));
}

export async function listReplies(ctx: Ctx, params: CommentRef, query: Static<typeof ListRepliesQuery>) {
  const scope = await loadScope(ctx, params);
  const comment = await requireComment(ctx.em, scope, params.commentId);
  const view = viewpoint(ctx, scope, query.format);
  return paginate(ctx.em, replyListing(ctx.em, comment.id), query, async (replies) => {
    const facts = await replyFacts(ctx.em, replies);
    facts.documents = await bodyDocuments(
      ctx,
      replies.map((r) => r.markdown),
      view.format,
    );
    return replies.map((r) => presentReply(r, comment, facts, view));
  });
}

export async function postReply(ctx: Ctx, params: CommentRef, body: Static<typeof PostReplyBody>, format: BodyFormat | undefined) {
  const { em, caller } = ctx;
  const scope = await loadScope(ctx, params);
  const comment = await requireComment(em, scope, params.commentId);
  requireRole(scope.role, 'comment', 'reply to comments here');
  const markdown = bodyMarkdown(body.body, 'body.body');
  const id = newId();
  await insertReply(em, { id, commentId: comment.id, markdown, postedBy: caller.user.id, postedAt: new Date(), editedAt: null });
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
  await transaction(em, async (tx) => {
    if (markdown !== undefined && markdown !== found.markdown) await updateReplyBody(tx, found.id, markdown, new Date());
    await applyReactions(tx, { replyId: found.id }, caller.user.id, body.addedReactions, body.removedReactions);
  });
  return showReply(ctx, scope, comment, found.id);
}

/** Deletes a reply (its author, or an admin of the space); false when there was no such reply. */
export async function deleteReply(ctx: Ctx, params: ReplyRef): Promise<boolean> {
  const { em, caller } = ctx;
  const scope = await loadScope(ctx, params);
  const comment = await requireComment(em, scope, params.commentId);
  const found = await findReply(em, comment.id, params.commentReplyId);
  if (!found) return false;
  const isAuthor = found.postedBy === caller.user.id;
  if (!((isAuthor && atLeast(scope.role, 'comment')) || atLeast(scope.role, 'admin'))) {
    throw forbidden('Only the author of a reply or an admin of the space can delete it');
  }
  await deleteReplyRow(em, found.id);
  return true;
}
