import { Type } from 'typebox';
import { ContentQuery, FilesQuery } from '../content/schemas.ts';
import { Id } from '../schemas.ts';

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
