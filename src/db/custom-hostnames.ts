import { db } from './kysely.ts';
import type { Em } from './orm.ts';

/**
 * Custom hostnames: a site's `hostname` setting, and the last DNS check of it
 * (custom_hostname_check, Migration0035SitePermissions). A check made of another hostname than
 * the site's current one is stale: the site changed its hostname since.
 */

/** A site found by its custom hostname, with the last check made of that hostname (if any). */
export interface HostnameRow {
  siteId: string;
  organizationId: string;
  hostname: string;
  check: { status: string; active: boolean; checkedAt: Date } | undefined;
}

/** The site whose custom hostname is `hostname` (hostnames are unique across sites), with its last check of it. */
export async function siteByHostname(em: Em, hostname: string): Promise<HostnameRow | undefined> {
  const row = await db(em)
    .selectFrom('site as s')
    .leftJoin('custom_hostname_check as c', (join) => join.onRef('c.site_id', '=', 's.id').onRef('c.hostname', '=', 's.hostname'))
    .select(['s.id', 's.organization_id', 's.hostname', 'c.status', 'c.active', 'c.checked_at'])
    .where('s.hostname', '=', hostname)
    .executeTakeFirst();
  if (!row || row.hostname === null) return undefined;
  return {
    siteId: row.id,
    organizationId: row.organization_id,
    hostname: row.hostname,
    check:
      row.status === null || row.active === null || row.checked_at === null
        ? undefined
        : { status: row.status, active: row.active, checkedAt: new Date(row.checked_at) },
  };
}

/** Records the result of a check of a site's hostname, replacing the one before. */
export async function saveHostnameCheck(
  em: Em,
  siteId: string,
  check: { hostname: string; status: string; active: boolean; checkedAt: Date },
): Promise<void> {
  const values = { hostname: check.hostname, status: check.status, active: check.active, checked_at: check.checkedAt };
  await db(em)
    .insertInto('custom_hostname_check')
    .values({ site_id: siteId, ...values })
    .onConflict((oc) => oc.column('site_id').doUpdateSet(values))
    .execute();
}

/** Takes the custom hostname away from its site, with its check; false when the site no longer had it. */
export async function removeHostname(em: Em, siteId: string, hostname: string): Promise<boolean> {
  const rows = await db(em)
    .updateTable('site')
    .set((eb) => ({ hostname: null, updated_at: eb.fn<Date>('now') }))
    .where('id', '=', siteId)
    .where('hostname', '=', hostname)
    .returning('id')
    .execute();
  await db(em).deleteFrom('custom_hostname_check').where('site_id', '=', siteId).execute();
  return rows.length > 0;
}
