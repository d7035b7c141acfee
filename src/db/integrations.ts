import type { Em } from './orm.ts';
import { sql } from './sql.ts';

/**
 * Integrations beyond plain entity CRUD (Integration, IntegrationAsset and IntegrationInstallation
 * in settings-entities.ts are read and written through the ORM).
 */

/** The organization a publish body names, by id or by subdomain (any case); the id wins over a subdomain. */
export async function organizationIdOrSubdomain(em: Em, value: string): Promise<string | undefined> {
  const rows = await sql<{ id: string }>(em, 'select id from organization where id = ? or subdomain = ? order by (id = ?) desc limit 1', [
    value,
    value.toLowerCase(),
    value,
  ]);
  return rows[0]?.id;
}
