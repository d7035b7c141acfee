import { allPaths, type PageMap } from './tree.ts';

/**
 * Resolution of the references a page's markdown makes (links, images, includes) into GitBook's
 * content references, for the markdown → document conversion of a revision's pages. Pure: built
 * from the revision's page tree, files and reusable contents, which the caller loads.
 *
 * Stored markdown names pages and files by id (`gitbook://page/<id>#anchor`,
 * `gitbook://file/<id>`); relative paths as Git Sync writes them (`../guides/install.md`,
 * `.gitbook/assets/diagram.png`, `.gitbook/includes/intro.md`) are matched by page path, file
 * name and include path. Anything else is a URL, and an include nothing matches resolves to null
 * (the include is dropped from view, never an error).
 */

export type LinkRef =
  | { kind: 'page'; page: string; anchor?: string }
  | { kind: 'anchor'; anchor: string }
  | { kind: 'file'; file: string }
  | { kind: 'url'; url: string };
export type FileRef = { kind: 'file'; file: string };
export type ReusableContentRef = { kind: 'reusable-content'; reusableContent: string };

export interface DocumentResolvers {
  resolveLink(href: string): LinkRef | null;
  resolveFile(src: string): FileRef | null;
  reusableContent(path: string): ReusableContentRef | null;
}

export interface ResolverSources {
  pages: PageMap;
  files: { id: string; name: string }[];
  reusableContents: { id: string; path: string | null }[];
}

const STORED = /^gitbook:\/\/(page|file)\/([^#?/]+)(?:#(.*))?$/i;
const SCHEME = /^[a-z][a-z0-9+.-]*:/i;

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A relative path without `./`, `../`, leading `/`, query or fragment, percent-decoded. */
function bare(path: string): string {
  const withoutSuffix = path.replace(/[?#].*$/, '');
  const parts = decode(withoutSuffix)
    .split('/')
    .filter((p) => p !== '' && p !== '.' && p !== '..');
  return parts.join('/');
}

const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1);

export function documentResolvers(sources: ResolverSources): DocumentResolvers {
  const paths = allPaths(sources.pages);
  const pageByPath = new Map<string, string>();
  for (const [id, path] of paths) pageByPath.set(path.toLowerCase(), id);
  const fileIds = new Set(sources.files.map((f) => f.id));
  const fileByName = new Map<string, string>();
  for (const file of sources.files) if (!fileByName.has(file.name.toLowerCase())) fileByName.set(file.name.toLowerCase(), file.id);
  const includeByPath = new Map<string, string>();
  const includeByName = new Map<string, string>();
  for (const content of sources.reusableContents) {
    if (content.path === null) continue;
    includeByPath.set(bare(content.path).toLowerCase(), content.id);
    if (!includeByName.has(baseName(content.path).toLowerCase())) includeByName.set(baseName(content.path).toLowerCase(), content.id);
  }

  const stored = (href: string) => {
    const match = STORED.exec(href);
    return match ? { kind: match[1].toLowerCase(), id: decode(match[2]), anchor: match[3] } : null;
  };
  const fileNamed = (path: string): string | undefined => fileByName.get(baseName(bare(path)).toLowerCase());

  const resolveFile = (src: string): FileRef | null => {
    const ref = stored(src);
    if (ref) return ref.kind === 'file' && fileIds.has(ref.id) ? { kind: 'file', file: ref.id } : null;
    if (SCHEME.test(src)) return null;
    const id = fileNamed(src);
    return id === undefined ? null : { kind: 'file', file: id };
  };

  const resolveLink = (href: string): LinkRef | null => {
    const ref = stored(href);
    if (ref) {
      if (ref.kind === 'file') return fileIds.has(ref.id) ? { kind: 'file', file: ref.id } : null;
      if (!Object.hasOwn(sources.pages, ref.id)) return null;
      return ref.anchor ? { kind: 'page', page: ref.id, anchor: decode(ref.anchor) } : { kind: 'page', page: ref.id };
    }
    if (href.startsWith('#')) return href.length > 1 ? { kind: 'anchor', anchor: decode(href.slice(1)) } : null;
    if (SCHEME.test(href) || href.startsWith('//')) return { kind: 'url', url: href };
    const anchor = /#(.+)$/.exec(href)?.[1];
    const path = bare(href)
      .replace(/\.(md|markdown)$/i, '')
      .replace(/(^|\/)readme$/i, '');
    const page = pageByPath.get(path.toLowerCase());
    if (page !== undefined) return anchor ? { kind: 'page', page, anchor: decode(anchor) } : { kind: 'page', page };
    const file = fileNamed(href);
    if (file !== undefined) return { kind: 'file', file };
    return { kind: 'url', url: href };
  };

  const reusableContent = (path: string): ReusableContentRef | null => {
    const wanted = bare(path).toLowerCase();
    if (wanted === '') return null;
    const id = includeByPath.get(wanted) ?? [...includeByPath].find(([p]) => p.endsWith(`/${wanted}`) || wanted.endsWith(`/${p}`))?.[1];
    const found = id ?? includeByName.get(baseName(wanted));
    return found === undefined ? null : { kind: 'reusable-content', reusableContent: found };
  };

  return { resolveLink, resolveFile, reusableContent };
}
