import { Type } from 'typebox';
import { Id, ListOf, ListQuery, Timestamp, UserRef } from '../schemas.ts';

const bool = Type.Boolean();

/** Longest comment or reply body accepted, in characters of markdown. */
export const MAX_BODY_LENGTH = 100_000;

export const Format = Type.Union([Type.Literal('markdown'), Type.Literal('document')], {
  description: 'Output format of bodies: `markdown` (default) or `document` (GitBook JSON document)',
});

/** A body as clients send it: GitBook's Document, i.e. `{markdown}`, `{document}` or empty. */
export const BodyInput = Type.Object({
  markdown: Type.Optional(Type.String({ maxLength: MAX_BODY_LENGTH })),
  document: Type.Optional(Type.Object({ nodes: Type.Optional(Type.Array(Type.Unknown())) })),
});

/** A body as it is returned: `{markdown}` or `{document}` depending on `format`. */
export const BodyOutput = Type.Object({
  markdown: Type.Optional(Type.String()),
  document: Type.Optional(Type.Unknown()),
});

export const Emoji = Type.String({ minLength: 1, maxLength: 50, pattern: '^\\S+$' });
const Reactions = Type.Array(Emoji, { maxItems: 20 });

export const ReactionSchema = Type.Object({
  emoji: Type.String(),
  count: Type.Integer(),
  users: Type.Array(Type.Object({ user: UserRef, reactedAt: Timestamp })),
});

const Permissions = Type.Object({ view: bool, edit: bool, reply: bool, delete: bool });

export const TargetPage = Type.Object({
  id: Type.String(),
  title: Type.Optional(Type.String()),
  emoji: Type.Optional(Type.String()),
  icon: Type.Optional(Type.String()),
  createdAt: Type.Optional(Timestamp),
  updatedAt: Type.Optional(Timestamp),
  path: Type.Optional(Type.String()),
  outdated: Type.Boolean(),
});

export const CommentSchema = Type.Object({
  object: Type.Literal('comment'),
  id: Type.String(),
  postedBy: UserRef,
  postedAt: Timestamp,
  editedAt: Type.Optional(Timestamp),
  reactions: Type.Array(ReactionSchema),
  replies: Type.Integer(),
  repliers: Type.Array(Type.Object({ user: UserRef, count: Type.Integer(), updatedAt: Timestamp })),
  body: BodyOutput,
  target: Type.Object({
    space: Type.String(),
    revision: Type.String(),
    changeRequest: Type.Optional(Type.String()),
    review: Type.Optional(Type.String({ description: 'The review this comment was posted with' })),
    node: Type.Optional(Type.Object({ id: Type.String() })),
    page: Type.Optional(TargetPage),
  }),
  urls: Type.Object({ location: Type.String() }),
  permissions: Permissions,
  status: Type.Union([Type.Literal('open'), Type.Literal('resolved')]),
  resolvedAt: Type.Optional(Timestamp),
  resolvedBy: Type.Optional(UserRef),
});
export const CommentList = ListOf(CommentSchema);

export const CommentReplySchema = Type.Object({
  object: Type.Literal('comment-reply'),
  id: Type.String(),
  postedBy: UserRef,
  postedAt: Timestamp,
  editedAt: Type.Optional(Timestamp),
  reactions: Type.Array(ReactionSchema),
  body: BodyOutput,
  urls: Type.Object({ location: Type.String() }),
  permissions: Permissions,
});
export const CommentReplyList = ListOf(CommentReplySchema);

/** Path parameters of a comment and of a reply, on the space routes or (with `changeRequestId`) on the change-request routes. */
export const CommentParams = (inChangeRequest: boolean) =>
  inChangeRequest ? Type.Object({ spaceId: Id, changeRequestId: Id, commentId: Id }) : Type.Object({ spaceId: Id, commentId: Id });
export const ReplyParams = (inChangeRequest: boolean) =>
  inChangeRequest
    ? Type.Object({ spaceId: Id, changeRequestId: Id, commentId: Id, commentReplyId: Id })
    : Type.Object({ spaceId: Id, commentId: Id, commentReplyId: Id });
export type CommentRef = { spaceId: string; changeRequestId?: string; commentId: string };
export type ReplyRef = CommentRef & { commentReplyId: string };

export const FormatQuery = Type.Object({ format: Type.Optional(Format) });

export const ListCommentsQuery = Type.Object({
  ...ListQuery.properties,
  order: Type.Optional(
    Type.Union([Type.Literal('asc'), Type.Literal('desc')], { default: 'desc', description: 'By posting date; newest first by default' }),
  ),
  status: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('open'), Type.Literal('resolved')], { default: 'all' })),
  format: Type.Optional(Format),
  targetPage: Type.Optional(Id),
  authors: Type.Optional(
    Type.Array(Type.String({ maxLength: 2048 }), {
      maxItems: 100,
      description: 'User ids; repeat the parameter or separate ids with commas',
    }),
  ),
});

export const ListRepliesQuery = Type.Object({ ...ListQuery.properties, format: Type.Optional(Format) });

export const PostCommentBody = Type.Object({
  node: Type.Optional(Id),
  page: Type.Optional(Id),
  body: BodyInput,
});

export const UpdateCommentBody = Type.Object({
  resolved: Type.Optional(Type.Boolean()),
  body: Type.Optional(BodyInput),
  addedReactions: Type.Optional(Reactions),
  removedReactions: Type.Optional(Reactions),
});

export const PostReplyBody = Type.Object({ body: BodyInput });

export const UpdateReplyBody = Type.Object({
  body: Type.Optional(BodyInput),
  addedReactions: Type.Optional(Reactions),
  removedReactions: Type.Optional(Reactions),
});
