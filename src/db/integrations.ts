import { sql } from 'kysely';
import { isUniqueViolation } from './health.ts';
import { db, type Read } from './kysely.ts';
import type { Listing } from './listing.ts';
import type { Em } from './orm.ts';
import type { Integration, IntegrationInstallation } from './settings-entities.ts';

/**
 * Integrations (`integration`), their images (`integration_asset`) and their installations on
 * organizations (`integration_installation`).
 */

/** An integration as the API presents it: the entity's fields but the script and the sealed secrets, which are never read back. */
export type IntegrationRow = Omit<Integration, 'script' | 'secretsSealed'>;

/** An installation as the API presents it: the entity's fields, read as a plain row. */
export type InstallationRow = IntegrationInstallation;

/** What a publication sets: the whole definition of an integration. */
export type IntegrationDefinition = Omit<Integration, 'name' | 'ownerId' | 'version' | 'verified' | 'secretsSealed' | 'createdAt'>;

/** A JSON value for a jsonb column, sent as its JSON text (node-pg would send an array as a PostgreSQL array). */
function jsonb<T>(value: T) {
  return sql<T>`${JSON.stringify(value)}::jsonb`;
}

/** The organization a publish body names, by id or by subdomain (any case); the id wins over a subdomain. */
export async function organizationIdOrSubdomain(em: Em, value: string): Promise<string | undefined> {
  const row = await db(em)
    .selectFrom('organization')
    .select('id')
    .where((eb) => eb.or([eb('id', '=', value), eb('subdomain', '=', value.toLowerCase())]))
    .orderBy((eb) => eb('id', '=', value), 'desc')
    .limit(1)
    .executeTakeFirst();
  return row?.id;
}

// --- Integrations -----------------------------------------------------------------------------

/**
 * An integration row with its times as Dates. The driver hands `timestamptz` over as text (the ORM's type parsers
 * keep it raw), whatever the row type says: every row read here goes through this, and so must
 * the rows of `integrationListing` before they are presented.
 */
export function integrationRow(row: Read<IntegrationRow>): IntegrationRow {
  return { ...row, createdAt: new Date(row.createdAt), updatedAt: new Date(row.updatedAt) };
}

function integrations(em: Em) {
  return db(em)
    .selectFrom('integration')
    .select([
      'name',
      'owner_id as ownerId',
      'version',
      'title',
      'description',
      'summary',
      'visibility',
      'target',
      'runtime',
      'verified',
      'scopes',
      'categories',
      'blocks',
      'content_sources as contentSources',
      'external_links as externalLinks',
      'configurations',
      'content_security_policy as contentSecurityPolicy',
      'block_domains as blockDomains',
      'has_blocks as hasBlocks',
      'has_content_sources as hasContentSources',
      'has_icon as hasIcon',
      'preview_image_count as previewImageCount',
      'created_at as createdAt',
      'updated_at as updatedAt',
    ]);
}

/** An integration by name. */
export async function findIntegration(em: Em, name: string): Promise<IntegrationRow | undefined> {
  const row = await integrations(em).where('name', '=', name).executeTakeFirst();
  return row && integrationRow(row);
}

/** What a list of integrations may be narrowed to. */
export interface IntegrationFilter {
  /** The organizations the caller belongs to: their integrations are listed whatever their visibility. */
  memberOf: string[];
  /** Part of the name or title (any case). */
  search?: string;
  category?: string;
  scope?: string;
  /** A domain one of its blocks unfurls (lower case). */
  blockDomain?: string;
  blocks?: boolean;
  contentSources?: boolean;
  owner?: string;
  /** Integrations for this target or for all targets (`all`: those for all targets only). */
  target?: string;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The integrations a caller may list (public ones and those of their organizations), by name. */
export function integrationListing(em: Em, filter: IntegrationFilter): Listing<Read<IntegrationRow>> {
  let query = integrations(em).where((eb) =>
    filter.memberOf.length > 0
      ? eb.or([eb('visibility', '=', 'public'), eb('owner_id', 'in', filter.memberOf)])
      : eb('visibility', '=', 'public'),
  );
  if (filter.search) {
    const pattern = `%${escapeLike(filter.search)}%`;
    query = query.where((eb) => eb.or([eb('name', 'ilike', pattern), eb('title', 'ilike', pattern)]));
  }
  // Array containment (`@>`, which the GIN index on block_domains answers) of a one-element text[].
  if (filter.category) query = query.where('categories', '@>', sql<string[]>`${[filter.category]}::text[]`);
  if (filter.scope) query = query.where('scopes', '@>', sql<string[]>`${[filter.scope]}::text[]`);
  if (filter.blockDomain) query = query.where('block_domains', '@>', sql<string[]>`${[filter.blockDomain]}::text[]`);
  if (filter.blocks !== undefined) query = query.where('has_blocks', '=', filter.blocks);
  if (filter.contentSources !== undefined) query = query.where('has_content_sources', '=', filter.contentSources);
  if (filter.owner) query = query.where('owner_id', '=', filter.owner);
  if (filter.target) query = query.where('target', 'in', filter.target === 'all' ? ['all'] : [filter.target, 'all']);
  return { query, keys: [{ field: 'name', kind: 'string' }] };
}

/** The owner and version of an integration, locked until the transaction ends; undefined when nobody published it yet. */
export async function lockIntegration(tx: Em, name: string): Promise<{ ownerId: string; version: number } | undefined> {
  return db(tx)
    .selectFrom('integration')
    .select(['owner_id as ownerId', 'version'])
    .where('name', '=', name)
    .forUpdate()
    .executeTakeFirst();
}

/**
 * Writes a publication in the transaction of `tx`: the whole definition (as version `version`; a
 * new integration when `created`), the sealed secrets when given, and the images, which replace
 * the previous ones. A new name another request published at the same time fails the insert
 * with a unique violation (see `isUniqueViolation`).
 */
export async function writePublication(
  tx: Em,
  publication: {
    name: string;
    ownerId: string;
    version: number;
    created: boolean;
    definition: IntegrationDefinition;
    secretsSealed: string | undefined;
    images: { asset: string; contentType: string; data: Buffer }[];
  },
): Promise<void> {
  const { name, definition: d } = publication;
  const columns = {
    title: d.title,
    description: d.description,
    summary: d.summary,
    visibility: d.visibility,
    target: d.target,
    runtime: d.runtime,
    scopes: d.scopes,
    categories: d.categories,
    blocks: jsonb(d.blocks),
    content_sources: jsonb(d.contentSources),
    external_links: jsonb(d.externalLinks),
    configurations: jsonb(d.configurations),
    content_security_policy: d.contentSecurityPolicy === null ? null : jsonb(d.contentSecurityPolicy),
    block_domains: d.blockDomains,
    has_blocks: d.hasBlocks,
    has_content_sources: d.hasContentSources,
    has_icon: d.hasIcon,
    preview_image_count: d.previewImageCount,
    script: d.script,
    updated_at: d.updatedAt,
    version: publication.version,
    ...(publication.secretsSealed !== undefined ? { secrets_sealed: publication.secretsSealed } : {}),
  };
  if (publication.created) {
    await db(tx)
      .insertInto('integration')
      .values({
        ...columns,
        name,
        owner_id: publication.ownerId,
        verified: false,
        secrets_sealed: publication.secretsSealed ?? null,
        created_at: d.updatedAt,
      })
      .execute();
  } else {
    await db(tx).updateTable('integration').set(columns).where('name', '=', name).execute();
  }
  await db(tx).deleteFrom('integration_asset').where('integration_name', '=', name).execute();
  if (publication.images.length > 0) {
    await db(tx)
      .insertInto('integration_asset')
      .values(
        publication.images.map((image) => ({
          integration_name: name,
          asset: image.asset,
          content_type: image.contentType,
          data: image.data,
        })),
      )
      .execute();
  }
}

/** Removes an integration; its installations and images reference it with `on delete cascade`. */
export async function deleteIntegration(em: Em, name: string): Promise<void> {
  await db(em).deleteFrom('integration').where('name', '=', name).execute();
}

/** The icon or a preview image of an integration. */
export async function findAsset(
  em: Em,
  integrationName: string,
  asset: string,
): Promise<{ contentType: string; data: Buffer } | undefined> {
  const row = await db(em)
    .selectFrom('integration_asset')
    .select(['content_type as contentType', 'data'])
    .where('integration_name', '=', integrationName)
    .where('asset', '=', asset)
    .executeTakeFirst();
  // bytea arrives as a Buffer from node-pg.
  return row && { contentType: row.contentType, data: Buffer.isBuffer(row.data) ? row.data : Buffer.from(row.data) };
}

// --- Installations ----------------------------------------------------------------------------

/**
 * An installation row with its times as Dates. The driver hands `timestamptz` over as text (the ORM's type parsers
 * keep it raw), whatever the row type says: every row read here goes through this, and so must
 * the rows of `installationListing` before they are presented.
 */
export function installationRow(row: Read<InstallationRow>): InstallationRow {
  return { ...row, createdAt: new Date(row.createdAt), updatedAt: new Date(row.updatedAt) };
}

function installations(em: Em) {
  return db(em)
    .selectFrom('integration_installation')
    .select([
      'id',
      'integration_name as integrationName',
      'organization_id as organizationId',
      'status',
      'space_selection as spaceSelection',
      'site_selection as siteSelection',
      'configuration',
      'external_ids as externalIds',
      'created_at as createdAt',
      'updated_at as updatedAt',
    ]);
}

/**
 * The installations of an integration, oldest first: only those in `organizationIds` when given,
 * only those carrying `externalId` when given.
 */
export function installationListing(
  em: Em,
  integrationName: string,
  filter: { organizationIds?: string[]; externalId?: string },
): Listing<Read<InstallationRow>> {
  let query = installations(em).where('integration_name', '=', integrationName);
  const { organizationIds, externalId } = filter;
  if (organizationIds)
    query = query.where((eb) => (organizationIds.length === 0 ? eb.lit(false) : eb('organization_id', 'in', organizationIds)));
  // Array containment of a one-element text[].
  if (externalId !== undefined) query = query.where('external_ids', '@>', sql<string[]>`${[externalId]}::text[]`);
  return {
    query,
    keys: [
      { field: 'createdAt', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
  };
}

/** An installation of an integration. */
export async function findInstallation(em: Em, integrationName: string, id: string): Promise<InstallationRow | undefined> {
  const row = await installations(em).where('id', '=', id).where('integration_name', '=', integrationName).executeTakeFirst();
  return row && installationRow(row);
}

/** Creates an installation; undefined when the integration is already installed in that organization. */
export async function createInstallation(em: Em, installation: InstallationRow): Promise<InstallationRow | undefined> {
  try {
    await db(em)
      .insertInto('integration_installation')
      .values({
        id: installation.id,
        integration_name: installation.integrationName,
        organization_id: installation.organizationId,
        status: installation.status,
        space_selection: installation.spaceSelection,
        site_selection: installation.siteSelection,
        configuration: jsonb(installation.configuration),
        external_ids: installation.externalIds,
        created_at: installation.createdAt,
        updated_at: installation.updatedAt,
      })
      .execute();
  } catch (error) {
    if (isUniqueViolation(error)) return undefined;
    throw error;
  }
  return installation;
}

/** Writes the changed fields of an installation (and its update time); returns it as read back. */
export async function updateInstallation(
  em: Em,
  id: string,
  changes: Partial<Pick<InstallationRow, 'status' | 'configuration' | 'externalIds' | 'spaceSelection' | 'siteSelection'>>,
  at: Date,
): Promise<InstallationRow> {
  await db(em)
    .updateTable('integration_installation')
    .set({
      ...(changes.status !== undefined ? { status: changes.status } : {}),
      ...(changes.configuration !== undefined ? { configuration: jsonb(changes.configuration) } : {}),
      ...(changes.externalIds !== undefined ? { external_ids: changes.externalIds } : {}),
      ...(changes.spaceSelection !== undefined ? { space_selection: changes.spaceSelection } : {}),
      ...(changes.siteSelection !== undefined ? { site_selection: changes.siteSelection } : {}),
      updated_at: at,
    })
    .where('id', '=', id)
    .execute();
  return installationRow(await installations(em).where('id', '=', id).executeTakeFirstOrThrow());
}

/** Removes an installation. */
export async function deleteInstallation(em: Em, id: string): Promise<void> {
  await db(em).deleteFrom('integration_installation').where('id', '=', id).execute();
}
