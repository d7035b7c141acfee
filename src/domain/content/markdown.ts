/**
 * Pure analysis of page markdown: the links a page holds and whether their targets exist, the
 * sections a page is indexed by for search, its plain text, and search snippets.
 *
 * Markdown is always read with a real parser (CommonMark plus GitHub extensions: tables,
 * autolink literals, footnotes, strikethrough, task lists), so code blocks, inline code and
 * escapes are handled the way a renderer would handle them. A leading YAML front-matter block
 * (`---` … `---`), as written by GitBook's git layout, is skipped. Raw HTML is never rendered as
 * text; its `<a href>` and `<img src>` tags are reported as links.
 */
import type { Html, Nodes, Parents, Root } from 'mdast';
import GithubSlugger from 'github-slugger';
import { toString } from 'mdast-util-to-string';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';

// ---------------------------------------------------------------------------------------------
// Parsing

const processor = unified().use(remarkParse).use(remarkGfm).freeze();

/** Parses markdown into an mdast tree. Line numbers in the tree are those of the input. */
export function parseMarkdown(markdown: string): Root {
  return processor.parse(blankFrontMatter(markdown));
}

/**
 * Replaces a leading YAML front-matter block with empty lines, so that it is neither read as a
 * thematic break plus a setext heading nor shifts the line numbers of what follows.
 */
function blankFrontMatter(markdown: string): string {
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
function collapse(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

// ---------------------------------------------------------------------------------------------
// Links

export type LinkKind = 'link' | 'image';

export interface ExtractedLink {
  /** The target as written (reference links: as written in their definition). */
  url: string;
  kind: LinkKind;
  /** Link text, or the alternative text of an image; whitespace-collapsed. */
  text: string;
  /** 1-based line of the link in the markdown. */
  line: number;
}

/**
 * Every link target of a document, in document order: inline links, autolinks (`<https://…>`
 * and bare `www.`/`https://`/e-mail literals), reference links resolved through their
 * definitions, images, and `<a href>`/`<img src>` tags of raw HTML. Links in code are not links.
 * Definitions that nothing refers to are not reported; references without a definition are
 * plain text to the parser and are not reported either.
 */
export function extractLinks(markdown: string): ExtractedLink[] {
  const tree = parseMarkdown(markdown);
  const definitions = new Map<string, string>();
  visit(tree, 'definition', (node) => {
    // The first definition of a label wins, as in CommonMark.
    if (!definitions.has(node.identifier)) definitions.set(node.identifier, node.url);
  });

  const links: ExtractedLink[] = [];
  visit(tree, (node, index, parent) => {
    const line = node.position?.start.line ?? 1;
    switch (node.type) {
      case 'link':
        links.push({ url: node.url, kind: 'link', text: collapse(toString(node)), line });
        break;
      case 'image':
        links.push({ url: node.url, kind: 'image', text: collapse(node.alt ?? ''), line });
        break;
      case 'linkReference': {
        const url = definitions.get(node.identifier);
        if (url !== undefined) links.push({ url, kind: 'link', text: collapse(toString(node)), line });
        break;
      }
      case 'imageReference': {
        const url = definitions.get(node.identifier);
        if (url !== undefined) links.push({ url, kind: 'image', text: collapse(node.alt ?? ''), line });
        break;
      }
      case 'html':
        links.push(...htmlLinks(node, index, parent));
        break;
    }
  });
  return links;
}

/**
 * `<a href>` and `<img src>` tags of one raw-HTML node. The text of an `<a>` runs to its `</a>`,
 * inside the same node or, for inline HTML, across the following siblings. GitBook's heading
 * anchors (`<a href="#x" id="x"></a>`) point at themselves and are not reported.
 */
function htmlLinks(node: Html, index: number | undefined, parent: Parents | undefined): ExtractedLink[] {
  const tokens = scanHtml(node.value);
  const startLine = node.position?.start.line ?? 1;
  const lineAt = (offset: number) => startLine + countNewlines(node.value, offset);
  const links: ExtractedLink[] = [];
  tokens.forEach((token, at) => {
    if (token.type !== 'open') return;
    if (token.name === 'img') {
      const src = token.attributes.get('src');
      if (src !== undefined) {
        links.push({ url: src, kind: 'image', text: collapse(token.attributes.get('alt') ?? ''), line: lineAt(token.offset) });
      }
    } else if (token.name === 'a') {
      const href = token.attributes.get('href');
      if (href === undefined) return;
      const id = token.attributes.get('id');
      if (id !== undefined && href === `#${id}`) return;
      links.push({ url: href, kind: 'link', text: collapse(anchorText(tokens, at, index, parent)), line: lineAt(token.offset) });
    }
  });
  return links;
}

function anchorText(tokens: HtmlToken[], at: number, index: number | undefined, parent: Parents | undefined): string {
  let text = '';
  for (let i = at + 1; i < tokens.length; i++) {
    const token = tokens[i];
    if (token.type === 'close' && token.name === 'a') return text;
    if (token.type === 'text') text += token.value;
  }
  // Inline HTML: the parser gives the opening tag, the text and the closing tag as siblings.
  if (parent === undefined || index === undefined) return text;
  for (const sibling of parent.children.slice(index + 1)) {
    if (sibling.type === 'html') {
      const closes = scanHtml(sibling.value).some((token) => token.type === 'close' && token.name === 'a');
      if (closes) break;
      continue;
    }
    text += textOf(sibling);
  }
  return text;
}

function countNewlines(text: string, end: number): number {
  let count = 0;
  for (let i = 0; i < end; i++) if (text[i] === '\n') count++;
  return count;
}

type HtmlToken =
  | { type: 'open'; name: string; attributes: Map<string, string>; offset: number }
  | { type: 'close'; name: string; offset: number }
  | { type: 'text'; value: string; offset: number };

/** A small, forgiving tokenizer for the raw-HTML fragments that markdown may contain. */
function scanHtml(html: string): HtmlToken[] {
  const tokens: HtmlToken[] = [];
  let i = 0;
  const pushText = (from: number, to: number) => {
    if (to > from) tokens.push({ type: 'text', value: decodeEntities(html.slice(from, to)), offset: from });
  };
  while (i < html.length) {
    const lt = html.indexOf('<', i);
    if (lt === -1) {
      pushText(i, html.length);
      break;
    }
    pushText(i, lt);
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4);
      i = end === -1 ? html.length : end + 3;
      continue;
    }
    const closing = html[lt + 1] === '/';
    let j = closing ? lt + 2 : lt + 1;
    const nameStart = j;
    while (j < html.length && isNameChar(html[j])) j++;
    if (j === nameStart || !isLetter(html[nameStart])) {
      // Not a tag (`a < b`, `<!DOCTYPE>`, `<?xml?>`): skip the '<' as text.
      pushText(lt, lt + 1);
      i = lt + 1;
      continue;
    }
    const name = html.slice(nameStart, j).toLowerCase();
    const attributes = new Map<string, string>();
    while (j < html.length && html[j] !== '>') {
      if (isSpace(html[j]) || html[j] === '/') {
        j++;
        continue;
      }
      const attrStart = j;
      while (j < html.length && !isSpace(html[j]) && html[j] !== '=' && html[j] !== '>' && html[j] !== '/') j++;
      const attrName = html.slice(attrStart, j).toLowerCase();
      while (j < html.length && isSpace(html[j])) j++;
      let value = '';
      if (html[j] === '=') {
        j++;
        while (j < html.length && isSpace(html[j])) j++;
        const quote = html[j];
        if (quote === '"' || quote === "'") {
          const end = html.indexOf(quote, j + 1);
          const stop = end === -1 ? html.length : end;
          value = html.slice(j + 1, stop);
          j = stop + 1;
        } else {
          const valueStart = j;
          while (j < html.length && !isSpace(html[j]) && html[j] !== '>') j++;
          value = html.slice(valueStart, j);
        }
      }
      if (attrName !== '' && !attributes.has(attrName)) attributes.set(attrName, decodeEntities(value));
    }
    tokens.push(closing ? { type: 'close', name, offset: lt } : { type: 'open', name, attributes, offset: lt });
    i = j + 1;
  }
  return tokens;
}

function isLetter(char: string | undefined): boolean {
  return char !== undefined && ((char >= 'a' && char <= 'z') || (char >= 'A' && char <= 'Z'));
}

function isNameChar(char: string): boolean {
  return isLetter(char) || (char >= '0' && char <= '9') || char === '-' || char === ':';
}

function isSpace(char: string): boolean {
  return char === ' ' || char === '\t' || char === '\n' || char === '\r' || char === '\f';
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Decodes the character references that commonly occur in attribute values and short texts. */
function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  let out = '';
  let i = 0;
  while (i < text.length) {
    const amp = text.indexOf('&', i);
    const semi = amp === -1 ? -1 : text.indexOf(';', amp);
    if (amp === -1 || semi === -1 || semi - amp > 10) {
      out += text.slice(i);
      break;
    }
    out += text.slice(i, amp);
    const name = text.slice(amp + 1, semi);
    let decoded: string | undefined;
    if (name.startsWith('#x') || name.startsWith('#X')) decoded = fromCodePoint(Number.parseInt(name.slice(2), 16));
    else if (name.startsWith('#')) decoded = fromCodePoint(Number.parseInt(name.slice(1), 10));
    else decoded = NAMED_ENTITIES[name];
    if (decoded === undefined) {
      out += '&';
      i = amp + 1;
    } else {
      out += decoded;
      i = semi + 1;
    }
  }
  return out;
}

function fromCodePoint(code: number): string | undefined {
  return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : undefined;
}

// ---------------------------------------------------------------------------------------------
// Link status

export type LinkStatus = 'ok' | 'broken' | 'in-app';

export interface LinkContext {
  /** Base of this service's own URLs, e.g. `https://docs.example.com`. */
  publicUrl: string;
  /** Path of the page holding the link, e.g. `guides/install`. */
  fromPath: string;
  /** Every page path in the revision, e.g. `guides/install`; the root page may be ``. */
  pagePaths: Set<string>;
  /** File names or paths present in the revision, e.g. `.gitbook/assets/logo.png` or `logo.png`. */
  fileNames: Set<string>;
  pageIds: Set<string>;
  fileIds: Set<string>;
}

/**
 * The status of one link target of the page at `ctx.fromPath`:
 * - an http(s) URL on this service's origin is `in-app`; any other absolute URL (`https:`,
 *   `mailto:`, `tel:`, protocol-relative `//host/…`) is `ok`;
 * - an anchor within the page (`#x`) or an empty target is `ok`;
 * - `gitbook://page/<pageId>` and `gitbook://file/<fileId>` are `ok` when the id is in the
 *   revision; other `gitbook://` forms are `broken`;
 * - anything else is a path resolved like a file-system path against the page's place in
 *   GitBook's git layout (a page `a/b` is `a/b.md`, or `a/b/README.md` when it has children, so
 *   both are tried). A leading `/` starts from the root of the space. `x.md`, `x/README.md`,
 *   `x/` and `x` all name page `x`; query and anchor are ignored; percent-escapes are decoded.
 *   The target is `ok` when such a page, or a file of that path or bare name, exists.
 */
export function classifyLink(url: string, ctx: LinkContext): LinkStatus {
  const target = url.trim();
  if (target === '' || target.startsWith('#')) return 'ok';
  if (target.toLowerCase().startsWith('gitbook://')) return classifyContentRef(target, ctx);

  const absolute = absoluteUrl(target, ctx.publicUrl);
  if (absolute !== null) {
    const web = absolute.protocol === 'http:' || absolute.protocol === 'https:';
    return web && absolute.origin === originOf(ctx.publicUrl) ? 'in-app' : 'ok';
  }

  const path = stripQueryAndFragment(target);
  if (path === '') return 'ok'; // `?x=1` stays on the same page
  const variants = new Set([path, percentDecode(path)]);
  for (const from of layoutFiles(ctx.fromPath)) {
    for (const variant of variants) {
      const resolved = resolveRelativePath(from, variant);
      if (resolved !== null && exists(resolved, ctx)) return 'ok';
    }
  }
  return 'broken';
}

/**
 * Resolves `target` against the directory of the file `fromPath`, like a file-system path:
 * `resolveRelativePath('a/b.md', '../c/d.md')` is `c/d.md`. `.` and empty segments are dropped,
 * `..` climbs one directory, a leading `/` starts from the root; a query or anchor in `target`
 * is ignored. The result has no leading or trailing `/` (`''` is the root); null when the
 * target climbs above the root.
 */
export function resolveRelativePath(fromPath: string, target: string): string | null {
  const path = stripQueryAndFragment(target);
  const segments = path.startsWith('/') ? [] : fromPath.split('/').filter((s) => s !== '' && s !== '.').slice(0, -1);
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') {
      if (segments.length === 0) return null;
      segments.pop();
    } else {
      segments.push(part);
    }
  }
  return segments.join('/');
}

/** The files a page may be stored as in GitBook's git layout. */
function layoutFiles(pagePath: string): string[] {
  const path = pagePath.split('/').filter((s) => s !== '').join('/');
  return path === '' ? ['README.md'] : [path, `${path}/README.md`];
}

function exists(path: string, ctx: LinkContext): boolean {
  if (ctx.fileNames.has(path)) return true;
  const slash = path.lastIndexOf('/');
  const name = path.slice(slash + 1);
  if (name !== '' && ctx.fileNames.has(name)) return true;
  if (ctx.pagePaths.has(path)) return true;
  const lower = name.toLowerCase();
  if (lower === 'readme.md' && ctx.pagePaths.has(slash === -1 ? '' : path.slice(0, slash))) return true;
  return lower.endsWith('.md') && ctx.pagePaths.has(path.slice(0, -3));
}

function classifyContentRef(target: string, ctx: LinkContext): LinkStatus {
  const rest = stripQueryAndFragment(target.slice('gitbook://'.length));
  const slash = rest.indexOf('/');
  if (slash === -1) return 'broken';
  const kind = rest.slice(0, slash).toLowerCase();
  const id = percentDecode(rest.slice(slash + 1).replace(/\/+$/, ''));
  if (kind === 'page') return ctx.pageIds.has(id) ? 'ok' : 'broken';
  if (kind === 'file') return ctx.fileIds.has(id) ? 'ok' : 'broken';
  return 'broken';
}

function absoluteUrl(target: string, publicUrl: string): URL | null {
  try {
    if (target.startsWith('//')) return new URL(target, URL.canParse(publicUrl) ? publicUrl : 'https://invalid');
    return URL.canParse(target) ? new URL(target) : null;
  } catch {
    return null;
  }
}

function originOf(url: string): string | null {
  return URL.canParse(url) ? new URL(url).origin : null;
}

/** A link target without its `?query` and `#fragment`. */
export function stripQueryAndFragment(target: string): string {
  let end = target.length;
  const hash = target.indexOf('#');
  if (hash !== -1) end = hash;
  const query = target.indexOf('?');
  if (query !== -1 && query < end) end = query;
  return target.slice(0, end);
}

/** Percent-decoding that leaves a malformed escape as it is. */
export function percentDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

// ---------------------------------------------------------------------------------------------
// Plain text and sections

export interface Section {
  /** Anchor of the heading (GitHub-style slug, unique within the page); `''` for the intro. */
  id: string;
  /** Heading text; `''` for the intro. */
  title: string;
  /** Heading depth 1–6; 0 for the intro. */
  depth: number;
  /** Plain text of the content up to the next heading of any depth, whitespace-collapsed. */
  body: string;
}

/** Containers whose children are inline content: their text is concatenated as is. */
const PHRASING_PARENTS = new Set(['paragraph', 'heading', 'tableCell', 'emphasis', 'strong', 'delete', 'link', 'linkReference']);

/**
 * The visible text of a node: what a reader sees, without markdown syntax, raw HTML tags,
 * definitions or footnote markers. Block-level parts are separated by a space.
 */
function textOf(node: Nodes): string {
  switch (node.type) {
    case 'text':
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

/** The whole document as whitespace-collapsed plain text (headings, body, code and alt texts). */
export function plainText(markdown: string): string {
  return collapse(textOf(parseMarkdown(markdown)));
}

/**
 * Splits a page at its headings (top-level headings of any depth) into sections for search.
 * The text before the first heading is an intro section (id `''`, depth 0), left out when it
 * has no text. Ids are the heading's GitHub-style slug, made unique with `-1`, `-2`…; a GitBook
 * custom anchor in the heading (`<a href="#x" id="x"></a>`) is used instead when present.
 */
export function splitSections(markdown: string): Section[] {
  const tree = parseMarkdown(markdown);
  const slugger = new GithubSlugger();
  slugger.slug(''); // the intro's id: an empty heading then gets `-1`
  const sections: Section[] = [];
  let current: Section = { id: '', title: '', depth: 0, body: '' };
  let parts: string[] = [];
  const flush = () => {
    const body = collapse(parts.join(' '));
    if (current.depth > 0 || body !== '') sections.push({ ...current, body });
  };
  for (const child of tree.children) {
    if (child.type !== 'heading') {
      parts.push(textOf(child));
      continue;
    }
    flush();
    const title = collapse(textOf(child));
    current = { id: slugger.slug(customAnchor(child) ?? title), title, depth: child.depth, body: '' };
    parts = [];
  }
  flush();
  return sections;
}

function customAnchor(heading: Parents): string | undefined {
  for (const child of heading.children) {
    if (child.type !== 'html') continue;
    for (const token of scanHtml(child.value)) {
      if (token.type !== 'open' || token.name !== 'a') continue;
      const id = token.attributes.get('id');
      if (id !== undefined && id.trim() !== '') return id.trim();
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------
// Snippets

const ELLIPSIS = '…';

/**
 * A short extract of `body` (whitespace-collapsed, at most `max` characters including the `…`
 * marks where it was cut) around the first occurrence of any of `terms`, compared without
 * regard to case. Without a match, the extract is the start of the body. Cuts fall between
 * words when the words are short enough to allow it.
 */
export function snippet(body: string, terms: string[], max = 200): string {
  const text = collapse(body);
  if (max <= 0) return '';
  if (text.length <= max) return text;
  if (max === 1) return ELLIPSIS;

  const match = findTerm(text, terms);
  const index = match?.index ?? 0;
  const length = match?.length ?? 0;

  let start: number;
  let end: number;
  const centred = index - Math.max(0, Math.floor((max - 2 - length) / 2));
  if (match === undefined || centred <= 0) {
    start = 0;
    end = max - 1;
  } else if (centred + (max - 2) >= text.length) {
    end = text.length;
    start = text.length - (max - 1);
  } else {
    start = centred;
    end = centred + (max - 2);
  }

  // Cut between words rather than inside one, without losing the match.
  if (start > 0 && text[start - 1] !== ' ') {
    const space = text.indexOf(' ', start);
    if (space !== -1 && space < index) start = space + 1;
  }
  if (end < text.length && text[end] !== ' ') {
    const space = text.lastIndexOf(' ', end);
    if (space > start && space >= index + length) end = space;
  }
  // Never split a surrogate pair.
  if (start > 0 && isLowSurrogate(text.charCodeAt(start))) start++;
  if (end < text.length && isLowSurrogate(text.charCodeAt(end))) end--;

  const piece = text.slice(start, end).trim();
  return (start > 0 ? ELLIPSIS : '') + piece + (end < text.length ? ELLIPSIS : '');
}

function findTerm(text: string, terms: string[]): { index: number; length: number } | undefined {
  const wanted = [...new Set(terms.map((t) => t.trim()).filter((t) => t !== ''))].sort((a, b) => b.length - a.length);
  if (wanted.length === 0) return undefined;
  const pattern = new RegExp(wanted.map(escapeRegExp).join('|'), 'iu');
  const found = pattern.exec(text);
  return found === null ? undefined : { index: found.index, length: found[0].length };
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}
