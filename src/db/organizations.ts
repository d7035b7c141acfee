import type { Organization } from './entities.ts';
import { db } from './kysely.ts';
import type { Listing } from './listing.ts';
import type { Em } from './orm.ts';

/** Organizations and the memberships of a user, as the organization and integration endpoints read them. */

/** An organization as the API presents it: the entity's fields, read as a plain row. */
export type OrganizationRow = Organization;

/** A membership of a user: the organization and the role in it (null: a guest). */
export interface MembershipRow {
  organizationId: string;
  role: string | null;
}

/** Whether the organization exists. */
export async function organizationExists(em: Em, id: string): Promise<boolean> {
  return (await db(em).selectFrom('organization').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

/** The organizations with these ids (in no particular order; unknown ids are left out). */
export async function organizationsByIds(em: Em, ids: string[]): Promise<OrganizationRow[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const rows = await db(em)
    .selectFrom('organization')
    .select(['id', 'title', 'created_at as createdAt', 'subdomain', 'merge_rules as mergeRules'])
    .where('id', 'in', unique)
    .execute();
  // The driver hands `timestamptz` over as text (the ORM's type parsers keep it raw), whatever the row type says.
  return rows.map((row) => ({ ...row, createdAt: new Date(row.createdAt) }));
}

/** The enabled memberships of a user. */
export async function enabledMemberships(em: Em, userId: string): Promise<MembershipRow[]> {
  return db(em)
    .selectFrom('member')
    .select(['organization_id as organizationId', 'role'])
    .where('user_id', '=', userId)
    .where('disabled', '=', false)
    .execute();
}

/** The enabled memberships of a user as a listing, in organization id order; only the one in `organizationId` when given. */
export function membershipListing(em: Em, userId: string, organizationId: string | null): Listing<MembershipRow> {
  let query = db(em)
    .selectFrom('member')
    .select(['organization_id as organizationId', 'role'])
    .where('user_id', '=', userId)
    .where('disabled', '=', false);
  if (organizationId !== null) query = query.where('organization_id', '=', organizationId);
  return { query, keys: [{ field: 'organizationId', kind: 'string' }] };
}
