import { ScopeParams, type ScopeOptions } from '../content/schemas.ts';
import { ctxOf, type RoutePlugin } from '../context.ts';
import { errors, NoContent } from '../schemas.ts';
import {
  CommentList,
  CommentParams,
  CommentReplyList,
  CommentReplySchema,
  CommentSchema,
  FormatQuery,
  ListCommentsQuery,
  ListRepliesQuery,
  PostCommentBody,
  PostReplyBody,
  ReplyParams,
  UpdateCommentBody,
  UpdateReplyBody,
} from './schemas.ts';
import { deleteComment, getComment, listComments, postComment, updateComment } from './comments.ts';
import { deleteReply, getReply, listReplies, postReply, updateReply } from './replies.ts';

/**
 * Comments and their replies: HTTP only, the rules are in ./comments.ts and ./replies.ts. Registered twice
 * (src/api/app.ts): on a space's content under `/v1/spaces/:spaceId`, and inside a change request
 * under `/v1/spaces/:spaceId/change-requests/:changeRequestId` (`changeRequest: true`); each sees
 * only its own comments.
 */
export const commentRoutes: RoutePlugin<ScopeOptions> = async (app, { changeRequest }) => {
  const tags = ['comments'];
  const where = changeRequest ? ' in a change request' : ' on a space';
  const params = ScopeParams(changeRequest);
  const commentParams = CommentParams(changeRequest);
  const replyParams = ReplyParams(changeRequest);

  app.get(
    '/comments',
    {
      schema: {
        tags,
        summary: `List comments${where}`,
        params,
        querystring: ListCommentsQuery,
        response: { 200: CommentList, ...errors(404) },
      },
    },
    async (request) => listComments(ctxOf(request), request.params, request.query),
  );

  app.post(
    '/comments',
    {
      schema: {
        tags,
        summary: `Post a comment${where}`,
        params,
        body: PostCommentBody,
        response: { 200: CommentSchema, ...errors(403, 404) },
      },
    },
    async (request) => postComment(ctxOf(request), request.params, request.body),
  );

  app.get(
    '/comments/:commentId',
    {
      schema: {
        tags,
        summary: `Get a comment${where}`,
        params: commentParams,
        querystring: FormatQuery,
        response: { 200: CommentSchema, ...errors(404) },
      },
    },
    async (request) => getComment(ctxOf(request), request.params, request.query.format),
  );

  app.put(
    '/comments/:commentId',
    {
      schema: {
        tags,
        summary: `Update a comment${where}: body, resolution, reactions`,
        params: commentParams,
        body: UpdateCommentBody,
        response: { 200: CommentSchema, ...errors(403, 404) },
      },
    },
    async (request) => updateComment(ctxOf(request), request.params, request.body),
  );

  app.delete(
    '/comments/:commentId',
    {
      schema: {
        tags,
        summary: `Delete a comment${where} and its replies (204 when there was no such comment)`,
        params: commentParams,
        response: { 204: NoContent, 205: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => reply.status((await deleteComment(ctxOf(request), request.params)) ? 205 : 204).send(),
  );

  app.get(
    '/comments/:commentId/replies',
    {
      schema: {
        tags,
        summary: `List the replies to a comment${where}`,
        params: commentParams,
        querystring: ListRepliesQuery,
        response: { 200: CommentReplyList, ...errors(404) },
      },
    },
    async (request) => listReplies(ctxOf(request), request.params, request.query),
  );

  app.post(
    '/comments/:commentId/replies',
    {
      schema: {
        tags,
        summary: `Reply to a comment${where}`,
        params: commentParams,
        querystring: FormatQuery,
        body: PostReplyBody,
        response: { 200: CommentReplySchema, ...errors(403, 404) },
      },
    },
    async (request) => postReply(ctxOf(request), request.params, request.body, request.query.format),
  );

  app.get(
    '/comments/:commentId/replies/:commentReplyId',
    {
      schema: {
        tags,
        summary: `Get a reply to a comment${where}`,
        params: replyParams,
        querystring: FormatQuery,
        response: { 200: CommentReplySchema, ...errors(404) },
      },
    },
    async (request) => getReply(ctxOf(request), request.params, request.query.format),
  );

  app.put(
    '/comments/:commentId/replies/:commentReplyId',
    {
      schema: {
        tags,
        summary: `Update a reply${where}: body, reactions`,
        params: replyParams,
        body: UpdateReplyBody,
        response: { 200: CommentReplySchema, ...errors(403, 404) },
      },
    },
    async (request) => updateReply(ctxOf(request), request.params, request.body),
  );

  app.delete(
    '/comments/:commentId/replies/:commentReplyId',
    {
      schema: {
        tags,
        summary: `Delete a reply${where} (204 when there was no such reply)`,
        params: replyParams,
        response: { 204: NoContent, 205: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => reply.status((await deleteReply(ctxOf(request), request.params)) ? 205 : 204).send(),
  );
};
