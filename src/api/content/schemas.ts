import { Type, type TObjectOptions, type TProperties } from 'typebox';
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

/*
 * Answers. Fastify serializes an object answer with a serializer compiled from its schema, which
 * writes only the fields a schema declares: every object here lets the fields it does not declare
 * through (`additionalProperties: true`), and what nests without bound (page trees, documents) is
 * declared as any JSON, so a schema documents an answer and never cuts it. Enums are `enum` lists,
 * not unions: a union is resolved by validating the value on every answer.
 */

/** An object whose declared fields document it; any other field goes out as it is. */
export const Open = <T extends TProperties>(properties: T, options: TObjectOptions = {}) =>
  Type.Object(properties, { ...options, additionalProperties: true });

/** One of these strings (a JSON Schema `enum`). */
export const StringEnum = <const T extends readonly string[]>(values: T, options: { description?: string } = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** Any JSON value: what nests without bound (documents, page trees) or is GitBook's to define. */
export const Json = (description: string) => Type.Unknown({ description });

const Url = Type.String({ format: 'uri' });

/** GitBook's RevisionFile. */
export const RevisionFile = Open({
  id: Type.String(),
  name: Type.String(),
  contentType: Type.String(),
  downloadURL: Type.String({ description: 'Where the bytes are downloaded (for a site visitor, a signed link that needs no token)' }),
  size: Type.Number(),
  dimensions: Type.Optional(Open({ width: Type.Number(), height: Type.Number() }, { description: 'For images, their dimensions' })),
  git: Type.Optional(Json("GitBook's GitSyncBlob")),
});

/** A page of the files of a revision (GitBook's List of RevisionFile). */
export const RevisionFileList = Open({
  items: Type.Array(RevisionFile),
  count: Type.Number({ description: 'Total count of files' }),
  next: Type.Optional(Open({ page: Type.String({ description: 'Cursor of the next page' }) })),
});

/** GitBook's JSONDocument: the nodes nest without bound and are GitBook's document model. */
export const JsonDocument = Open(
  {
    object: StringEnum(['document']),
    data: Open({ schemaVersion: Type.Optional(Type.Integer()) }),
    nodes: Type.Array(Json("A top-level block (GitBook's DocumentBlocksTopLevels)")),
    meta: Type.Optional(Open({ token: Type.Optional(Type.String()) })),
  },
  { description: "GitBook's JSONDocument" },
);

/**
 * GitBook's RevisionPage (RevisionPageDocument, RevisionPageGroup or RevisionPageLink, told apart
 * by `type`) as one object: the fields of every kind, required where every kind has them.
 */
export const RevisionPage = Open(
  {
    id: Type.String({ description: 'Unique identifier for the page in the revision' }),
    title: Type.String(),
    emoji: Type.Optional(Type.String()),
    icon: Type.Optional(Type.String()),
    kind: StringEnum(['sheet', 'group', 'link'], { description: 'Deprecated: `type` says the same' }),
    type: StringEnum(['document', 'group', 'link']),
    slug: Type.String({ description: "Page's slug in its direct parent" }),
    path: Type.String({ description: 'Complete path to access the page in the revision' }),
    hidden: Type.Boolean({ description: 'Not shown in the navigation, still reachable' }),
    noIndex: Type.Boolean({ description: 'Left out of search and ask' }),
    noRobotsIndex: Type.Boolean({ description: 'Not indexed by search engine robots' }),
    description: Type.Optional(Type.String({ description: 'document pages' })),
    markdown: Type.Optional(Type.String({ description: 'document pages: the content as markdown (unless `format=document`)' })),
    document: Type.Optional(Type.Unknown({ description: "document pages with `format=document`: GitBook's JSONDocument" })),
    urls: Type.Optional(Open({ app: Url }, { description: 'document pages: the page in the app' })),
    layout: Type.Optional(Open({}, { description: "document pages: GitBook's RevisionPageLayoutOptions" })),
    cover: Type.Optional(Json("document pages: GitBook's RevisionPageDocumentCover")),
    tags: Type.Optional(Type.Array(Json("GitBook's RevisionPageTag"), { description: 'document pages' })),
    target: Type.Optional(Json("link pages: GitBook's ContentRef")),
    href: Type.Optional(Type.String({ description: 'link pages' })),
    pages: Type.Array(Json('A child page: a RevisionPage'), { description: 'The pages under this one' }),
  },
  { description: "GitBook's RevisionPage: a document, group or link page (`type`)" },
);

/** GitBook's answer listing the pages of a revision, as a tree. */
export const RevisionPages = Open({ pages: Type.Array(RevisionPage) });

/** GitBook's RevisionReusableContent. */
export const RevisionReusableContent = Open({
  id: Type.String(),
  title: Type.String(),
  path: Type.Optional(Type.String({ description: 'Where it lives in a synced repository' })),
  git: Type.Optional(Json("GitBook's GitSyncBlob")),
});

/** The bytes of a file, as the file's own content type. */
export const FileBytes = {
  description: "The file's bytes, as its own content type",
  content: { '*/*': { schema: { type: 'string', format: 'binary' } } },
} as const;

/** A redirect to where the bytes are served (a blob store's presigned link): no body. */
export const DownloadRedirect = Type.Null({ description: 'Redirect to a temporary link of the bytes (`location`)' });
