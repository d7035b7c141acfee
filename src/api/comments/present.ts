import type { CommentRow, ReplyRow, TargetPageRow } from '../../db/comments.ts';
import type { User } from '../../db/entities.ts';
import { commentPermissions, type ReactionGroup } from '../../domain/comments.ts';
import type { JsonDocument } from '../../domain/content/document.ts';
import { plainTextDocument } from '../../domain/content/document-task.ts';
import type { Role } from '../../domain/roles.ts';
import type { Caller } from '../context.ts';
import { presentUser } from '../users/present.ts';
import type { Urls } from '../object-urls.ts';

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

/** Facts loaded by the service in a few queries for a page of comments or replies, then used to present each. */
export interface CommentFacts {
  users: Map<string, User>;
  reactions: Map<string, ReactionGroup[]>;
  replies: Map<string, ReplySummary>;
  pages: Map<string, TargetPageInfo>;
  /** The bodies as documents, by their text, when they are answered as documents (converted by the service). */
  documents?: Map<string, JsonDocument>;
}

export type BodyFormat = 'markdown' | 'document';

/** Who the caller is and how they want bodies, for presenting comments and replies. */
export interface Viewpoint {
  caller: Caller;
  role: Role | null;
  format: BodyFormat;
  urls: Urls;
}

/** A timestamp of a row (a Date, or the database's text for it) in ISO form. */
const iso = (value: Date | string) => new Date(value).toISOString();

/** Stands in for an account that no longer exists (its comments stay). */
const DELETED_USER_ID = 'deleted';

function userRef(id: string | null | undefined, facts: CommentFacts, urls: Urls) {
  const user: User | undefined = id ? facts.users.get(id) : undefined;
  if (user) return presentUser({ ...user, photoUrl: user.photoUrl ?? null }, urls);
  return { object: 'user' as const, id: id ?? DELETED_USER_ID, displayName: 'Deleted user', urls: urls.user(id ?? DELETED_USER_ID) };
}

export function presentBody(markdown: string, format: BodyFormat, documents: Map<string, JsonDocument> | undefined) {
  return format === 'document' ? { document: documents?.get(markdown) ?? plainTextDocument(markdown) } : { markdown };
}

function reactions(targetId: string, facts: CommentFacts, urls: Urls) {
  return (facts.reactions.get(targetId) ?? []).map((group) => ({
    emoji: group.emoji,
    count: group.count,
    users: group.users.map((u) => ({ user: userRef(u.userId, facts, urls), reactedAt: u.reactedAt.toISOString() })),
  }));
}

export function presentComment(comment: CommentRow, facts: CommentFacts, view: Viewpoint) {
  const { urls } = view;
  const isAuthor = comment.postedBy === view.caller.user.id;
  const replies = facts.replies.get(comment.id) ?? { count: 0, repliers: [] };
  const page = comment.pageId ? (facts.pages.get(comment.id) ?? { id: comment.pageId, outdated: true }) : undefined;
  return {
    object: 'comment' as const,
    id: comment.id,
    postedBy: userRef(comment.postedBy, facts, urls),
    postedAt: iso(comment.postedAt),
    ...(comment.editedAt ? { editedAt: iso(comment.editedAt) } : {}),
    reactions: reactions(comment.id, facts, urls),
    replies: replies.count,
    repliers: replies.repliers.map((r) => ({ user: userRef(r.userId, facts, urls), count: r.count, updatedAt: r.updatedAt.toISOString() })),
    body: presentBody(comment.markdown, view.format, facts.documents),
    target: {
      space: comment.spaceId,
      revision: comment.revisionId,
      ...(comment.changeRequestId ? { changeRequest: comment.changeRequestId } : {}),
      ...(comment.reviewId ? { review: comment.reviewId } : {}),
      ...(comment.nodeId ? { node: { id: comment.nodeId } } : {}),
      ...(page ? { page } : {}),
    },
    urls: urls.comment(comment.spaceId, comment.id, comment.changeRequestId),
    permissions: commentPermissions(view.role, isAuthor),
    ...(comment.resolvedAt
      ? { status: 'resolved' as const, resolvedAt: iso(comment.resolvedAt), resolvedBy: userRef(comment.resolvedBy, facts, urls) }
      : { status: 'open' as const }),
  };
}

export function presentReply(reply: ReplyRow, comment: CommentRow, facts: CommentFacts, view: Viewpoint) {
  const { urls } = view;
  return {
    object: 'comment-reply' as const,
    id: reply.id,
    postedBy: userRef(reply.postedBy, facts, urls),
    postedAt: iso(reply.postedAt),
    ...(reply.editedAt ? { editedAt: iso(reply.editedAt) } : {}),
    reactions: reactions(reply.id, facts, urls),
    body: presentBody(reply.markdown, view.format, facts.documents),
    urls: urls.commentReply(comment.spaceId, comment.id, reply.id, comment.changeRequestId),
    permissions: commentPermissions(view.role, reply.postedBy === view.caller.user.id),
  };
}

/** A comment's target page from its row (see db/comments.ts `targetPagesOf`): metadata fields only when they hold something. */
export function targetPageInfo(row: TargetPageRow): TargetPageInfo {
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
  const date = (value: unknown) =>
    typeof value === 'string' && !Number.isNaN(Date.parse(value)) ? new Date(value).toISOString() : undefined;
  const meta = row.meta ?? {};
  const info: TargetPageInfo = { id: row.page_id, outdated: row.changed };
  const title = typeof meta.title === 'string' ? meta.title : undefined;
  if (title !== undefined) info.title = title;
  for (const [key, value] of [
    ['emoji', text(meta.emoji)],
    ['icon', text(meta.icon)],
    ['createdAt', date(meta.createdAt)],
    ['updatedAt', date(meta.updatedAt)],
  ] as const) {
    if (value !== undefined) info[key] = value;
  }
  if (row.meta && row.path !== null) info.path = row.path;
  return info;
}
