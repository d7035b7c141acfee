/**
 * Conversion between markdown (GitBook's Git Sync dialect, as the service stores it) and GitBook's
 * JSON document model (`{object: 'document', data, nodes}` of blocks, inlines, texts and leaves
 * with marks), for bodies that clients read or write with `format: document`.
 *
 * The converters live in ./gitbook/: parse.ts and liquid.ts read the dialect (liquid tags,
 * `<details>`, math), to-document.ts and from-html.ts build the document, to-markdown.ts writes
 * markdown back, resolvers.ts gives the options that turn a revision's paths into references and
 * back. Constructs without a block of their own keep their text in paragraphs.
 */
import { assignKeys } from './gitbook/keys.ts';
import { toDocument } from './gitbook/to-document.ts';
import { toMarkdown } from './gitbook/to-markdown.ts';
import type { DocumentToMarkdownOptions, JsonDocument, MarkdownToDocumentOptions } from './gitbook/types.ts';

export { revisionResolvers, type RevisionIndex } from './gitbook/resolvers.ts';

export type {
  DocBlock,
  DocFragment,
  DocInline,
  DocLeaf,
  DocMark,
  DocText,
  DocumentRef,
  DocumentToMarkdownOptions,
  JsonDocument,
  MarkdownToDocumentOptions,
  MarkType,
} from './gitbook/types.ts';

/** The GitBook JSON document for a markdown text, every node with its `key`. */
export function markdownToDocument(markdown: string, options?: MarkdownToDocumentOptions): JsonDocument {
  return assignKeys(toDocument(markdown, options), options?.keyPrefix ?? 'k');
}

/** Markdown for a GitBook JSON document (or anything shaped like one). */
export function documentToMarkdown(document: unknown, options?: DocumentToMarkdownOptions): string {
  return toMarkdown(document, options);
}
