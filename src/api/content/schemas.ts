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

export const SpaceContentParams = Type.Object({ spaceId: Id });
export const ChangeRequestContentParams = Type.Object({ spaceId: Id, changeRequestId: Id });
export const PageParams = (withChangeRequest: boolean) =>
  withChangeRequest ? Type.Object({ spaceId: Id, changeRequestId: Id, pageId: Id }) : Type.Object({ spaceId: Id, pageId: Id });
export const FileParams = (withChangeRequest: boolean) =>
  withChangeRequest ? Type.Object({ spaceId: Id, changeRequestId: Id, fileId: Id }) : Type.Object({ spaceId: Id, fileId: Id });
