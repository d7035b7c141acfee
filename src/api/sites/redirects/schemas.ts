import { Type } from 'typebox';
import { MAX_SOURCE_LENGTH, SOURCE_PATTERN } from '../../../domain/sites/redirects.ts';
import { Id, ListOf, ListQuery, Timestamp } from '../../schemas.ts';

/** Site redirects: the shapes of GitBook's SiteRedirect and its inputs. */

/** A path of the site: `/` then segments of URL characters; one `*` at the very end makes it a prefix. */
export const SourcePath = Type.String({
  maxLength: MAX_SOURCE_LENGTH,
  pattern: SOURCE_PATTERN,
  description: 'The source path to redirect from',
});

const ExternalUrl = Type.String({ format: 'uri', maxLength: 2048, pattern: '^https?://' });

const ToSection = Type.Object({ kind: Type.Literal('site-section'), siteSectionId: Id });
const ToSiteSpace = Type.Object({ kind: Type.Literal('site-space'), siteSpaceId: Id });
const ToPage = Type.Object({ kind: Type.Literal('site-page'), siteSpaceId: Id, pageId: Id });
const ToExternal = Type.Object({ kind: Type.Literal('external'), url: ExternalUrl });
/** Input only: a page of a space by its path, stored as the page of the site-space publishing it. */
const ToPath = Type.Object({ kind: Type.Literal('path'), spaceId: Id, path: Type.String({ maxLength: 1024 }) });

export const Destination = Type.Union([ToSection, ToSiteSpace, ToPage, ToExternal]);
export const InputDestination = Type.Union([ToSection, ToSiteSpace, ToPage, ToExternal, ToPath]);

export const RedirectParams = Type.Object({ organizationId: Id, siteId: Id, siteRedirectId: Id });

export const RedirectOrderBy = Type.Union([Type.Literal('createdAt'), Type.Literal('updatedAt'), Type.Literal('source')]);

export const ListRedirectsQuery = Type.Intersect([
  ListQuery,
  Type.Object({
    search: Type.Optional(Type.String({ maxLength: 512, description: 'Only redirects whose source contains this' })),
    draft: Type.Optional(Type.Boolean({ default: false })),
    orderBy: Type.Optional(RedirectOrderBy),
  }),
]);

export const CreateRedirectBody = Type.Object({
  source: SourcePath,
  captureWildcard: Type.Optional(Type.Boolean({ default: false })),
  draft: Type.Optional(Type.Boolean({ default: false })),
  permanent: Type.Optional(Type.Boolean({ default: false })),
  destination: InputDestination,
});

export const UpdateRedirectBody = Type.Object(
  {
    source: Type.Optional(SourcePath),
    captureWildcard: Type.Optional(Type.Boolean()),
    draft: Type.Optional(Type.Boolean()),
    permanent: Type.Optional(Type.Boolean()),
    destination: Type.Optional(InputDestination),
  },
  { minProperties: 1 },
);

/** The most redirects one bulk request changes. */
export const BULK_MAX = 500;

export const BulkRedirectsBody = Type.Object({
  redirects: Type.Array(
    Type.Union([
      Type.Object({ source: SourcePath, intent: Type.Literal('publish') }),
      Type.Object({
        source: SourcePath,
        intent: Type.Optional(Type.Union([Type.Literal('live'), Type.Literal('draft')])),
        captureWildcard: Type.Optional(Type.Boolean()),
        permanent: Type.Optional(Type.Boolean()),
        destination: Type.Union([InputDestination, Type.Null()]),
      }),
    ]),
    { minItems: 1, maxItems: BULK_MAX },
  ),
});

export const RedirectBySourceQuery = Type.Object({
  source: SourcePath,
  shareKey: Type.Optional(Type.String({ maxLength: 512 })),
});

export const SiteRedirectSchema = Type.Object({
  object: Type.Literal('site-redirect'),
  id: Type.String(),
  source: Type.String(),
  draft: Type.Boolean(),
  captureWildcard: Type.Boolean(),
  permanent: Type.Boolean(),
  destination: Destination,
  createdAt: Timestamp,
  updatedAt: Type.Optional(Timestamp),
});
export const SiteRedirectList = ListOf(SiteRedirectSchema);

const Outcome = (status: string, withId: boolean) =>
  Type.Object({
    status: Type.Literal(status),
    source: Type.String(),
    draft: Type.Boolean(),
    ...(withId ? { id: Type.String() } : {}),
  });

export const BulkRedirectsResult = Type.Object({
  results: Type.Array(
    Type.Union([
      Outcome('created', true),
      Outcome('updated', true),
      Outcome('deleted', false),
      Outcome('published', true),
      Type.Object({ status: Type.Literal('error'), source: Type.String(), draft: Type.Boolean(), error: Type.String() }),
    ]),
  ),
});

export const RedirectLookup = Type.Object({ redirect: SiteRedirectSchema, target: Type.String() });
