import { Type } from 'typebox';
import { Json, JsonDocument, Open, RevisionFile, StringEnum } from '../content/schemas.ts';
import { MAX_DESCRIPTION_CHARS } from '../../domain/change-request-description.ts';
import { Id, Timestamp } from '../schemas.ts';

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
    description: Type.Optional(
      Type.Union(
        [
          Type.String({ maxLength: MAX_DESCRIPTION_CHARS }),
          Type.Object(
            {
              object: Type.Literal('document'),
              data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
              nodes: Type.Array(Type.Unknown(), { maxItems: MAX_DESCRIPTION_CHARS }),
            },
            { additionalProperties: true },
          ),
        ],
        { description: "GitBook's JSONDocument (its text is kept), or the text itself" },
      ),
    ),
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

/* Answers: objects let what they do not declare through, as in ../content/schemas.ts. */

/** A person as change requests show them (GitBook's User; a deleted one as `Deleted user`). */
const ChangeRequestUser = Open({
  object: StringEnum(['user']),
  id: Type.String(),
  displayName: Type.String(),
  email: Type.Optional(Type.String()),
  photoURL: Type.Optional(Type.String()),
  urls: Open({ location: Type.String() }),
});

/** GitBook's ChangeRequest. */
export const ChangeRequestSchema = Open(
  {
    object: StringEnum(['change-request']),
    id: Type.String({ description: 'Unique identifier for the change request' }),
    number: Type.Number({ description: 'Incremental identifier of the change request' }),
    status: StringEnum(['draft', 'open', 'archived', 'merged']),
    subject: Type.String(),
    description: Type.Optional({
      ...JsonDocument,
      description: "GitBook's JSONDocument of its text; left out when empty, and for a site visitor",
    }),
    createdBy: ChangeRequestUser,
    createdAt: Timestamp,
    updatedAt: Timestamp,
    mergedBy: Type.Optional(ChangeRequestUser),
    mergedAt: Type.Optional(Timestamp),
    space: Type.String({ description: 'ID of the space in which the change request was created' }),
    revision: Type.String({ description: 'ID of the active revision in the change request' }),
    revisionInitial: Type.String({ description: 'ID of the revision of the space the change request was created from' }),
    revisionMergedAncestor: Type.Optional(Type.String({ description: 'ID of the latest revision of the space brought into it' })),
    revisionMerged: Type.Optional(Type.String({ description: 'When merged, ID of the revision the merge made' })),
    comments: Type.Number({ description: 'Count of open comments on the change request' }),
    outdated: Type.Boolean({ description: 'The space has changed since the change request was last brought up to date' }),
    conflicts: Type.Optional(Type.Array(Json('A conflict of the last merge or update'))),
    mergeRulesBypass: Type.Optional(
      Open(
        { by: ChangeRequestUser, at: Type.String(), rules: Type.Array(Type.String()) },
        { description: 'Who merged it past its merge rules' },
      ),
    ),
    urls: Open({ app: Type.String({ format: 'uri' }), location: Type.String({ format: 'uri' }) }),
  },
  { description: "GitBook's ChangeRequest" },
);

export const ChangeRequestList = Open({
  items: Type.Array(ChangeRequestSchema),
  count: Type.Number({ description: 'Total count of change requests' }),
  next: Type.Optional(Open({ page: Type.String({ description: 'Cursor of the next page' }) })),
});

/** GitBook's ChangeRequestContentUpdate (`compat=false`): the change request, what each operation did, the files added. */
export const ChangeRequestContentUpdate = Open(
  {
    changeRequest: ChangeRequestSchema,
    changes: Type.Array(
      Open({
        object: StringEnum(['created_page', 'updated_page', 'deleted_page']),
        ref: Type.Optional(Type.String()),
        page: Json('created and updated pages: a page reference with the URL of its content; deleted pages: its id'),
      }),
    ),
    insertedFiles: Type.Optional(Type.Array(RevisionFile)),
  },
  { description: "GitBook's ChangeRequestContentUpdate" },
);

/**
 * What a content batch answers: the change request (`compat=true`, the default), or with
 * `compat=false` GitBook's ChangeRequestContentUpdate. A write: its serializer tells the two apart
 * by validating the answer.
 */
export const ContentChangesAnswer = Type.Union([ChangeRequestSchema, ChangeRequestContentUpdate], {
  description: 'The change request (`compat=true`, the default), or the change request with what each operation did (`compat=false`)',
});

/** What merging a change request (`kind` merge) or bringing it up to date (`kind` update) answers. */
export const MergeResult = (kind: 'merge' | 'update') =>
  Open({
    revision: Type.String({ description: 'ID of the resulting revision' }),
    result: StringEnum([kind, 'conflicts']),
  });
