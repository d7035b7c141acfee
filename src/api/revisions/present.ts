import type { ReusableContentRow } from '../../db/content.ts';

/** GitBook's RevisionReusableContent: id and title (and where it lives in a synced repository). */
export function presentReusableContent(content: Pick<ReusableContentRow, 'id' | 'title' | 'path'>) {
  return {
    id: content.id,
    title: content.title,
    ...(content.path !== null ? { path: content.path } : {}),
  };
}

/**
 * GitBook's RevisionPageMetaLinks: the page's canonical and alternate URLs. Pages here declare
 * none, so readers fall back to the page's own URL.
 */
export function presentMetaLinks() {
  return { alternates: [] };
}
