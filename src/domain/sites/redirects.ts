import { effectiveDefault } from './order.ts';

/** Site redirect sources: what a source path may be, and the source of a path of a published site-space. */

/**
 * GitBook's pattern for a source: `/` then segments of unreserved characters or percent-escapes;
 * a trailing `*` (alone, or after the last segment) makes it match every path it prefixes.
 */
export const SOURCE_PATTERN =
  '^\\/(?!\\*)(?!.*\\*.+)(?:[A-Za-z0-9\\-._~+]|%[0-9A-Fa-f]{2})+(?:\\/(?:[A-Za-z0-9\\-._~+]|%[0-9A-Fa-f]{2})+)*(?:\\/\\*|\\*)?$';
export const MAX_SOURCE_LENGTH = 512;
const SOURCE = new RegExp(SOURCE_PATTERN);

export const isSourcePath = (source: string): boolean => source.length <= MAX_SOURCE_LENGTH && SOURCE.test(source);

/** A path segment escaped to the characters a source allows. */
const escapeSegment = (segment: string) =>
  encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * The source of `path` (a page path as a space's `.gitbook.yaml` names it) below the URL prefix of
 * a site-space (its section's and its own path; null parts are left out): null when the result is
 * not a valid source.
 */
export function sourceUnder(prefix: (string | null | undefined)[], path: string): string | null {
  const segments = [...prefix.filter((p): p is string => !!p), ...path.split('/')].filter((s) => s !== '').map(escapeSegment);
  if (segments.length === 0) return null;
  const source = `/${segments.join('/')}`;
  return isSourcePath(source) ? source : null;
}

/** The most redirects a site holds, live and draft together. */
export const MAX_REDIRECTS_PER_SITE = 10_000;

interface SectionLike {
  id: string;
  path: string;
  is_default: boolean;
  position: string;
}
interface SiteSpaceLike extends SectionLike {
  section_id: string | null;
}

/**
 * The URL parts of a site-space as canonical URLs write them: its section's path and its own,
 * each left out where it is the default of its level.
 */
export function canonicalParts(sections: SectionLike[], siteSpaces: SiteSpaceLike[], siteSpace: SiteSpaceLike): (string | null)[] {
  const ordered = <T extends { is_default: boolean }>(rows: T[]) => rows.map((r) => ({ ...r, isDefault: r.is_default }));
  const section = sections.find((s) => s.id === siteSpace.section_id);
  const level = siteSpaces.filter((s) => s.section_id === siteSpace.section_id);
  return [
    section && effectiveDefault(ordered(sections))?.id !== section.id ? section.path : null,
    effectiveDefault(ordered(level))?.id === siteSpace.id ? null : siteSpace.path,
  ];
}
