/**
 * GitBook's JSON document to markdown in Git Sync's dialect: liquid tags for hints, tabs,
 * steppers, columns, updates, conditions, code titles, embeds, files, content references,
 * includes and OpenAPI blocks; HTML for figures, expandables, tables that markdown cannot hold,
 * buttons, icons and colored text. Input is read defensively: anything shaped unlike a document
 * contributes what text it has, or nothing.
 */
import { guarded, trailingSpace } from './nodes.ts';
import type { DocumentRef, DocumentToMarkdownOptions } from './types.ts';

type AnyNode = {
  object?: unknown;
  type?: unknown;
  data?: unknown;
  nodes?: unknown;
  leaves?: unknown;
  text?: unknown;
  marks?: unknown;
  fragments?: unknown;
  fragment?: unknown;
};

const asArray = (value: unknown): AnyNode[] => (Array.isArray(value) ? (value.filter((v) => v && typeof v === 'object') as AnyNode[]) : []);
const asRecord = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
const str = (value: unknown): string => (typeof value === 'string' ? value : '');

class Writer {
  private readonly options: DocumentToMarkdownOptions;
  /** How deep in nested content the writer is (see `guarded`). */
  depth = 0;
  /** Whether the list being written uses the other marker (`*`, `1)`), following a list of the same kind. */
  private alternateMarker = false;
  constructor(options: DocumentToMarkdownOptions) {
    this.options = options;
  }

  // -------------------------------------------------------------------------------------------
  // References

  href(refValue: unknown): string | null {
    const ref = asRecord(refValue);
    if (ref.kind === 'url') return str(ref.url);
    if (typeof ref.kind !== 'string') return null;
    const written = this.options.linkHref?.(ref as DocumentRef);
    if (typeof written === 'string') return written;
    if (ref.kind === 'anchor' && ref.page === undefined) return `#${str(ref.anchor)}`;
    if (ref.kind === 'file') return this.fileSrc(str(ref.file));
    return null;
  }

  fileSrc(id: string): string {
    return this.options.fileSrc?.(id) ?? id;
  }

  src(refValue: unknown): string {
    const ref = asRecord(refValue);
    if (ref.kind === 'file') return this.fileSrc(str(ref.file));
    return this.href(refValue) ?? '';
  }

  // -------------------------------------------------------------------------------------------
  // Inline content as markdown

  inlines(nodes: AnyNode[]): string {
    return guarded(
      this,
      () => escapeText(documentText(nodes)),
      () => this.inlinesAt(nodes),
    );
  }

  inlinesAt(nodes: AnyNode[]): string {
    // Inlines first: emphasis in the text around them depends on the characters they begin and end with.
    const parts: (Leaf[] | string)[] = [];
    for (const node of nodes) {
      const last = parts[parts.length - 1];
      if (node.object !== 'text') parts.push(this.inline(node));
      else if (Array.isArray(last)) last.push(...leavesOf(node));
      else parts.push(leavesOf(node));
    }
    let out = '';
    parts.forEach((part, i) => {
      const next = parts[i + 1];
      if (typeof part === 'string') {
        out += part;
        return;
      }
      const text = renderLeaves(part, out.slice(-8), typeof next === 'string' ? next.slice(0, 1) : '');
      // A text ending in `!` right before a link would read back as an image: its `!` is escaped.
      out += typeof next === 'string' && next.startsWith('[') ? escapeBang(text) : text;
    });
    return out;
  }

  inline(node: AnyNode): string {
    const data = asRecord(node.data);
    switch (node.type) {
      case 'link': {
        const url = this.href(data.ref);
        const text = this.inlines(asArray(node.nodes));
        return url === null ? text : `[${text}](${destination(url)})`;
      }
      case 'inline-image': {
        const src = this.src(data.ref);
        if (data.size === 'line' || data.refDark !== undefined) return this.imageHtml(data, data.size === 'line');
        return `![${escapeText(str(data.alt))}](${destination(src)})`;
      }
      case 'emoji':
        return emojiText(data.code);
      case 'icon':
        return `<i class="fa-${escapeHtml(str(data.icon))}">:${escapeHtml(str(data.icon))}:</i>`;
      case 'inline-math':
        return str(data.formula).trim() === '' ? '' : `$$${str(data.formula)}$$`;
      case 'button':
        return this.buttonHtml(data, true);
      default:
        return this.inlines(asArray(node.nodes));
    }
  }

  /** A button; its label is read as markdown where the HTML sits in a paragraph (`inMarkdown`). */
  buttonHtml(data: Record<string, unknown>, inMarkdown: boolean): string {
    const kind = data.kind === 'secondary' ? 'secondary' : 'primary';
    const icon = typeof data.icon === 'string' ? ` data-icon="${escapeHtml(data.icon)}"` : '';
    const label = inMarkdown ? escapeText(str(data.label)) : escapeHtml(str(data.label));
    if (data.ref !== undefined) return `<a href="${escapeHtml(this.href(data.ref) ?? '')}" class="button ${kind}"${icon}>${label}</a>`;
    const action = asRecord(data.action);
    let attrs = ` data-action="${escapeHtml(str(action.action) || 'search')}"`;
    if (typeof action.query === 'string') attrs += ` data-query="${escapeHtml(action.query)}"`;
    if (typeof action.slug === 'string') attrs += ` data-slug="${escapeHtml(action.slug)}"`;
    return `<button type="button" class="button ${kind}"${attrs}${icon}>${label}</button>`;
  }

  imageHtml(data: Record<string, unknown>, line = false): string {
    const alt = ` alt="${escapeHtml(str(data.alt))}"`;
    const width = typeof data.width === 'number' ? ` width="${data.width}"` : '';
    const size = line ? ' data-size="line"' : '';
    const img = `<img src="${escapeHtml(this.src(data.ref))}"${alt}${width}${size}>`;
    if (data.refDark === undefined) return img;
    return `<picture><source srcset="${escapeHtml(this.src(data.refDark))}" media="(prefers-color-scheme: dark)">${img}</picture>`;
  }

  // -------------------------------------------------------------------------------------------
  // Inline content as HTML (summaries, captions, table cells)

  inlinesHtml(nodes: AnyNode[]): string {
    return guarded(
      this,
      () => escapeHtml(documentText(nodes)),
      () => this.inlinesHtmlAt(nodes),
    );
  }

  inlinesHtmlAt(nodes: AnyNode[]): string {
    return nodes
      .map((node) => {
        if (node.object === 'text') return leavesOf(node).map(leafHtml).join('');
        const data = asRecord(node.data);
        switch (node.type) {
          case 'link':
            return `<a href="${escapeHtml(this.href(data.ref) ?? '')}">${this.inlinesHtml(asArray(node.nodes))}</a>`;
          case 'inline-image':
            return this.imageHtml(data, data.size === 'line');
          case 'button':
            return this.buttonHtml(data, false);
          case 'emoji':
          case 'icon':
            return this.inline(node);
          case 'inline-math':
            return escapeHtml(str(data.formula));
          default:
            return this.inlinesHtml(asArray(node.nodes));
        }
      })
      .join('');
  }

  blocksHtml(nodes: AnyNode[]): string {
    return guarded(
      this,
      () => escapeHtml(documentText(nodes)),
      () => this.blocksHtmlAt(nodes),
    );
  }

  blocksHtmlAt(nodes: AnyNode[]): string {
    const blocks = nodes.filter((n) => n.object === 'block');
    if (blocks.length === 1 && blocks[0].type === 'paragraph') return this.inlinesHtml(asArray(blocks[0].nodes));
    return blocks
      .map((block) => {
        const children = asArray(block.nodes);
        switch (block.type) {
          case 'paragraph':
            return `<p>${this.inlinesHtml(children)}</p>`;
          case 'heading-1':
          case 'heading-2':
          case 'heading-3':
            return `<h${String(block.type).slice(-1)}>${this.inlinesHtml(children)}</h${String(block.type).slice(-1)}>`;
          case 'list-ordered':
          case 'list-unordered':
          case 'list-tasks': {
            const tag = block.type === 'list-ordered' ? 'ol' : 'ul';
            return `<${tag}>${children.map((li) => `<li>${this.blocksHtml(asArray(li.nodes))}</li>`).join('')}</${tag}>`;
          }
          case 'code':
            return `<pre><code>${escapeHtml(codeText(block))}</code></pre>`;
          case 'images':
            return children.map((image) => this.imageHtml(asRecord(image.data))).join('');
          default:
            return `<p>${escapeHtml(documentText([block]))}</p>`;
        }
      })
      .join('');
  }

  // -------------------------------------------------------------------------------------------
  // Blocks

  blocks(nodes: AnyNode[]): string {
    return guarded(
      this,
      () => escapeText(documentText(nodes)),
      () => this.blocksAt(nodes),
    );
  }

  blocksAt(nodes: AnyNode[]): string {
    const out: string[] = [];
    let previous: string | null = null;
    let alternate = false;
    for (const node of nodes) {
      // Markdown joins a list to the list before it when their markers match: alternate them.
      const family =
        node.type === 'list-ordered' ? 'ordered' : node.type === 'list-unordered' || node.type === 'list-tasks' ? 'bullet' : null;
      alternate = family !== null && family === previous ? !alternate : false;
      this.alternateMarker = alternate;
      const text = this.block(node);
      if (text === '') continue;
      out.push(text);
      previous = family;
    }
    return out.join('\n\n');
  }

  block(node: AnyNode): string {
    const children = asArray(node.nodes);
    const data = asRecord(node.data);
    switch (node.type) {
      case 'paragraph': {
        const align = { start: 'left', center: 'center', end: 'right' }[str(data.align)];
        if (align) return `<p align="${align}">${this.inlinesHtml(children)}</p>`;
        const images = children.filter((n) => n.type === 'inline-image').length;
        const blank = children.every(
          (n) => n.type === 'inline-image' || (n.object === 'text' && leavesOf(n).every((l) => l.text.trim() === '')),
        );
        // Whitespace and hard breaks (`\` at the end of a line) closing a paragraph are not content.
        let text = this.inlines(children);
        for (;;) {
          const space = trailingSpace(text);
          text = text.slice(0, text.length - space.length);
          if (!(space.includes('\n') && text.endsWith('\\'))) break;
          text = text.slice(0, -1);
        }
        // Images alone in a paragraph would read back as an image block: an empty comment keeps them inline.
        return text + (images > 0 && blank ? '<!---->' : '');
      }
      case 'heading-1':
      case 'heading-2':
      case 'heading-3': {
        const id =
          typeof data.id === 'string' && data.id !== '' ? ` <a href="#${escapeHtml(data.id)}" id="${escapeHtml(data.id)}"></a>` : '';
        return `${'#'.repeat(Number(String(node.type).slice(-1)))} ${this.inlines(children).replace(/\\?\n/g, ' ')}${id}`;
      }
      case 'divider':
        return '---';
      case 'code':
        return this.code(node, data);
      case 'math':
        return `$$\n${str(data.formula)}\n$$`;
      case 'list-unordered':
      case 'list-ordered':
      case 'list-tasks': {
        const start = typeof data.start === 'number' && Number.isInteger(data.start) ? data.start : 1;
        const alternate = this.alternateMarker;
        return children
          .map((item, i) => {
            const bullet = node.type === 'list-ordered' ? `${start + i}${alternate ? ')' : '.'} ` : alternate ? '* ' : '- ';
            // A task's checkbox belongs to its first paragraph: the content column is the bullet's.
            const box = node.type === 'list-tasks' ? (asRecord(item.data).checked === true ? '[x] ' : '[ ] ') : '';
            const body = this.blocks(asArray(item.nodes));
            return body === '' && box === '' ? bullet.trimEnd() : indent(body, ' '.repeat(bullet.length), bullet + box);
          })
          .join('\n');
      }
      case 'blockquote':
        return indent(this.blocks(children), '> ').replace(/^$/gm, '>');
      case 'hint':
        return this.container(tag('hint', { style: str(data.style) || 'info', icon: data.icon }), 'endhint', children);
      case 'tabs':
        return this.items(
          'tabs',
          children,
          (item) => tag('tab', { title: str(asRecord(item.data).title), icon: asRecord(item.data).icon }),
          'tab',
        );
      case 'stepper':
        return this.items('stepper', children, (item) => tag('step', { icon: asRecord(item.data).icon }), 'step');
      case 'columns':
        return this.items(
          'columns',
          children,
          (item) => tag('column', { width: lengthText(asRecord(item.data).width) }),
          'column',
          data.fullWidth === true ? { fullWidth: 'true' } : {},
        );
      case 'updates':
        return this.items('updates', children, (item) => tag('update', updateAttrs(asRecord(item.data))), 'update', {
          format: str(data.format) || 'full',
        });
      case 'if':
        return this.container(`{% if ${str(data.expression)} %}`, 'endif', children);
      case 'images': {
        const figures = children.map((image) => this.figure(image));
        const attrs =
          (typeof data.align === 'string' ? ` align="${escapeHtml(data.align)}"` : '') +
          (data.fullWidth === true ? ' data-full-width="true"' : '') +
          (data.withFrame === true ? ' data-with-frame="true"' : '');
        return figures.length === 1 && !attrs ? figures[0] : `<div${attrs}>${figures.join('')}</div>`;
      }
      case 'image':
        return this.figure(node);
      case 'file': {
        const src = this.src(data.ref);
        return src ? tag('file', { src }) : '';
      }
      case 'embed':
        return tag('embed', { url: str(data.url), fullWidth: data.fullWidth === true ? 'true' : undefined });
      case 'content-ref': {
        const url = this.href(data.ref);
        return url === null ? '' : `${tag('content-ref', { url })}\n[${escapeText(url)}](${destination(url)})\n{% endcontent-ref %}`;
      }
      case 'swagger': {
        const src = this.src(data.ref);
        return `${tag('openapi', { src, path: str(data.path), method: str(data.method) })}\n[${escapeText(src)}](${destination(src)})\n{% endopenapi %}`;
      }
      case 'openapi-operation':
        return `${tag('openapi-operation', { spec: str(asRecord(data.ref).spec), path: str(data.path), method: str(data.method) })}\n{% endopenapi-operation %}`;
      case 'openapi-webhook':
        return `${tag('openapi-webhook', { spec: str(asRecord(data.ref).spec), name: str(data.name), method: str(data.method) })}\n{% endopenapi-webhook %}`;
      case 'openapi-schemas': {
        const schemas = Array.isArray(data.schemas) ? data.schemas.map(String).join(',') : '';
        const grouped = typeof data.grouped === 'boolean' ? String(data.grouped) : undefined;
        return `${tag('openapi-schemas', { spec: str(asRecord(data.ref).spec), schemas, grouped })}\n{% endopenapi-schemas %}`;
      }
      case 'reusable-content': {
        const ref = asRecord(data.ref);
        const id = str(ref.reusableContent);
        const path = data.dangling === true ? id : (this.options.reusableContentPath?.(id) ?? id);
        return `{% include "${path.replace(/"/g, '%22')}" %}`;
      }
      case 'expandable':
        return this.details(node, data);
      case 'table':
        return this.table(node, data);
      case 'prompt': {
        const attrs: Record<string, unknown> = { description: str(data.description), icon: data.icon };
        if (typeof data.openInAIProviders === 'boolean') attrs.openInAIProviders = String(data.openInAIProviders);
        if (typeof data.defaultExpanded === 'string') attrs.defaultExpanded = data.defaultExpanded;
        return this.container(tag('prompt', attrs), 'endprompt', children);
      }
      case 'integration': {
        const props = asRecord(data.props);
        const attrs: Record<string, unknown> = {};
        for (const [key, value] of Object.entries(props))
          if (/^[\w-]+$/.test(key) && ['string', 'number', 'boolean'].includes(typeof value)) attrs[key] = String(value);
        if (typeof data.url === 'string') attrs.url = data.url;
        if (data.fullWidth === true) attrs.fullWidth = 'true';
        const name = `@${str(data.integration)}/${str(data.block)}`;
        return /^@[^/\s]+\/\S+$/.test(name) ? tag(name, attrs) : '';
      }
      case 'drawing': {
        const src = this.src(data.ref);
        return src ? `<figure><img src="${escapeHtml(src)}" alt=""><figcaption></figcaption></figure>` : '';
      }
      default:
        if (node.object === 'text') return renderLeaves(leavesOf(node));
        if (node.object === 'inline') return this.inline(node);
        return this.blocks([...asArray(node.fragments).flatMap((f) => asArray(f.nodes)), ...children]);
    }
  }

  container(open: string, close: string, children: AnyNode[]): string {
    const body = this.blocks(children);
    return body === '' ? `${open}\n{% ${close} %}` : `${open}\n${body}\n{% ${close} %}`;
  }

  items(name: string, children: AnyNode[], open: (item: AnyNode) => string, itemName: string, attrs: Record<string, unknown> = {}): string {
    const items = children.map((item) => this.container(open(item), `end${itemName}`, asArray(item.nodes)));
    return `${tag(name, attrs)}\n${items.join('\n\n')}\n{% end${name} %}`;
  }

  code(node: AnyNode, data: Record<string, unknown>): string {
    const body = codeText(node);
    const runs = body.match(/^ {0,3}`{3,}/gm) ?? [];
    const fence = '`'.repeat(Math.max(3, ...runs.map((r) => r.trim().length + 1)));
    // The info string: backslash escapes apply in it, and a backtick fence allows no backtick.
    const syntax = str(data.syntax)
      .replace(/[`\s]/g, '')
      .replace(/[!-/:-@[-`{-~]/g, (c) => (/[.+#-]/.test(c) ? c : `\\${c}`));
    const fenced = `${fence}${syntax}\n${body}\n${fence}`;
    const attrs: Record<string, unknown> = { title: data.title };
    if (data.overflow === 'wrap' || data.overflow === 'scroll') attrs.overflow = data.overflow;
    for (const flag of ['lineNumbers', 'fullWidth', 'expandable']) if (typeof data[flag] === 'boolean') attrs[flag] = String(data[flag]);
    if (Object.values(attrs).every((v) => v === undefined)) return fenced;
    return `${tag('code', attrs)}\n${fenced}\n{% endcode %}`;
  }

  figure(image: AnyNode): string {
    const data = asRecord(image.data);
    const caption = asArray(image.fragments).find((f) => f.fragment === 'caption');
    const captionHtml = caption
      ? asArray(caption.nodes)
          .map((p) => `<p>${this.inlinesHtml(asArray(p.nodes))}</p>`)
          .join('')
      : '';
    return `<figure>${this.imageHtml(data)}<figcaption>${captionHtml}</figcaption></figure>`;
  }

  details(node: AnyNode, data: Record<string, unknown>): string {
    const fragments = asArray(node.fragments);
    const title = fragments.find((f) => f.fragment === 'expandable-title');
    const body = fragments.find((f) => f.fragment === 'expandable-body');
    // Not shaped as GitBook's expandables are: what it holds is written as it is.
    if (!title && !body) return this.blocks(asArray(node.nodes));
    const titleHtml = this.inlinesHtml(asArray(asArray(title?.nodes)[0]?.nodes));
    const content = this.blocks(asArray(body?.nodes));
    return `<details${data.defaultExpanded === true ? ' open' : ''}>\n<summary>${titleHtml}</summary>\n\n${content}${content ? '\n\n' : ''}</details>`;
  }

  table(node: AnyNode, data: Record<string, unknown>): string {
    const view = asRecord(data.view);
    const definition = asRecord(data.definition);
    const defs = Object.values(definition).map(asRecord);
    const visible = Array.isArray(view.columns) ? view.columns.map(String) : defs.map((d) => str(d.id));
    const ordered = [
      ...visible.map((id) => asRecord(definition[id])).filter((d) => d.id !== undefined),
      ...defs.filter((d) => !visible.includes(str(d.id))),
    ];
    const records = Object.values(asRecord(data.records))
      .map(asRecord)
      .sort((a, b) => (str(a.orderIndex) < str(b.orderIndex) ? -1 : str(a.orderIndex) > str(b.orderIndex) ? 1 : 0));
    const fragments = new Map(asArray(node.fragments).map((f) => [str(f.fragment), asArray(f.nodes)]));
    const textCell = (value: unknown) => fragments.get(str(value)) ?? [];
    const simple =
      view.type === 'grid' &&
      view.columnWidths === undefined &&
      ordered.length > 0 &&
      ordered.length === visible.length &&
      ordered.every((d) => d.type === 'text') &&
      records.every((r) =>
        ordered.every((d) => {
          const cell = textCell(asRecord(r.values)[str(d.id)]);
          return (
            cell.length <= 1 && (cell.length === 0 || cell[0].type === 'paragraph') && !this.inlines(asArray(cell[0]?.nodes)).includes('\n')
          );
        }),
      );
    if (simple) {
      // A pipe inside a cell, code spans included, is escaped.
      const row = (cells: string[]) => `| ${cells.map((c) => c.replace(/(?<!\\)\|/g, '\\|')).join(' | ')} |`;
      const header = row(ordered.map((d) => (view.hideHeader === true ? '' : escapeText(str(d.title)))));
      const rule = row(ordered.map((d) => (d.textAlignment === 'center' ? ':-:' : d.textAlignment === 'right' ? '-:' : '-')));
      const body = records.map((r) => row(ordered.map((d) => this.inlines(asArray(textCell(asRecord(r.values)[str(d.id)])[0]?.nodes)))));
      return [header, rule, ...body].join('\n');
    }
    const tableAttrs =
      (view.type === 'cards' ? ` data-view="cards"${view.cardSize === 'large' ? ' data-card-size="large"' : ''}` : '') +
      (data.fullWidth === true ? ' data-full-width="true"' : '') +
      (view.hideHeader === true ? ' data-header-hidden' : '');
    const widths = asRecord(view.columnWidths);
    const heads = ordered.map((d) => {
      const id = str(d.id);
      let attrs = '';
      if (typeof widths[id] === 'number') attrs += ` width="${widths[id]}"`;
      if (!visible.includes(id)) attrs += ' data-hidden';
      if (view.targetDefinition === id) attrs += ' data-card-target';
      if (view.coverDefinition === id) attrs += ' data-card-cover';
      if (view.coverDefinitionDark === id) attrs += ' data-card-cover-dark';
      if (d.type !== 'text') attrs += ` data-type="${escapeHtml(str(d.type))}"`;
      return `<th${attrs}>${escapeHtml(str(d.title))}</th>`;
    });
    const rows = records.map((r) => {
      const values = asRecord(r.values);
      const cells = ordered.map((d) => `<td>${this.cellHtml(str(d.type), values[str(d.id)], textCell)}</td>`);
      return `<tr>${cells.join('')}</tr>`;
    });
    return `<table${tableAttrs}><thead><tr>${heads.join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
  }

  cellHtml(type: string, value: unknown, textCell: (value: unknown) => AnyNode[]): string {
    if (value === undefined || value === null) return '';
    switch (type) {
      case 'number':
        return escapeHtml(String(value));
      case 'checkbox':
        return value === true ? 'true' : 'false';
      case 'content-ref':
      case 'image': {
        const href = type === 'image' ? this.src(asRecord(value).ref ?? value) : (this.href(value) ?? '');
        return href ? `<a href="${escapeHtml(href)}">${escapeHtml(href)}</a>` : '';
      }
      case 'files':
        return (Array.isArray(value) ? value : [])
          .map((id) => this.fileSrc(String(id)))
          .map((src) => `<a href="${escapeHtml(src)}">${escapeHtml(src)}</a>`)
          .join('');
      default:
        return this.blocksHtml(textCell(value));
    }
  }
}

function codeText(node: AnyNode): string {
  return asArray(node.nodes)
    .map((line) =>
      asArray(line.nodes)
        .flatMap((t) => leavesOf(t).map((l) => l.text))
        .join(''),
    )
    .join('\n');
}

/** The text of document nodes, however deep, collected without recursion. */
function documentText(nodes: AnyNode[]): string {
  const out: string[] = [];
  const stack: AnyNode[] = [...nodes].reverse();
  while (stack.length > 0) {
    const node = stack.pop()!;
    for (const l of asArray(node.leaves)) if (typeof l.text === 'string') out.push(l.text);
    const children = [...asArray(node.fragments).flatMap((f) => asArray(f.nodes)), ...asArray(node.nodes)];
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
  }
  return out.join(' ').replace(/\s+/g, ' ').trim();
}

function emojiText(code: unknown): string {
  const points = str(code)
    .split('-')
    .map((c) => parseInt(c, 16))
    .filter((n) => Number.isFinite(n) && n >= 0 && n <= 0x10ffff);
  return points.length ? String.fromCodePoint(...points) : '';
}

function lengthText(value: unknown): string | undefined {
  if (typeof value === 'number') return String(value);
  const v = asRecord(value);
  return typeof v.value === 'number' ? `${v.value}${str(v.unit)}` : undefined;
}

function updateAttrs(data: Record<string, unknown>): Record<string, unknown> {
  const date = str(data.date);
  const tags = asArray(data.tags)
    .map((t) => str(asRecord(t).tag))
    .filter(Boolean);
  return { date: /T00:00:00(\.000)?Z$/.test(date) ? date.slice(0, 10) : date, tags: tags.length ? tags.join(',') : undefined };
}

/** `{% name key="value" … %}`; absent values are left out. */
function tag(name: string, attrs: Record<string, unknown>): string {
  const parts = Object.entries(attrs)
    .filter((e): e is [string, string] => typeof e[1] === 'string')
    .map(([k, v]) => (v.includes('"') ? `${k}='${v}'` : `${k}="${v}"`));
  return `{% ${[name, ...parts].join(' ')} %}`;
}

function indent(text: string, prefix: string, first = prefix): string {
  return text
    .split('\n')
    .map((line, i) => (i === 0 ? first : line === '' ? '' : prefix) + line)
    .join('\n');
}

function destination(url: string): string {
  return /[\s()<>]/.test(url) || url === '' ? `<${url.replace(/[<>\n]/g, encodeURIComponent)}>` : url;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Backslash-escapes what markdown would otherwise read as syntax inside plain text. */
function escapeText(text: string, lineStart = true): string {
  const escaped = text
    .replace(/[\\`*_[\]<>~|$&]/g, '\\$&')
    // Text that reads like a liquid tag (an unknown one, kept as text) stays text.
    .replace(/\{%/g, '\\{%')
    // GFM turns bare URLs and e-mail addresses in text into links, escapes notwithstanding; an
    // empty comment splits the text where it would recognize one.
    .replace(/\b(https?|ftp):\/\//gi, '$1<!---->://')
    .replace(/\bwww\./gi, 'www<!---->.')
    .replace(/([\w.+-])@/g, '$1<!---->@');
  // At the start of a line: list markers, headings and setext underlines (`---`, `===`).
  const lines = (t: string) => t.replace(/^([ \t]*)([#+=-])/gm, '$1\\$2').replace(/^([ \t]*\d+)([.)])(?=\s|$)/gm, '$1\\$2');
  if (lineStart) return lines(escaped);
  const newline = escaped.indexOf('\n');
  return newline < 0 ? escaped : escaped.slice(0, newline) + lines(escaped.slice(newline));
}

function codeSpan(text: string): string {
  const runs = text.match(/`+/g) ?? [];
  const fence = '`'.repeat(Math.max(0, ...runs.map((r) => r.length)) + 1);
  const pad = text.startsWith('`') || text.endsWith('`') || (/^ .* $/.test(text) && text.trim() !== '') ? ' ' : '';
  return `${fence}${pad}${text}${pad}${fence}`;
}

// ---------------------------------------------------------------------------------------------
// Leaves and marks

type Leaf = { text: string; marks: Set<string> };

/** Marks by key: emphasis delimiters, or the HTML element GitBook writes for the others. */
function markKey(m: AnyNode): string {
  if (m.type === 'color') {
    const d = asRecord(m.data);
    return `color:${str(d.text) || 'default'}:${str(d.background) || 'default'}`;
  }
  return String(m.type);
}

const DELIMITER: Record<string, string> = { bold: '**', italic: '*', strikethrough: '~~' };
const HTML_EMPHASIS: Record<string, string> = { bold: 'strong', italic: 'em', strikethrough: 's' };

const isSpace = (c: string) => c === '' || /\s/.test(c);
const isPunctuation = (c: string) => /[\p{P}\p{S}]/u.test(c);

/** The character before index `i`, past delimiter characters (a run of `*` and `~` counts as one). */
function before(text: string, i: number): string {
  while (i > 0 && (text[i - 1] === '*' || text[i - 1] === '~')) i--;
  return i > 0 ? text[i - 1] : '';
}

/** Whether the delimiter written at `at` opens emphasis (CommonMark's left-flanking rule). */
function canOpen(text: string, at: number, length: number): boolean {
  let j = at + length;
  while (j < text.length && (text[j] === '*' || text[j] === '~')) j++;
  const next = text[j] ?? '';
  const previous = before(text, at);
  return !isSpace(next) && (!isPunctuation(next) || isSpace(previous) || isPunctuation(previous));
}

/** Whether a delimiter written at the end of `text`, followed by `next`, closes emphasis (right-flanking). */
function canClose(text: string, next: string): boolean {
  const previous = before(text, text.length);
  return !isSpace(previous) && (!isPunctuation(previous) || isSpace(next) || isPunctuation(next));
}
const HTML_MARK: Record<string, string> = { keyboard: 'kbd', superscript: 'sup', subscript: 'sub' };

function openMark(key: string): string {
  if (key in DELIMITER) return DELIMITER[key];
  if (key in HTML_MARK) return `<${HTML_MARK[key]}>`;
  const [, text, background] = key.split(':');
  const style = (text !== 'default' ? `color:${text};` : '') + (background !== 'default' ? `background-color:${background};` : '');
  return `<mark style="${escapeHtml(style)}">`;
}

function closeMark(key: string): string {
  if (key in DELIMITER) return DELIMITER[key];
  if (key in HTML_MARK) return `</${HTML_MARK[key]}>`;
  return '</mark>';
}

const isWritable = (key: string) => key in DELIMITER || key in HTML_MARK || key.startsWith('color:');

function leavesOf(node: AnyNode): Leaf[] {
  return asArray(node.leaves).map((l) => ({
    text: typeof l.text === 'string' ? l.text : '',
    marks: new Set(asArray(l.marks).map(markKey)),
  }));
}

function leafHtml(l: Leaf): string {
  let html = escapeHtml(l.text).replace(/\n/g, '<br>');
  if (l.marks.has('code')) html = `<code>${html}</code>`;
  for (const key of l.marks) {
    if (key === 'code') continue;
    if (key === 'bold') html = `<strong>${html}</strong>`;
    else if (key === 'italic') html = `<em>${html}</em>`;
    else if (key === 'strikethrough') html = `<s>${html}</s>`;
    else if (isWritable(key)) html = `${openMark(key)}${html}${closeMark(key)}`;
  }
  return html;
}

const sameMarks = (a: Set<string>, b: Set<string>) => a.size === b.size && [...a].every((m) => b.has(m));

/**
 * Markdown for a run of leaves. A mark spanning several leaves is opened once and closed once
 * (longer runs outermost), and whitespace is kept outside the delimiters, so that the markdown
 * reads back with the same marks on the same characters. `preceding` is what is written before
 * the leaves and `following` the character after them: delimiters open and close by their neighbours.
 */
function renderLeaves(input: Leaf[], preceding = '', following = ''): string {
  const leaves: Leaf[] = [];
  for (const l of input) {
    if (l.text === '') continue;
    const last = leaves[leaves.length - 1];
    if (last && sameMarks(last.marks, l.marks)) last.text += l.text;
    else leaves.push({ text: l.text, marks: l.marks });
  }
  const runLength = (from: number, key: string) => {
    let n = 0;
    while (from + n < leaves.length && leaves[from + n].marks.has(key)) n++;
    return n;
  };
  // Written after what precedes, so that delimiters see their neighbours; that part is cut off at the end.
  let out = preceding;
  // Open marks, with where their opening delimiter was written.
  const stack: { key: string; at: number }[] = [];
  const close = (count: number, following: string) => {
    const ws = trailingSpace(out);
    out = out.slice(0, out.length - ws.length);
    while (count-- > 0) {
      const { key, at } = stack.pop()!;
      const delimiter = DELIMITER[key];
      if (delimiter && !(canOpen(out, at, delimiter.length) && canClose(out, ws[0] ?? following))) {
        // Emphasis that markdown's flanking rules would not read back (`x**!**`): written as HTML.
        out = `${out.slice(0, at)}<${HTML_EMPHASIS[key]}>${out.slice(at + delimiter.length)}</${HTML_EMPHASIS[key]}>`;
      } else out += closeMark(key);
    }
    out += ws;
  };
  leaves.forEach((l, i) => {
    const blank = l.text.trim() === '';
    // Whitespace never opens a mark; it only keeps open the ones it carries.
    const want = new Set([...l.marks].filter((m) => m !== 'code' && isWritable(m) && (!blank || stack.some((s) => s.key === m))));
    const keep = stack.findIndex((s) => !want.has(s.key));
    if (keep >= 0) close(stack.length - keep, l.text[0] ?? '');
    const lead = /^\s*/.exec(l.text)![0];
    out += lead;
    const opening = [...want].filter((m) => !stack.some((s) => s.key === m)).sort((a, b) => runLength(i, b) - runLength(i, a));
    for (const m of opening) {
      stack.push({ key: m, at: out.length });
      out += openMark(m);
    }
    const rest = l.text.slice(lead.length);
    if (l.marks.has('code') && !blank) {
      const trail = trailingSpace(rest);
      // A code span cannot hold a line break: one span a line.
      const lines = rest.slice(0, rest.length - trail.length).split('\n');
      out += lines.map((line) => (line.trim() === '' ? line : codeSpan(line))).join('\n') + trail;
    } else {
      let end = out.length;
      while (end > 0 && (out[end - 1] === ' ' || out[end - 1] === '\t')) end--;
      out += escapeText(rest, end === 0 || out[end - 1] === '\n');
    }
  });
  close(stack.length, following);
  // A line's leading whitespace is not content in markdown: after a hard break it is written as references.
  return out
    .slice(preceding.length)
    .replace(/\n([ \t]+)/g, (_, ws: string) => `\n${ws.replace(/ /g, '&#x20;').replace(/\t/g, '&#x9;')}`)
    .replace(/\n/g, '\\\n');
}

/** Markdown for a GitBook JSON document (or anything shaped like one). */
export function toMarkdown(document: unknown, options: DocumentToMarkdownOptions = {}): string {
  const text = new Writer(options).blocks(asArray(asRecord(document).nodes));
  return text === '' ? '' : `${text}\n`;
}

/** `text` with a final `!` escaped, unless it already is (an odd number of backslashes before it). */
function escapeBang(text: string): string {
  if (!text.endsWith('!')) return text;
  const slashes = /\\*$/.exec(text.slice(0, -1))![0].length;
  return slashes % 2 === 1 ? text : `${text.slice(0, -1)}\\!`;
}
