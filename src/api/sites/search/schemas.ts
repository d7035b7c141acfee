import { Type } from 'typebox';
import { Id, ListOf, ListQuery } from '../../schemas.ts';
import { SearchPageResult } from '../../search/schemas.ts';

/** Site search: GitBook's searchSiteContent request (its `scope`, or the older `mode` fields) and answer. */

const SiteSpaceIds = Type.Array(Id, { minItems: 1, maxItems: 1000 });

export const SiteSearchScope = Type.Union([
  Type.Object({
    mode: Type.Literal('default'),
    currentSiteSpace: Type.Optional(Id),
    restrictTo: Type.Optional(Type.Union([Type.Literal('currentSiteSpace'), Type.Literal('otherSiteSpaces')])),
  }),
  Type.Object({ mode: Type.Literal('specific'), siteSpaceIds: SiteSpaceIds }),
  Type.Object({ mode: Type.Literal('all') }),
]);

export const SiteSearchBody = Type.Object({
  query: Type.String({ minLength: 1, maxLength: 512, description: 'Words to find (web-search syntax: "phrases", -excluded, or)' }),
  scope: Type.Optional(SiteSearchScope),
  mode: Type.Optional(
    Type.Union([Type.Literal('specific'), Type.Literal('current'), Type.Literal('all')], { description: 'Deprecated: use scope' }),
  ),
  siteSpaceId: Type.Optional(Id),
  siteSpaceIds: Type.Optional(SiteSpaceIds),
});

export const SiteSearchQuery = ListQuery;

export const SearchSpaceResult = Type.Object({
  type: Type.Literal('space'),
  id: Type.String({ description: 'The space searched' }),
  title: Type.String(),
  score: Type.Number(),
  pages: Type.Array(SearchPageResult),
});

export const SiteSearchResults = ListOf(SearchSpaceResult);
