import type { Static } from 'typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FilterQuery } from '@mikro-orm/core';
import { Comment, CommentReply } from '../../db/comment-entities.ts';
import { canResolve, parseAuthors } from '../../domain/comments.ts';
import { newId } from '../../domain/ids.ts';
import { atLeast } from '../../domain/roles.ts';
import { requireRole } from '../access.ts';
import { badRequest, forbidden } from '../errors.ts';
import { paginate, type SortKey } from '../pagination.ts';
import { errors, NoContent } from '../schemas.ts';
import { urlsFor } from '../urls.ts';
import { presentComment, presentReply, type BodyFormat, type Viewpoint } from './present.ts';
import {
  CommentList, CommentReplyList, CommentReplySchema, CommentSchema, FormatQuery, ListCommentsQuery, ListRepliesQuery, paramsFor, PostCommentBody,
  PostReplyBody, UpdateCommentBody, UpdateReplyBody, type CommentRef, type ReplyRef,
} from './schemas.ts';
import {
  applyReactions, bodyMarkdown, commentFacts, currentRevision, loadComment, loadScope, pageExists, replyFacts, requireComment, requireReply,
  type CommentScope,
} from './service.ts';


const BY_POSTING: SortKey[] = [{ field: 'postedAt', kind: 'date' }, { field: 'id', kind: 'string' }];

/**
 * Comments and their replies, on a space's content (`/v1/spaces/{spaceId}/comments`) and inside a
 * change request (`/v1/spaces/{spaceId}/change-requests/{changeRequestId}/comments`): the same
 * operations on both paths, each seeing only its own comments.
 */
export async function commentRoutes(app: FastifyInstance) {
  const urls = urlsFor(app.deps.config.publicUrl);
  const tags = ['comments'];

  const viewpoint = (request: FastifyRequest, scope: CommentScope, format: BodyFormat | undefined): Viewpoint => ({
    caller: request.caller,
    role: scope.role,
    format: format ?? 'markdown',
    urls,
  });

  async function showComment(request: FastifyRequest, scope: CommentScope, id: string, format?: BodyFormat) {
    const comment = await requireComment(request.em.fork(), scope, id);
    const facts = await commentFacts(request.em, [comment]);
    return presentComment(comment, facts, viewpoint(request, scope, format));
  }

  async function showReply(request: FastifyRequest, scope: CommentScope, comment: Comment, id: string, format?: BodyFormat) {
    const reply = await requireReply(request.em.fork(), comment, id);
    const facts = await replyFacts(request.em, [reply]);
    return presentReply(reply, comment, facts, viewpoint(request, scope, format));
  }

  for (const inChangeRequest of [false, true]) {
    const base = inChangeRequest ? '/v1/spaces/:spaceId/change-requests/:changeRequestId' : '/v1/spaces/:spaceId';
    const where = inChangeRequest ? ' in a change request' : ' on a space';
    const { scope: ScopeParams, comment: CommentParams, reply: ReplyParams } = paramsFor(inChangeRequest);

    app.get(`${base}/comments`, {
      schema: { tags, summary: `List comments${where}`, params: ScopeParams, querystring: ListCommentsQuery, response: { 200: CommentList, ...errors(404) } },
    }, async (request) => {
      const query = request.query as Static<typeof ListCommentsQuery>;
      const { em } = request;
      const scope = await loadScope(request);
      const filter: FilterQuery<Comment> = { spaceId: scope.space.id, changeRequestId: scope.changeRequest?.id ?? null };
      if (query.status === 'open') filter.resolvedAt = null;
      if (query.status === 'resolved') filter.resolvedAt = { $ne: null };
      if (query.targetPage !== undefined) filter.pageId = query.targetPage;
      const authors = parseAuthors(query.authors);
      if (authors.length > 0) filter.postedBy = { $in: authors };
      const page = await paginate(em, Comment, filter, BY_POSTING, query, (c) => c, { order: query.order ?? 'desc' });
      const facts = await commentFacts(em, page.items);
      const view = viewpoint(request, scope, query.format);
      return { ...page, items: page.items.map((c) => presentComment(c, facts, view)) };
    });

    app.post(`${base}/comments`, {
      schema: { tags, summary: `Post a comment${where}`, params: ScopeParams, body: PostCommentBody, response: { 200: CommentSchema, ...errors(403, 404) } },
    }, async (request) => {
      const body = request.body as Static<typeof PostCommentBody>;
      const { em, caller } = request;
      const scope = await loadScope(request);
      requireRole(scope.role, 'comment', 'comment here');
      const markdown = bodyMarkdown(body.body, 'body.body');
      const revisionId = currentRevision(scope);
      if (body.page !== undefined && !(await pageExists(em, revisionId, body.page))) {
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
      return showComment(request, scope, id);
    });

    app.get(`${base}/comments/:commentId`, {
      schema: { tags, summary: `Get a comment${where}`, params: CommentParams, querystring: FormatQuery, response: { 200: CommentSchema, ...errors(404) } },
    }, async (request) => {
      const params = request.params as CommentRef;
      const scope = await loadScope(request);
      return showComment(request, scope, params.commentId, (request.query as Static<typeof FormatQuery>).format);
    });

    app.put(`${base}/comments/:commentId`, {
      schema: { tags, summary: `Update a comment${where}: body, resolution, reactions`, params: CommentParams, body: UpdateCommentBody, response: { 200: CommentSchema, ...errors(403, 404) } },
    }, async (request) => {
      const params = request.params as CommentRef;
      const body = request.body as Static<typeof UpdateCommentBody>;
      const { em, caller } = request;
      const scope = await loadScope(request);
      const comment = await requireComment(em, scope, params.commentId);
      const isAuthor = comment.postedBy === caller.user.id;
      if (body.body !== undefined && !(isAuthor && atLeast(scope.role, 'comment'))) throw forbidden('Only the author of a comment can edit its body');
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
      return showComment(request, scope, comment.id);
    });

    app.delete(`${base}/comments/:commentId`, {
      schema: {
        tags,
        summary: `Delete a comment${where} and its replies (204 when there was no such comment)`,
        params: CommentParams,
        response: { 204: NoContent, 205: NoContent, ...errors(403, 404) },
      },
    }, async (request, reply) => {
      const params = request.params as CommentRef;
      const { em, caller } = request;
      const scope = await loadScope(request);
      const comment = await loadComment(em, scope, params.commentId);
      if (!comment) return reply.status(204).send();
      const isAuthor = comment.postedBy === caller.user.id;
      if (!((isAuthor && atLeast(scope.role, 'comment')) || atLeast(scope.role, 'admin'))) {
        throw forbidden('Only the author of a comment or an admin of the space can delete it');
      }
      await em.nativeDelete(Comment, { id: comment.id });
      return reply.status(205).send();
    });

    app.get(`${base}/comments/:commentId/replies`, {
      schema: { tags, summary: `List the replies to a comment${where}`, params: CommentParams, querystring: ListRepliesQuery, response: { 200: CommentReplyList, ...errors(404) } },
    }, async (request) => {
      const params = request.params as CommentRef;
      const query = request.query as Static<typeof ListRepliesQuery>;
      const { em } = request;
      const scope = await loadScope(request);
      const comment = await requireComment(em, scope, params.commentId);
      const page = await paginate(em, CommentReply, { commentId: comment.id }, BY_POSTING, query, (r) => r);
      const facts = await replyFacts(em, page.items);
      const view = viewpoint(request, scope, query.format);
      return { ...page, items: page.items.map((r) => presentReply(r, comment, facts, view)) };
    });

    app.post(`${base}/comments/:commentId/replies`, {
      schema: {
        tags,
        summary: `Reply to a comment${where}`,
        params: CommentParams,
        querystring: FormatQuery,
        body: PostReplyBody,
        response: { 200: CommentReplySchema, ...errors(403, 404) },
      },
    }, async (request) => {
      const params = request.params as CommentRef;
      const body = request.body as Static<typeof PostReplyBody>;
      const { em, caller } = request;
      const scope = await loadScope(request);
      const comment = await requireComment(em, scope, params.commentId);
      requireRole(scope.role, 'comment', 'reply to comments here');
      const markdown = bodyMarkdown(body.body, 'body.body');
      const id = newId();
      await em.transactional(async (tx) => {
        tx.create(CommentReply, { id, commentId: comment.id, markdown, postedBy: caller.user.id, postedAt: new Date(), editedAt: null });
      });
      return showReply(request, scope, comment, id, (request.query as Static<typeof FormatQuery>).format);
    });

    app.get(`${base}/comments/:commentId/replies/:commentReplyId`, {
      schema: { tags, summary: `Get a reply to a comment${where}`, params: ReplyParams, querystring: FormatQuery, response: { 200: CommentReplySchema, ...errors(404) } },
    }, async (request) => {
      const params = request.params as ReplyRef;
      const scope = await loadScope(request);
      const comment = await requireComment(request.em, scope, params.commentId);
      return showReply(request, scope, comment, params.commentReplyId, (request.query as Static<typeof FormatQuery>).format);
    });

    app.put(`${base}/comments/:commentId/replies/:commentReplyId`, {
      schema: { tags, summary: `Update a reply${where}: body, reactions`, params: ReplyParams, body: UpdateReplyBody, response: { 200: CommentReplySchema, ...errors(403, 404) } },
    }, async (request) => {
      const params = request.params as ReplyRef;
      const body = request.body as Static<typeof UpdateReplyBody>;
      const { em, caller } = request;
      const scope = await loadScope(request);
      const comment = await requireComment(em, scope, params.commentId);
      const found = await requireReply(em, comment, params.commentReplyId);
      const isAuthor = found.postedBy === caller.user.id;
      if (body.body !== undefined && !(isAuthor && atLeast(scope.role, 'comment'))) throw forbidden('Only the author of a reply can edit its body');
      if (body.addedReactions?.length || body.removedReactions?.length) requireRole(scope.role, 'comment', 'react to replies');
      const markdown = body.body === undefined ? undefined : bodyMarkdown(body.body, 'body.body');
      await em.transactional(async (tx) => {
        if (markdown !== undefined && markdown !== found.markdown) await tx.nativeUpdate(CommentReply, { id: found.id }, { markdown, editedAt: new Date() });
        await applyReactions(tx, { replyId: found.id }, caller.user.id, body.addedReactions, body.removedReactions);
      });
      return showReply(request, scope, comment, found.id);
    });

    app.delete(`${base}/comments/:commentId/replies/:commentReplyId`, {
      schema: {
        tags,
        summary: `Delete a reply${where} (204 when there was no such reply)`,
        params: ReplyParams,
        response: { 204: NoContent, 205: NoContent, ...errors(403, 404) },
      },
    }, async (request, reply) => {
      const params = request.params as ReplyRef;
      const { em, caller } = request;
      const scope = await loadScope(request);
      const comment = await requireComment(em, scope, params.commentId);
      const found = await em.findOne(CommentReply, { id: params.commentReplyId, commentId: comment.id });
      if (!found) return reply.status(204).send();
      const isAuthor = found.postedBy === caller.user.id;
      if (!((isAuthor && atLeast(scope.role, 'comment')) || atLeast(scope.role, 'admin'))) {
        throw forbidden('Only the author of a reply or an admin of the space can delete it');
      }
      await em.nativeDelete(CommentReply, { id: found.id });
      return reply.status(205).send();
    });
  }
}
