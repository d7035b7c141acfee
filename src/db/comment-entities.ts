import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Comments, replies and reactions (tables from Migration0008Comments). */

export const Comment = defineEntity({
  name: 'Comment',
  tableName: 'comment',
  properties: {
    id: p.string().primary(),
    spaceId: p.string(),
    /** Set when the comment was posted inside a change request. */
    changeRequestId: p.string().nullable(),
    /** Set when the comment was posted with a review of its change request (Migration0024ReviewComments). */
    reviewId: p.string().nullable(),
    /** The revision the comment was posted against. */
    revisionId: p.string(),
    pageId: p.string().nullable(),
    nodeId: p.string().nullable(),
    markdown: p.text(),
    postedBy: p.string().nullable(),
    postedAt: p.datetime(),
    editedAt: p.datetime().nullable(),
    resolvedAt: p.datetime().nullable(),
    resolvedBy: p.string().nullable(),
  },
});
export type Comment = InferEntity<typeof Comment>;

export const CommentReply = defineEntity({
  name: 'CommentReply',
  tableName: 'comment_reply',
  properties: {
    id: p.string().primary(),
    commentId: p.string(),
    markdown: p.text(),
    postedBy: p.string().nullable(),
    postedAt: p.datetime(),
    editedAt: p.datetime().nullable(),
  },
});
export type CommentReply = InferEntity<typeof CommentReply>;

export const CommentReaction = defineEntity({
  name: 'CommentReaction',
  tableName: 'comment_reaction',
  properties: {
    id: p.string().primary(),
    /** Exactly one of commentId and replyId is set. */
    commentId: p.string().nullable(),
    replyId: p.string().nullable(),
    userId: p.string(),
    emoji: p.string(),
    reactedAt: p.datetime(),
  },
});
export type CommentReaction = InferEntity<typeof CommentReaction>;

export const entities = [Comment, CommentReply, CommentReaction];
