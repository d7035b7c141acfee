import { Type } from 'typebox';
import { DefaultLevel, Id, ListOf, Timestamp } from '../schemas.ts';
import { MergeRulesInput, MergeRulesSchema } from '../orgs/schemas.ts';

const bool = Type.Boolean();

export const Visibility = Type.Union(
  ['public', 'unlisted', 'share-link', 'visitor-auth', 'in-collection', 'private'].map((v) => Type.Literal(v)),
);
export const EditMode = Type.Union([Type.Literal('live'), Type.Literal('locked')]);
export const SpaceTitle = Type.String({ maxLength: 50 });
export const Emoji = Type.String({ maxLength: 50 });

/** `gitSync` on a space: GitBook's `GitSyncState` (see present.ts `presentSpaceGitSync`). */
export const GitSyncState = Type.Object({
  installationId: Type.String(),
  installationProvider: Type.Union([Type.Literal('github'), Type.Literal('gitlab'), Type.Literal('github-legacy')]),
  installationStatus: Type.Union([Type.Literal('unauthenticated'), Type.Literal('active'), Type.Literal('pending')]),
  repoName: Type.Optional(Type.String()),
  integration: Type.Optional(Type.String()),
  url: Type.String(),
  updatedAt: Timestamp,
});

export const SpaceSchema = Type.Object({
  object: Type.Literal('space'),
  id: Type.String(),
  title: Type.String(),
  emoji: Type.String(),
  visibility: Visibility,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  deletedAt: Type.Optional(Timestamp),
  editMode: EditMode,
  organization: Type.String(),
  parent: Type.Optional(Type.String()),
  gitSync: Type.Optional(GitSyncState),
  revision: Type.String(),
  defaultLevel: DefaultLevel,
  comments: Type.Integer(),
  changeRequests: Type.Integer(),
  changeRequestsOpen: Type.Integer(),
  changeRequestsDraft: Type.Integer(),
  mergeRules: MergeRulesSchema,
  urls: Type.Object({
    location: Type.String(),
    app: Type.String(),
    published: Type.Optional(Type.String()),
    public: Type.Optional(Type.String()),
  }),
  permissions: Type.Object({
    view: bool,
    access: bool,
    admin: bool,
    viewInviteLinks: bool,
    edit: bool,
    triggerGitSync: bool,
    comment: bool,
    merge: bool,
    review: bool,
    installIntegration: bool,
  }),
});
export const SpaceList = ListOf(SpaceSchema);

export const SpaceParams = Type.Object({ spaceId: Id });
export const OrgSpaceParams = Type.Object({ organizationId: Id });

export const CreateSpaceBody = Type.Object({
  title: Type.Optional(SpaceTitle),
  emoji: Type.Optional(Emoji),
  parent: Type.Optional(Id),
  visibility: Type.Optional(Visibility),
  editMode: Type.Optional(EditMode),
  empty: Type.Optional(Type.Boolean()),
});

export const UpdateSpaceBody = Type.Object(
  {
    title: Type.Optional(SpaceTitle),
    emoji: Type.Optional(Emoji),
    editMode: Type.Optional(EditMode),
    defaultLevel: Type.Optional(DefaultLevel),
    visibility: Type.Optional(Visibility),
    mergeRules: Type.Optional(MergeRulesInput),
  },
  { minProperties: 1 },
);

export const Pointer = Type.Union([
  Type.Object({ type: Type.Literal('space'), space: Id }),
  Type.Object({ type: Type.Literal('collection'), collection: Id }),
]);
export const Position = Type.Object({ before: Type.Optional(Pointer), after: Type.Optional(Pointer) });

export const MoveBody = Type.Object(
  { parent: Type.Optional(Type.Union([Id, Type.Null()])), position: Type.Optional(Position) },
  { minProperties: 1 },
);

export const TransferBody = Type.Object({
  organization: Id,
  collection: Type.Optional(Id),
});

export const GetSpaceQuery = Type.Object({ shareKey: Type.Optional(Type.String({ maxLength: 512 })) });
