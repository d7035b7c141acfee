/**
 * Conversion between markdown and GitBook's JSON document model (`{object: 'document', data,
 * nodes}` made of blocks, inlines, texts and leaves with marks), for bodies that clients read or
 * write with `format: document`.
 *
 * Markdown is what the service stores; the document form is derived from it. Markdown constructs
 * the document model has no place for (tables, raw HTML, footnotes) become paragraphs of their
 * text, so nothing is lost from view. The reverse direction writes the markdown a reader would
 * expect for the blocks and marks GitBook documents commonly hold; blocks it does not know
 * contribute the text they contain.
 */
import type { Nodes, PhrasingContent, Root, RootContent } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { parseMarkdown } from './markdown-parse.ts';

export type MarkType = 'bold' | 'italic' | 'code' | 'strikethrough';
export interface DocMark {
  object: 'mark';
  type: MarkType;
}
export interface DocLeaf {
  object: 'leaf';
  text: string;
  marks: DocMark[];
}
export interface DocText {
  object: 'text';
  leaves: DocLeaf[];
}
export interface DocInline {
  object: 'inline';
  type: string;
  data: Record<string, unknown>;
  nodes?: (DocText | DocInline)[];
  isVoid?: boolean;
}
export interface DocBlock {
  object: 'block';
  type: string;
  data: Record<string, unknown>;
  nodes?: (DocBlock | DocInline | DocText)[];
  isVoid?: boolean;
}
export interface JsonDocument {
  object: 'document';
  data: Record<string, unknown>;
  nodes: DocBlock[];
}

// ---------------------------------------------------------------------------------------------
// markdown → document

/** Where blocks are placed: GitBook allows fewer kinds of blocks inside quotes than elsewhere. */
type Container = 'top' | 'list-item' | 'quote';

interface Context {
  definitions: Map<string, string>;
}

const MARK_OF: Partial<Record<Nodes['type'], MarkType>> = { emphasis: 'italic', strong: 'bold', delete: 'strikethrough' };

function leaf(text: string, marks: MarkType[]): DocLeaf {
  return { object: 'leaf', text, marks: marks.map((type) => ({ object: 'mark', type })) };
}

/** Groups consecutive leaves into text nodes, keeping inlines between them. */
function group(pieces: (DocLeaf | DocInline)[]): (DocText | DocInline)[] {
  const out: (DocText | DocInline)[] = [];
  for (const piece of pieces) {
    if (piece.object === 'leaf') {
      const last = out[out.length - 1];
      if (last?.object === 'text') last.leaves.push(piece);
      else out.push({ object: 'text', leaves: [piece] });
    } else {
      out.push(piece);
    }
  }
  if (out.length === 0) out.push({ object: 'text', leaves: [leaf('', [])] });
  return out;
}

function urlRef(url: string) {
  return { kind: 'url', url };
}

function phrasing(nodes: PhrasingContent[], marks: MarkType[], ctx: Context, inLink = false): (DocLeaf | DocInline)[] {
  const out: (DocLeaf | DocInline)[] = [];
  for (const node of nodes) {
    switch (node.type) {
      case 'text':
        out.push(leaf(node.value, marks));
        break;
      case 'emphasis':
      case 'strong':
      case 'delete': {
        const mark = MARK_OF[node.type]!;
        out.push(...phrasing(node.children, marks.includes(mark) ? marks : [...marks, mark], ctx, inLink));
        break;
      }
      case 'inlineCode':
        out.push(leaf(node.value, marks.includes('code') ? marks : [...marks, 'code']));
        break;
      case 'break':
        out.push(leaf('\n', marks));
        break;
      case 'html':
        out.push(leaf(node.value, marks));
        break;
      case 'image':
        out.push(image(node.url, node.alt));
        break;
      case 'imageReference': {
        const url = ctx.definitions.get(node.identifier);
        out.push(url === undefined ? leaf(node.alt ?? '', marks) : image(url, node.alt));
        break;
      }
      case 'link':
      case 'linkReference': {
        const url = node.type === 'link' ? node.url : ctx.definitions.get(node.identifier);
        const inner = phrasing(node.children, marks, ctx, true);
        if (url === undefined || inLink) out.push(...inner);
        else out.push({ object: 'inline', type: 'link', data: { ref: urlRef(url) }, nodes: group(inner), isVoid: false });
        break;
      }
      case 'footnoteReference':
        out.push(leaf(`[^${node.label ?? node.identifier}]`, marks));
        break;
      default:
        out.push(leaf(toString(node), marks));
    }
  }
  return out;
}

function image(url: string, alt: string | null | undefined): DocInline {
  return { object: 'inline', type: 'inline-image', data: { ref: urlRef(url), ...(alt ? { alt } : {}) }, isVoid: true };
}

function paragraph(pieces: (DocLeaf | DocInline)[]): DocBlock {
  return { object: 'block', type: 'paragraph', data: {}, nodes: group(pieces), isVoid: false };
}

function blocks(nodes: RootContent[], where: Container, ctx: Context): DocBlock[] {
  const out: DocBlock[] = [];
  for (const node of nodes) {
    switch (node.type) {
      case 'paragraph':
        out.push(paragraph(phrasing(node.children, [], ctx)));
        break;
      case 'heading':
        out.push({
          object: 'block',
          type: `heading-${Math.min(node.depth, 3)}`,
          data: {},
          nodes: group(phrasing(node.children, [], ctx)),
          isVoid: false,
        });
        break;
      case 'thematicBreak':
        out.push({ object: 'block', type: 'divider', data: {}, isVoid: true });
        break;
      case 'list': {
        const tasks = node.children.some((item) => typeof item.checked === 'boolean');
        const items: DocBlock[] = node.children.map((item) => ({
          object: 'block',
          type: 'list-item',
          data: tasks ? { checked: item.checked === true } : {},
          nodes: blocks(item.children, 'list-item', ctx),
          isVoid: false,
        }));
        if (tasks) out.push({ object: 'block', type: 'list-tasks', data: {}, nodes: items, isVoid: false });
        else if (node.ordered) {
          const start = node.start ?? 1;
          out.push({ object: 'block', type: 'list-ordered', data: start === 1 ? {} : { start }, nodes: items, isVoid: false });
        } else out.push({ object: 'block', type: 'list-unordered', data: {}, nodes: items, isVoid: false });
        break;
      }
      case 'code':
        if (where === 'quote') {
          out.push(paragraph([leaf(node.value, ['code'])]));
        } else {
          out.push({
            object: 'block',
            type: 'code',
            data: node.lang ? { syntax: node.lang } : {},
            nodes: node.value.split('\n').map((line) => ({
              object: 'block' as const,
              type: 'code-line',
              data: {},
              nodes: [{ object: 'text' as const, leaves: [leaf(line, [])] }],
              isVoid: false,
            })),
            isVoid: false,
          });
        }
        break;
      case 'blockquote':
        out.push({
          object: 'block',
          type: 'blockquote',
          data: {},
          nodes: where === 'list-item' || where === 'top' || where === 'quote' ? blocks(node.children, 'quote', ctx) : [],
          isVoid: false,
        });
        break;
      case 'table':
        for (const row of node.children) {
          const pieces: (DocLeaf | DocInline)[] = [];
          row.children.forEach((cell, i) => {
            if (i > 0) pieces.push(leaf(' | ', []));
            pieces.push(...phrasing(cell.children, [], ctx));
          });
          out.push(paragraph(pieces));
        }
        break;
      case 'html':
        out.push(paragraph([leaf(node.value, [])]));
        break;
      case 'footnoteDefinition':
        out.push(...blocks(node.children, where, ctx));
        break;
      case 'definition':
      case 'yaml':
        break;
      default: {
        const text = toString(node);
        if (text) out.push(paragraph([leaf(text, [])]));
      }
    }
  }
  return out;
}

/** The GitBook JSON document for a markdown text. */
export function markdownToDocument(markdown: string): JsonDocument {
  const root: Root = parseMarkdown(markdown);
  const definitions = new Map<string, string>();
  for (const node of root.children) if (node.type === 'definition') definitions.set(node.identifier, node.url);
  return { object: 'document', data: {}, nodes: blocks(root.children, 'top', { definitions }) };
}

// ---------------------------------------------------------------------------------------------
// document → markdown

type AnyNode = { object?: unknown; type?: unknown; data?: unknown; nodes?: unknown; leaves?: unknown; text?: unknown; marks?: unknown };

const asArray = (value: unknown): AnyNode[] => (Array.isArray(value) ? (value.filter((v) => v && typeof v === 'object') as AnyNode[]) : []);
const asRecord = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};

/** Backslash-escapes what markdown would otherwise read as syntax inside plain text. */
function escapeText(text: string): string {
  return text
    .replace(/[\\`*_[\]<>~|]/g, '\\$&')
    .replace(/^(\s*)([#>+-])(?=\s|$)/gm, '$1\\$2')
    .replace(/^(\s*\d+)([.)])(?=\s|$)/gm, '$1\\$2');
}

function codeSpan(text: string): string {
  const runs = text.match(/`+/g) ?? [];
  const fence = '`'.repeat(Math.max(0, ...runs.map((r) => r.length)) + 1);
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

const DELIMITER = { bold: '**', italic: '*', strikethrough: '~~' } as const;
type Emphasis = keyof typeof DELIMITER;
type Leaf = { text: string; marks: Set<string> };

function leavesOf(node: AnyNode): Leaf[] {
  return asArray(node.leaves).map((l) => ({
    text: typeof l.text === 'string' ? l.text : '',
    marks: new Set(asArray(l.marks).map((m) => String(m.type))),
  }));
}

const sameMarks = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((m) => b.has(m));

/**
 * Markdown for a run of leaves. A mark spanning several leaves is opened once and closed once
 * (longer runs outermost), and whitespace is kept outside the delimiters, so that the markdown
 * reads back with the same marks on the same characters.
 */
function renderLeaves(input: Leaf[]): string {
  const leaves: Leaf[] = [];
  for (const l of input) {
    if (l.text === '') continue;
    const last = leaves[leaves.length - 1];
    if (last && sameMarks(last.marks, l.marks)) last.text += l.text;
    else leaves.push({ text: l.text, marks: l.marks });
  }
  const runLength = (from: number, mark: string) => {
    let n = 0;
    while (from + n < leaves.length && leaves[from + n].marks.has(mark)) n++;
    return n;
  };
  let out = '';
  const stack: Emphasis[] = [];
  const close = (count: number) => {
    const ws = /\s*$/.exec(out)![0];
    out = out.slice(0, out.length - ws.length);
    while (count-- > 0) out += DELIMITER[stack.pop()!];
    out += ws;
  };
  leaves.forEach((l, i) => {
    const blank = l.text.trim() === '';
    // Whitespace never opens a mark; it only keeps open the ones it carries.
    const want = new Set([...l.marks].filter((m): m is Emphasis => m in DELIMITER && (!blank || stack.includes(m as Emphasis))));
    const keep = stack.findIndex((m) => !want.has(m));
    if (keep >= 0) close(stack.length - keep);
    const lead = /^\s*/.exec(l.text)![0];
    out += lead;
    const opening = [...want].filter((m) => !stack.includes(m)).sort((a, b) => runLength(i, b) - runLength(i, a));
    for (const m of opening) {
      out += DELIMITER[m];
      stack.push(m);
    }
    const rest = l.text.slice(lead.length);
    if (l.marks.has('code') && !blank) {
      const trail = /\s*$/.exec(rest)![0];
      out += codeSpan(rest.slice(0, rest.length - trail.length)) + trail;
    } else {
      out += escapeText(rest);
    }
  });
  close(stack.length);
  return out.replace(/\n/g, '\\\n');
}

function refUrl(data: Record<string, unknown>): string | undefined {
  const ref = asRecord(data.ref);
  return ref.kind === 'url' && typeof ref.url === 'string' ? ref.url : undefined;
}

function inlines(nodes: AnyNode[]): string {
  let out = '';
  let pending: Leaf[] = [];
  const flush = () => {
    out += renderLeaves(pending);
    pending = [];
  };
  for (const node of nodes) {
    if (node.object === 'text') {
      pending.push(...leavesOf(node));
      continue;
    }
    flush();
    const data = asRecord(node.data);
    if (node.type === 'link') {
      const url = refUrl(data);
      const text = inlines(asArray(node.nodes));
      out += url === undefined ? text : `[${text}](<${url.replace(/[<>]/g, encodeURIComponent)}>)`;
    } else if (node.type === 'inline-image') {
      const url = refUrl(data);
      if (url !== undefined)
        out += `![${escapeText(typeof data.alt === 'string' ? data.alt : '')}](<${url.replace(/[<>]/g, encodeURIComponent)}>)`;
    } else if (node.type === 'emoji' && typeof data.code === 'string') {
      out += String.fromCodePoint(
        ...data.code
          .split('-')
          .map((c) => parseInt(c, 16))
          .filter((n) => Number.isFinite(n)),
      );
    } else {
      out += inlines(asArray(node.nodes));
    }
  }
  flush();
  return out;
}

function indent(text: string, prefix: string, first = prefix): string {
  return text
    .split('\n')
    .map((line, i) => (i === 0 ? first : line === '' ? '' : prefix) + line)
    .join('\n');
}

function blockMarkdown(node: AnyNode): string {
  const children = asArray(node.nodes);
  const data = asRecord(node.data);
  switch (node.type) {
    case 'paragraph':
      return inlines(children);
    case 'heading-1':
    case 'heading-2':
    case 'heading-3':
      return `${'#'.repeat(Number(String(node.type).slice(-1)))} ${inlines(children).replace(/\n/g, ' ')}`;
    case 'divider':
      return '---';
    case 'code': {
      const lines = children.map((line) =>
        asArray(line.nodes)
          .flatMap((t) => leavesOf(t).map((l) => l.text))
          .join(''),
      );
      const body = lines.join('\n');
      const runs = body.match(/^`{3,}/gm) ?? [];
      const fence = '`'.repeat(Math.max(3, ...runs.map((r) => r.length + 1)));
      return `${fence}${typeof data.syntax === 'string' ? data.syntax : ''}\n${body}\n${fence}`;
    }
    case 'list-unordered':
    case 'list-ordered':
    case 'list-tasks': {
      const start = typeof data.start === 'number' && Number.isInteger(data.start) ? data.start : 1;
      return children
        .map((item, i) => {
          const itemData = asRecord(item.data);
          let marker = node.type === 'list-ordered' ? `${start + i}. ` : '- ';
          if (node.type === 'list-tasks') marker += itemData.checked === true ? '[x] ' : '[ ] ';
          const body = blockList(asArray(item.nodes)) || '';
          return indent(body, ' '.repeat(marker.length), marker);
        })
        .join('\n');
    }
    case 'blockquote':
    case 'hint':
      return indent(blockList(children), '> ').replace(/^$/gm, '>');
    default:
      if (node.object === 'text') return renderLeaves(leavesOf(node));
      if (node.object === 'inline') return inlines([node]);
      return blockList(children);
  }
}

function blockList(nodes: AnyNode[]): string {
  return nodes
    .map(blockMarkdown)
    .filter((text) => text !== '')
    .join('\n\n');
}

/** Markdown for a GitBook JSON document (or anything shaped like one). */
export function documentToMarkdown(document: unknown): string {
  const text = blockList(asArray(asRecord(document).nodes));
  return text === '' ? '' : `${text}\n`;
}
