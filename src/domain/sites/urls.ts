/**
 * Where published sites live. A site is reached at one of:
 * - the service's own scheme: `{SITES_URL}/{organizationId}/{basename or siteId}/…`
 *   (SITES_URL defaults to `{PUBLIC_URL}/sites`);
 * - its custom hostname: `https://{hostname}/…`;
 * - its proxy origin: `https://{proxy}/…` (a host and path prefix such as `company.com/docs`).
 * After the site's base come the section path (when the site has sections), the site-space path,
 * then the page path (slugs from the top level down). Every part after the base is optional:
 * missing parts resolve to the default section, the default site-space and the first page.
 * A share-link site's URL carries the key as the first path segment after the base
 * (`{base}/{key}/…`, the form GitBook's renderer reads and builds its links from) or, in the older
 * form, as the `shareKey` query parameter.
 */

export type SiteLocator =
  | { kind: 'own'; organizationId: string; siteKey: string; base: string; segments: string[]; query: URLSearchParams }
  | { kind: 'host'; hostname: string; proxies: string[]; origin: string; segments: string[]; query: URLSearchParams }
  /** A site's preview: `{SITE_PREVIEW_BASE_URL}/{siteId}/…`, opened with a preview's token only. */
  | { kind: 'preview'; siteId: string; base: string; segments: string[]; query: URLSearchParams };

/** At most this many leading path segments are tried as part of a proxy origin. */
const MAX_PROXY_DEPTH = 8;

function segmentsOf(pathname: string): string[] | null {
  const out: string[] = [];
  for (const raw of pathname.split('/')) {
    if (raw === '') continue;
    try {
      out.push(decodeURIComponent(raw));
    } catch {
      return null;
    }
  }
  return out;
}

/** Whether `url` is `base` or under it (same host, path prefix by whole segments). */
function under(url: URL, base: URL): string | null {
  const path = base.pathname.replace(/\/+$/, '');
  return url.host === base.host && (url.pathname === path || url.pathname.startsWith(`${path}/`)) ? path : null;
}

/**
 * Parses a published URL; null when it cannot name a site. With `previewUrl` (SITE_PREVIEW_BASE_URL),
 * a URL under it names a site's preview by the site's id.
 */
export function parsePublishedUrl(input: string, sitesUrl: string, previewUrl?: string): SiteLocator | null {
  let url: URL;
  let own: URL;
  let preview: URL | undefined;
  try {
    url = new URL(input);
    own = new URL(sitesUrl);
    preview = previewUrl === undefined ? undefined : new URL(previewUrl);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const segments = segmentsOf(url.pathname);
  if (!segments) return null;
  const previewPath = preview && under(url, preview);
  if (preview && previewPath !== null && previewPath !== undefined) {
    const rest = segments.slice(segmentsOf(previewPath)!.length);
    if (rest.length < 1) return null;
    return { kind: 'preview', siteId: rest[0], base: `${preview.origin}${previewPath}`, segments: rest.slice(1), query: url.searchParams };
  }
  const ownPath = own.pathname.replace(/\/+$/, '');
  if (url.host === own.host && (url.pathname === ownPath || url.pathname.startsWith(`${ownPath}/`))) {
    const ownSegments = segmentsOf(ownPath)!;
    const rest = segments.slice(ownSegments.length);
    if (rest.length < 2) return null;
    return {
      kind: 'own',
      organizationId: rest[0],
      siteKey: rest[1],
      base: `${own.origin}${ownPath}`,
      segments: rest.slice(2),
      query: url.searchParams,
    };
  }
  const hostname = url.hostname.toLowerCase();
  const proxies: string[] = [];
  for (let depth = 1; depth <= Math.min(segments.length, MAX_PROXY_DEPTH); depth++) {
    proxies.push([hostname, ...segments.slice(0, depth)].join('/'));
  }
  return { kind: 'host', hostname, proxies, origin: url.origin, segments, query: url.searchParams };
}

/** A share link's key as this service makes them: 24 random bytes in base64url. */
const SHARE_KEY = /^[A-Za-z0-9_-]{32}$/;

/**
 * The path segments of a published URL that may be a share link's key: those of the key's form
 * where the key can stand, right after a site's base. Under the service's own scheme that is the
 * first segment; under a host, the first, or the one after any proxy prefix.
 */
export function shareKeyCandidates(locator: SiteLocator): string[] {
  if (locator.kind === 'preview') return [];
  const positions = locator.kind === 'own' ? 1 : Math.min(locator.segments.length, MAX_PROXY_DEPTH + 1);
  return [...new Set(locator.segments.slice(0, positions).filter((segment) => SHARE_KEY.test(segment)))];
}

/**
 * The content a URL names past the site's structure: `~/changes/<id>/` (a change request) or
 * `~/revisions/<id>/` (a revision), wherever they stand in the path, as GitBook's renderer reads
 * them: the segments before `~` locate the site, section and site-space, those after the id the
 * page. Undefined `ref` when the path names neither.
 */
export function contentRefOf(segments: string[]): { segments: string[]; ref?: { kind: 'changes' | 'revisions'; id: string } } {
  const at = segments.indexOf('~');
  const kind = at >= 0 ? segments[at + 1] : undefined;
  const id = at >= 0 ? segments[at + 2] : undefined;
  if ((kind !== 'changes' && kind !== 'revisions') || !id) return { segments };
  return { segments: [...segments.slice(0, at), ...segments.slice(at + 3)], ref: { kind, id } };
}

export interface SiteAddress {
  id: string;
  organizationId: string;
  basename: string | null;
  hostname: string | null;
  proxy: string | null;
}

/** The base URL of a site (no trailing slash): proxy, else custom hostname, else the service's own scheme. */
export function siteBaseUrl(site: SiteAddress, sitesUrl: string): string {
  if (site.proxy) return `https://${site.proxy}`;
  if (site.hostname) return `https://${site.hostname}`;
  return `${sitesUrl}/${encodeURIComponent(site.organizationId)}/${encodeURIComponent(site.basename ?? site.id)}`;
}

/** A URL under a site's base, from path parts (empty parts skipped). */
export function siteUrl(base: string, parts: (string | null | undefined)[], query?: Record<string, string>): string {
  const path = parts
    .filter((p): p is string => !!p)
    .map((p) => p.split('/').map(encodeURIComponent).join('/'))
    .join('/');
  const search = query && Object.keys(query).length ? `?${new URLSearchParams(query).toString()}` : '';
  return `${base}/${path}${search}`;
}
