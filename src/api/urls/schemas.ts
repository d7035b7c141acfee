import { Type } from 'typebox';
import { CollectionSchema } from '../collections/schemas.ts';
import { RevisionPage } from '../content/schemas.ts';
import { Id } from '../schemas.ts';
import { SpaceSchema } from '../spaces/schemas.ts';

const Url = Type.String({ minLength: 1, maxLength: 2048, format: 'uri' });

export const Visitor = Type.Object({
  type: Type.Optional(Type.Union([Type.Literal('human'), Type.Literal('agent')])),
  jwtToken: Type.Optional(Type.String({ maxLength: 16384 })),
  unsignedClaims: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});

export const ResolvePublishedBody = Type.Object({
  url: Url,
  redirectOnError: Type.Optional(Type.Boolean({ default: false })),
  visitor: Type.Optional(Visitor),
});

export const ResolvePublishedQuery = Type.Object({
  url: Url,
  visitorAuthToken: Type.Optional(Type.String({ maxLength: 16384 })),
  redirectOnError: Type.Optional(Type.Boolean({ default: false })),
});

export const PublishedRedirect = Type.Object({
  target: Type.Union([Type.Literal('application'), Type.Literal('content'), Type.Literal('external')]),
  site: Type.Optional(Type.String()),
  redirect: Type.String(),
});

export const PublishedContent = Type.Object({
  site: Type.String(),
  siteSection: Type.Optional(Type.String()),
  siteSpace: Type.String(),
  space: Type.String(),
  changeRequest: Type.Optional(Type.String({ description: 'The change request a preview URL shows (`~/changes/<id>/`)' })),
  revision: Type.Optional(
    Type.String({ description: "The revision the visitor's token reads; in a preview, only the one its URL names (`~/revisions/<id>/`)" }),
  ),
  page: Type.Optional(Type.String()),
  pathname: Type.String(),
  basePath: Type.String(),
  siteBasePath: Type.String(),
  apiToken: Type.String(),
  organization: Type.String(),
  shareKey: Type.Optional(Type.String()),
  complete: Type.Boolean(),
  contextId: Type.Optional(Type.String()),
  canonicalUrl: Type.String(),
  preview: Type.Optional(Type.Boolean({ description: 'Whether the URL is a preview URL' })),
});

export const PublishedLookup = Type.Union([PublishedRedirect, PublishedContent]);

export const UrlQuery = Type.Object({ url: Type.String({ minLength: 1, maxLength: 2048 }) });

export const EmbedSchema = Type.Object({
  title: Type.String(),
  site: Type.String(),
  icon: Type.Optional(Type.String()),
  type: Type.Literal('link'),
});

export const SpaceEmbedParams = Type.Object({ spaceId: Id });

/**
 * What an app URL resolves to (GitBook's getContentByUrl): a collection, or a space with, for a
 * page's URL, the page. One object, the fields of both answers optional; further fields go out as they are.
 */
export const ContentByUrl = Type.Object(
  {
    collection: Type.Optional(CollectionSchema),
    space: Type.Optional(SpaceSchema),
    page: Type.Optional(RevisionPage),
  },
  { additionalProperties: true, description: 'Either `collection`, or `space` (with `page` for the URL of a page)' },
);
