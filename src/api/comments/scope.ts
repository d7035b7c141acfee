import { findComment, findReply, type CommentPlace, type CommentRow, type ReplyRow } from '../../db/comments.ts';
import type { Space } from '../../db/entities.ts';
import type { Em } from '../../db/orm.ts';
import type { Role } from '../../domain/roles.ts';
import { resolveTarget } from '../content/service.ts';
import type { ScopeRef } from '../content/schemas.ts';
import type { Ctx } from '../context.ts';
import { notFound } from '../errors.ts';
import { urlsFor } from '../object-urls.ts';
import type { BodyFormat, Viewpoint } from './present.ts';

/**
 * Where comments are read and written, a space's content or one change request of it (each scope
 * sees only its own comments), and how the caller sees them there: the scope, the comment or reply
 * a request names in it, the caller's viewpoint.
 */

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

/** The place of the scope's comments in the database. */
export const placeOf = (scope: CommentScope): CommentPlace => ({
  spaceId: scope.space.id,
  changeRequestId: scope.changeRequest?.id ?? null,
});

export async function loadComment(em: Em, scope: CommentScope, commentId: string): Promise<CommentRow | undefined> {
  return findComment(em, placeOf(scope), commentId);
}

export async function requireComment(em: Em, scope: CommentScope, commentId: string): Promise<CommentRow> {
  const comment = await loadComment(em, scope, commentId);
  if (!comment) throw notFound('Comment');
  return comment;
}

export async function requireReply(em: Em, comment: CommentRow, replyId: string): Promise<ReplyRow> {
  const reply = await findReply(em, comment.id, replyId);
  if (!reply) throw notFound('Comment reply');
  return reply;
}

/** Who the caller is in the scope and how they want bodies shown. */
export const viewpoint = (ctx: Ctx, scope: CommentScope, format: BodyFormat | undefined): Viewpoint => ({
  caller: ctx.caller,
  role: scope.role,
  format: format ?? 'markdown',
  urls: urlsFor(ctx.deps.config.publicUrl),
});
