/**
 * A folder of files (an unpacked zip, a wiki's repository) as a page tree plus the files its pages
 * use. The page tree follows SUMMARY.md when there is one (nested lists of links, `## Heading`
 * groups, entries without a link), else the folders: a folder's README.md (or index) is its page,
 * its other documents and subfolders its children. Markdown and HTML documents become pages;
 * relative links between them become links between pages, and files they reference are kept.
 * Pure: no I/O.
 */
import type { List, ListItem, Nodes } from 'mdast';
import { toString } from 'mdast-util-to-string';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import { unified } from 'unified';
import { parse as parseYaml } from 'yaml';
import { percentDecode, resolveRelativePath, stripQueryAndFragment } from '../content/markdown.ts';
import { htmlToMarkdown } from './html.ts';
import { convertWikiLinks, markdownFacts, rewriteMarkdownUrls } from './markdown.ts';
import { titleFromFileName, type ImportedPage, type PlannedPage } from './tree.ts';

export interface FolderFile {
  /** Relative path with `/` separators, no leading `/`. */
  path: string;
  bytes: Uint8Array;
}

export interface FolderOptions {
  /** GitHub wiki conventions: `Home.md` first, `_Sidebar`/`_Footer` left out, `[[Page]]` links, titles from file names. */
  wiki?: boolean;
}

export interface FolderImport {
  pages: ImportedPage[];
  /** Files that are not documents, by path (candidates for the assets pages reference). */
  assets: Set<string>;
  /** Paths of documents (pages) by their page source, for link resolution. */
  documents: Set<string>;
  /** Whether SUMMARY.md gave the tree. */
  summary: boolean;
}

const DOCUMENT = /\.(md|markdown|mdx|html?)$/i;
const IGNORED = /(^|\/)(__MACOSX|\.git|node_modules|\.DS_Store|Thumbs\.db)(\/|$)|(^|\/)\.(?!gitbook\.yaml$)[^/]*$/;
const INDEX_NAMES = ['readme.md', 'index.md', 'readme.markdown', 'index.markdown', 'index.html', 'index.htm', 'home.md'];

const mdParser = unified().use(remarkParse).use(remarkGfm);
const decoder = new TextDecoder('utf-8');

export const isDocumentPath = (path: string) => DOCUMENT.test(path);
const isHtml = (path: string) => /\.html?$/i.test(path);
const text = (bytes: Uint8Array) => decoder.decode(bytes).replace(/^\uFEFF/, '');

/** Drops ignored entries and a single folder wrapping everything (`docs-main/…` in GitHub zips). */
export function normalizeFolder(files: FolderFile[]): FolderFile[] {
  let kept = files
    .map((f) => ({ ...f, path: f.path.replace(/\\/g, '/').replace(/^\.?\/+/, '') }))
    .filter((f) => f.path !== '' && !f.path.endsWith('/') && !IGNORED.test(f.path) && !f.path.split('/').includes('..'));
  for (;;) {
    const tops = new Set(kept.map((f) => f.path.split('/')[0]));
    if (tops.size !== 1 || kept.some((f) => !f.path.includes('/'))) break;
    const [top] = tops;
    kept = kept.map((f) => ({ ...f, path: f.path.slice(top.length + 1) }));
  }
  return kept;
}

/** `.gitbook.yaml`: the root folder and the README/SUMMARY files it names. */
function gitbookConfig(files: Map<string, FolderFile>): { root: string; readme: string; summary: string } {
  const out = { root: '', readme: 'README.md', summary: 'SUMMARY.md' };
  const config = files.get('.gitbook.yaml');
  if (!config) return out;
  try {
    const data = parseYaml(text(config.bytes)) as { root?: unknown; structure?: { readme?: unknown; summary?: unknown } } | null;
    if (typeof data?.root === 'string') out.root = data.root.replace(/^\.?\/+|\/+$/g, '');
    if (typeof data?.structure?.readme === 'string') out.readme = data.structure.readme;
    if (typeof data?.structure?.summary === 'string') out.summary = data.structure.summary;
  } catch {
    // an unreadable .gitbook.yaml is ignored
  }
  return out;
}

function documentPage(path: string, file: FolderFile | undefined, options: FolderOptions, fallbackTitle?: string): ImportedPage {
  if (!file) return { title: fallbackTitle ?? titleFromFileName(path), markdown: '', source: path, children: [] };
  if (isHtml(path)) {
    const converted = htmlToMarkdown(text(file.bytes), { mainContent: true });
    return { title: fallbackTitle ?? converted.title ?? titleFromFileName(path), markdown: converted.markdown, source: path, children: [] };
  }
  const markdown = text(file.bytes);
  const facts = markdownFacts(markdown);
  const fromName = options.wiki ? path.replace(/^.*\//, '').replace(/\.[^.]+$/, '').replace(/-/g, ' ') : titleFromFileName(path);
  return {
    title: fallbackTitle ?? facts.title ?? fromName,
    markdown,
    description: facts.description,
    source: path,
    children: [],
  };
}

/** The page tree of SUMMARY.md: list items with or without links, nested lists, `##` group headings. */
function summaryTree(summaryPath: string, summary: string, files: Map<string, FolderFile>, options: FolderOptions): ImportedPage[] {
  const tree = mdParser.parse(summary);
  const top: ImportedPage[] = [];
  let group: ImportedPage | null = null;
  const itemPage = (item: ListItem): ImportedPage | null => {
    const paragraph = item.children.find((c) => c.type === 'paragraph');
    let page: ImportedPage | null = null;
    if (paragraph) {
      const link = paragraph.children.find((c) => c.type === 'link');
      const title = (link ? toString(link) : toString(paragraph)).replace(/\s+/g, ' ').trim();
      if (link && /^[a-z][a-z0-9+.-]*:/i.test(link.url)) {
        page = { title: title || link.url, markdown: '', type: 'link', href: link.url, children: [] };
      } else if (link) {
        const target = resolveRelativePath(summaryPath, percentDecode(stripQueryAndFragment(link.url)));
        page = target === null ? null : documentPage(target, files.get(target), options, title || undefined);
      } else if (title !== '') {
        page = { title, markdown: '', children: [] };
      }
    }
    const nested = item.children.filter((c): c is List => c.type === 'list');
    const children = nested.flatMap((list) => list.children.map(itemPage).filter((p): p is ImportedPage => p !== null));
    if (!page) return children.length > 0 ? { title: 'Untitled', markdown: '', children } : null;
    page.children.push(...children);
    return page;
  };
  const visitBlock = (node: Nodes) => {
    if (node.type === 'heading' && node.depth >= 2) {
      const title = toString(node).replace(/\s+/g, ' ').trim();
      if (title !== '') {
        group = { title, markdown: '', type: 'group', children: [] };
        top.push(group);
      }
    } else if (node.type === 'list') {
      const pages = node.children.map(itemPage).filter((p): p is ImportedPage => p !== null);
      if (group) (group as ImportedPage).children.push(...pages);
      else top.push(...pages);
    }
  };
  for (const node of tree.children) visitBlock(node);
  return top;
}

/** The page tree of the folders when there is no SUMMARY.md. */
function folderTree(paths: string[], files: Map<string, FolderFile>, options: FolderOptions, root: string): ImportedPage[] {
  interface Dir {
    docs: string[];
    dirs: Map<string, Dir>;
  }
  const top: Dir = { docs: [], dirs: new Map() };
  for (const path of paths) {
    const parts = path.slice(root === '' ? 0 : root.length + 1).split('/');
    let dir = top;
    for (const part of parts.slice(0, -1)) {
      let next = dir.dirs.get(part);
      if (!next) dir.dirs.set(part, (next = { docs: [], dirs: new Map() }));
      dir = next;
    }
    dir.docs.push(path);
  }
  const name = (p: string) => p.replace(/^.*\//, '').toLowerCase();
  const isIndex = (p: string) => INDEX_NAMES.includes(name(p)) && (options.wiki ? name(p) === 'home.md' : name(p) !== 'home.md');
  const byName = (a: string, b: string) => name(a).localeCompare(name(b), 'en', { numeric: true });
  const build = (dir: Dir, isTop: boolean): { index: string | null; pages: ImportedPage[] } => {
    const docs = [...dir.docs].sort(byName);
    const index = docs.find(isIndex) ?? null;
    const pages: ImportedPage[] = [];
    // At the top, the index page comes first as a page of its own; in a folder it is the folder's page.
    if (index && isTop) pages.push(documentPage(index, files.get(index), options));
    for (const doc of docs) if (doc !== index) pages.push(documentPage(doc, files.get(doc), options));
    for (const [dirName, sub] of [...dir.dirs].sort((a, b) => a[0].localeCompare(b[0], 'en', { numeric: true }))) {
      const built = build(sub, false);
      if (built.index === null && built.pages.length === 0) continue;
      const page = built.index ? documentPage(built.index, files.get(built.index), options) : { title: titleFromFileName(dirName), markdown: '', children: [] };
      page.children.push(...built.pages);
      pages.push(page);
    }
    return { index, pages };
  };
  return build(top, true).pages;
}

/** Reads a folder as pages and candidate assets. */
export function readFolder(input: FolderFile[], options: FolderOptions = {}): FolderImport {
  const normalized = normalizeFolder(input);
  const files = new Map(normalized.map((f) => [f.path, f]));
  const config = gitbookConfig(files);
  const root = config.root;
  const inRoot = (p: string) => root === '' || p.startsWith(`${root}/`);
  const special = (p: string) => options.wiki && /^_(sidebar|footer|header)\.(md|markdown)$/i.test(p.replace(/^.*\//, ''));
  const summaryPath = root === '' ? config.summary : `${root}/${config.summary}`;
  const documents = normalized.map((f) => f.path).filter((p) => inRoot(p) && isDocumentPath(p) && p !== summaryPath && !special(p));
  const assets = new Set(normalized.map((f) => f.path).filter((p) => !isDocumentPath(p) && p !== '.gitbook.yaml'));
  const summary = files.get(summaryPath);
  const pages = summary ? summaryTree(summaryPath, text(summary.bytes), files, options) : folderTree(documents, files, options, root);
  return { pages, assets, documents: new Set(documents), summary: summary !== undefined };
}

export interface LinkedFolder {
  /** Page id → markdown with its links rewritten. */
  markdown: Map<string, string>;
  /** Asset path → the file name it is stored under (unique), for every asset a page references. */
  assets: Map<string, string>;
}

/** Where an asset is referenced from in page markdown: its file, by name, at the root of the space. */
export const assetReference = (name: string) => `/.gitbook/assets/${encodeURIComponent(name).replace(/%2F/g, '/')}`;

/**
 * Rewrites the relative links of planned pages: a link to another document becomes a link to its
 * page (`/path/of/page`, anchor kept), a link or image to a file of the folder a link to that
 * file (`assetReference`), stored under a name unique in the content. Wiki links (`[[Page]]`) are converted first.
 */
export function linkFolderPages(
  planned: PlannedPage[],
  folder: Pick<FolderImport, 'assets'>,
  options: FolderOptions = {},
  /** File names already in the content: stored files get other names. */
  takenNames: Iterable<string> = [],
): LinkedFolder {
  const pageBySource = new Map<string, string>();
  const pageByWikiName = new Map<string, string>();
  for (const p of planned) {
    const source = p.page.source;
    if (source === undefined || pageBySource.has(source)) continue;
    pageBySource.set(source, `/${p.path}`);
    const base = source.replace(/^.*\//, '').replace(/\.[^.]+$/, '').toLowerCase();
    if (!pageByWikiName.has(base)) pageByWikiName.set(base, `/${p.path}`);
  }
  const findPage = (path: string): string | undefined => {
    const candidates = [path, `${path}.md`, `${path}.markdown`, `${path}.html`, `${path}/README.md`, `${path}/index.md`, `${path}/index.html`];
    for (const candidate of candidates) {
      const found = pageBySource.get(candidate.replace(/^\/+/, ''));
      if (found !== undefined) return found;
    }
    return undefined;
  };
  const assets = new Map<string, string>();
  const usedNames = new Set<string>([...takenNames].map((n) => n.toLowerCase()));
  const assetName = (path: string) => {
    const known = assets.get(path);
    if (known !== undefined) return known;
    const base = path.replace(/^.*\//, '');
    const dot = base.lastIndexOf('.');
    const [stem, ext] = dot > 0 ? [base.slice(0, dot), base.slice(dot)] : [base, ''];
    let name = base;
    for (let n = 2; usedNames.has(name.toLowerCase()); n++) name = `${stem}-${n}${ext}`;
    usedNames.add(name.toLowerCase());
    assets.set(path, name);
    return name;
  };

  const markdown = new Map<string, string>();
  for (const p of planned) {
    let body = p.page.markdown;
    const source = p.page.source;
    if (source === undefined || body === '') {
      markdown.set(p.id, body);
      continue;
    }
    if (options.wiki) body = convertWikiLinks(body, (name) => pageByWikiName.get(name.replace(/ /g, '-').toLowerCase()) ?? null);
    body = rewriteMarkdownUrls(body, (url) => {
      const trimmed = url.trim();
      if (trimmed === '' || trimmed.startsWith('#') || /^[a-z][a-z0-9+.-]*:/i.test(trimmed) || trimmed.startsWith('//')) return null;
      const hash = trimmed.indexOf('#');
      const fragment = hash === -1 ? '' : trimmed.slice(hash);
      const path = resolveRelativePath(source, percentDecode(stripQueryAndFragment(trimmed)));
      if (path === null) return null;
      const page = findPage(path);
      if (page !== undefined) return `${page}${fragment}`;
      if (folder.assets.has(path)) return assetReference(assetName(path));
      return null;
    });
    markdown.set(p.id, body);
  }
  return { markdown, assets };
}
