/**
 * Pure analysis of page markdown, one concern a module:
 * - markdown-parse.ts: the parser (CommonMark + GFM, front matter skipped) and visible text;
 * - raw-html.ts: the raw-HTML fragments markdown may contain, read with rehype's HTML parser;
 * - link-extraction.ts: the links a page holds; link-status.ts: whether their targets exist;
 * - search-text.ts: plain text and sections for search; snippet.ts: search snippets.
 * This module gathers their public API for callers outside src/domain/content.
 */
export { parseMarkdown } from './markdown-parse.ts';
export { extractLinks, type ExtractedLink, type LinkKind } from './link-extraction.ts';
export {
  classifyLink,
  percentDecode,
  resolveRelativePath,
  stripQueryAndFragment,
  type LinkContext,
  type LinkStatus,
} from './link-status.ts';
export { plainText, splitSections, type Section } from './search-text.ts';
export { snippet } from './snippet.ts';
