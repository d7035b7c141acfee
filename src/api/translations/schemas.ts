import { Type } from 'typebox';
import { TRANSLATION_LANGUAGES } from '../../domain/languages.ts';
import { Id, ListOf, Timestamp } from '../schemas.ts';

export const TranslationLanguage = Type.Union(TRANSLATION_LANGUAGES.map((l) => Type.Literal(l)));
export const TranslationTitle = Type.String({ minLength: 1, maxLength: 100 });
/** BCP 47 codes; each is checked and canonicalised with Intl.getCanonicalLocales. */
export const Languages = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 100 });
export const Source = Type.Object({ space: Id, language: TranslationLanguage });
/** GitBook's JSON document (`object: document`, `data`, `nodes`); kept as given. */
export const Instructions = Type.Object(
  {
    object: Type.Literal('document'),
    data: Type.Record(Type.String(), Type.Unknown()),
    nodes: Type.Array(Type.Unknown()),
  },
  { additionalProperties: true },
);
/** Largest accepted `instructions`, as JSON text. */
export const MAX_INSTRUCTIONS_CHARS = 100_000;

const Stats = Type.Object({
  runs: Type.Integer(),
  totalWords: Type.Integer(),
  totalPages: Type.Integer(),
  totalDuration: Type.Integer(),
  latestRunDuration: Type.Integer(),
  latestPages: Type.Integer(),
  latestWords: Type.Integer(),
});

export const TranslationSchema = Type.Object({
  object: Type.Literal('translation'),
  id: Type.String(),
  title: Type.String(),
  languages: Type.Array(Type.String()),
  status: Type.Union([Type.Literal('pending'), Type.Literal('running'), Type.Literal('completed')]),
  source: Type.Optional(Source),
  language: Type.Optional(TranslationLanguage),
  instructions: Instructions,
  stats: Stats,
  createdAt: Timestamp,
  updatedAt: Timestamp,
  permissions: Type.Object({ view: Type.Boolean(), edit: Type.Boolean() }),
  urls: Type.Object({ location: Type.String() }),
});
export const TranslationList = ListOf(TranslationSchema);

export const OrgParams = Type.Object({ organizationId: Id });
export const TranslationParams = Type.Object({ organizationId: Id, translationId: Id });

/** Create and update take the same body: the spec's `title` (required) and `languages`, and GitBook's fields. */
export const TranslationBody = Type.Object({
  title: TranslationTitle,
  languages: Type.Optional(Languages),
  source: Type.Optional(Source),
  language: Type.Optional(TranslationLanguage),
  instructions: Type.Optional(Instructions),
});
