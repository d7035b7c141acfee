/**
 * Reading page markdown: the parser every analysis of a page shares, and the visible text of the
 * tree it gives.
 *
 * Markdown is always read with a real parser (CommonMark plus GitHub extensions: tables,
 * autolink literals, footnotes, strikethrough, task lists), so code blocks, inline code and
 * escapes are handled the way a renderer would handle them. A leading YAML front-matter block
 * (`---` … `---`), as written by GitBook's git layout, is skipped. Raw HTML is never rendered as
 * text.
 */
import type { Nodes, Root } from 'mdast';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';

const processor = unified().use(remarkParse).use(remarkGfm).freeze();

/** Parses markdown into an mdast tree. Line numbers in the tree are those of the input. */
export function parseMarkdown(markdown: string): Root {
  return processor.parse(blankFrontMatter(markdown));
}

/**
 * Replaces a leading YAML front-matter block with empty lines, so that it is neither read as a
 * thematic break plus a setext heading nor shifts the line numbers of what follows.
 */
export function blankFrontMatter(markdown: string): string {
  const lines = markdown.split('\n');
  // Front matter starts right away with its first key; `---` then a blank line is a thematic break.
  if (lines.length < 3 || lines[0].trimEnd() !== '---' || lines[1].trim() === '') return markdown;
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i].trimEnd();
    if (line === '---' || line === '...') return '\n'.repeat(i + 1) + lines.slice(i + 1).join('\n');
  }
  return markdown;
}

/** Collapses every run of whitespace into one space and trims the ends. */
export function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** Containers whose children are inline content: their text is concatenated as is. */
const PHRASING_PARENTS = new Set(['paragraph', 'heading', 'tableCell', 'emphasis', 'strong', 'delete', 'link', 'linkReference']);

/** One of GitBook's liquid tags as it appears in a text node (outside code). */
const LIQUID_TAG = /\{%-?[^%]*?-?%\}/g;

/**
 * The visible text of a node: what a reader sees, without markdown syntax, raw HTML tags,
 * GitBook's block tags, definitions or footnote markers. Block-level parts are separated by a space.
 */
export function textOf(node: Nodes): string {
  switch (node.type) {
    case 'text':
      // GitBook's block tags (`{% hint style="info" %}`, `{% endtabs %}`) are markup, not words.
      return node.value.includes('{%') ? node.value.replace(LIQUID_TAG, ' ') : node.value;
    case 'inlineCode':
    case 'code':
      return node.value;
    case 'break':
      return ' ';
    case 'image':
    case 'imageReference':
      return node.alt ?? '';
    case 'html':
    case 'definition':
    case 'footnoteReference':
    case 'thematicBreak':
    case 'yaml':
      return '';
  }
  if (!('children' in node)) return '';
  const separator = PHRASING_PARENTS.has(node.type) ? '' : ' ';
  return (node.children as Nodes[]).map(textOf).join(separator);
}
