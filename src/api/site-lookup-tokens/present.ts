import type { LookupTokenRow } from '../../db/sites.ts';

/** Site lookup tokens from rows: pure. The secret is passed in only when the token was just created. */
export function presentLookupToken(row: LookupTokenRow, token?: string) {
  return {
    object: 'site-lookup-token' as const,
    id: row.id,
    label: row.label,
    createdAt: new Date(row.created_at).toISOString(),
    ...(row.last_used_at ? { lastUsedAt: new Date(row.last_used_at).toISOString() } : {}),
    ...(token ? { token } : {}),
  };
}
