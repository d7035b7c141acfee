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
  | { kind: 'host'; hostname: string; proxies: string[]; origin: string; segments: string[]; query: URLSearchParams };

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

/** Parses a published URL; null when it cannot name a site. */
export function parsePublishedUrl(input: string, sitesUrl: string): SiteLocator | null {
  let url: URL;
  let own: URL;
  try {
    url = new URL(input);
    own = new URL(sitesUrl);
  } catch {
    return null;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  const segments = segmentsOf(url.pathname);
  if (!segments) return null;
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
  const positions = locator.kind === 'own' ? 1 : Math.min(locator.segments.length, MAX_PROXY_DEPTH + 1);
  return [...new Set(locator.segments.slice(0, positions).filter((segment) => SHARE_KEY.test(segment)))];
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
