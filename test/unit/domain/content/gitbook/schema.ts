/**
 * Validation of documents against the `JSONDocument` schema of GitBook's OpenAPI document (the
 * copy bundled with `@gitbook/api`), with the errata that test/support/gitbook-exceptions.ts lists.
 */
import { schemaErrors } from '../../../../support/gitbook-openapi.ts';

/** The schema errors of `document` (empty when it is a valid GitBook JSON document). */
export function documentErrors(document: unknown): string[] {
  return schemaErrors('JSONDocument', document).slice(0, 20);
}

/** Throws with the schema errors when `document` is not a valid GitBook JSON document. */
export function expectValidDocument(document: unknown): void {
  const errors = documentErrors(document);
  if (errors.length) throw new Error(`Not a valid GitBook JSONDocument:\n  ${errors.join('\n  ')}`);
}
