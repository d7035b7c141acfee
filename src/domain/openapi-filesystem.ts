/**
 * A version's documents as the `filesystem` of its content: the list of files that GitBook's site
 * renderer reads (its openapi-parser's `Filesystem` type) and hands to Scalar's dereferencer.
 *
 * Each entry is `{ dir, isEntrypoint, references, filename, specification }`, the entry document
 * first. That dereferencer follows a `$ref` to another document by looking for the entry whose
 * `filename` is exactly the part of the `$ref` before `#`; it resolves nothing against `dir`. So:
 * - `filename` is where the document is relative to the entry document's directory, as a relative
 *   URL reference (`openapi.yaml`, `paths/pets.yaml`, `../common/schemas.json`); a document on
 *   another host, or any document of a spec given as text, keeps its absolute URL; the entry of a
 *   text source is `openapi.json` or `openapi.yaml`. Filenames are unique, since the URLs are.
 * - `dir` is the directory part of `filename` (`.` when there is none).
 * - every `$ref` to another document is rewritten to that document's `filename` with the fragment
 *   kept (`#` when there was none, so the whole document is read in its own context); a `$ref`
 *   that names its own document becomes a local one (`#…`). `$ref`s already local stay as written.
 * - `references` lists the filenames a document refers to, each once, in document order.
 * A `$ref` that cannot be resolved to a document of the filesystem is left as written (processing
 * refuses such definitions, so stored versions have none).
 */
import { baseOf, documentKey, refTarget } from './openapi.ts';

export interface FilesystemEntry {
  dir: string;
  isEntrypoint: boolean;
  references: string[];
  filename: string;
  specification: unknown;
}

/**
 * The filesystem of a version's content from its stored documents (key → parsed document) and the
 * key of its entry document. The documents are rewritten in place: pass a fresh parse.
 */
export function filesystemEntries(documents: Record<string, unknown>, entryKey: string): FilesystemEntry[] {
  if (!Object.hasOwn(documents, entryKey)) throw new Error(`The entry document ${entryKey} is not among the documents of the version`);
  const keys = [entryKey, ...Object.keys(documents).filter((key) => key !== entryKey)];
  const entryUrl = baseOf(entryKey) === null ? null : new URL(entryKey);
  const filenames = new Map(keys.map((key) => [key, filenameOf(key, entryUrl)]));
  return keys.map((key) => {
    const filename = filenames.get(key)!;
    const specification = documents[key];
    return {
      dir: dirOf(filename),
      isEntrypoint: key === entryKey,
      references: rewriteRefs(specification, key, filenames),
      filename,
      specification,
    };
  });
}

/** The name of a document: relative to the entry document's directory when both are on one host. */
function filenameOf(key: string, entryUrl: URL | null): string {
  if (baseOf(key) === null) return key;
  if (entryUrl === null) return key;
  const target = new URL(key);
  if (target.origin !== entryUrl.origin) return key;
  const from = entryUrl.pathname.split('/').slice(0, -1);
  const to = target.pathname.split('/');
  const toDir = to.slice(0, -1);
  let common = 0;
  while (common < from.length && common < toDir.length && from[common] === toDir[common]) common++;
  const path = [...Array<string>(from.length - common).fill('..'), ...toDir.slice(common), to[to.length - 1]].join('/');
  // RFC 3986 §4.2: a relative path whose first segment is empty or has a colon needs `./`.
  const first = path.split('/')[0];
  const relative = first === '' || first.includes(':') ? `./${path}` : path;
  return relative + target.search;
}

/** The directory part of a filename: `.` when it has none. */
function dirOf(filename: string): string {
  const path = filename.split('?')[0];
  const slash = path.lastIndexOf('/');
  return slash <= 0 ? '.' : path.slice(0, slash);
}

/**
 * Rewrites the `$ref`s of one document (held under `holder`) to point at the filenames of the
 * documents they reach; answers the filenames reached, each once, in document order.
 */
function rewriteRefs(document: unknown, holder: string, filenames: ReadonlyMap<string, string>): string[] {
  const base = baseOf(holder);
  const resolved = new Map<string, string | null | undefined>();
  const targetOf = (prefix: string): string | null | undefined => {
    if (resolved.has(prefix)) return resolved.get(prefix);
    let name: string | null | undefined;
    try {
      const target = refTarget(prefix, base);
      name = target === null ? null : filenames.get(documentKey(target));
    } catch {
      name = undefined;
    }
    resolved.set(prefix, name);
    return name;
  };

  const references: string[] = [];
  const referenced = new Set<string>();
  const stack: unknown[] = [document];
  while (stack.length > 0) {
    const value = stack.pop();
    if (value === null || typeof value !== 'object') continue;
    if (Array.isArray(value)) {
      for (let i = value.length - 1; i >= 0; i--) stack.push(value[i]);
      continue;
    }
    const record = value as Record<string, unknown>;
    const ref = record.$ref;
    if (typeof ref === 'string' && !ref.startsWith('#')) {
      const hashAt = ref.indexOf('#');
      const fragment = hashAt >= 0 ? ref.slice(hashAt) : '#';
      const name = targetOf(hashAt >= 0 ? ref.slice(0, hashAt) : ref);
      if (name === null) {
        record.$ref = fragment;
      } else if (name !== undefined) {
        record.$ref = name + fragment;
        if (!referenced.has(name)) {
          referenced.add(name);
          references.push(name);
        }
      }
    }
    const keys = Object.keys(record);
    for (let i = keys.length - 1; i >= 0; i--) stack.push(record[keys[i]]);
  }
  return references;
}
