/**
 * GitBook's JSON document model (`{object: 'document', data, nodes}` of blocks, inlines, texts
 * with leaves and marks), as GitBook's public API describes it, and the options of the
 * conversions between it and the markdown the service stores.
 */

export type MarkType = 'bold' | 'italic' | 'code' | 'strikethrough' | 'keyboard' | 'superscript' | 'subscript' | 'color';
export interface DocMark {
  object: 'mark';
  type: MarkType;
  data?: { text: string; background: string };
}
export interface DocLeaf {
  object: 'leaf';
  text: string;
  marks: DocMark[];
}
export interface DocText {
  object: 'text';
  key?: string;
  leaves: DocLeaf[];
}
export interface DocInline {
  object: 'inline';
  key?: string;
  type: string;
  data: Record<string, unknown>;
  nodes?: (DocText | DocInline)[];
  isVoid?: boolean;
}
export interface DocFragment {
  object: 'fragment';
  key?: string;
  fragment: string;
  type?: string;
  nodes: DocBlock[];
}
export interface DocBlock {
  object: 'block';
  key?: string;
  type: string;
  data: Record<string, unknown>;
  nodes?: (DocBlock | DocInline | DocText)[];
  fragments?: DocFragment[];
  isVoid?: boolean;
}
export interface JsonDocument {
  object: 'document';
  data: Record<string, unknown>;
  nodes: DocBlock[];
}

/** A reference to content, as GitBook's `ContentRef` (only the kinds links and files use). */
export type DocumentRef =
  | { kind: 'url'; url: string }
  | { kind: 'page'; page: string; space?: string }
  | { kind: 'anchor'; anchor: string; page?: string; space?: string }
  | { kind: 'file'; file: string; space?: string }
  | { kind: 'reusable-content'; reusableContent: string; space?: string }
  | { kind: 'openapi'; spec: string };

export interface MarkdownToDocumentOptions {
  /** The reference a link target (`x.md`, `../y/README.md#part`, `#part`, an asset path) stands for; null keeps it a URL. */
  resolveLink?: (href: string) => DocumentRef | null;
  /** The file an image or file source stands for (`{kind: 'file', file: id}`); null keeps it a URL. */
  resolveFile?: (src: string) => { kind: 'file'; file: string } | null;
  /** The reusable content an `{% include "…" %}` target stands for; null leaves the block dangling. */
  reusableContent?: (path: string) => string | null;
  /**
   * Leave out a leading level-1 heading: in Git Sync's layout it is the page's title, which
   * GitBook keeps out of the page's document.
   */
  skipTitle?: boolean;
  /**
   * What every node's `key` starts with (default `k`): distinct per text, so that the blocks of
   * reusable contents expanded into a page keep keys of their own.
   */
  keyPrefix?: string;
}

export interface DocumentToMarkdownOptions {
  /** The link target to write for a page, anchor or file reference; null or absent writes the link's text only. */
  linkHref?: (ref: DocumentRef) => string | null;
  /** The source to write for a file (images, files, table covers); absent or null writes the id. */
  fileSrc?: (fileId: string) => string | null;
  /** The path to write in `{% include %}` for a reusable content; absent or null writes the id. */
  reusableContentPath?: (id: string) => string | null;
}
