/**
 * Building blocks shared by the readers of markdown and HTML: leaves with marks, grouping of
 * leaves into text nodes, references through the caller's resolvers, and which blocks GitBook
 * allows inside which (blocks found where GitBook allows none of their kind are turned into what
 * is allowed there, keeping their text).
 */
import type { DocBlock, DocInline, DocLeaf, DocMark, DocText, DocumentRef, MarkdownToDocumentOptions } from './types.ts';

export type Piece = DocLeaf | DocInline;

/** The whitespace ending `text` (found from the end: a regular expression would be quadratic on long runs). */
export function trailingSpace(text: string): string {
  let i = text.length;
  while (i > 0 && /\s/.test(text[i - 1])) i--;
  return text.slice(i);
}

export interface Context {
  options: MarkdownToDocumentOptions;
  definitions: Map<string, string>;
  /** How deep in nested content the conversion is (see `guarded`). */
  depth: number;
}

/**
 * Nesting deeper than any GitBook content (lists, quotes and containers go a few levels deep):
 * past it, content becomes its text, so that pathological input cannot exhaust the stack.
 */
export const MAX_DEPTH = 64;

/** `run` one level deeper, or `fallback` past MAX_DEPTH. */
export function guarded<T>(ctx: { depth: number }, fallback: () => T, run: () => T): T {
  if (ctx.depth >= MAX_DEPTH) return fallback();
  ctx.depth++;
  try {
    return run();
  } finally {
    ctx.depth--;
  }
}

const TEXT_NODES = new Set(['text', 'inlineCode', 'code', 'math', 'inlineMath']);

/** The text of mdast or hast nodes, however deep, collected without recursion. */
export function flatText(nodes: unknown[]): string {
  const out: string[] = [];
  const stack: unknown[] = [...nodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop() as { type?: unknown; value?: unknown; children?: unknown } | null;
    if (!node || typeof node !== 'object') continue;
    if (TEXT_NODES.has(String(node.type)) && typeof node.value === 'string') out.push(node.value);
    if (Array.isArray(node.children)) for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]);
  }
  return out.join(' ').replace(/\s+/g, ' ').trim();
}

export const sameMark = (a: DocMark, b: DocMark) =>
  a.type === b.type && (a.type !== 'color' || (a.data?.text === b.data?.text && a.data?.background === b.data?.background));

export function withMark(marks: DocMark[], mark: DocMark): DocMark[] {
  return marks.some((m) => m.type === mark.type) ? marks : [...marks, mark];
}

export const mark = (type: Exclude<DocMark['type'], 'color'>): DocMark => ({ object: 'mark', type });

const MARK_ORDER: DocMark['type'][] = ['bold', 'italic', 'strikethrough', 'code', 'keyboard', 'superscript', 'subscript', 'color'];

/** A leaf; its marks in one order whatever the order of the syntax that made them. */
export function leaf(text: string, marks: DocMark[]): DocLeaf {
  const sorted = [...marks].sort((a, b) => MARK_ORDER.indexOf(a.type) - MARK_ORDER.indexOf(b.type));
  return { object: 'leaf', text, marks: sorted.map((m) => ({ ...m })) };
}

/** Emoji (pictographs from U+1F000 and the symbol and dingbat ranges), with their modifiers and joiners. */
const EMOJI =
  /(?:[\u{1F000}-\u{1FAFF}]|[\u2600-\u27BF](?=\uFE0F))(?:\uFE0F|[\u{1F3FB}-\u{1F3FF}]|\u200D(?:[\u{1F000}-\u{1FAFF}]|[\u2600-\u27BF])\uFE0F?)*/gu;

/** Text as leaves, emoji as emoji inlines (GitBook's `code` is the code points in hex, joined by `-`). */
export function textPieces(text: string, marks: DocMark[], emoji = true): Piece[] {
  if (!emoji || marks.some((m) => m.type === 'code')) return [leaf(text, marks)];
  const out: Piece[] = [];
  let last = 0;
  for (const m of text.matchAll(EMOJI)) {
    if (m.index > last) out.push(leaf(text.slice(last, m.index), marks));
    const code = [...m[0]].map((c) => c.codePointAt(0)!.toString(16)).join('-');
    out.push({ object: 'inline', type: 'emoji', data: { code }, isVoid: true });
    last = m.index + m[0].length;
  }
  if (last < text.length || out.length === 0) out.push(leaf(text.slice(last), marks));
  return out;
}

/** Groups consecutive leaves into text nodes, keeping inlines between them. */
export function group(pieces: Piece[]): (DocText | DocInline)[] {
  const out: (DocText | DocInline)[] = [];
  for (const piece of pieces) {
    if (piece.object === 'leaf') {
      const last = out[out.length - 1];
      if (last?.object !== 'text') out.push({ object: 'text', leaves: [piece] });
      else {
        // Adjacent leaves with the same marks are one leaf.
        const previous = last.leaves[last.leaves.length - 1];
        if (previous.marks.length === piece.marks.length && previous.marks.every((m, i) => sameMark(m, piece.marks[i]))) {
          last.leaves[last.leaves.length - 1] = { ...previous, text: previous.text + piece.text };
        } else last.leaves.push(piece);
      }
    } else {
      // Slate-style documents keep a text node on each side of an inline.
      if (out.length === 0 || out[out.length - 1].object === 'inline') out.push({ object: 'text', leaves: [leaf('', [])] });
      out.push(piece);
    }
  }
  if (out.length === 0 || out[out.length - 1].object === 'inline') out.push({ object: 'text', leaves: [leaf('', [])] });
  return out;
}

export function paragraph(pieces: Piece[]): DocBlock {
  return { object: 'block', type: 'paragraph', data: {}, nodes: group(pieces), isVoid: false };
}

export function linkRef(href: string, ctx: Context): DocumentRef {
  return ctx.options.resolveLink?.(href) ?? { kind: 'url', url: href };
}

export function fileRef(src: string, ctx: Context): DocumentRef {
  return ctx.options.resolveFile?.(src) ?? { kind: 'url', url: src };
}

export function imageInline(src: string, alt: string | undefined, ctx: Context, extra: Record<string, unknown> = {}): DocInline {
  return { object: 'inline', type: 'inline-image', data: { ref: fileRef(src, ctx), ...(alt ? { alt } : {}), ...extra }, isVoid: true };
}

// ---------------------------------------------------------------------------------------------
// Which blocks go where (GitBook's schemas of each container's `nodes`).

const ESSENTIALS = ['paragraph', 'heading-1', 'heading-2', 'heading-3', 'list-ordered', 'list-unordered', 'list-tasks', 'divider'];
const set = (...types: string[]) => new Set([...ESSENTIALS, ...types]);

export const ALLOWED = {
  top: set(
    'blockquote',
    'hint',
    'prompt',
    'images',
    'file',
    'drawing',
    'embed',
    'code',
    'math',
    'expandable',
    'tabs',
    'table',
    'swagger',
    'openapi-operation',
    'openapi-schemas',
    'openapi-webhook',
    'content-ref',
    'integration',
    'reusable-content',
    'stepper',
    'if',
    'columns',
    'updates',
  ),
  quote: set('blockquote'),
  hint: set('embed', 'integration', 'table'),
  listItem: set('code', 'hint', 'blockquote', 'math', 'table'),
  tab: set('content-ref', 'code', 'embed', 'file', 'images', 'drawing', 'hint', 'prompt', 'blockquote', 'math', 'integration'),
  step: set(
    'content-ref',
    'code',
    'embed',
    'file',
    'images',
    'drawing',
    'hint',
    'prompt',
    'blockquote',
    'math',
    'integration',
    'expandable',
  ),
  column: set(
    'images',
    'code',
    'hint',
    'prompt',
    'content-ref',
    'drawing',
    'embed',
    'file',
    'integration',
    'math',
    'blockquote',
    'table',
    'expandable',
    'stepper',
  ),
  expandable: set('file', 'images', 'code', 'table', 'hint', 'prompt', 'blockquote', 'reusable-content', 'integration'),
  update: set(
    'content-ref',
    'code',
    'embed',
    'file',
    'images',
    'drawing',
    'hint',
    'prompt',
    'blockquote',
    'math',
    'integration',
    'tabs',
    'expandable',
  ),
  caption: new Set(['paragraph']),
  cell: set('code', 'hint', 'blockquote', 'math', 'images'),
};

const childBlocks = (block: DocBlock) => (block.nodes ?? []).filter((n): n is DocBlock => n.object === 'block');

function refText(ref: unknown): string {
  const r = (ref ?? {}) as Record<string, unknown>;
  return String(r.url ?? r.page ?? r.anchor ?? r.file ?? r.reusableContent ?? r.spec ?? '');
}

/** Paragraphs (and allowed blocks) that show what `block` shows, for a place that does not allow it. */
function degrade(block: DocBlock, allowed: Set<string>): DocBlock[] {
  const data = block.data;
  switch (block.type) {
    case 'code': {
      const pieces: Piece[] = [];
      childBlocks(block).forEach((line, i) => {
        if (i > 0) pieces.push(leaf('\n', []));
        const text = (line.nodes ?? [])
          .map((t) => (t.object === 'text' ? t.leaves.map((l) => l.text).join('') : ''))
          .join('')
          .trimEnd();
        if (text !== '') pieces.push(leaf(text, [mark('code')]));
      });
      return [paragraph(pieces)];
    }
    case 'images':
      return [paragraph(childBlocks(block).map((image) => ({ object: 'inline', type: 'inline-image', data: image.data, isVoid: true })))];
    case 'image':
      return [paragraph([{ object: 'inline', type: 'inline-image', data: block.data, isVoid: true }])];
    case 'math':
      if (String(data.formula ?? '').trim() === '') return [];
      return [paragraph([{ object: 'inline', type: 'inline-math', data: { formula: data.formula }, isVoid: true }])];
    case 'embed':
      return [linkParagraph(String(data.url ?? ''), { kind: 'url', url: String(data.url ?? '') })];
    case 'file':
    case 'content-ref':
    case 'swagger':
    case 'openapi-operation':
    case 'openapi-schemas':
    case 'openapi-webhook':
    case 'reusable-content':
    case 'drawing':
    case 'integration': {
      const text = refText(data.ref) || String(data.url ?? block.type);
      const ref = data.ref as DocumentRef | undefined;
      return [ref && ref.kind !== 'openapi' && ref.kind !== 'reusable-content' ? linkParagraph(text, ref) : paragraph([leaf(text, [])])];
    }
  }
  const out: DocBlock[] = [];
  const title = typeof data.title === 'string' ? data.title : '';
  if (title) out.push(paragraph([leaf(title, [mark('bold')])]));
  for (const fragment of block.fragments ?? []) out.push(...fit(fragment.nodes, allowed));
  const nodes = block.nodes ?? [];
  if (nodes.some((n) => n.object !== 'block')) out.push({ ...block, type: 'paragraph', data: {} });
  else out.push(...fit(childBlocks(block), allowed));
  return out;
}

function linkParagraph(text: string, ref: DocumentRef): DocBlock {
  return paragraph([{ object: 'inline', type: 'link', data: { ref }, nodes: group([leaf(text, [])]), isVoid: false }]);
}

/** The blocks as GitBook allows them in a container accepting `allowed`. */
export function fit(blocks: DocBlock[], allowed: Set<string>): DocBlock[] {
  const out: DocBlock[] = [];
  for (const block of blocks) {
    if (allowed.has(block.type)) out.push(block);
    else if (block.type === 'image' && allowed.has('images'))
      out.push({ object: 'block', type: 'images', data: {}, nodes: [block], isVoid: false });
    else out.push(...degrade(block, allowed));
  }
  return out;
}
