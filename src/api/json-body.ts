/** What every JSON body the API reads is held to before anything else reads it, and how requests are validated. */

/**
 * The Ajv options of every request validator. Bodies are validated without coercion (app.ts
 * partAwareValidator): JSON bodies are typed on the wire.
 */
export const AJV_OPTIONS = { removeAdditional: true, coerceTypes: 'array', useDefaults: true, allErrors: false } as const;

/**
 * How deeply a JSON body may nest arrays and objects. The deepest bodies the API takes are GitBook
 * documents (comments, translations) and JSON Schemas (adaptive content): a list nested ten levels
 * deep in a document body is about 50 levels of JSON. Deeper bodies are refused before anything
 * recursive (validation, serializers, renderers) walks them: 10,000 levels overflowed the stack.
 */
export const MAX_JSON_DEPTH = 128;

/**
 * What is wrong with a parsed JSON body, as a 400 message: arrays and objects nested more than
 * MAX_JSON_DEPTH levels deep, or a string or key holding U+0000 (named by its path, `body.a.b`);
 * undefined when nothing is. Iterative: one frame per level of nesting, never the call stack.
 */
export function bodyProblem(body: unknown): string | undefined {
  const frames: { node: unknown[] | Record<string, unknown>; keys: string[] | null; next: number; key: string }[] = [];
  const path = (child?: string) => ['body', ...frames.slice(1).map((f) => f.key), ...(child === undefined ? [] : [child])].join('.');
  let value = body;
  let key: string | undefined;
  for (;;) {
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return `${path(key)} must not contain the character U+0000`;
    } else if (value !== null && typeof value === 'object') {
      if (frames.length === MAX_JSON_DEPTH) return `body must not nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep`;
      frames.push({ node: value as never, keys: Array.isArray(value) ? null : Object.keys(value), next: 0, key: key ?? '' });
    }
    // On to the next value in document order: in the innermost array or object with one left.
    for (;;) {
      const top = frames.at(-1);
      if (!top) return undefined;
      if (top.next < (top.keys ?? (top.node as unknown[])).length) {
        const i = top.next++;
        if (top.keys) {
          key = top.keys[i];
          if (key.includes('\u0000')) return `${path()} (a key) must not contain the character U+0000`;
          value = (top.node as Record<string, unknown>)[key];
        } else {
          key = String(i);
          value = (top.node as unknown[])[i];
        }
        break;
      }
      frames.pop();
    }
  }
}
