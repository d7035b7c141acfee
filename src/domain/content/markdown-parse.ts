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
import type { Extension } from 'micromark-util-types';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified, type Processor } from 'unified';
import { markdownAsText, markdownLimitProblem } from './limits.ts';

// ---------------------------------------------------------------------------------------------
// GFM, with only the constructs a document can hold

/**
 * Some GFM constructs are tried far more often than they are found. Autolink literals
 * (`www.example.com`, `https://example.com`, `team@example.com`) are tried where words start: an
 * email address at every letter or digit that starts a word, a `www.` link at every `w`, a URL at
 * every `h`. A table is tried at the first line of every paragraph, which it reads to its end
 * before looking for a delimiter row. On prose that is most of the parse's time, and none of it
 * can succeed in a document without the construct's marker:
 * - an address needs an `@`, a `www.` link `www.`, a URL `http://` or `https://` (in any case:
 *   the tokenizer reads these characters one by one as they stand in the source);
 * - a table needs a delimiter row: a line of `-`, `:`, `|`, spaces and tabs holding a `:` or a `|`
 *   (`a\n:-` is a table, `a\n-` a heading), after the `>` and indentation of its containers.
 * A document is therefore parsed without the constructs whose markers it lacks. The tree is the
 * same: the tokenizers left out would only have failed, and the text between constructs is one
 * text node whichever characters it was read in (checked against remark-gfm in the unit tests).
 */
const OPTIONAL_CONSTRUCTS = [
  { name: 'emailAutolink', marker: /@/ },
  { name: 'wwwAutolink', marker: /www\./i },
  { name: 'protocolAutolink', marker: /https?:\/\//i },
  { name: 'table', marker: /^[\t >|:-]*[|:][\t >|:-]*$/m },
] as const;

/** A set of optional GFM constructs (a bit per entry of `OPTIONAL_CONSTRUCTS`). */
export type GfmConstructs = number;
/** Every optional construct: GFM as remark-gfm gives it. */
export const EVERY_GFM_CONSTRUCT: GfmConstructs = (1 << OPTIONAL_CONSTRUCTS.length) - 1;

/** The optional GFM constructs whose markers `markdown` holds. */
export function gfmConstructsOf(markdown: string): GfmConstructs {
  let kinds = 0;
  OPTIONAL_CONSTRUCTS.forEach(({ marker }, bit) => {
    if (marker.test(markdown)) kinds |= 1 << bit;
  });
  return kinds;
}

const gfmData = unified().use(remarkGfm).freeze().data();
/** remark-gfm's micromark syntax (one combined extension) and its mdast extensions. */
const gfmSyntax = (gfmData.micromarkExtensions ?? []) as Extension[];
const gfmFromMarkdown = gfmData.fromMarkdownExtensions ?? [];

/** A copy of `extension` whose constructs leave out those named in `names`. */
function withoutConstructs(extension: Extension, names: ReadonlySet<string>): Extension {
  if (names.size === 0) return extension;
  const copy: Extension = { ...extension };
  for (const field of ['document', 'contentInitial', 'flowInitial', 'flow', 'string', 'text'] as const) {
    const record = extension[field];
    if (!record) continue;
    const kept: NonNullable<Extension[typeof field]> = {};
    for (const [code, value] of Object.entries(record)) {
      const list = (Array.isArray(value) ? value : [value]).filter((c) => c !== undefined && !names.has(c.name ?? ''));
      if (list.length > 0) Object.assign(kept, { [code]: list });
    }
    copy[field] = kept;
  }
  return copy;
}

/**
 * A unified plugin: GFM (as remark-gfm with its default options) with, of the optional
 * constructs, those in `kinds` only. Used in place of remark-gfm, with `kinds` from
 * `gfmConstructsOf(document)`.
 */
export function remarkGfmFor(this: Processor, kinds: GfmConstructs): void {
  const names = new Set(OPTIONAL_CONSTRUCTS.filter((_, bit) => !(kinds & (1 << bit))).map((k) => k.name));
  const data = this.data();
  (data.micromarkExtensions ??= []).push(...gfmSyntax.map((extension) => withoutConstructs(extension, names)));
  (data.fromMarkdownExtensions ??= []).push(...gfmFromMarkdown);
}

/** One frozen processor per set of optional GFM constructs, built on first use by `build`. */
export function processorsByGfmConstructs<P>(build: (kinds: GfmConstructs) => P): (markdown: string) => P {
  const processors = new Map<GfmConstructs, P>();
  return (markdown) => {
    const kinds = gfmConstructsOf(markdown);
    let processor = processors.get(kinds);
    if (!processor) processors.set(kinds, (processor = build(kinds)));
    return processor;
  };
}

const processorFor = processorsByGfmConstructs((kinds) => unified().use(remarkParse).use(remarkGfmFor, kinds).freeze());

/**
 * Parses markdown into an mdast tree. Line numbers in the tree are those of the input. A text past
 * the limits of ./limits.ts (stored before they existed) is parsed as the text it shows, so that no
 * reader of it (search, links, PDF, Git Sync) pays a parse whose cost the limits exist to bound.
 */
export function parseMarkdown(markdown: string): Root {
  const text = blankFrontMatter(markdownLimitProblem(markdown) === null ? markdown : markdownAsText(markdown));
  return processorFor(text).parse(text);
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
