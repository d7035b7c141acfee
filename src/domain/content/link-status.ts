/**
 * Whether a link target of a page exists: absolute URLs, anchors, `gitbook://` content references
 * and paths resolved against the page's place in GitBook's git layout.
 */

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
  const segments = path.startsWith('/')
    ? []
    : fromPath
        .split('/')
        .filter((s) => s !== '' && s !== '.')
        .slice(0, -1);
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
export function layoutFiles(pagePath: string): string[] {
  const path = pagePath
    .split('/')
    .filter((s) => s !== '')
    .join('/');
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
