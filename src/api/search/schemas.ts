import { Type } from 'typebox';
import { Id, ListOf } from '../schemas.ts';

export const SearchParams = Type.Object({ spaceId: Id });

export const SearchQuery = Type.Object({
  query: Type.String({ minLength: 1, maxLength: 512, description: 'Words to find (web-search syntax: "phrases", -excluded, or)' }),
  page: Type.Optional(Type.String({ maxLength: 1024, description: 'Cursor from `next.page` of the previous answer' })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'Pages per answer (default 100, at most 1000)' })),
});

const ResultType = Type.Union([Type.Literal('page'), Type.Literal('section')]);

export const SearchSectionResult = Type.Object({
  id: Type.String({ description: 'Anchor of the heading; empty for the text before the first heading' }),
  title: Type.String(),
  path: Type.String({ description: 'Page path, then `#` and the section id' }),
  score: Type.Number(),
  resultType: ResultType,
  body: Type.String({ description: 'Extract of the section around the matched words' }),
  urls: Type.Object({ app: Type.String() }),
});

export const SearchPageResult = Type.Object({
  id: Type.String(),
  title: Type.String(),
  description: Type.String(),
  path: Type.String(),
  score: Type.Number(),
  rank: Type.Integer({ description: 'One-based position in the whole ranked result set' }),
  resultType: ResultType,
  sections: Type.Array(SearchSectionResult),
  ancestors: Type.Array(Type.Object({ title: Type.String() })),
  urls: Type.Object({ app: Type.String() }),
});

export const SearchResults = ListOf(SearchPageResult);
