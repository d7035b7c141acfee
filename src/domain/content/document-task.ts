/**
 * The conversion of a revision's text into GitBook's document model as one task of cloneable
 * inputs and output, so that it runs in a thread of the parsing pool (src/lib/bounded-parse.ts):
 * the revision's index (pages, files and reusable contents by path) instead of resolver functions,
 * and the document's JSON text as the answer. Its cost depends on the text, which a user wrote, so
 * it never runs on an event loop that answers requests.
 */
import { markdownToDocument, revisionResolvers, type DocBlock, type JsonDocument } from './document.ts';
import { dereferenceReusableContents } from './document-reads.ts';
import { withoutConditionalBlocks } from './conditional-blocks.ts';
import { assignKeys } from './gitbook/keys.ts';
import { codeSyntaxes } from './integration-codeblocks.ts';

export interface DocumentIndex {
  /** Page ids by page path. */
  pages: Map<string, string>;
  /** File ids by name. */
  files: Map<string, string>;
  /** Reusable content ids by path (`.gitbook/includes/note.md`). */
  reusableContents: Map<string, string>;
}

export interface DocumentTask {
  markdown: string;
  /** Where the text sits (a page's path; `` for a reusable content), so relative references resolve. */
  fromPath: string;
  index: DocumentIndex;
  /** The revision's reusable contents' texts by id, when they are to be expanded; null otherwise. */
  includes: Map<string, string> | null;
  /** The longest JSON answer the document may have; a longer one is refused (DOCUMENT_TOO_LARGE). */
  maxJsonBytes: number;
}

export class DocumentTooLargeError extends Error {
  readonly code = 'DOCUMENT_TOO_LARGE';
}

/** Whether a text can hold a reusable content (`{% include … %}`): only then are the revision's reusable texts sent along. */
export const mayInclude = (markdown: string): boolean => /\{%-?\s*include\b/.test(markdown);

/** A converted text: its document's JSON, and the syntaxes of its code blocks (which integrations may claim). */
export interface ConvertedText {
  json: string;
  codeSyntaxes: string[];
}

/** The document's JSON: references resolved in the revision, reusable contents expanded when `includes` is given. */
export function convertRevisionText(task: DocumentTask): ConvertedText {
  const options = (fromPath: string) => revisionResolvers({ ...task.index, fromPath }).read;
  let document = markdownToDocument(task.markdown, options(task.fromPath));
  const includes = task.includes;
  if (includes) {
    const includeOptions = options('');
    const converted = new Map<string, JsonDocument>();
    document = dereferenceReusableContents(document, (id) => {
      const text = includes.get(id);
      if (text === undefined) return undefined;
      let found = converted.get(id);
      // Keys of their own (`i0-…`, `i1-…`) beside the page's (`k…`).
      if (!found)
        converted.set(id, (found = markdownToDocument(text, { ...includeOptions, keyPrefix: `i${converted.size.toString(36)}-` })));
      return found;
    });
  }
  const json = JSON.stringify(document);
  if (json.length > task.maxJsonBytes)
    throw new DocumentTooLargeError(`The document is ${json.length} bytes of JSON; at most ${task.maxJsonBytes} are answered`);
  return { json, codeSyntaxes: codeSyntaxes(document) };
}

/**
 * A document that shows a text as it is: what a reader gets of a text that cannot be converted
 * within its budget. Conditional blocks (`{% if %}` … `{% endif %}`, with their `elif` and `else`
 * branches) are left out whole, since nobody decided for this reader which of them they may see.
 */
export function plainTextDocument(text: string): JsonDocument {
  const shown = withoutConditionalBlocks(text);
  const paragraph: DocBlock = {
    object: 'block',
    type: 'paragraph',
    data: {},
    nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: shown, marks: [] }] }],
  };
  return assignKeys({ object: 'document', data: {}, nodes: [paragraph] }, 'k');
}

/** The document's JSON of a text that refers to nothing of a revision (a comment's body). */
export function convertText(markdown: string, maxJsonBytes: number): string {
  const json = JSON.stringify(markdownToDocument(markdown));
  if (json.length > maxJsonBytes)
    throw new DocumentTooLargeError(`The document is ${json.length} bytes of JSON; at most ${maxJsonBytes} are answered`);
  return json;
}
