/**
 * Validation of a whole OpenAPI definition, as one call a bounded worker thread runs
 * (activities/openapi-processing.ts): bundling the documents into one, measuring what its `$ref`s
 * expand to, then `@readme/openapi-parser`'s `validate` (Swagger 2.0, OpenAPI 3.0 and 3.1).
 *
 * The validator dereferences the definition and then walks the result as a tree: a schema reached
 * through two `$ref`s is walked twice, and a chain of schemas each referring to the previous one
 * twice doubles the walk at every link. Forty such schemas (5 KB of text) make 2^40 nodes, which the
 * validator walks until it is stopped. So the expansion is measured first, in time linear in the
 * definition (each `$ref` target measured once), and a definition that expands past
 * MAX_EXPANDED_NODES is refused (TOO_COMPLEX) before the validator sees it. What the measure cannot
 * foresee is bounded by the thread's deadline and heap.
 */
import { validate as validateSpec } from '@readme/openapi-parser';
import { SpecProcessingError, bundleForValidation, type ProcessErrorDetail } from './openapi.ts';

/**
 * The most JSON nodes (objects, arrays and values) a definition may have once its `$ref`s are
 * replaced by what they point to (refExpansionSize). The validator walks a few million of them
 * in a few seconds (a fan-out of 5.2 million nodes: 3 to 7 s here); real definitions stay far below
 * (GitBook's own 1.7 MB definition, hundreds of `$ref`s between recursive blocks: 216,000), while
 * the 5 KB fan-out of 40 schemas each referring twice to the previous one stands for 5.5 × 10^12.
 */
export const MAX_EXPANDED_NODES = 4_000_000;

/** How deep the measure follows objects within objects and `$ref`s within `$ref`s (the validator's own limit is 500). */
export const MAX_EXPANSION_DEPTH = 1_000;

export type ValidationResult = { ok: true } | { ok: false; code: ProcessErrorDetail; message: string };

const count = (n: number) => n.toLocaleString('en-US');

/** The value a local JSON pointer (`#`, `#/a/b~1c`, percent-encoded or not) names in `document`, or undefined. */
export function resolvePointer(document: unknown, ref: string): unknown {
  if (ref === '#') return document;
  let value: unknown = document;
  for (const raw of ref.slice(2).split('/')) {
    let token: string;
    try {
      token = decodeURIComponent(raw);
    } catch {
      token = raw;
    }
    token = token.replace(/~1/g, '/').replace(/~0/g, '~');
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, token)) return undefined;
    value = (value as Record<string, unknown>)[token];
  }
  return value;
}

/**
 * How many JSON nodes `document` has once its local `$ref`s (`#` or `#/…`, those the validator
 * follows) are replaced by what they point to, as the validator replaces them: a `$ref` whose
 * target reaches a cycle (a `$ref` to an object that holds it, directly or through other `$ref`s)
 * stays a `$ref`, and so does one that points nowhere; every other `$ref` becomes a copy of its
 * target, itself expanded. Each object is measured once (its size and whether it reaches a cycle
 * do not depend on where it is reached from), so the measure takes time linear in the document.
 * Throws SpecProcessingError TOO_COMPLEX as soon as the count passes `limit`, or when objects and
 * `$ref`s nest more than MAX_EXPANSION_DEPTH deep.
 */
export function refExpansionSize(document: unknown, limit: number = MAX_EXPANDED_NODES): number {
  const measured = new Map<object, { size: number; cyclic: boolean }>();
  const open = new Set<object>();
  const tooLarge = () =>
    new SpecProcessingError(
      'TOO_COMPLEX',
      `The definition expands to more than ${count(limit)} nodes through its $refs ` +
        '(schemas that refer to other schemas several times, over several levels); ' +
        'it is refused before validation, which would walk every expanded node',
    );
  const measure = (node: object, depth: number): { size: number; cyclic: boolean } => {
    const known = measured.get(node);
    if (known) return known;
    if (depth > MAX_EXPANSION_DEPTH) {
      throw new SpecProcessingError('TOO_COMPLEX', `The definition nests objects and $refs more than ${MAX_EXPANSION_DEPTH} levels deep`);
    }
    open.add(node);
    let size = 1;
    let cyclic = false;
    const add = (n: number) => {
      size += n;
      if (size > limit) throw tooLarge();
    };
    const record = node as Record<string, unknown>;
    const ref = Array.isArray(node) ? undefined : record.$ref;
    const follows = typeof ref === 'string' && (ref === '#' || ref.startsWith('#/'));
    for (const key of Object.keys(record)) {
      if (follows && key === '$ref') continue;
      const value = record[key];
      if (value === null || typeof value !== 'object') {
        add(1);
        continue;
      }
      if (open.has(value)) {
        // Only a document built in memory shares objects; parsed ones never do.
        cyclic = true;
        add(1);
        continue;
      }
      const inner = measure(value, depth + 1);
      cyclic ||= inner.cyclic;
      add(inner.size);
    }
    if (follows) {
      const target = resolvePointer(document, ref);
      if (target === null || typeof target !== 'object') {
        add(1);
      } else if (open.has(target)) {
        // A cycle: this `$ref` and every object on the way from its target to it stay as written.
        cyclic = true;
        add(1);
      } else {
        const inner = measure(target, depth + 1);
        if (inner.cyclic) {
          cyclic = true;
          add(1);
        } else {
          // The `$ref` object becomes its target (its other members merged in).
          add(inner.size - 1);
        }
      }
    }
    open.delete(node);
    const result = { size, cyclic };
    measured.set(node, result);
    return result;
  };
  if (document === null || typeof document !== 'object') return 1;
  return measure(document, 0).size;
}

/**
 * Validates a spec's documents (key → parsed document; `entryKey` the entry) as one definition.
 * Runs in a bounded thread: takes and returns cloneable values, and what it throws carries a string
 * `code` (SpecProcessingError). An invalid definition is an answer (`ok: false`), not an exception.
 */
export async function validateOpenApiDefinition(
  filesystem: Record<string, unknown>,
  entryKey: string,
  maxExpandedNodes: number = MAX_EXPANDED_NODES,
): Promise<ValidationResult> {
  const entry = filesystem[entryKey];
  if (entry === null || typeof entry !== 'object' || Array.isArray(entry) || !('openapi' in entry || 'swagger' in entry)) {
    return {
      ok: false,
      code: 'INVALID_SPEC',
      message: 'Not an OpenAPI definition: the entry document has no `openapi` or `swagger` field',
    };
  }
  let bundled: Record<string, unknown>;
  try {
    // A fresh copy of every document (the validator changes what it is given).
    bundled = bundleForValidation(filesystem, entryKey);
    refExpansionSize(bundled, maxExpandedNodes);
  } catch (error) {
    if (error instanceof SpecProcessingError) return { ok: false, code: error.detail, message: error.message };
    throw error;
  }
  let result;
  try {
    result = await validateSpec(bundled as never, { resolve: { external: false } });
  } catch (error) {
    return { ok: false, code: 'INVALID_SPEC', message: `The definition could not be validated: ${(error as Error).message}` };
  }
  if (result.valid) return { ok: true };
  const messages = result.errors.slice(0, 5).map((e) => e.message.replace(/\s+/g, ' ').trim());
  const more = result.errors.length + result.additionalErrors - messages.length;
  return {
    ok: false,
    code: 'INVALID_SPEC',
    message: `Invalid ${result.specification ?? 'API'} definition: ${messages.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`,
  };
}
