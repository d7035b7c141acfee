import type { ReusableContentRow } from '../../db/content.ts';
import type { FileFacts, SemanticChange } from '../../domain/content/semantic-changes.ts';

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

/**
 * GitBook's RevisionSemanticChanges: the first `limit` changes, `more` counting those left out,
 * files named with their download URL (`downloadURL` of the content they belong to).
 */
export function presentSemanticChanges(
  changes: SemanticChange[],
  limit: number,
  downloadURL: (file: FileFacts) => string,
  mergedFrom?: unknown,
) {
  const file = (f: FileFacts) => ({ id: f.id, name: f.name, contentType: f.contentType, downloadURL: downloadURL(f) });
  const shown = changes.slice(0, limit).map((change) => {
    switch (change.type) {
      case 'file_created':
      case 'file_deleted':
        return { type: change.type, file: file(change.file) };
      case 'file_edited':
        return { type: change.type, file: file(change.file), attributes: change.attributes };
      default:
        return change;
    }
  });
  return {
    ...(mergedFrom !== undefined ? { mergedFrom } : {}),
    changes: shown,
    ...(changes.length > limit ? { more: changes.length - limit } : {}),
  };
}
