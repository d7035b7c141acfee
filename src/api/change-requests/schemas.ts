import { Type } from 'typebox';
import { Id } from '../schemas.ts';

export const ChangeRequestParams = Type.Object({ spaceId: Id, changeRequestId: Id });
export const SpaceParams = Type.Object({ spaceId: Id });
export const Status = Type.Union(['draft', 'open', 'archived', 'merged'].map((s) => Type.Literal(s)));

export const ListChangeRequestsQuery = Type.Object({
  page: Type.Optional(Type.String({ maxLength: 1024 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  status: Type.Optional(Status),
  contributor: Type.Optional(Id),
});

export const CreateChangeRequestBody = Type.Object({ subject: Type.Optional(Type.String({ maxLength: 100 })) });

export const UpdateChangeRequestBody = Type.Object(
  {
    subject: Type.Optional(Type.String({ maxLength: 100 })),
    description: Type.Optional(Type.String({ maxLength: 10_000 })),
    status: Type.Optional(Type.Union(['draft', 'open', 'archived'].map((s) => Type.Literal(s)))),
  },
  { minProperties: 1 },
);

const PageFields = {
  title: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
  slug: Type.Optional(Type.String({ maxLength: 100, pattern: '^[a-z0-9]*(?:-[a-z0-9]+)*$' })),
  emoji: Type.Optional(Type.String({ maxLength: 50 })),
  icon: Type.Optional(Type.String({ maxLength: 50 })),
  description: Type.Optional(Type.String({ maxLength: 1000 })),
  hidden: Type.Optional(Type.Boolean()),
  noIndex: Type.Optional(Type.Boolean()),
  noRobotsIndex: Type.Optional(Type.Boolean()),
};
const Document = Type.Object({ markdown: Type.Optional(Type.String({ maxLength: 1_000_000 })) });

export const ContentChange = Type.Union([
  Type.Object({
    operation: Type.Literal('insert_page'),
    ...PageFields,
    into: Type.Optional(Id),
    at: Type.Optional(Type.Integer({ minimum: 0 })),
    ref: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    document: Document,
  }),
  Type.Object({
    operation: Type.Literal('update_page'),
    page: Id,
    ...PageFields,
    into: Type.Optional(Type.Union([Id, Type.Null()])),
    at: Type.Optional(Type.Integer({ minimum: 0 })),
    document: Type.Optional(Document),
  }),
  Type.Object({ operation: Type.Literal('delete_page'), page: Id }),
  Type.Object({
    operation: Type.Literal('revert_page'),
    page: Id,
    revision: Type.Optional(Id),
    block: Type.Optional(Type.Array(Type.String())),
  }),
  Type.Object({
    operation: Type.Literal('insert_files'),
    files: Type.Array(
      Type.Object({
        name: Type.String({ minLength: 1, maxLength: 256 }),
        contentType: Type.Optional(Type.String({ maxLength: 255 })),
        ref: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
        url: Type.Optional(Type.String({ format: 'uri', maxLength: 2048 })),
        base64: Type.Optional(Type.String({ maxLength: 1_400_000 })),
      }),
      { minItems: 1, maxItems: 20 },
    ),
  }),
]);

export const ContentChangesBody = Type.Object({ changes: Type.Array(ContentChange, { minItems: 1, maxItems: 50 }) });
export const ContentChangesQuery = Type.Object({ compat: Type.Optional(Type.Boolean({ default: true })) });

export const OrgChangeRequestsParams = Type.Object({ organizationId: Id });

export const ListOrgChangeRequestsQuery = Type.Object({
  page: Type.Optional(Type.String({ maxLength: 1024 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  status: Type.Optional(Type.Array(Status, { maxItems: 4, description: 'Only change requests with these statuses (default: open)' })),
  creator: Type.Optional(Id),
  contributor: Type.Optional(Id),
  requestedReviewer: Type.Optional(Id),
  space: Type.Optional(Id),
  site: Type.Optional(Id),
  topic: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  styleguideRun: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  finding: Type.Optional(Type.Union([Type.Literal('none'), Type.Literal('all')])),
  orderBy: Type.Optional(Type.Union([Type.Literal('updatedAt'), Type.Literal('createdAt')], { default: 'updatedAt' })),
});
