import { Type } from 'typebox';
import { ChangeRequestSchema } from '../change-requests/schemas.ts';
import {
  ContentQuery,
  FilesQuery,
  Json,
  JsonDocument,
  Open,
  RevisionFile,
  RevisionFileList,
  RevisionPage,
  RevisionPages,
  RevisionReusableContent,
  StringEnum,
} from '../content/schemas.ts';
import { Id, Timestamp } from '../schemas.ts';

export { ContentQuery as RevisionQuery, FilesQuery as RevisionFilesQuery };

export const RevisionParams = Type.Object({ spaceId: Id, revisionId: Id });
export const RevisionPageParams = Type.Object({ spaceId: Id, revisionId: Id, pageId: Id });
export const RevisionFileParams = Type.Object({ spaceId: Id, revisionId: Id, fileId: Id });
export const RevisionReusableContentParams = Type.Object({ spaceId: Id, revisionId: Id, reusableContentId: Id });
const PagePath = Type.String({ minLength: 1, maxLength: 1024, description: 'The path of the page in the revision (`/` URL-encoded)' });
export const RevisionPathParams = Type.Object({ spaceId: Id, revisionId: Id, pagePath: PagePath });
/** The same read with the page path's `/` as they are: the rest of the URL. */
export const RevisionNestedPathParams = Type.Object({ spaceId: Id, revisionId: Id, '*': PagePath });

/** `evaluated`: `true` and `deterministic-only` evaluate `if` blocks with the caller's visitor claims; `false` keeps them. */
const Evaluated = Type.Union([Type.Literal('true'), Type.Literal('false'), Type.Literal('deterministic-only')], {
  description: 'Evaluate `if` blocks (`true` or `deterministic-only`) or keep them (`false`, the default)',
});
/** `dereferenced`: `true` and `reusable-contents` replace reusable-content blocks by their content's blocks. */
const Dereferenced = Type.Union([Type.Literal('true'), Type.Literal('false'), Type.Literal('reusable-contents')], {
  description: 'Replace reusable-content blocks by their blocks (`true` or `reusable-contents`) or keep them (`false`, the default)',
});

export const DocumentQuery = Type.Object({
  evaluated: Type.Optional(Evaluated),
  dereferenced: Type.Optional(Dereferenced),
});

export const RevisionPageQuery = Type.Object({
  format: Type.Optional(Type.Union([Type.Literal('document'), Type.Literal('markdown')])),
  'format.markdown.refs': Type.Optional(Type.Union([Type.Literal('relative'), Type.Literal('stable')])),
  evaluated: Type.Optional(Evaluated),
  dereferenced: Type.Optional(Dereferenced),
  metadata: Type.Optional(Type.Boolean({ default: true })),
  cachedMetadata: Type.Optional(Type.Boolean({ default: false })),
  computed: Type.Optional(Type.Boolean({ default: true })),
});

export const ContentReusableContentParams = (withChangeRequest: boolean) =>
  withChangeRequest
    ? Type.Object({ spaceId: Id, changeRequestId: Id, reusableContentId: Id })
    : Type.Object({ spaceId: Id, reusableContentId: Id });

const ChangesLimit = Type.Integer({ minimum: 1, maximum: 1000, default: 10, description: 'How many changes to return (default 10)' });

export const RevisionChangesQuery = Type.Object({
  metadata: Type.Optional(Type.Boolean({ default: true, description: 'false leaves out mutable git metadata' })),
  computed: Type.Optional(Type.Boolean({ default: true, description: 'false skips computed content' })),
  limit: Type.Optional(ChangesLimit),
});

export const ChangeRequestChangesParams = Type.Object({ spaceId: Id, changeRequestId: Id });
export const ChangeRequestChangesQuery = Type.Object({ limit: Type.Optional(ChangesLimit) });

/* Answers: objects let what they do not declare through, as in ../content/schemas.ts. */

/**
 * GitBook's Revision (RevisionTypeEdits, …Merge, …Rollback, …Update, told apart by `type`): always
 * sent as prepared JSON (../json-answer.ts), so this schema documents it and serializes nothing.
 */
export const RevisionSchema = Open(
  {
    object: StringEnum(['revision']),
    id: Type.String(),
    parents: Type.Array(Type.String(), { description: 'IDs of the parent revisions' }),
    tags: Type.Array(Json("GitBook's RevisionTag")),
    createdAt: Timestamp,
    type: StringEnum(['edits', 'merge', 'rollback', 'update']),
    mergedFrom: Type.Optional(ChangeRequestSchema),
    git: Type.Optional(Json("GitBook's GitSyncCommit: the commit this revision was exported to or imported from")),
    urls: Open({ app: Type.String({ format: 'uri' }) }),
    pages: Type.Array(RevisionPage),
    files: Type.Array(RevisionFile),
    reusableContents: Type.Array(RevisionReusableContent),
  },
  { description: "GitBook's Revision" },
);

/** GitBook's RevisionPageMetaLinks. */
export const RevisionPageMetaLinks = Open({
  canonical: Type.Optional(Json("GitBook's RevisionPageMetaLinkTarget")),
  alternates: Type.Optional(Type.Array(Json("GitBook's RevisionPageMetaLinkTarget"))),
});

/** GitBook's RevisionSemanticChanges. */
export const RevisionSemanticChanges = Open({
  mergedFrom: Type.Optional(ChangeRequestSchema),
  changes: Type.Array(
    Open({
      type: StringEnum(['page_created', 'page_edited', 'page_deleted', 'page_moved', 'file_created', 'file_edited', 'file_deleted']),
      page: Type.Optional(Json('page changes: the page (id, title, path)')),
      file: Type.Optional(Json('file changes: the file (id, name, contentType, downloadURL)')),
      attributes: Type.Optional(Json('edits: each attribute changed, before and after')),
      parent: Type.Optional(Json('page_moved: the parent page before and after')),
    }),
  ),
  more: Type.Optional(Type.Number({ description: 'How many changes were left out (above `limit`)' })),
});

export { JsonDocument, RevisionFile, RevisionFileList, RevisionPage, RevisionPages, RevisionReusableContent };
