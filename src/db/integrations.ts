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

/**
 * An integration as the API presents it: the entity's fields but the script, the sealed secrets
 * and the development mode, which are never read back (what runs it: integration-events.ts's `integrationScript`).
 */
export type IntegrationRow = Omit<Integration, 'script' | 'secretsSealed' | 'devTunnelUrl' | 'devAll'>;

/** An installation as the API presents it: the entity's fields, read as a plain row. */
export type InstallationRow = IntegrationInstallation;

/** What a publication sets: the whole definition of an integration. */
export type IntegrationDefinition = Omit<
  Integration,
  'name' | 'ownerId' | 'version' | 'verified' | 'secretsSealed' | 'createdAt' | 'devTunnelUrl' | 'devAll'
>;

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
        dev_tunnel_url: null,
        dev_all: false,
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

/** Sets an integration's development mode (a tunnel URL), or turns it off (null). */
export async function setDevelopmentMode(em: Em, name: string, mode: { tunnelUrl: string; all: boolean } | null): Promise<void> {
  await db(em)
    .updateTable('integration')
    .set({ dev_tunnel_url: mode?.tunnelUrl ?? null, dev_all: mode?.all ?? false })
    .where('name', '=', name)
    .execute();
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

// --- Space and site installations -------------------------------------------------------------

/** Where an installation is enabled besides its organization: one of its spaces or sites. */
export type ContentKind = 'space' | 'site';

/** An installation enabled on one space or site, with the configuration there. */
export interface ContentInstallationRow {
  installationId: string;
  integrationName: string;
  organizationId: string;
  /** The space or site. */
  targetId: string;
  status: string;
  configuration: Record<string, unknown>;
  externalIds: string[];
  createdAt: Date;
  updatedAt: Date;
}

const contentTable = (kind: ContentKind) =>
  kind === 'space' ? ('integration_space_installation' as const) : ('integration_site_installation' as const);

/** A space or site installation with its times as Dates (the driver hands `timestamptz` over as text). */
export function contentInstallationRow(row: Read<ContentInstallationRow>): ContentInstallationRow {
  return { ...row, createdAt: new Date(row.createdAt), updatedAt: new Date(row.updatedAt) };
}

function contentInstallations(em: Em, kind: ContentKind) {
  const target = kind === 'space' ? ('space_id as targetId' as const) : ('site_id as targetId' as const);
  // One select for both tables, whose columns are the same but the target's.
  return db(em)
    .selectFrom(contentTable(kind) as 'integration_space_installation')
    .select([
      'installation_id as installationId',
      'integration_name as integrationName',
      'organization_id as organizationId',
      target as 'space_id as targetId',
      'status',
      'configuration',
      'external_ids as externalIds',
      'created_at as createdAt',
      'updated_at as updatedAt',
    ]);
}

/**
 * The space or site installations of an integration, oldest first: only those of `installationId`
 * when given, only those in `organizationIds` when given, only those carrying `externalId` when given.
 */
export function contentInstallationListing(
  em: Em,
  kind: ContentKind,
  integrationName: string,
  filter: { installationId?: string; organizationIds?: string[]; externalId?: string },
): Listing<Read<ContentInstallationRow>> {
  let query = contentInstallations(em, kind).where('integration_name', '=', integrationName);
  const { installationId, organizationIds, externalId } = filter;
  if (installationId !== undefined) query = query.where('installation_id', '=', installationId);
  if (organizationIds)
    query = query.where((eb) => (organizationIds.length === 0 ? eb.lit(false) : eb('organization_id', 'in', organizationIds)));
  if (externalId !== undefined) query = query.where('external_ids', '@>', sql<string[]>`${[externalId]}::text[]`);
  return {
    query,
    keys: [
      { field: 'createdAt', kind: 'date' },
      { field: 'installationId', kind: 'string' },
      { field: 'targetId', kind: 'string' },
    ],
  };
}

/** An installation's space or site installation. */
export async function findContentInstallation(
  em: Em,
  kind: ContentKind,
  installationId: string,
  targetId: string,
): Promise<ContentInstallationRow | undefined> {
  const column = kind === 'space' ? 'space_id' : ('site_id' as 'space_id');
  const row = await contentInstallations(em, kind)
    .where('installation_id', '=', installationId)
    .where(column, '=', targetId)
    .executeTakeFirst();
  return row && contentInstallationRow(row);
}

/** Creates a space or site installation; undefined when the installation is already enabled there. */
export async function createContentInstallation(
  em: Em,
  kind: ContentKind,
  row: ContentInstallationRow,
): Promise<ContentInstallationRow | undefined> {
  const values = {
    installation_id: row.installationId,
    integration_name: row.integrationName,
    organization_id: row.organizationId,
    status: row.status,
    configuration: jsonb(row.configuration),
    external_ids: row.externalIds,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  };
  const inserted = await db(em)
    .insertInto(contentTable(kind) as 'integration_space_installation')
    .values(kind === 'space' ? { ...values, space_id: row.targetId } : ({ ...values, site_id: row.targetId } as never))
    .onConflict((oc) => oc.doNothing())
    .returning('installation_id')
    .executeTakeFirst();
  return inserted ? row : undefined;
}

/** Writes the changed fields of a space or site installation (and its update time); returns it as read back. */
export async function updateContentInstallation(
  em: Em,
  kind: ContentKind,
  installationId: string,
  targetId: string,
  changes: Partial<Pick<ContentInstallationRow, 'status' | 'configuration' | 'externalIds'>>,
  at: Date,
): Promise<ContentInstallationRow> {
  const column = kind === 'space' ? 'space_id' : ('site_id' as 'space_id');
  await db(em)
    .updateTable(contentTable(kind) as 'integration_space_installation')
    .set({
      ...(changes.status !== undefined ? { status: changes.status } : {}),
      ...(changes.configuration !== undefined ? { configuration: jsonb(changes.configuration) } : {}),
      ...(changes.externalIds !== undefined ? { external_ids: changes.externalIds } : {}),
      updated_at: at,
    })
    .where('installation_id', '=', installationId)
    .where(column, '=', targetId)
    .execute();
  return (await findContentInstallation(em, kind, installationId, targetId))!;
}

/** Removes a space or site installation; false when there was none. */
export async function deleteContentInstallation(em: Em, kind: ContentKind, installationId: string, targetId: string): Promise<boolean> {
  const column = kind === 'space' ? 'space_id' : ('site_id' as 'space_id');
  const result = await db(em)
    .deleteFrom(contentTable(kind) as 'integration_space_installation')
    .where('installation_id', '=', installationId)
    .where(column, '=', targetId)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** The number of live spaces each installation is enabled on (installations without any are absent). */
export async function spaceInstallationCounts(em: Em, installationIds: string[]): Promise<Map<string, number>> {
  if (installationIds.length === 0) return new Map();
  const rows = await db(em)
    .selectFrom('integration_space_installation as i')
    .innerJoin('space as s', 's.id', 'i.space_id')
    .select(['i.installation_id as id', (eb) => eb.fn.countAll<string>().as('count')])
    .where('i.installation_id', 'in', installationIds)
    .where('s.deleted_at', 'is', null)
    .groupBy('i.installation_id')
    .execute();
  return new Map(rows.map((r) => [r.id, Number(r.count)]));
}

// --- Organization views -----------------------------------------------------------------------

/** The installations of an organization with their integrations, by integration name; `search`: part of its name or title. */
export function organizationInstallationListing(
  em: Em,
  organizationId: string,
  search: string | undefined,
): Listing<{ integrationName: string; installationId: string }> {
  let query = db(em)
    .selectFrom('integration_installation as i')
    .innerJoin('integration as g', 'g.name', 'i.integration_name')
    .select(['i.integration_name as integrationName', 'i.id as installationId'])
    .where('i.organization_id', '=', organizationId);
  if (search) {
    const pattern = `%${escapeLike(search)}%`;
    query = query.where((eb) => eb.or([eb('g.name', 'ilike', pattern), eb('g.title', 'ilike', pattern)]));
  }
  return { query, keys: [{ field: 'integrationName', kind: 'string' }] };
}

/** Installations by id. */
export async function installationsByIds(em: Em, ids: string[]): Promise<InstallationRow[]> {
  if (ids.length === 0) return [];
  return (await installations(em).where('id', 'in', ids).execute()).map(installationRow);
}

/** Integrations by name. */
export async function integrationsByNames(em: Em, names: string[]): Promise<IntegrationRow[]> {
  if (names.length === 0) return [];
  return (await integrations(em).where('name', 'in', names).execute()).map(integrationRow);
}

/** The installation of an integration in an organization. */
export async function organizationInstallation(
  em: Em,
  organizationId: string,
  integrationName: string,
): Promise<InstallationRow | undefined> {
  const row = await installations(em)
    .where('organization_id', '=', organizationId)
    .where('integration_name', '=', integrationName)
    .executeTakeFirst();
  return row && installationRow(row);
}

/** One installed integration of an organization, on the organization itself or on one of its spaces or sites. */
export interface InstalledRow {
  integrationName: string;
  status: string;
  targetType: 'organization' | 'space' | 'site';
  targetId: string;
}

/**
 * The integrations installed in an organization, by integration name then target: on the
 * organization (`organization`), or enabled on its spaces or sites (only `targetId`'s when given).
 */
export function installedListing(
  em: Em,
  organizationId: string,
  target: { type: 'organization' } | { type: ContentKind; id?: string },
): Listing<InstalledRow> {
  if (target.type === 'organization') {
    const query = db(em)
      .selectFrom('integration_installation')
      .select([
        'integration_name as integrationName',
        'status',
        sql<'organization'>`'organization'`.as('targetType'),
        'organization_id as targetId',
      ])
      .where('organization_id', '=', organizationId);
    return { query, keys: [{ field: 'integrationName', kind: 'string' }] };
  }
  const column = target.type === 'space' ? 'space_id' : ('site_id' as 'space_id');
  let query = db(em)
    .selectFrom(contentTable(target.type) as 'integration_space_installation')
    .select([
      'integration_name as integrationName',
      'status',
      sql<ContentKind>`${target.type}::text`.as('targetType'),
      `${column} as targetId` as 'space_id as targetId',
    ])
    .where('organization_id', '=', organizationId);
  if (target.id !== undefined) query = query.where(column, '=', target.id);
  return {
    query,
    keys: [
      { field: 'integrationName', kind: 'string' },
      { field: 'targetId', kind: 'string' },
    ],
  };
}

/** The integrations enabled on a site (its site installations), by name; `search`: part of their name or title. */
export function siteIntegrationListing(em: Em, siteId: string, search: string | undefined): Listing<Read<IntegrationRow>> {
  let query = integrations(em).where((eb) =>
    eb.exists(
      eb
        .selectFrom('integration_site_installation as s')
        .select('s.site_id')
        .whereRef('s.integration_name', '=', 'integration.name')
        .where('s.site_id', '=', siteId),
    ),
  );
  if (search) {
    const pattern = `%${escapeLike(search)}%`;
    query = query.where((eb) => eb.or([eb('name', 'ilike', pattern), eb('title', 'ilike', pattern)]));
  }
  return { query, keys: [{ field: 'name', kind: 'string' }] };
}

// --- Installation tokens ----------------------------------------------------------------------

/** Stores a token acting as an installation, by the hash of its value. */
export async function insertInstallationToken(
  em: Em,
  token: { id: string; installationId: string; tokenHash: string; createdBy: string | null; createdAt: Date; expiresAt: Date },
): Promise<void> {
  await db(em)
    .insertInto('integration_installation_token')
    .values({
      id: token.id,
      installation_id: token.installationId,
      token_hash: token.tokenHash,
      created_by: token.createdBy,
      created_at: token.createdAt,
      expires_at: token.expiresAt,
    })
    .execute();
}

/**
 * Deletes up to `limit` installation tokens that expired before `before`; answers how many. Looked
 * for first: a delete, even of no row, is announced on the change feed (every process would read
 * its kept answers again), so it runs only when there is something to delete.
 */
export async function purgeExpiredInstallationTokens(em: Em, before: Date, limit: number): Promise<number> {
  const expired = await db(em)
    .selectFrom('integration_installation_token')
    .select('id')
    .where('expires_at', '<', before.toISOString())
    .limit(limit)
    .execute();
  if (expired.length === 0) return 0;
  await db(em)
    .deleteFrom('integration_installation_token')
    .where(
      'id',
      'in',
      expired.map((r) => r.id),
    )
    .execute();
  return expired.length;
}

/** What a token acting as an installation may reach, read when the token is verified. */
export interface InstallationTokenFacts {
  tokenId: string;
  expiresAt: Date;
  installationId: string;
  integrationName: string;
  integrationTitle: string;
  organizationId: string;
  status: string;
  scopes: string[];
  /** The spaces it is enabled on, or `all` of its organization's. */
  spaces: 'all' | string[];
  sites: 'all' | string[];
}

/** The installation a token acts as, with its integration's scopes and where it is enabled; undefined for an unknown or expired token. */
export async function installationTokenFacts(em: Em, tokenHash: string, now: Date): Promise<InstallationTokenFacts | undefined> {
  const row = await db(em)
    .selectFrom('integration_installation_token as t')
    .innerJoin('integration_installation as i', 'i.id', 't.installation_id')
    .innerJoin('integration as g', 'g.name', 'i.integration_name')
    .select([
      't.id as tokenId',
      't.expires_at as expiresAt',
      'i.id as installationId',
      'i.integration_name as integrationName',
      'g.title as integrationTitle',
      'i.organization_id as organizationId',
      'i.status',
      'i.space_selection as spaceSelection',
      'i.site_selection as siteSelection',
      'g.scopes',
      (eb) =>
        eb
          .selectFrom('integration_space_installation as s')
          .select(sql<string[]>`coalesce(array_agg(s.space_id), '{}')`.as('ids'))
          .whereRef('s.installation_id', '=', 'i.id')
          .as('spaceIds'),
      (eb) =>
        eb
          .selectFrom('integration_site_installation as s')
          .select(sql<string[]>`coalesce(array_agg(s.site_id), '{}')`.as('ids'))
          .whereRef('s.installation_id', '=', 'i.id')
          .as('siteIds'),
    ])
    .where('t.token_hash', '=', tokenHash)
    .where('t.expires_at', '>', now.toISOString())
    .executeTakeFirst();
  if (!row) return undefined;
  return {
    tokenId: row.tokenId,
    expiresAt: new Date(row.expiresAt),
    installationId: row.installationId,
    integrationName: row.integrationName,
    integrationTitle: row.integrationTitle,
    organizationId: row.organizationId,
    status: row.status,
    scopes: row.scopes,
    spaces: row.spaceSelection === 'all' ? 'all' : (row.spaceIds ?? []),
    sites: row.siteSelection === 'all' ? 'all' : (row.siteIds ?? []),
  };
}

/** The organization of a live space; undefined for a space that does not exist or is deleted. */
export async function liveSpaceOrganization(em: Em, spaceId: string): Promise<string | undefined> {
  const row = await db(em)
    .selectFrom('space')
    .select('organization_id')
    .where('id', '=', spaceId)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  return row?.organization_id;
}

// --- Site scripts -----------------------------------------------------------------------------

/** An installation enabled on a site whose integration injects a script in the site's pages. */
export interface SiteScriptInstallation {
  integrationName: string;
  installationId: string;
  scopes: string[];
  contentSecurityPolicy: unknown;
}

/** Installations enabled (and active) on a site, active themselves, with their integrations (`s`, `i`, `n`). */
export function activeOnSite(em: Em, siteId: string) {
  return db(em)
    .selectFrom('integration_site_installation as s')
    .innerJoin('integration_installation as i', 'i.id', 's.installation_id')
    .innerJoin('integration as n', 'n.name', 's.integration_name')
    .where('s.site_id', '=', siteId)
    .where('s.status', '=', 'active')
    .where('i.status', '=', 'active');
}

/**
 * The installation signing a site's visitors in: active, enabled (and active) on the site, its
 * integration with `site:visitor:auth`; the first by integration name when there are several.
 */
export async function siteVisitorAuthInstallation(
  em: Em,
  siteId: string,
): Promise<{ integrationName: string; installationId: string } | undefined> {
  const row = await activeOnSite(em, siteId)
    .select(['s.integration_name', 's.installation_id'])
    .where(sql<boolean>`${'site:visitor:auth'} = any(n.scopes)`)
    .orderBy('s.integration_name')
    .executeTakeFirst();
  return row && { integrationName: row.integration_name, installationId: row.installation_id };
}

/** The installation of an integration on a site (its organization's, enabled on it), if any. */
export async function siteInstallationOf(
  em: Em,
  integrationName: string,
  siteId: string,
): Promise<{ installationId: string; organizationId: string; status: string } | undefined> {
  const row = await db(em)
    .selectFrom('integration_site_installation as s')
    .innerJoin('integration_installation as i', 'i.id', 's.installation_id')
    .select(['i.id', 'i.organization_id', 'i.status'])
    .where('s.site_id', '=', siteId)
    .where('s.integration_name', '=', integrationName)
    .executeTakeFirst();
  return row && { installationId: row.id, organizationId: row.organization_id, status: row.status };
}

/**
 * The active installations enabled (and active) on a site whose integration has the scope
 * `site:script:inject`, by integration name: the scripts of the site's published pages.
 */
export async function siteScriptInstallations(em: Em, siteId: string): Promise<SiteScriptInstallation[]> {
  const rows = await activeOnSite(em, siteId)
    .select(['s.integration_name', 's.installation_id', 'n.scopes', 'n.content_security_policy'])
    .where(sql<boolean>`${'site:script:inject'} = any(n.scopes)`)
    .orderBy('s.integration_name')
    .execute();
  return rows.map((r) => ({
    integrationName: r.integration_name,
    installationId: r.installation_id,
    scopes: r.scopes,
    contentSecurityPolicy: r.content_security_policy,
  }));
}
