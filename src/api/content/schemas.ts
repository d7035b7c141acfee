import { Type } from 'typebox';
import { Id } from '../schemas.ts';

export const ContentQuery = Type.Object({
  metadata: Type.Optional(Type.Boolean({ default: true, description: 'false leaves out mutable git metadata' })),
  computed: Type.Optional(Type.Boolean({ default: true, description: 'false skips computed content' })),
});

export const PageQuery = Type.Object({
  format: Type.Optional(Type.Union([Type.Literal('document'), Type.Literal('markdown')])),
  metadata: Type.Optional(Type.Boolean({ default: true })),
  computed: Type.Optional(Type.Boolean({ default: true })),
});

export const FilesQuery = Type.Object({
  page: Type.Optional(Type.String({ maxLength: 1024 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  metadata: Type.Optional(Type.Boolean({ default: true })),
  computed: Type.Optional(Type.Boolean({ default: true })),
});

/**
 * The content routes (content, links, comments) serve two scopes with the same plugin, registered
 * once under each prefix: a space's current content, and a change request's content.
 */
export const SPACE_CONTENT_PREFIX = '/v1/spaces/:spaceId';
export const CHANGE_REQUEST_CONTENT_PREFIX = '/v1/spaces/:spaceId/change-requests/:changeRequestId';

/** The option of a content plugin: true under CHANGE_REQUEST_CONTENT_PREFIX. */
export interface ScopeOptions extends Record<string, unknown> {
  changeRequest: boolean;
}

/** Path parameters naming the content: the space, and on change-request routes the change request (id or number). */
export type ScopeRef = { spaceId: string; changeRequestId?: string };

export const SpaceContentParams = Type.Object({ spaceId: Id });
export const ChangeRequestContentParams = Type.Object({ spaceId: Id, changeRequestId: Id });
export const ScopeParams = (withChangeRequest: boolean) => (withChangeRequest ? ChangeRequestContentParams : SpaceContentParams);
export const PageParams = (withChangeRequest: boolean) =>
  withChangeRequest ? Type.Object({ spaceId: Id, changeRequestId: Id, pageId: Id }) : Type.Object({ spaceId: Id, pageId: Id });
export const FileParams = (withChangeRequest: boolean) =>
  withChangeRequest ? Type.Object({ spaceId: Id, changeRequestId: Id, fileId: Id }) : Type.Object({ spaceId: Id, fileId: Id });

export const SignedFileParams = Type.Object({ spaceId: Id, fileId: Id });
export const SignedFileQuery = Type.Object({
  revision: Id,
  expires: Type.Integer({ minimum: 0 }),
  signature: Type.String({ minLength: 1, maxLength: 128 }),
});
