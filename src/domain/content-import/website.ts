/**
 * A website import: which links a crawl follows (same origin, web pages only), the page tree of
 * the pages it found (by URL path) and their links to each other rewritten as links between
 * pages. Pure: the fetching is the activity's.
 */
import { rewriteLinks } from '../git/links.ts';
import type { ImportedPage, PlannedPage } from './tree.ts';

const NOT_PAGES =
  /\.(png|jpe?g|gif|svg|webp|avif|ico|bmp|tiff?|pdf|zip|gz|tgz|tar|rar|7z|dmg|exe|msi|deb|rpm|apk|mp[34]|m4a|mov|avi|webm|ogg|wav|woff2?|ttf|otf|eot|css|js|mjs|json|xml|rss|atom|txt|csv|docx?|xlsx?|pptx?)$/i;

/**
 * The URL a crawl would fetch for a link found on a page of `origin`, or null when it does not
 * follow it: another origin, not http(s), a file rather than a page. Fragment and query dropped.
 */
export function crawlTarget(href: string, origin: string): string | null {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== origin) return null;
  if (NOT_PAGES.test(url.pathname)) return null;
  url.hash = '';
  url.search = '';
  url.username = '';
  url.password = '';
  return url.href;
}

/** The path a page stands for: `/docs/index.html` and `/docs/` are both `/docs`. */
function pagePath(url: string): string {
  const path = new URL(url).pathname.replace(/\/(index|default)\.html?$/i, '/').replace(/\.html?$/i, '');
  return path.replace(/\/+$/, '') || '/';
}

export interface CrawledPage {
  /** The URL the page was fetched from (a `crawlTarget`). */
  url: string;
  title: string | null;
  markdown: string;
}

/**
 * The page tree of crawled pages, in crawl order: a page goes under the crawled page whose path is
 * the longest folder above its own (`/docs/a/b` under `/docs/a`); the start page (the first) is
 * the first top-level page, and pages with no crawled page above them (but the start page) are
 * top-level pages after it.
 */
export function websiteTree(pages: CrawledPage[]): ImportedPage[] {
  const byPath = new Map<string, ImportedPage>();
  const top: ImportedPage[] = [];
  const nodes = pages.map((p) => ({
    path: pagePath(p.url),
    page: {
      title: p.title ?? (pagePath(p.url).split('/').pop() || 'Home'),
      markdown: p.markdown,
      source: p.url,
      children: [],
    } as ImportedPage,
  }));
  for (const node of nodes) if (!byPath.has(node.path)) byPath.set(node.path, node.page);
  const startPage = nodes[0]?.page;
  for (const node of nodes) {
    if (byPath.get(node.path) !== node.page) continue; // the same page under two URLs
    let parent: ImportedPage | undefined;
    // The start page and the site's root page are never made parents of everything below them.
    for (let path = node.path; parent === undefined;) {
      path = path.slice(0, path.lastIndexOf('/'));
      if (path === '') break;
      const candidate = byPath.get(path);
      if (candidate && candidate !== node.page && candidate !== startPage) parent = candidate;
    }
    (parent?.children ?? top).push(node.page);
  }
  return top;
}

/** Page id → markdown whose links to crawled pages became content references (`gitbook://page/<id>`). */
export function linkWebsitePages(planned: PlannedPage[], origin: string): Map<string, string> {
  const pathOf = new Map<string, string>();
  for (const p of planned)
    if (p.page.source !== undefined && !pathOf.has(pagePath(p.page.source))) pathOf.set(pagePath(p.page.source), `gitbook://page/${p.id}`);
  const out = new Map<string, string>();
  for (const p of planned) {
    out.set(
      p.id,
      rewriteLinks(p.page.markdown, (url, kind) => {
        if (kind === 'image') return null;
        const target = crawlTarget(url, origin);
        if (target === null) return null;
        const page = pathOf.get(pagePath(target));
        if (page === undefined) return null;
        const hash = url.indexOf('#');
        return hash === -1 ? page : `${page}${url.slice(hash)}`;
      }),
    );
  }
  return out;
}
