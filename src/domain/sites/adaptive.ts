import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { sharedCache } from '../lru.ts';
import { compiledSchemaBytes, entryBytes } from '../sizeof.ts';

/**
 * The adaptive schema of a site: a draft-07 JSON Schema describing what a visitor may claim.
 * Its accepted form (GitBook's): an object schema whose properties are claims, each a boolean,
 * string or number with a description (or an array/object of those), plus an `unsigned` object
 * holding the claims a visitor sends unsigned; `additionalProperties: false` at every object level.
 * Both the form and the schema itself are checked with Ajv.
 */

const claim = {
  $id: 'claim',
  oneOf: [
    {
      type: 'object',
      properties: { type: { enum: ['boolean', 'string', 'number'] }, description: { type: 'string' } },
      required: ['type', 'description'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        type: { const: 'array' },
        description: { type: 'string' },
        items: {
          type: 'object',
          properties: { type: { enum: ['boolean', 'string', 'number'] }, description: { type: 'string' } },
          required: ['type'],
          additionalProperties: false,
        },
      },
      required: ['type', 'description', 'items'],
      additionalProperties: false,
    },
    {
      type: 'object',
      properties: {
        type: { const: 'object' },
        description: { type: 'string' },
        properties: { type: 'object', additionalProperties: { $ref: 'claim' } },
        additionalProperties: { const: false },
      },
      required: ['type', 'description', 'properties', 'additionalProperties'],
      additionalProperties: false,
    },
  ],
};

const form = {
  type: 'object',
  properties: {
    $schema: { const: 'http://json-schema.org/draft-07/schema#' },
    type: { const: 'object' },
    properties: {
      type: 'object',
      properties: {
        unsigned: {
          type: 'object',
          properties: {
            type: { const: 'object' },
            description: { type: 'string' },
            properties: { type: 'object', additionalProperties: { $ref: 'claim' } },
            additionalProperties: { const: false },
          },
          required: ['type', 'properties', 'additionalProperties'],
          additionalProperties: false,
        },
      },
      additionalProperties: { $ref: 'claim' },
    },
    required: { type: 'array', items: { type: 'string' } },
    additionalProperties: { const: false },
  },
  required: ['type', 'properties', 'additionalProperties'],
  additionalProperties: false,
};

const formAjv = new Ajv({ allErrors: false, strict: false });
formAjv.addSchema(claim);
const checkForm = formAjv.compile(form);

/** A separate instance compiles the sites' own schemas (draft-07 is Ajv's default). */
const claimsAjv = new Ajv({ allErrors: true, strict: false });

function describe(errors: ErrorObject[] | null | undefined, root: string): string {
  const first = errors?.[0];
  if (!first) return `${root} is not valid`;
  const where = `${root}${first.instancePath.replace(/\//g, '.')}`;
  const extra = (first.params as { additionalProperty?: string }).additionalProperty;
  if (extra) return `${where}.${extra} is not allowed`;
  const missing = (first.params as { missingProperty?: string }).missingProperty;
  if (missing) return `${where}.${missing} is required`;
  if (first.keyword === 'oneOf')
    return `${where} must be a claim: {type: boolean|string|number, description}, an array of those, or an object of claims`;
  return `${where} ${first.message}`;
}

/** The schema GitBook starts a site with, until one is set: no claims. */
export const EMPTY_ADAPTIVE_SCHEMA = {
  type: 'object',
  properties: {
    unsigned: { type: 'object', description: 'Unsigned claims of the site visitor.', properties: {}, additionalProperties: false },
  },
  additionalProperties: false,
};

/** What is wrong with an adaptive schema, or null when it is acceptable. */
export function adaptiveSchemaProblem(schema: unknown): string | null {
  if (!checkForm(schema)) return describe(checkForm.errors, 'jsonSchema');
  try {
    claimsAjv.compile(schema as object);
  } catch (error) {
    return `jsonSchema is not a valid JSON Schema: ${(error as Error).message}`;
  } finally {
    // Ajv keeps what it compiles: a schema compiled only to be checked must not stay.
    claimsAjv.removeSchema(schema as object);
  }
  return null;
}

/**
 * The `unsigned` parts of sites' schemas compiled by this process, by their JSON text, within the
 * `claimsSchemas` share of CACHE_MEMORY (a schema of ten properties: about 30 KB compiled); a
 * schema leaving this cache (or too large to enter it) leaves Ajv's own cache too.
 */
const validators = sharedCache<string, { schema: object; validate: ValidateFunction }>(
  'claimsSchemas',
  (entry, key) => entryBytes(key, null, compiledSchemaBytes(entry.schema, entry.validate)),
  (_key, entry) => claimsAjv.removeSchema(entry.schema),
);

/**
 * Checks a visitor's unsigned claims against the `unsigned` part of a site's adaptive schema.
 * Returns what is wrong, or null. Without a schema (or without an `unsigned` part) no unsigned
 * claim is accepted.
 */
export function unsignedClaimsProblem(schema: unknown, claims: Record<string, unknown>): string | null {
  const unsigned = (schema as { properties?: { unsigned?: object } } | null)?.properties?.unsigned;
  if (!unsigned) return Object.keys(claims).length === 0 ? null : 'visitor.unsignedClaims: the site accepts no unsigned claims';
  const key = JSON.stringify(unsigned);
  let entry = validators().get(key);
  if (!entry) {
    entry = { schema: unsigned, validate: claimsAjv.compile(unsigned) };
    validators().set(key, entry);
    if (!validators().has(key)) claimsAjv.removeSchema(unsigned);
  }
  const { validate } = entry;
  return validate(claims) ? null : describe(validate.errors, 'visitor.unsignedClaims');
}
