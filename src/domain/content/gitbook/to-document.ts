/**
 * mdast (as ./parse.ts nests it) to GitBook's JSON document. Each GitBook construct becomes the
 * block its schema describes; what has no block of its own keeps its text in a paragraph.
 */
import type { Heading, Html, PhrasingContent, RootContent, Table } from 'mdast';
import { toString } from 'mdast-util-to-string';
import { generateNKeysBetween } from 'fractional-indexing';
import {
  attr,
  BLOCK_TAGS,
  cellBlocks,
  codeBlock,
  columnId,
  detailsOpening,
  elementPieces,
  expandable,
  hastBlocks,
  linkInline,
  parseHtml,
  recordIdOf,
  trimPieces,
} from './from-html.ts';
import { markdownAsText, markdownLimitProblem } from '../limits.ts';
import type { LiquidTag } from './liquid.ts';
import { quotedArgument } from './liquid.ts';
import {
  ALLOWED,
  fileRef,
  fit,
  flatText,
  group,
  guarded,
  imageInline,
  leaf,
  linkRef,
  mark,
  paragraph,
  textPieces,
  withMark,
  type Context,
  type Piece,
} from './nodes.ts';
import { parseGitbookMarkdown, type DetailsBlockNode, type LiquidBlockNode } from './parse.ts';
import type { DocBlock, DocFragment, DocMark, JsonDocument, MarkdownToDocumentOptions } from './types.ts';
import type { Element } from 'hast';

export function toDocument(markdown: string, options: MarkdownToDocumentOptions = {}): JsonDocument {
  // Content past the limits (stored before they existed) is shown as its text, never parsed:
  // parsing it is quadratic or recursive past any real page (see ../limits.ts).
  const problem = markdownLimitProblem(markdown);
  const root = parseGitbookMarkdown(problem ? markdownAsText(markdown, `This page is shown as text: ${problem.message}`) : markdown);
  const definitions = new Map<string, string>();
  for (const node of root.children) if (node.type === 'definition') definitions.set(node.identifier, node.url);
  if (options.skipTitle) {
    const first = root.children.findIndex((n) => n.type !== 'definition' && n.type !== 'html');
    const heading = root.children[first];
    if (heading?.type === 'heading' && heading.depth === 1) root.children.splice(first, 1);
  }
  return { object: 'document', data: {}, nodes: fit(blocks(root.children, { options, definitions, depth: 0 }), ALLOWED.top) };
}

// ---------------------------------------------------------------------------------------------
// Inline content

const OPEN_TAG = /^<([a-z][a-z0-9-]*)(?=[\s/>])/i;
const CLOSE_TAG = /^<\/([a-z][a-z0-9-]*)\s*>$/i;
const VOID_TAGS = new Set(['img', 'br', 'source', 'wbr']);

/** The one element an inline HTML node opens (`<a href="x" class="button">`), read by the HTML parser. */
function openingElement(html: string): Element | null {
  if (!OPEN_TAG.test(html.trim())) return null;
  const el = parseHtml(html).children.find((c): c is Element => c.type === 'element');
  return el ?? null;
}

function phrasing(nodes: PhrasingContent[], marks: DocMark[], ctx: Context): Piece[] {
  return guarded(
    ctx,
    () => [leaf(flatText(nodes), marks)],
    () => phrasingAt(nodes, marks, ctx),
  );
}

function phrasingAt(nodes: PhrasingContent[], marks: DocMark[], ctx: Context): Piece[] {
  const out: Piece[] = [];
  for (let i = 0; i < nodes.length; i++) {
    const node = nodes[i];
    switch (node.type) {
      case 'text':
        out.push(...textPieces(node.value, marks));
        break;
      case 'emphasis':
        out.push(...phrasing(node.children, withMark(marks, mark('italic')), ctx));
        break;
      case 'strong':
        out.push(...phrasing(node.children, withMark(marks, mark('bold')), ctx));
        break;
      case 'delete':
        out.push(...phrasing(node.children, withMark(marks, mark('strikethrough')), ctx));
        break;
      case 'inlineCode':
        // Line endings in a code span are spaces (CommonMark).
        out.push(leaf(node.value.replace(/\r?\n/g, ' '), withMark(marks, mark('code'))));
        break;
      case 'break':
        out.push(leaf('\n', marks));
        break;
      case 'inlineMath':
        if (node.value.trim() !== '') out.push({ object: 'inline', type: 'inline-math', data: { formula: node.value }, isVoid: true });
        break;
      case 'image':
        out.push(imageInline(node.url, node.alt ?? undefined, ctx));
        break;
      case 'imageReference': {
        const url = ctx.definitions.get(node.identifier);
        out.push(url === undefined ? leaf(node.alt ?? '', marks) : imageInline(url, node.alt ?? undefined, ctx));
        break;
      }
      case 'link':
      case 'linkReference': {
        const url = node.type === 'link' ? node.url : ctx.definitions.get(node.identifier);
        const inner = phrasing(node.children, marks, ctx);
        out.push(...(url === undefined ? inner : [linkInline(url, inner, ctx)]));
        break;
      }
      case 'html': {
        const el = openingElement(node.value);
        if (el && !VOID_TAGS.has(el.tagName) && el.tagName !== 'picture' && el.children.length === 0) {
          // `<mark style="…">`, text, `</mark>`: find the closing tag among the siblings.
          const end = closingIndex(nodes, i, el.tagName);
          if (end > 0) {
            const content = nodes.slice(i + 1, end);
            out.push(...elementPieces(el, (m) => phrasing(content, m, ctx), marks, ctx));
            i = end;
            break;
          }
        }
        if (el?.tagName === 'picture') {
          const end = closingIndex(nodes, i, 'picture');
          const html = nodes
            .slice(i, end > 0 ? end + 1 : i + 1)
            .map((n) => (n.type === 'html' ? n.value : ''))
            .join('');
          const picture = parseHtml(html).children.find((c): c is Element => c.type === 'element');
          if (picture) out.push(...elementPieces(picture, () => [], marks, ctx));
          if (end > 0) i = end;
          break;
        }
        if (el && (VOID_TAGS.has(el.tagName) || el.children.length > 0)) {
          out.push(...elementPieces(el, (m) => phrasingOfHtml(el, m, ctx), marks, ctx));
          break;
        }
        if (CLOSE_TAG.test(node.value.trim()) || /^<!--/.test(node.value)) break;
        out.push(leaf(node.value, marks));
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

function phrasingOfHtml(el: Element, marks: DocMark[], ctx: Context): Piece[] {
  return el.children.flatMap((c) =>
    c.type === 'text'
      ? textPieces(c.value, marks)
      : c.type === 'element'
        ? elementPieces(c, (m) => phrasingOfHtml(c, m, ctx), marks, ctx)
        : [],
  );
}

function closingIndex(nodes: PhrasingContent[], from: number, tagName: string): number {
  let depth = 0;
  for (let j = from + 1; j < nodes.length; j++) {
    const n = nodes[j];
    if (n.type !== 'html') continue;
    const close = CLOSE_TAG.exec(n.value.trim());
    if (close && close[1].toLowerCase() === tagName) {
      if (depth === 0) return j;
      depth--;
    } else if (OPEN_TAG.exec(n.value.trim())?.[1].toLowerCase() === tagName) depth++;
  }
  return -1;
}

// ---------------------------------------------------------------------------------------------
// Blocks

function heading(node: Heading, ctx: Context): DocBlock {
  const children = [...node.children];
  const data: Record<string, unknown> = {};
  // `## Title <a href="#id" id="id"></a>`: the anchor GitBook gives a heading with a custom id.
  const [open, close] = children.slice(-2);
  if (open?.type === 'html' && close?.type === 'html' && CLOSE_TAG.test(close.value.trim())) {
    const el = openingElement(open.value);
    const id = el?.tagName === 'a' ? el.properties.id : undefined;
    if (typeof id === 'string') {
      children.splice(-2, 2);
      if (/^[-a-z0-9.+_]+$/.test(id)) data.id = id;
    }
  }
  // `## Title {#id}`
  const last = children[children.length - 1];
  if (last?.type === 'text') {
    const at = last.value.lastIndexOf('{#');
    const m = at >= 0 ? /^\{#([-a-z0-9.+_]+)\}\s*$/.exec(last.value.slice(at)) : null;
    if (m) {
      children[children.length - 1] = { ...last, value: last.value.slice(0, at) };
      data.id = m[1];
    }
  }
  const pieces = trimPieces(phrasing(children, [], ctx));
  return { object: 'block', type: `heading-${Math.min(node.depth, 3)}`, data, nodes: group(pieces), isVoid: false };
}

function gfmTable(node: Table, ctx: Context): DocBlock {
  const [head, ...rows] = node.children;
  const cells = head?.children ?? [];
  const definition: Record<string, unknown> = {};
  const ids = cells.map((_, i) => columnId(i));
  cells.forEach((cell, i) => {
    const align = node.align?.[i];
    definition[ids[i]] = {
      id: ids[i],
      title: toString(cell).trim(),
      type: 'text',
      textAlignment: align === 'center' ? 'center' : align === 'right' ? 'right' : 'left',
    };
  });
  const fragments: DocFragment[] = [];
  const records: Record<string, unknown> = {};
  const order = generateNKeysBetween(null, null, rows.length);
  rows.forEach((row, r) => {
    const recordId = recordIdOf(r);
    const values: Record<string, string> = {};
    ids.forEach((id, i) => {
      const cell = row.children[i];
      const name = `${recordId}-${id}`;
      fragments.push({
        object: 'fragment',
        fragment: name,
        nodes: cellBlocks([paragraph(trimPieces(phrasing(cell?.children ?? [], [], ctx)))]),
      });
      values[id] = name;
    });
    records[recordId] = { orderIndex: order[r], values };
  });
  const hideHeader = cells.every((cell) => toString(cell).trim() === '');
  return {
    object: 'block',
    type: 'table',
    data: { view: { type: 'grid', columns: ids, hideHeader }, records, definition },
    fragments,
    isVoid: true,
  };
}

/** Blocks for a raw HTML block: the HTML GitBook writes, or its text when it is something else. */
const HINT_STYLES = new Set(['info', 'warning', 'danger', 'success']);

function htmlBlock(node: Html, ctx: Context): DocBlock[] {
  const root = parseHtml(node.value);
  const elements = root.children.filter((c) => c.type === 'element');
  const stray = root.children.some((c) => c.type === 'text' && c.value.trim() !== '');
  // `<div align="center"><figure>…</figure></div>`: one images block of several images, aligned.
  const div = elements.length === 1 && elements[0].type === 'element' && elements[0].tagName === 'div' ? elements[0] : null;
  if (div && !stray) {
    const images = hastBlocks(div.children, ctx);
    if (images.length > 0 && images.every((b) => b.type === 'image')) {
      const align = attr(div, 'align');
      const data: Record<string, unknown> = align === 'center' || align === 'left' || align === 'right' ? { align } : {};
      if (attr(div, 'dataFullWidth') === 'true') data.fullWidth = true;
      if (attr(div, 'dataWithFrame') === 'true') data.withFrame = true;
      return [{ object: 'block', type: 'images', data, nodes: images, isVoid: false }];
    }
  }
  // `<div data-gb-custom-block data-tag="hint" data-style="success">…</div>`: the HTML form GitBook's
  // Git Sync gives a hint where liquid tags cannot go (indented in a list item).
  if (div && !stray && attr(div, 'dataGbCustomBlock') !== undefined && attr(div, 'dataTag') === 'hint') {
    const style = attr(div, 'dataStyle') ?? '';
    return [
      {
        object: 'block',
        type: 'hint',
        data: { style: HINT_STYLES.has(style) ? style : 'info' },
        nodes: fit(hastBlocks(div.children, ctx), ALLOWED.hint),
        isVoid: false,
      },
    ];
  }
  const known = elements.length > 0 && elements.every((c) => c.type === 'element' && BLOCK_TAGS.has(c.tagName) && c.tagName !== 'div');
  if (!known || stray) return [paragraph(textPieces(node.value.trim(), []))];
  return hastBlocks(root.children, ctx);
}

const imageOnly = (children: PhrasingContent[]) =>
  children.length > 0 &&
  children.some((c) => c.type === 'image') &&
  children.every((c) => c.type === 'image' || (c.type === 'text' && c.value.trim() === ''));

function blocks(nodes: RootContent[], ctx: Context): DocBlock[] {
  return guarded(
    ctx,
    () => {
      const text = flatText(nodes);
      return text ? [paragraph([leaf(text, [])])] : [];
    },
    () => blocksAt(nodes, ctx),
  );
}

function blocksAt(nodes: RootContent[], ctx: Context): DocBlock[] {
  const out: DocBlock[] = [];
  for (const node of nodes) {
    switch (node.type) {
      case 'paragraph':
        if (imageOnly(node.children)) {
          for (const image of node.children) {
            if (image.type !== 'image') continue;
            const data: Record<string, unknown> = { ref: fileRef(image.url, ctx) };
            if (image.alt) data.alt = image.alt;
            out.push({
              object: 'block',
              type: 'images',
              data: {},
              nodes: [{ object: 'block', type: 'image', data, fragments: [], isVoid: true }],
              isVoid: false,
            });
          }
        } else out.push(paragraph(trimPieces(phrasing(node.children, [], ctx))));
        break;
      case 'heading':
        out.push(heading(node, ctx));
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
          nodes: fit(blocks(item.children, ctx), ALLOWED.listItem),
          isVoid: false,
        }));
        const type = tasks ? 'list-tasks' : node.ordered ? 'list-ordered' : 'list-unordered';
        const start = node.start ?? 1;
        out.push({ object: 'block', type, data: type === 'list-ordered' && start !== 1 ? { start } : {}, nodes: items, isVoid: false });
        break;
      }
      case 'code':
        out.push(codeBlock(node.value, node.lang ? { syntax: node.lang } : {}));
        break;
      case 'math':
        out.push({ object: 'block', type: 'math', data: { formula: node.value }, isVoid: true });
        break;
      case 'blockquote':
        out.push({ object: 'block', type: 'blockquote', data: {}, nodes: fit(blocks(node.children, ctx), ALLOWED.quote), isVoid: false });
        break;
      case 'table':
        out.push(gfmTable(node, ctx));
        break;
      case 'html':
        out.push(...htmlBlock(node, ctx));
        break;
      case 'liquidBlock':
        out.push(...liquidBlock(node, ctx));
        break;
      case 'liquidTag':
        out.push(...liquidTag(node.tag, ctx));
        break;
      case 'detailsBlock':
        out.push(details(node, ctx));
        break;
      case 'footnoteDefinition':
        out.push(...blocks(node.children, ctx));
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

function details(node: DetailsBlockNode, ctx: Context): DocBlock {
  const opening = detailsOpening(node.opening, ctx);
  let children = node.children;
  let title = opening.title;
  const first = children[0];
  if (title === null && first?.type === 'html' && /^<summary[\s>]/i.test(first.value.trim())) {
    const summary = parseHtml(first.value).children.find((c): c is Element => c.type === 'element' && c.tagName === 'summary');
    if (summary) title = trimPieces(phrasingOfHtml(summary, [], ctx));
    children = children.slice(1);
  }
  return expandable(title ?? [], [...opening.rest, ...blocks(children, ctx)], opening.open);
}

const TAG_NAMES: Record<string, string> = { swagger: 'openapi' };

/** A label such as `[x](x.md)` under a content-ref or OpenAPI tag, which the block itself replaces. */
const isLabel = (children: RootContent[]) =>
  children.length === 0 ||
  (children.length === 1 &&
    children[0].type === 'paragraph' &&
    children[0].children.every((c) => c.type === 'link' || (c.type === 'text' && c.value.trim() === '')));

function liquidBlock(node: LiquidBlockNode, ctx: Context): DocBlock[] {
  const { tag } = node;
  const attrs = tag.attrs;
  const inner = () => blocks(node.children, ctx);
  switch (TAG_NAMES[tag.name] ?? tag.name) {
    case 'hint': {
      const style = HINT_STYLES.has(attrs.style) ? attrs.style : 'info';
      return [
        {
          object: 'block',
          type: 'hint',
          data: { style, ...(attrs.icon ? { icon: attrs.icon } : {}) },
          nodes: fit(inner(), ALLOWED.hint),
          isVoid: false,
        },
      ];
    }
    case 'tabs':
      return [
        {
          object: 'block',
          type: 'tabs',
          data: {},
          nodes: items(node, 'tab', ctx, (t, b) => item('tabs-item', tabData(t), fit(b, ALLOWED.tab))),
          isVoid: false,
        },
      ];
    case 'stepper':
      return [
        {
          object: 'block',
          type: 'stepper',
          data: {},
          nodes: items(node, 'step', ctx, (t, b) => item('stepper-step', iconData(t), fit(b, ALLOWED.step))),
          isVoid: false,
        },
      ];
    case 'columns':
      return [
        {
          object: 'block',
          type: 'columns',
          data: attrs.fullWidth === 'true' ? { fullWidth: true } : {},
          nodes: items(node, 'column', ctx, (t, b) => item('column', columnData(t), fit(b, ALLOWED.column))),
          isVoid: false,
        },
      ];
    case 'updates':
      return [
        {
          object: 'block',
          type: 'updates',
          data: { format: ['numeric', 'full', 'short'].includes(attrs.format) ? attrs.format : 'full' },
          nodes: items(node, 'update', ctx, (t, b) => item('update', updateData(t), fit(b, ALLOWED.update))),
          isVoid: false,
        },
      ];
    case 'if':
      return conditions(node, ctx);
    case 'code': {
      const children = inner();
      const code = children.find((b) => b.type === 'code');
      if (!code) return children;
      const data = { ...code.data };
      if (attrs.title) data.title = attrs.title;
      if (attrs.overflow === 'wrap' || attrs.overflow === 'scroll') data.overflow = attrs.overflow;
      for (const flag of ['lineNumbers', 'fullWidth', 'expandable'] as const)
        if (attrs[flag] !== undefined) data[flag] = attrs[flag] === 'true';
      return children.map((b) => (b === code ? { ...code, data } : b));
    }
    case 'prompt': {
      const children = inner();
      const code = children.find((b) => b.type === 'code') ?? codeBlock('', {});
      const data: Record<string, unknown> = { description: attrs.description ?? '' };
      if (attrs.icon) data.icon = attrs.icon;
      if (attrs.openInAIProviders !== undefined) data.openInAIProviders = attrs.openInAIProviders === 'true';
      if (['hidden', 'partial', 'full'].includes(attrs.defaultExpanded)) data.defaultExpanded = attrs.defaultExpanded;
      return [{ object: 'block', type: 'prompt', data, nodes: [code], isVoid: false }, ...children.filter((b) => b !== code)];
    }
    case 'content-ref':
    case 'openapi':
    case 'openapi-operation':
    case 'openapi-schemas':
    case 'openapi-webhook':
    case 'embed':
    case 'file':
    case 'include': {
      const made = liquidTag(tag, ctx);
      return isLabel(node.children) && made[0]?.type !== 'paragraph' ? made : [...made, ...inner()];
    }
    default:
      if (tag.name.startsWith('@')) return [...liquidTag(tag, ctx), ...inner()];
      return [paragraph([leaf(tag.raw, [])]), ...inner(), paragraph([leaf(`{% end${tag.name} %}`, [])])];
  }
}

function item(type: string, data: Record<string, unknown>, nodes: DocBlock[]): DocBlock {
  return { object: 'block', type, data, nodes, isVoid: false };
}

const iconData = (t: LiquidTag | null) => (t?.attrs.icon ? { icon: t.attrs.icon } : {});
const tabData = (t: LiquidTag | null) => ({ title: t?.attrs.title ?? '', ...iconData(t) });

function columnData(t: LiquidTag | null): Record<string, unknown> {
  const m = /^([\d.]+)(%|px)?$/.exec(t?.attrs.width ?? '');
  if (!m) return {};
  return { width: m[2] === '%' ? { unit: '%', value: Number(m[1]) } : Number(m[1]) };
}

function updateData(t: LiquidTag | null): Record<string, unknown> {
  const raw = t?.attrs.date ?? '';
  const date = /^\d{4}-\d{2}-\d{2}$/.test(raw)
    ? `${raw}T00:00:00.000Z`
    : Number.isNaN(Date.parse(raw))
      ? new Date(0).toISOString()
      : new Date(raw).toISOString();
  const data: Record<string, unknown> = { date };
  const tags = (t?.attrs.tags ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (tags.length) data.tags = tags.map((tag) => ({ kind: 'tag', tag }));
  return data;
}

/**
 * The items of a container tag (`{% tab %}` in `{% tabs %}`); content outside any item joins the
 * item before it (or a first item of its own), so it stays visible.
 */
function items(
  node: LiquidBlockNode,
  name: string,
  ctx: Context,
  make: (tag: LiquidTag | null, blocks: DocBlock[]) => DocBlock,
): DocBlock[] {
  const out: { tag: LiquidTag | null; blocks: DocBlock[] }[] = [];
  for (const child of node.children) {
    if (child.type === 'liquidBlock' && child.tag.name === name) out.push({ tag: child.tag, blocks: blocks(child.children, ctx) });
    else {
      const made = blocks([child], ctx);
      if (made.length === 0) continue;
      if (out.length === 0) out.push({ tag: null, blocks: [] });
      out[out.length - 1].blocks.push(...made);
    }
  }
  return out.map((i) => make(i.tag, i.blocks));
}

/**
 * `{% if a %}…{% elif b %}…{% else %}…{% endif %}` as `if` blocks: the first branch under its
 * condition, and every later branch inside an `if` block negating the condition before it
 * (`if a`, `if !(a)` holding `if b`, `if !(b)` holding the else branch). Each condition is written
 * twice whatever the number of branches, so the document grows linearly with the markdown (one
 * block per branch spelling out the negation of every earlier one grew quadratically). A plain
 * `if`/`else` stays two sibling blocks.
 */
const MAX_BRANCHES = 32;

function conditions(node: LiquidBlockNode, ctx: Context): DocBlock[] {
  const branches: { tag: 'if' | 'elif' | 'else'; expression: string; raw: string; children: RootContent[] }[] = [
    { tag: 'if', expression: node.tag.args, raw: node.tag.raw, children: [] },
  ];
  for (const child of node.children) {
    if (child.type === 'liquidTag' && (child.tag.name === 'else' || child.tag.name === 'elif'))
      branches.push({ tag: child.tag.name, expression: child.tag.args, raw: child.tag.raw, children: [] });
    else branches[branches.length - 1].children.push(child);
  }
  // Past MAX_BRANCHES (more than any real block has; writes refuse them), the later branches are kept as text.
  let tail: DocBlock[] = [];
  if (branches.length > MAX_BRANCHES) {
    const text = branches
      .splice(MAX_BRANCHES)
      .map((b) => `${b.raw} ${flatText(b.children)}`)
      .join(' ');
    tail = [paragraph([leaf(`${text} {% endif %}`, [])])];
  }
  const ifBlock = (expression: string, nodes: DocBlock[]): DocBlock => ({
    object: 'block',
    type: 'if',
    data: { expression },
    nodes: fit(nodes, ALLOWED.top),
    isVoid: false,
  });
  // Built from the last branch back, without recursion: `rest` is what follows branch i once its condition fails.
  let rest: DocBlock[] = tail;
  for (let i = branches.length - 1; i >= 0; i--) {
    const branch = branches[i];
    const content = blocks(branch.children, ctx);
    if (branch.tag === 'else') {
      // An else branch ends the chain; content written after it stays visible after its own.
      rest = [...content, ...rest];
      continue;
    }
    rest = [ifBlock(branch.expression, content), ...(rest.length > 0 ? [ifBlock(`!(${branch.expression})`, rest)] : [])];
  }
  return rest;
}

function liquidTag(tag: LiquidTag, ctx: Context): DocBlock[] {
  const a = tag.attrs;
  const visible = () => [paragraph(textPieces(tag.raw, []))];
  switch (TAG_NAMES[tag.name] ?? tag.name) {
    case 'embed':
      return a.url
        ? [{ object: 'block', type: 'embed', data: { url: a.url, ...(a.fullWidth === 'true' ? { fullWidth: true } : {}) }, isVoid: true }]
        : visible();
    case 'file': {
      if (!a.src) return visible();
      const ref = fileRef(a.src, ctx);
      if (ref.kind === 'file') return [{ object: 'block', type: 'file', data: { ref }, isVoid: true }];
      // A file block holds only files: a source that is no file stays a link to it.
      return [paragraph([linkInline(a.src, [leaf(a.src, [])], ctx)])];
    }
    case 'content-ref':
      return a.url === undefined ? visible() : [{ object: 'block', type: 'content-ref', data: { ref: linkRef(a.url, ctx) }, isVoid: true }];
    case 'openapi': {
      if (!a.src || !a.path || !a.method) return visible();
      const ref = fileRef(a.src, ctx);
      return [{ object: 'block', type: 'swagger', data: { ref, path: a.path, method: a.method }, isVoid: true }];
    }
    case 'openapi-operation':
      if (!a.spec || !a.path || !a.method) return visible();
      return [
        {
          object: 'block',
          type: 'openapi-operation',
          data: { ref: { kind: 'openapi', spec: a.spec }, path: a.path, method: a.method },
          isVoid: true,
        },
      ];
    case 'openapi-schemas': {
      if (!a.spec) return visible();
      const schemas = (a.schemas ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const data: Record<string, unknown> = { ref: { kind: 'openapi', spec: a.spec }, schemas };
      if (a.grouped !== undefined) data.grouped = a.grouped === 'true';
      return [{ object: 'block', type: 'openapi-schemas', data, isVoid: true }];
    }
    case 'openapi-webhook':
      if (!a.spec || !a.name || !a.method) return visible();
      return [
        {
          object: 'block',
          type: 'openapi-webhook',
          data: { ref: { kind: 'openapi', spec: a.spec }, name: a.name, method: a.method },
          isVoid: true,
        },
      ];
    case 'include': {
      const path = quotedArgument(tag);
      if (!path) return visible();
      const id = ctx.options.reusableContent?.(path) ?? null;
      // An include that resolves to nothing keeps its target, marked dangling, rather than vanishing.
      return [
        {
          object: 'block',
          type: 'reusable-content',
          data:
            id === null
              ? { ref: { kind: 'reusable-content', reusableContent: path }, dangling: true }
              : { ref: { kind: 'reusable-content', reusableContent: id } },
          isVoid: true,
        },
      ];
    }
    default: {
      // `{% @github-files/code-block url="…" %}`: a block of an integration, its properties as attributes.
      const integration = /^@([^/\s]+)\/([^\s]+)$/.exec(tag.name);
      if (!integration) return visible();
      const { url, fullWidth, ...props } = a;
      const data: Record<string, unknown> = { integration: integration[1], block: integration[2], props };
      if (url !== undefined) data.url = url;
      if (fullWidth === 'true') data.fullWidth = true;
      return [{ object: 'block', type: 'integration', data, isVoid: true }];
    }
  }
}
