/**
 * The HTML GitBook writes into markdown, read into the document model: figures and pictures
 * (images with captions and dark-mode variants), tables with `data-*` attributes (grids and
 * cards), `<details>` (expandables), and inline elements (buttons, icons, colored text, keyboard
 * keys, links, images). The HTML is parsed with rehype's parser, never matched as text.
 */
import type { Element, ElementContent, Root, RootContent } from 'hast';
import { generateNKeysBetween } from 'fractional-indexing';
import { parseHtmlFragment } from '../raw-html.ts';
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
  trailingSpace,
  withMark,
  type Context,
  type Piece,
} from './nodes.ts';
import type { DocBlock, DocFragment, DocMark } from './types.ts';

/** The text content of a HTML node. */
function hastToString(node: ElementContent | RootContent | Root): string {
  if (node.type === 'text') return node.value;
  if (node.type === 'element' || node.type === 'root') return node.children.map(hastToString).join('');
  return '';
}

export function parseHtml(html: string): Root {
  return parseHtmlFragment(html);
}

/** An attribute as a string (class lists joined by spaces); undefined when absent. */
export function attr(el: Element, name: string): string | undefined {
  const value: unknown = el.properties[name];
  if (value === undefined || value === null || value === false) return undefined;
  if (value === true) return '';
  return Array.isArray(value) ? value.join(' ') : String(value);
}

const classes = (el: Element) => (attr(el, 'className') ?? '').split(/\s+/).filter(Boolean);

const COLORS = new Set([
  'default',
  'green',
  'blue',
  'red',
  'orange',
  'yellow',
  'purple',
  'pink',
  'violet',
  'cyan',
  '$primary',
  '$info',
  '$success',
  '$warning',
  '$danger',
  '$tint',
]);

/** The color mark of `<mark style="color:orange;background-color:purple;">`. */
function colorMark(style: string): DocMark {
  const read = (prop: string) => {
    const m = new RegExp(`(?:^|;)\\s*${prop}\\s*:\\s*([^;]+)`, 'i').exec(style);
    const value = m?.[1].trim().toLowerCase();
    return value && COLORS.has(value) ? value : 'default';
  };
  return { object: 'mark', type: 'color', data: { text: read('color'), background: read('background-color') } };
}

const ICON_CLASS = /^fa-(?!solid$|regular$|light$|thin$|duotone$|brands$)(.+)$/;

/**
 * Pieces for an inline element whose content `inner` gives for a set of marks: the one place
 * inline HTML meaning is decided, for HTML inside markdown paragraphs and for HTML blocks.
 */
export function elementPieces(el: Element, inner: (marks: DocMark[]) => Piece[], marks: DocMark[], ctx: Context): Piece[] {
  const text = () => piecesText(inner([]));
  switch (el.tagName) {
    case 'strong':
    case 'b':
      return inner(withMark(marks, mark('bold')));
    case 'em':
      return inner(withMark(marks, mark('italic')));
    case 'i': {
      const icon = classes(el)
        .map((c) => ICON_CLASS.exec(c)?.[1])
        .find(Boolean);
      if (icon) return [{ object: 'inline', type: 'icon', data: { icon }, isVoid: true }];
      return inner(withMark(marks, mark('italic')));
    }
    case 'code':
      return inner(withMark(marks, mark('code')));
    case 's':
    case 'del':
    case 'strike':
      return inner(withMark(marks, mark('strikethrough')));
    case 'kbd':
      return inner(withMark(marks, mark('keyboard')));
    case 'sup':
      return inner(withMark(marks, mark('superscript')));
    case 'sub':
      return inner(withMark(marks, mark('subscript')));
    case 'mark':
      return inner([...marks.filter((m) => m.type !== 'color'), colorMark(attr(el, 'style') ?? '')]);
    case 'br':
      return [leaf('\n', marks)];
    case 'img': {
      const src = attr(el, 'src');
      if (src === undefined) return [];
      return [imageInline(src, attr(el, 'alt'), ctx, attr(el, 'dataSize') === 'line' ? { size: 'line' } : {})];
    }
    case 'picture': {
      const image = pictureImage(el, ctx);
      return image ? [{ object: 'inline', type: 'inline-image', data: image, isVoid: true }] : [];
    }
    case 'a':
    case 'button': {
      const href = attr(el, 'href');
      const cls = classes(el);
      if (cls.includes('button')) {
        const action = attr(el, 'dataAction');
        const data: Record<string, unknown> = { label: text(), kind: cls.includes('secondary') ? 'secondary' : 'primary' };
        const icon = attr(el, 'dataIcon');
        if (icon) data.icon = icon;
        if (href !== undefined) data.ref = linkRef(href, ctx);
        else if (action === 'search' || action === 'ask') {
          const query = attr(el, 'dataQuery');
          data.action = query === undefined ? { action } : { action, query };
        } else if (action === 'select') data.action = { action, slug: attr(el, 'dataSlug') ?? '' };
        else data.action = { action: 'search' };
        return [{ object: 'inline', type: 'button', data, isVoid: true }];
      }
      if (href === undefined) return inner(marks);
      return [linkInline(href, inner(marks), ctx)];
    }
    default:
      return inner(marks);
  }
}

/** The text of pieces, links' text included. */
function piecesText(pieces: Piece[]): string {
  return pieces
    .map((p) =>
      p.object === 'leaf' ? p.text : (p.nodes ?? []).map((n) => (n.object === 'text' ? n.leaves.map((l) => l.text).join('') : '')).join(''),
    )
    .join('');
}

/** A link inline; its content keeps only what a link may hold (text and images). */
export function linkInline(href: string, content: Piece[], ctx: Context): Piece {
  const nodes: Piece[] = content.flatMap((p): Piece[] => {
    if (p.object === 'leaf' || p.type === 'inline-image') return [p];
    if (p.type === 'emoji')
      return [
        leaf(
          String.fromCodePoint(
            ...String(p.data.code)
              .split('-')
              .map((c) => parseInt(c, 16)),
          ),
          [],
        ),
      ];
    return (p.nodes ?? []).flatMap((n) => (n.object === 'text' ? n.leaves : []));
  });
  return { object: 'inline', type: 'link', data: { ref: linkRef(href, ctx) }, nodes: group(nodes), isVoid: false };
}

export function hastPhrasing(nodes: (ElementContent | RootContent)[], marks: DocMark[], ctx: Context): Piece[] {
  return guarded(
    ctx,
    () => [leaf(flatText(nodes), marks)],
    () => hastPhrasingAt(nodes, marks, ctx),
  );
}

function hastPhrasingAt(nodes: (ElementContent | RootContent)[], marks: DocMark[], ctx: Context): Piece[] {
  const out: Piece[] = [];
  for (const node of nodes) {
    // HTML text: runs of whitespace, line breaks included, show as one space.
    if (node.type === 'text') out.push(...textPieces(node.value.replace(/\s+/g, ' '), marks));
    else if (node.type === 'element') out.push(...elementPieces(node, (m) => hastPhrasing(node.children, m, ctx), marks, ctx));
  }
  return out;
}

/** The image data of a `<picture>` (its `<img>`, and a `<source>` for dark mode). */
function pictureImage(el: Element, ctx: Context): Record<string, unknown> | null {
  const img = el.children.find((c): c is Element => c.type === 'element' && c.tagName === 'img');
  const src = img && attr(img, 'src');
  if (!img || src === undefined) return null;
  const data: Record<string, unknown> = { ref: fileRef(src, ctx) };
  const dark = el.children.find((c): c is Element => c.type === 'element' && c.tagName === 'source' && /dark/.test(attr(c, 'media') ?? ''));
  const darkSrc = dark && attr(dark, 'srcSet');
  // A `srcset` of one candidate, maybe with a width or density descriptor; paths may hold spaces.
  if (darkSrc)
    data.refDark = fileRef(
      darkSrc
        .split(',')[0]
        .trim()
        .replace(/\s+\d+(?:\.\d+)?[wx]$/, ''),
      ctx,
    );
  const alt = attr(img, 'alt');
  if (alt) data.alt = alt;
  return data;
}

function length(value: string | undefined): number | { unit: string; value: number } | undefined {
  if (value === undefined) return undefined;
  const m = /^\s*([\d.]+)\s*(%|px)?\s*$/.exec(value);
  if (!m || !Number.isFinite(Number(m[1]))) return undefined;
  return m[2] === '%' ? { unit: '%', value: Number(m[1]) } : Number(m[1]);
}

/** An image block for a `<figure>` (or a lone `<img>`/`<picture>`). */
function imageBlock(el: Element, ctx: Context): DocBlock | null {
  const elements = el.tagName === 'figure' ? el.children.filter((c): c is Element => c.type === 'element') : [el];
  const picture = elements.find((c) => c.tagName === 'picture');
  const img = elements.find((c) => c.tagName === 'img');
  let data: Record<string, unknown> | null = null;
  if (picture) data = pictureImage(picture, ctx);
  else if (img && attr(img, 'src') !== undefined) {
    data = { ref: fileRef(attr(img, 'src')!, ctx) };
    const alt = attr(img, 'alt');
    if (alt) data.alt = alt;
  }
  if (!data) return null;
  const sized = img ?? picture?.children.find((c): c is Element => c.type === 'element' && c.tagName === 'img');
  const width = sized && length(attr(sized, 'width'));
  if (width !== undefined) data.width = width;
  const caption = elements.find((c) => c.tagName === 'figcaption');
  const fragments: DocFragment[] = [];
  if (caption && hastToString(caption).trim() !== '') {
    fragments.push({ object: 'fragment', fragment: 'caption', nodes: fit(hastBlocks(caption.children, ctx), ALLOWED.caption) });
  }
  return { object: 'block', type: 'image', data, fragments, isVoid: true };
}

const INLINE_TAGS = new Set([
  'a',
  'abbr',
  'b',
  'br',
  'button',
  'code',
  'del',
  'em',
  'i',
  'img',
  'kbd',
  'mark',
  'picture',
  's',
  'span',
  'strike',
  'strong',
  'sub',
  'sup',
  'u',
]);

/** Block-level HTML elements this reader gives a block of their own. */
export const BLOCK_TAGS = new Set([
  'figure',
  'picture',
  'img',
  'table',
  'details',
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'pre',
  'blockquote',
  'hr',
  'div',
]);

/** Blocks for HTML content: runs of inline content become paragraphs. */
export function hastBlocks(nodes: (ElementContent | RootContent)[], ctx: Context): DocBlock[] {
  return guarded(
    ctx,
    () => {
      const text = flatText(nodes);
      return text ? [paragraph([leaf(text, [])])] : [];
    },
    () => hastBlocksAt(nodes, ctx),
  );
}

function hastBlocksAt(nodes: (ElementContent | RootContent)[], ctx: Context): DocBlock[] {
  const out: DocBlock[] = [];
  let inline: (ElementContent | RootContent)[] = [];
  const flush = () => {
    const pieces = trimPieces(hastPhrasing(inline, [], ctx));
    inline = [];
    if (pieces.length > 0) out.push(paragraph(pieces));
  };
  for (const node of nodes) {
    if (node.type === 'text' || (node.type === 'element' && (INLINE_TAGS.has(node.tagName) || !BLOCK_TAGS.has(node.tagName)))) {
      if (node.type === 'element' && node.tagName === 'picture') {
        flush();
        const image = imageBlock(node, ctx);
        if (image) out.push(image);
        continue;
      }
      inline.push(node);
      continue;
    }
    if (node.type !== 'element') continue;
    flush();
    out.push(...blockElement(node, ctx));
  }
  flush();
  return out;
}

function blockElement(el: Element, ctx: Context): DocBlock[] {
  switch (el.tagName) {
    case 'figure':
    case 'img': {
      const image = imageBlock(el, ctx);
      return image ? [image] : hastBlocks(el.children, ctx);
    }
    case 'p': {
      if (hastBlocks(el.children, ctx).length === 0) return [];
      const block = paragraph(trimPieces(hastPhrasing(el.children, [], ctx)));
      // `<p align="center">`: GitBook's aligned paragraph.
      const align = ALIGNMENTS[(attr(el, 'align') ?? '').toLowerCase()];
      if (align) block.data = { align };
      return [block];
    }
    case 'h1':
    case 'h2':
    case 'h3':
    case 'h4':
    case 'h5':
    case 'h6': {
      const depth = Math.min(Number(el.tagName[1]), 3);
      return [
        {
          object: 'block',
          type: `heading-${depth}`,
          data: {},
          nodes: group(trimPieces(hastPhrasing(el.children, [], ctx))),
          isVoid: false,
        },
      ];
    }
    case 'ul':
    case 'ol': {
      const items = el.children.filter((c): c is Element => c.type === 'element' && c.tagName === 'li');
      return [
        {
          object: 'block',
          type: el.tagName === 'ol' ? 'list-ordered' : 'list-unordered',
          data: {},
          nodes: items.map((li) => ({
            object: 'block',
            type: 'list-item',
            data: {},
            nodes: fit(hastBlocks(li.children, ctx), ALLOWED.listItem),
            isVoid: false,
          })),
          isVoid: false,
        },
      ];
    }
    case 'pre': {
      const code = hastToString(el).replace(/\n$/, '');
      const lang = el.children
        .filter((c): c is Element => c.type === 'element')
        .flatMap(classes)
        .map((c) => /^lang(?:uage)?-(.+)$/.exec(c)?.[1])
        .find(Boolean);
      return [codeBlock(code, lang ? { syntax: lang } : {})];
    }
    case 'blockquote':
      return [{ object: 'block', type: 'blockquote', data: {}, nodes: fit(hastBlocks(el.children, ctx), ALLOWED.quote), isVoid: false }];
    case 'hr':
      return [{ object: 'block', type: 'divider', data: {}, isVoid: true }];
    case 'table':
      return [tableBlock(el, ctx)];
    case 'details':
      return [expandableFromHtml(el, ctx)];
    default:
      return hastBlocks(el.children, ctx);
  }
}

const ALIGNMENTS: Record<string, string> = { left: 'start', center: 'center', right: 'end' };

export function codeBlock(value: string, data: Record<string, unknown>): DocBlock {
  return {
    object: 'block',
    type: 'code',
    data,
    nodes: value.split('\n').map((line) => ({
      object: 'block' as const,
      type: 'code-line',
      data: {},
      nodes: [{ object: 'text' as const, leaves: [leaf(line, [])] }],
      isVoid: false,
    })),
    isVoid: false,
  };
}

/** An expandable block from its title pieces and body blocks. */
export function expandable(title: Piece[], body: DocBlock[], open: boolean): DocBlock {
  const nodes = fit(body, ALLOWED.expandable);
  return {
    object: 'block',
    type: 'expandable',
    data: open ? { defaultExpanded: true } : {},
    isVoid: true,
    fragments: [
      { object: 'fragment', fragment: 'expandable-title', type: 'expandable-title', nodes: [paragraph(title)] },
      { object: 'fragment', fragment: 'expandable-body', type: 'expandable-body', nodes: nodes.length ? nodes : [paragraph([])] },
    ],
  };
}

function expandableFromHtml(el: Element, ctx: Context): DocBlock {
  const summary = el.children.find((c): c is Element => c.type === 'element' && c.tagName === 'summary');
  const rest = el.children.filter((c) => c !== summary);
  return expandable(
    summary ? trimPieces(hastPhrasing(summary.children, [], ctx)) : [],
    hastBlocks(rest, ctx),
    attr(el, 'open') !== undefined,
  );
}

/** The opening of a `<details>` section written as HTML (`<details open>\n<summary>…</summary>`). */
export function detailsOpening(html: string, ctx: Context): { open: boolean; title: Piece[] | null; rest: DocBlock[] } {
  const root = parseHtml(html);
  const details = root.children.find((c): c is Element => c.type === 'element' && c.tagName === 'details');
  if (!details) return { open: false, title: null, rest: hastBlocks(root.children, ctx) };
  const summary = details.children.find((c): c is Element => c.type === 'element' && c.tagName === 'summary');
  const rest = details.children.filter((c) => c !== summary);
  return {
    open: attr(details, 'open') !== undefined,
    title: summary ? trimPieces(hastPhrasing(summary.children, [], ctx)) : null,
    rest: hastBlocks(rest, ctx),
  };
}

export function trimPieces(input: Piece[]): Piece[] {
  const pieces = [...input];
  const blank = (p: Piece | undefined) => p?.object === 'leaf' && !p.marks.some((m) => m.type === 'code') && p.text.trim() === '';
  while (blank(pieces[0])) pieces.shift();
  while (blank(pieces[pieces.length - 1])) pieces.pop();
  const first = pieces[0];
  if (first?.object === 'leaf') pieces[0] = { ...first, text: first.text.replace(/^\s+/, '') };
  const last = pieces[pieces.length - 1];
  if (last?.object === 'leaf')
    pieces[pieces.length - 1] = { ...last, text: last.text.slice(0, last.text.length - trailingSpace(last.text).length) };
  return pieces.filter((p) => p.object !== 'leaf' || p.text !== '');
}

// ---------------------------------------------------------------------------------------------
// Tables

const COLUMN_TYPES = new Set(['text', 'number', 'checkbox', 'files', 'content-ref', 'image']);

function rowsOf(el: Element, section: string): Element[] {
  const out: Element[] = [];
  for (const child of el.children) {
    if (child.type !== 'element') continue;
    if (child.tagName === 'tr' && section === 'tbody') out.push(child);
    else if (child.tagName === section) out.push(...child.children.filter((c): c is Element => c.type === 'element' && c.tagName === 'tr'));
  }
  return out;
}

const cellsOf = (row: Element) =>
  row.children.filter((c): c is Element => c.type === 'element' && (c.tagName === 'td' || c.tagName === 'th'));

/** A table block for an HTML `<table>` with GitBook's `data-*` attributes. */
export function tableBlock(el: Element, ctx: Context): DocBlock {
  let head = rowsOf(el, 'thead')[0];
  let body = rowsOf(el, 'tbody');
  if (!head) [head, body] = [body[0], body.slice(1)];
  const heads = head ? cellsOf(head) : [];
  const ids = heads.map((_, i) => columnId(i));
  const definition: Record<string, Record<string, unknown>> = {};
  const columns: string[] = [];
  const columnWidths: Record<string, number> = {};
  const view: Record<string, unknown> = {};
  heads.forEach((th, i) => {
    const id = ids[i];
    const declared = attr(th, 'dataType') ?? 'text';
    const type = COLUMN_TYPES.has(declared) ? declared : 'text';
    definition[id] =
      type === 'text' ? { id, title: hastToString(th).trim(), type, textAlignment: 'left' } : { id, title: hastToString(th).trim(), type };
    if (attr(th, 'dataHidden') === undefined) columns.push(id);
    const width = Number(attr(th, 'width'));
    if (attr(th, 'width') !== undefined && Number.isFinite(width)) columnWidths[id] = width;
    if (attr(th, 'dataCardTarget') !== undefined) view.targetDefinition = id;
    if (attr(th, 'dataCardCover') !== undefined) view.coverDefinition = id;
    if (attr(th, 'dataCardCoverDark') !== undefined) view.coverDefinitionDark = id;
  });
  const cards = attr(el, 'dataView') === 'cards';
  const fullView = cards
    ? { type: 'cards', columns, cardSize: attr(el, 'dataCardSize') === 'large' ? 'large' : 'medium', ...view }
    : {
        type: 'grid',
        columns,
        hideHeader: attr(el, 'dataHeaderHidden') !== undefined,
        ...(Object.keys(columnWidths).length ? { columnWidths } : {}),
      };
  const fragments: DocFragment[] = [];
  const records: Record<string, { orderIndex: string; values: Record<string, unknown> }> = {};
  const order = generateNKeysBetween(null, null, body.length);
  body.forEach((row, r) => {
    const recordId = recordIdOf(r);
    const values: Record<string, unknown> = {};
    cellsOf(row).forEach((td, i) => {
      const id = ids[i];
      if (!id) return;
      const value = cellValue(String(definition[id].type), td, `${recordId}-${id}`, fragments, ctx);
      if (value !== undefined) values[id] = value;
    });
    records[recordId] = { orderIndex: order[r], values };
  });
  const data: Record<string, unknown> = { view: fullView, records, definition };
  if (attr(el, 'dataFullWidth') === 'true') data.fullWidth = true;
  return { object: 'block', type: 'table', data, fragments, isVoid: true };
}

export const columnId = (i: number) => `c${i}`;
export const recordIdOf = (i: number) => `r${i}`;

function cellValue(type: string, td: Element, fragmentName: string, fragments: DocFragment[], ctx: Context): unknown {
  const text = hastToString(td).trim();
  const links = [...collect(td, 'a')];
  switch (type) {
    case 'number':
      return text === '' ? undefined : Number.isFinite(Number(text)) ? Number(text) : text;
    case 'checkbox':
      return text === 'true';
    case 'content-ref': {
      const href = links.map((a) => attr(a, 'href')).find((h) => h !== undefined);
      return href === undefined ? undefined : linkRef(href, ctx);
    }
    case 'files': {
      const hrefs = links.map((a) => attr(a, 'href')).filter((h): h is string => h !== undefined);
      return hrefs.length ? hrefs.map((h) => ctx.options.resolveFile?.(h)?.file ?? h) : undefined;
    }
    case 'image': {
      const img = [...collect(td, 'img')][0];
      const src = img ? attr(img, 'src') : links.map((a) => attr(a, 'href')).find((h) => h !== undefined);
      return src === undefined ? undefined : fileRef(src, ctx);
    }
    default:
      fragments.push({ object: 'fragment', fragment: fragmentName, nodes: cellBlocks(hastBlocks(td.children, ctx)) });
      return fragmentName;
  }
}

export function cellBlocks(blocks: DocBlock[]): DocBlock[] {
  const fitted = fit(blocks, ALLOWED.cell);
  return fitted.length ? fitted : [paragraph([])];
}

function* collect(el: Element, tagName: string): Generator<Element> {
  for (const child of el.children) {
    if (child.type !== 'element') continue;
    if (child.tagName === tagName) yield child;
    yield* collect(child, tagName);
  }
}
