import { Type } from 'typebox';
import { OPENAPI_SLUG_PATTERN, PROCESS_ERROR_CODES, PROCESSING_STATES } from '../../domain/openapi.ts';
import { Id, ListOf, Timestamp } from '../schemas.ts';

const bool = Type.Boolean();

export const SpecSlug = Type.String({ minLength: 1, maxLength: 100, pattern: OPENAPI_SLUG_PATTERN });

export const OpenApiSpecSchema = Type.Object({
  object: Type.Literal('openapi-spec'),
  id: Type.String(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  slug: Type.String(),
  sourceURL: Type.Optional(Type.String({ description: 'Source URL, credentials redacted; absent for text sources' })),
  processingState: Type.Union(PROCESSING_STATES.map((s) => Type.Literal(s))),
  lastVersion: Type.Optional(Type.String()),
  lastProcessedAt: Type.Optional(Timestamp),
  lastProcessErrorCode: Type.Optional(Type.Union(PROCESS_ERROR_CODES.map((c) => Type.Literal(c)))),
  lastProcessedErrors: Type.Array(Type.Object({ code: Type.String(), message: Type.String() }), {
    description:
      'Why the last processing failed; `code` is the precise reason (FETCH_TIMEOUT, ADDRESS_NOT_ALLOWED, HTTP_ERROR, TOO_LARGE, SYNTAX_ERROR, INVALID_SPEC, …)',
  }),
  lastProcessedErrorCount: Type.Integer({ minimum: 0 }),
  permissions: Type.Object({ view: bool, edit: bool }),
  urls: Type.Object({ location: Type.String(), app: Type.String() }),
});
export const OpenApiSpecList = ListOf(OpenApiSpecSchema);

export const OpenApiSpecVersionSchema = Type.Object({
  object: Type.Literal('openapi-spec-version'),
  id: Type.String(),
  createdAt: Timestamp,
  url: Type.String(),
  urls: Type.Object({ location: Type.String() }),
});
export const OpenApiSpecVersionList = ListOf(OpenApiSpecVersionSchema);

/** A document of a spec's content, as GitBook's renderer reads it (its openapi-parser's `FilesystemEntry`). */
export const OpenApiFilesystemEntry = Type.Object({
  dir: Type.String({ description: 'Directory part of `filename`; `.` for the entry document' }),
  isEntrypoint: Type.Boolean({ description: 'True for the entry document only (the first)' }),
  references: Type.Array(Type.String(), { description: 'Filenames of the documents its `$ref`s point to' }),
  filename: Type.String({
    description:
      'The document relative to the entry document (`openapi.yaml`, `paths/pets.yaml`, `../common.json`), its URL when on another host or referenced from a text source, `openapi.json`/`openapi.yaml` for the entry of a text source; every `$ref` to another document names it by this filename',
  }),
  specification: Type.Unknown({ description: 'The parsed document' }),
});

export const OpenApiSpecContentSchema = Type.Object({
  filesystem: Type.Array(OpenApiFilesystemEntry, {
    minItems: 1,
    description:
      "Every document of the spec, the entry document first: the list GitBook's renderer parses (GitBook's published schema says only `object`)",
  }),
  url: Type.String(),
  urls: Type.Object({ source: Type.String(), public: Type.Null() }),
});

/** Source of a spec: exactly one of `url` and `text` (checked in the handler, for a clear message). */
export const SpecSource = Type.Object({
  url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'http or https URL of the definition (JSON or YAML)' })),
  text: Type.Optional(Type.String({ minLength: 1, description: 'The definition itself, JSON or YAML' })),
});

export const CreateSpecBody = Type.Object({ slug: SpecSlug, source: SpecSource });
export const PutSpecBody = Type.Object({ source: SpecSource });

export const OrgParams = Type.Object({ organizationId: Id });
export const SpecParams = Type.Object({ organizationId: Id, specSlug: SpecSlug });
export const VersionParams = Type.Object({ organizationId: Id, specSlug: SpecSlug, versionId: Id });
