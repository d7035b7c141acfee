import { Type } from 'typebox';

/** Links of a revision and backlinks of its files. Path parameters are the content's (../content/schemas.ts). */

export const LinkStatus = Type.Union([Type.Literal('ok'), Type.Literal('broken'), Type.Literal('in-app')]);

export const LinksQuery = Type.Object({
  page: Type.Optional(Type.String({ maxLength: 1024, description: 'Cursor from `next.page` of the previous answer' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Results per page (default 100, at most 1000)' })),
  status: Type.Optional(LinkStatus),
});

export const BacklinksQuery = Type.Object({
  page: Type.Optional(Type.String({ maxLength: 1024, description: 'Cursor from `next.page` of the previous answer' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Results per page (default 100, at most 1000)' })),
});

export const PageLocation = Type.Object({
  kind: Type.Literal('page'),
  organization: Type.String(),
  space: Type.String(),
  page: Type.String(),
});

export const TargetReference = Type.Union([
  Type.Object({ kind: Type.Literal('url'), url: Type.String() }),
  Type.Object({ kind: Type.Literal('page'), page: Type.String(), space: Type.String() }),
  Type.Object({ kind: Type.Literal('file'), file: Type.String(), space: Type.String() }),
]);

export const LinkReference = Type.Object({
  status: LinkStatus,
  relation: Type.Literal('reference'),
  targetReference: TargetReference,
  locationReferences: Type.Array(PageLocation),
});

export const LinkList = Type.Object({
  items: Type.Array(LinkReference),
  count: Type.Integer(),
  next: Type.Optional(Type.Object({ page: Type.String() })),
  stats: Type.Object({
    total: Type.Integer({ description: 'Link references in scope, whatever their status' }),
    broken: Type.Object({
      total: Type.Integer({ description: 'Broken link references in scope' }),
      changeRequest: Type.Integer({
        description: 'Broken link references in the same scope, summed over the open change requests of the space',
      }),
    }),
  }),
});

export const BacklinkList = Type.Object({
  items: Type.Array(PageLocation),
  count: Type.Integer(),
  next: Type.Optional(Type.Object({ page: Type.String() })),
});
