import type { RedirectRow } from '../../../db/site-redirects.ts';

/** Site redirect objects from rows: pure. */

export function presentRedirect(row: RedirectRow) {
  return {
    object: 'site-redirect' as const,
    id: row.id,
    source: row.source,
    draft: row.draft,
    captureWildcard: row.capture_wildcard,
    permanent: row.permanent,
    destination: row.destination,
    createdAt: new Date(row.created_at).toISOString(),
    ...(row.updated_at ? { updatedAt: new Date(row.updated_at).toISOString() } : {}),
  };
}
