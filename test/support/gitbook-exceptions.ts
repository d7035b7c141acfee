/**
 * Every place where the suite checks an answer against something else than GitBook's published
 * OpenAPI document (the copy in `@gitbook/api`), with the reason. Nothing else in the suite may
 * loosen a schema or skip an operation: `gitbook-openapi.ts` applies the errata, the answer check
 * (`answer-check.ts`) skips the operations listed here.
 */

type Json = Record<string, unknown>;
type Schemas = Record<string, Json>;

export interface Erratum {
  /** The component schema it patches. */
  schema: string;
  reason: string;
  /** Patches `schemas` in place; throws when the document no longer has the shape it corrects. */
  apply(schemas: Schemas): void;
}

const fail = (schema: string, what: string) => {
  throw new Error(`GitBook's ${schema} schema changed (${what}): review its erratum in test/support/gitbook-exceptions.ts`);
};

const propertiesOf = (schema: Json | undefined): Record<string, Json> => (schema?.properties ?? {}) as Record<string, Json>;

/**
 * Corrections of GitBook's schemas where as written they refuse what GitBook's own API answers
 * and its renderer reads, so that no real answer could pass.
 */
export const ERRATA: Erratum[] = [
  {
    schema: 'DocumentInlineButton',
    reason:
      '`data` is `allOf: [{label, kind, size, icon}, oneOf: [{ref}, {action}]]` and both branches of the `oneOf` say ' +
      '`additionalProperties: false`, which refuses `label` and `kind` (declared in the other half of the `allOf`): ' +
      'no button validates, GitBook’s own included. The branches are kept without that keyword.',
    apply(schemas) {
      const data = propertiesOf(schemas.DocumentInlineButton).data as { allOf?: Json[] } | undefined;
      const branches = (data?.allOf?.[1] as { oneOf?: Json[] } | undefined)?.oneOf;
      if (!branches || branches.length !== 2) fail('DocumentInlineButton', 'data.allOf[1].oneOf');
      for (const branch of branches!) delete branch.additionalProperties;
    },
  },
  {
    schema: 'DocumentTableRecord',
    reason:
      '`values` is a `oneOf` whose `ContentRef` and `DocumentTableImageRecord` branches both accept a URL or file ' +
      'reference, so such a cell (a card’s target, a cover given as a reference) matches twice and fails. It is read as `anyOf`.',
    apply(schemas) {
      const values = propertiesOf(schemas.DocumentTableRecord).values as { additionalProperties?: Json } | undefined;
      const cell = values?.additionalProperties;
      if (!Array.isArray(cell?.oneOf)) fail('DocumentTableRecord', 'values.additionalProperties.oneOf');
      cell!.anyOf = cell!.oneOf;
      delete cell!.oneOf;
    },
  },
  {
    schema: 'RevisionSemanticChangePageEdited',
    reason:
      '`attributes` is a `oneOf` of the document, group and link attribute schemas, which all accept an object with ' +
      'a `title` (or an `emoji`, a `slug`) and none forbids the others’ properties: a page renamed matches all three, ' +
      'so no such edit can pass. It is read as `anyOf`.',
    apply(schemas) {
      const attributes = propertiesOf(schemas.RevisionSemanticChangePageEdited).attributes;
      if (!Array.isArray(attributes?.oneOf) || attributes.oneOf.length !== 3) fail('RevisionSemanticChangePageEdited', 'attributes.oneOf');
      attributes!.anyOf = attributes!.oneOf;
      delete attributes!.oneOf;
    },
  },
  {
    schema: 'OrganizationSAMLProvider',
    reason:
      'GitBook creates a provider from a `label` alone (its createOrganizationSAMLProvider body requires nothing else) and ' +
      'calls it `pending` until the identity provider’s details are set, yet requires every answer’s `ssoURL` to be a URL: ' +
      'a pending provider has none. Its `ssoURL` may be empty; once set it is checked as a URL.',
    apply(schemas) {
      const properties = propertiesOf(schemas.OrganizationSAMLProvider);
      if (properties.ssoURL?.$ref !== '#/components/schemas/URL') fail('OrganizationSAMLProvider', 'ssoURL is no longer a URL');
      properties.ssoURL = { anyOf: [properties.ssoURL, { const: '' }] };
    },
  },
  {
    schema: 'PlainObject',
    reason:
      'it does not say `type: object`, so a string (an integration block’s property) matches both it and ' +
      '`type: string` in the `oneOf` that uses it. It is given its type.',
    apply(schemas) {
      if (!schemas.PlainObject) fail('PlainObject', 'missing');
      schemas.PlainObject.type = 'object';
    },
  },
  {
    schema: 'OpenAPISpecContent',
    reason:
      '`filesystem` is typed as a plain `object`, but GitBook’s renderer casts it to its openapi-parser’s `Filesystem`, an ' +
      'ARRAY of `{dir, isEntrypoint, references, filename, specification}` in which it finds the entry point ' +
      '(packages/gitbook/src/lib/references.tsx, packages/react-openapi/src/dereference.ts): an object cannot render. ' +
      'It is checked against that array instead, no looser than it.',
    apply(schemas) {
      const filesystem = propertiesOf(schemas.OpenAPISpecContent).filesystem;
      if (filesystem?.type !== 'object' || Object.keys(filesystem).some((key) => key !== 'type' && key !== 'description')) {
        fail('OpenAPISpecContent', 'filesystem is no longer a plain object');
      }
      propertiesOf(schemas.OpenAPISpecContent).filesystem = {
        description: filesystem.description,
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          required: ['dir', 'isEntrypoint', 'references', 'filename', 'specification'],
          properties: {
            dir: { type: 'string' },
            isEntrypoint: { type: 'boolean' },
            references: { type: 'array', items: { type: 'string' } },
            filename: { type: 'string' },
            specification: {},
          },
        },
        contains: { type: 'object', properties: { isEntrypoint: { const: true } } },
        minContains: 1,
        maxContains: 1,
      };
    },
  },
];

/**
 * Where this service's contract (service-api.md) differs from GitBook's schema, which is then
 * read as the contract says.
 */
export const CONTRACT_DIFFERENCES: Erratum[] = [
  {
    schema: 'Translation',
    reason:
      'the contract creates translation settings from a `title` alone (`POST /v1/orgs/{organizationId}/translations`, ' +
      'body: `title` required) and answers them before a `source` and a `language` are set; GitBook requires both in ' +
      'every answer. They are optional here, and checked as GitBook types them whenever they are set.',
    apply(schemas) {
      const required = schemas.Translation?.required;
      if (!Array.isArray(required) || !required.includes('source') || !required.includes('language')) {
        fail('Translation', 'source and language are no longer both required');
      }
      schemas.Translation.required = (required as string[]).filter((field) => field !== 'source' && field !== 'language');
    },
  },
];

/**
 * GitBook operations whose answers the suite does not check against GitBook's schema, by
 * operation id. Each says why; an entry whose reason has gone must go too.
 */
export const UNCHECKED_OPERATIONS: Record<string, string> = {};
