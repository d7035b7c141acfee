import { sql } from 'kysely';
import { isUniqueViolation } from './health.ts';
import { db } from './kysely.ts';
import type { Listing } from './listing.ts';
import type { Em } from './orm.ts';

/** Redirects of published sites (Migration0019SiteRedirects). */

export type RedirectRow = {
  id: string;
  site_id: string;
  source: string;
  draft: boolean;
  capture_wildcard: boolean;
  permanent: boolean;
  destination: Record<string, unknown>;
  created_at: string;
  updated_at: string | null;
};

/** A jsonb value from an object: Kysely binds values as they are, and the column wants JSON text. */
const jsonb = (value: Record<string, unknown>) => sql<Record<string, unknown>>`${JSON.stringify(value)}::jsonb`;

export type RedirectOrder = 'createdAt' | 'updatedAt' | 'source';

export interface RedirectFields {
  source: string;
  draft: boolean;
  captureWildcard: boolean;
  permanent: boolean;
  destination: Record<string, unknown>;
}

/** What a wildcard source matches: the source without its trailing `*`; null for an exact source. */
export const prefixOf = (source: string): string | null => (source.endsWith('*') ? source.slice(0, -1) : null);

const redirects = (em: Em) =>
  db(em)
    .selectFrom('site_redirect')
    .select(['id', 'site_id', 'source', 'draft', 'capture_wildcard', 'permanent', 'destination', 'created_at', 'updated_at']);

/**
 * The live or draft redirects of a site: most recently created first, most recently updated first
 * (a redirect never updated counts from its creation), or by source; with `search`, only those
 * whose source contains it.
 */
export function redirectsListing(
  em: Em,
  siteId: string,
  filters: { draft: boolean; search?: string; orderBy: RedirectOrder },
): Listing<RedirectRow & { sort_at: string }> {
  let query = redirects(em)
    .select((eb) => eb.fn.coalesce('updated_at', 'created_at').as('sort_at'))
    .where('site_id', '=', siteId)
    .where('draft', '=', filters.draft);
  if (filters.search) {
    // Backslash is the default escape character of like: the search's wildcards match themselves.
    query = query.where('source', 'like', `%${filters.search.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  if (filters.orderBy === 'source') {
    return {
      query,
      keys: [
        { field: 'source', kind: 'string' },
        { field: 'id', kind: 'string' },
      ],
    };
  }
  return {
    query,
    keys: [
      { field: filters.orderBy === 'updatedAt' ? 'sort_at' : 'created_at', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
    order: 'desc',
  };
}

export async function redirectById(em: Em, siteId: string, id: string): Promise<RedirectRow | undefined> {
  return redirects(em).where('site_id', '=', siteId).where('id', '=', id).executeTakeFirst();
}

/** The redirects of a site with one of `sources`, live and draft. */
export async function redirectsBySources(em: Em, siteId: string, sources: string[]): Promise<RedirectRow[]> {
  if (sources.length === 0) return [];
  return redirects(em).where('site_id', '=', siteId).where('source', 'in', sources).execute();
}

/**
 * The live redirect a visitor's path follows: the one whose source is the path, or else the
 * wildcard source with the longest prefix of it.
 */
export async function liveRedirectForPath(em: Em, siteId: string, path: string): Promise<RedirectRow | undefined> {
  const exact = await redirects(em).where('site_id', '=', siteId).where('draft', '=', false).where('source', '=', path).executeTakeFirst();
  if (exact) return exact;
  return redirects(em)
    .where('site_id', '=', siteId)
    .where('draft', '=', false)
    .where('prefix', 'is not', null)
    .where((eb) => eb.fn<boolean>('starts_with', [eb.val(path), eb.ref('prefix')]))
    .orderBy((eb) => eb.fn('length', ['prefix']), 'desc')
    .limit(1)
    .executeTakeFirst();
}

export async function countRedirects(em: Em, siteId: string): Promise<number> {
  const row = await db(em)
    .selectFrom('site_redirect')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('site_id', '=', siteId)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Inserts a redirect; false (and nothing written) when the site has one from that source in that state already. */
export async function insertRedirect(em: Em, id: string, siteId: string, fields: RedirectFields): Promise<boolean> {
  const inserted = await db(em)
    .insertInto('site_redirect')
    .values({
      id,
      site_id: siteId,
      source: fields.source,
      prefix: prefixOf(fields.source),
      draft: fields.draft,
      capture_wildcard: fields.captureWildcard,
      permanent: fields.permanent,
      destination: jsonb(fields.destination),
      created_at: new Date(),
    })
    .onConflict((oc) => oc.columns(['site_id', 'draft', 'source']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Changes a redirect; false when the change would give the site two redirects from one source in
 * one state (refused by the unique index: the caller's transaction cannot go on after that).
 */
export async function updateRedirect(em: Em, id: string, fields: Partial<RedirectFields>): Promise<boolean> {
  try {
    await db(em)
      .updateTable('site_redirect')
      .set({
        ...(fields.source !== undefined ? { source: fields.source, prefix: prefixOf(fields.source) } : {}),
        ...(fields.draft !== undefined ? { draft: fields.draft } : {}),
        ...(fields.captureWildcard !== undefined ? { capture_wildcard: fields.captureWildcard } : {}),
        ...(fields.permanent !== undefined ? { permanent: fields.permanent } : {}),
        ...(fields.destination !== undefined ? { destination: jsonb(fields.destination) } : {}),
        updated_at: new Date(),
      })
      .where('id', '=', id)
      .execute();
  } catch (error) {
    if (isUniqueViolation(error)) return false;
    throw error;
  }
  return true;
}

export async function deleteRedirect(em: Em, id: string): Promise<boolean> {
  const result = await db(em).deleteFrom('site_redirect').where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The sites with a live site-space of `spaceId` (the space not deleted and in the site's organization). */
export async function sitesPublishingSpace(em: Em, spaceId: string): Promise<string[]> {
  const rows = await db(em)
    .selectFrom('site_space as ss')
    .innerJoin('site as s', 's.id', 'ss.site_id')
    .innerJoin('space as sp', (join) =>
      join.onRef('sp.id', '=', 'ss.space_id').on('sp.deleted_at', 'is', null).onRef('sp.organization_id', '=', 's.organization_id'),
    )
    .where('ss.space_id', '=', spaceId)
    .select('s.id')
    .distinct()
    .execute();
  return rows.map((r) => r.id);
}

/** Creates the live redirect from `source`, or points the existing one at `destination`. */
export async function upsertLiveRedirect(
  em: Em,
  id: string,
  siteId: string,
  source: string,
  destination: Record<string, unknown>,
): Promise<void> {
  await db(em)
    .insertInto('site_redirect')
    .values({
      id,
      site_id: siteId,
      source,
      prefix: prefixOf(source),
      draft: false,
      destination: jsonb(destination),
      created_at: new Date(),
    })
    .onConflict((oc) => oc.columns(['site_id', 'draft', 'source']).doUpdateSet({ destination: jsonb(destination), updated_at: new Date() }))
    .execute();
}
