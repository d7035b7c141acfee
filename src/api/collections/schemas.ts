import { Type } from 'typebox';
import { DefaultLevel, Id, ListOf } from '../schemas.ts';

const bool = Type.Boolean();

export const CollectionSchema = Type.Object({
  object: Type.Literal('collection'),
  id: Type.String(),
  title: Type.String(),
  description: Type.Optional(Type.String()),
  organization: Type.String(),
  parent: Type.Optional(Type.String()),
  defaultLevel: DefaultLevel,
  urls: Type.Object({ location: Type.String(), app: Type.String() }),
  permissions: Type.Object({ view: bool, admin: bool, viewInviteLinks: bool, create: bool }),
});
export const CollectionList = ListOf(CollectionSchema);

export const CollectionParams = Type.Object({ collectionId: Id });
export const OrgCollectionParams = Type.Object({ organizationId: Id });

export const CollectionTitle = Type.String({ maxLength: 50 });
export const CollectionDescription = Type.String({ maxLength: 100 });

export const CreateCollectionBody = Type.Object({
  title: Type.Optional(CollectionTitle),
  description: Type.Optional(CollectionDescription),
  parent: Type.Optional(Id),
});

export const UpdateCollectionBody = Type.Object(
  {
    title: Type.Optional(CollectionTitle),
    description: Type.Optional(CollectionDescription),
    defaultLevel: Type.Optional(DefaultLevel),
  },
  { minProperties: 1 },
);

export const ListCollectionsQuery = Type.Object({
  page: Type.Optional(Type.String({ maxLength: 1024 })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
  nested: Type.Optional(
    Type.Boolean({ default: true, description: 'List nested collections too (default true); false lists top-level ones only' }),
  ),
});

export const TransferCollectionBody = Type.Object({ organization: Id });
