/**
 * Validation of documents against the `JSONDocument` schema of GitBook's OpenAPI document (the
 * copy bundled with `@gitbook/api`), registered whole so that its `#/components/...` references
 * resolve as in the original.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import type { ValidateFunction } from 'ajv';

const DOCUMENT_ID = 'https://gitbook.test/openapi.json';
const require = createRequire(import.meta.url);
const spec = JSON.parse(readFileSync(require.resolve('@gitbook/api/spec/openapi.json'), 'utf8')) as Record<string, unknown>;

type Json = Record<string, unknown>;
const schemas = (spec.components as { schemas: Record<string, Json> }).schemas;

/*
 * Three errata in the published schemas, without which no document holding these nodes validates:
 * - `DocumentInlineButton.data` is `allOf: [{label, kind, icon}, oneOf: [{ref}, {action}]]`, and
 *   both branches say `additionalProperties: false`, which rejects `label` and `kind` (declared in
 *   the other half of the `allOf`) in every button. The branches are kept, without that keyword.
 * - `DocumentTableRecord.values` is a `oneOf` whose `ContentRef` and `DocumentTableImageRecord`
 *   branches both accept a URL or file reference, so such a cell (a card target, a cover) matches
 *   twice. It is read as `anyOf`.
 * - `PlainObject` (integration block properties) does not say `type: object`, so a string value
 *   matches both it and `type: string` in its own `oneOf`. It is given its type.
 */
const buttonData = ((schemas.DocumentInlineButton.properties as Json).data as { allOf: Json[] }).allOf[1] as { oneOf: Json[] };
for (const branch of buttonData.oneOf) delete branch.additionalProperties;
schemas.PlainObject.type = 'object';
const recordValues = ((schemas.DocumentTableRecord.properties as Json).values as Json).additionalProperties as Json;
recordValues.anyOf = recordValues.oneOf;
delete recordValues.oneOf;

const validators = new Map<boolean, ValidateFunction>();

/** A validator; the one listing all errors is much slower on GitBook's nested `oneOf`s, so it only explains failures. */
function validator(allErrors: boolean): ValidateFunction {
  const known = validators.get(allErrors);
  if (known) return known;
  const ajv = new Ajv2020({ strict: false, allErrors, validateFormats: true });
  ajvFormats.default(ajv);
  for (const keyword of ['discriminator', 'example', 'xml', 'externalDocs', 'x-typescript', 'x-internal']) ajv.addKeyword(keyword);
  for (const format of ['emoji', 'icon']) ajv.addFormat(format, true);
  ajv.addSchema(spec, DOCUMENT_ID);
  const validate = ajv.compile({ $ref: `${DOCUMENT_ID}#/components/schemas/JSONDocument` });
  validators.set(allErrors, validate);
  return validate;
}

/** The schema errors of `document` (empty when it is a valid GitBook JSON document). */
export function documentErrors(document: unknown): string[] {
  if (validator(false)(document)) return [];
  const check = validator(true);
  check(document);
  // `oneOf` reports every branch; the deepest paths are the ones that say what is wrong.
  const errors = (check.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`);
  const depth = (e: string) => e.split(' ')[0].split('/').length;
  const deepest = Math.max(...errors.map(depth));
  return [...new Set(errors.filter((e) => depth(e) >= deepest - 1))].slice(0, 20);
}

/** Throws with the schema errors when `document` is not a valid GitBook JSON document. */
export function expectValidDocument(document: unknown): void {
  const errors = documentErrors(document);
  if (errors.length) throw new Error(`Not a valid GitBook JSONDocument:\n  ${errors.join('\n  ')}`);
}
