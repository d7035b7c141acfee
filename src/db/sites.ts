import { sql, type ExpressionBuilder } from 'kysely';
import { jsonBuildObject } from 'kysely/helpers/postgres';
import type { Space } from './entities.ts';
import { SPACE_ROW_COLUMNS, spaceFromRow } from './access.ts';
import { db, prepared, type Db } from './kysely.ts';
import { sitesGrantedTo } from './site-permissions.ts';
import type { Listing } from './listing.ts';
import type { Em } from './orm.ts';
import { loadPageMap } from './content.ts';
import { liveStructure } from '../domain/sites/drafts.ts';
import { pageIndex, pageIndexBytes, type PageIndex } from '../domain/sites/resolve.ts';
import { sharedCache } from '../domain/lru.ts';
import { entryBytes } from '../domain/sizeof.ts';

/**
 * Sites, their sections, section groups, site-spaces and share links (Migration0013Sites).
 * Site-spaces whose space is deleted (restorable) are left out of every read, so deleting a space
 * hides them and restoring it brings them back; the purge removes them by cascade. So are those of a
 * space transferred to another organization (it is no longer the site's to publish).
 */

/** A timestamptz value as read: text (the ORM's type parsers keep timestamps as the server writes them). */
export type Timestamp = Date | string;

export type SiteRow = {
  id: string;
  organization_id: string;
  type: string;
  title: string;
  hostname: string | null;
  basename: string | null;
  proxy: string | null;
  visibility: string;
  published: boolean;
  adaptive_content: boolean;
  adaptive_schema: Record<string, unknown> | null;
  adaptive_schema_updated_at: Timestamp | null;
  customization: Record<string, unknown>;
  customization_updated_at: Timestamp | null;
  auth_key_sealed: string;
  fallback_url: string | null;
  logout_url: string | null;
  created_at: Timestamp;
  /** Bumped by triggers at any change of the site's sections, groups and site-spaces (Migration0013, 0026). */
  structure_version: string;
  /** Live site-spaces of the site. */
  site_spaces: number;
};

export type SectionRow = {
  id: string;
  site_id: string;
  group_id: string | null;
  title: string;
  description: string | null;
  path: string;
  condition: string | null;
  icon: string | null;
  is_default: boolean;
  position: string;
  /** A draft section (Migration0039) is seen by members and previews asking for drafts, never by readers. */
  draft: boolean;
};

export type GroupRow = {
  id: string;
  site_id: string;
  title: string;
  icon: string | null;
  position: string;
  /** A draft group hides its sections from readers. */
  draft: boolean;
};

export type SiteSpaceRow = {
  id: string;
  site_id: string;
  section_id: string | null;
  space_id: string;
  path: string;
  title: string | null;
  condition: string | null;
  hidden: boolean;
  is_default: boolean;
  position: string;
  draft: boolean;
  /** Of the space: its title and current revision. */
  space_title: string;
  revision_id: string;
};

export type ShareLinkRow = {
  id: string;
  site_id: string;
  name: string;
  active: boolean;
  created_at: Timestamp;
};

/** Only the given changes (undefined ones are left out); null when there are none to make. */
function changes<T extends object>(fields: T): Partial<T> | null {
  const given = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;
  return Object.keys(given).length > 0 ? given : null;
}

// Sites -----------------------------------------------------------------------------------------

const SITE_COLUMNS = [
  's.id',
  's.structure_version',
  's.organization_id',
  's.type',
  's.title',
  's.hostname',
  's.basename',
  's.proxy',
  's.visibility',
  's.published',
  's.adaptive_content',
  's.adaptive_schema',
  's.adaptive_schema_updated_at',
  's.customization',
  's.customization_updated_at',
  's.auth_key_sealed',
  's.fallback_url',
  's.logout_url',
  's.created_at',
] as const;

/** The live site-spaces of site `s`: those whose space is not deleted and still in the site's organization. */
const liveSiteSpaceCount = (eb: ExpressionBuilder<Db & { s: Db['site'] }, 's'>) =>
  eb
    .selectFrom('site_space as ss')
    .innerJoin('space as sp', (join) =>
      join.onRef('sp.id', '=', 'ss.space_id').on('sp.deleted_at', 'is', null).onRef('sp.organization_id', '=', 's.organization_id'),
    )
    .whereRef('ss.site_id', '=', 's.id')
    .select((inner) => inner.cast<number>(inner.fn.countAll(), 'integer').as('n'))
    .$asScalar()
    .as('site_spaces');

const sites = (em: Em) =>
  db(em)
    .selectFrom('site as s')
    .select(SITE_COLUMNS)
    .select((eb) => liveSiteSpaceCount(eb));

/** The sites of an organization, oldest first, with optional filters (a live site-space of `space`, a title containing `title`, `published`). */
export function sitesListing(
  em: Em,
  organizationId: string,
  filters: { space?: string; title?: string; published?: boolean; grantedTo?: string },
): Listing<SiteRow> {
  let query = sites(em).where('s.organization_id', '=', organizationId);
  // Only the sites granted to this member or to a team of theirs (a guest's listing).
  if (filters.grantedTo !== undefined) query = query.where('s.id', 'in', sitesGrantedTo(organizationId, filters.grantedTo));
  if (filters.space !== undefined) {
    const spaceId = filters.space;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('site_space as ss')
          .innerJoin('space as sp', (join) =>
            join.onRef('sp.id', '=', 'ss.space_id').on('sp.deleted_at', 'is', null).onRef('sp.organization_id', '=', 's.organization_id'),
          )
          .whereRef('ss.site_id', '=', 's.id')
          .where('ss.space_id', '=', spaceId)
          .select('ss.id'),
      ),
    );
  }
  if (filters.title !== undefined) {
    // Backslash is the default escape character of (i)like: the title's wildcards match themselves.
    query = query.where('s.title', 'ilike', `%${filters.title.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  if (filters.published !== undefined) query = query.where('s.published', '=', filters.published);
  return {
    query,
    keys: [
      { field: 'created_at', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
  };
}

export async function siteById(em: Em, organizationId: string, siteId: string): Promise<SiteRow | undefined> {
  return sites(em).where('s.id', '=', siteId).where('s.organization_id', '=', organizationId).executeTakeFirst();
}

export async function insertSite(
  em: Em,
  site: { id: string; organizationId: string; type: string; title: string; visibility: string; authKeySealed: string },
) {
  // created_at at millisecond precision, like the cursors that page through it.
  await db(em)
    .insertInto('site')
    .values({
      id: site.id,
      organization_id: site.organizationId,
      type: site.type,
      title: site.title,
      visibility: site.visibility,
      auth_key_sealed: site.authKeySealed,
      created_at: new Date(),
    })
    .execute();
}

/** The columns of a site that change; jsonb values are given as objects. */
export type SiteChanges = Partial<
  Pick<
    SiteRow,
    | 'title'
    | 'visibility'
    | 'basename'
    | 'hostname'
    | 'proxy'
    | 'published'
    | 'adaptive_content'
    | 'adaptive_schema'
    | 'customization'
    | 'auth_key_sealed'
    | 'fallback_url'
    | 'logout_url'
  > & { adaptive_schema_updated_at: Date | null; customization_updated_at: Date | null }
>;

/** Sets columns of a site (only the given ones). */
export async function updateSite(em: Em, siteId: string, fields: SiteChanges): Promise<void> {
  const given = changes(fields);
  if (!given) return;
  const { adaptive_schema: adaptiveSchema, customization, ...plain } = given;
  await db(em)
    .updateTable('site')
    .set((eb) => ({
      ...plain,
      ...(adaptiveSchema !== undefined ? { adaptive_schema: adaptiveSchema === null ? null : jsonb(adaptiveSchema) } : {}),
      ...(customization !== undefined ? { customization: jsonb(customization) } : {}),
      updated_at: eb.fn<Date>('now'),
    }))
    .where('id', '=', siteId)
    .execute();
}

/** A jsonb value from an object: Kysely binds values as they are, and the column wants JSON text. */
const jsonb = (value: Record<string, unknown>) => sql<Record<string, unknown>>`${JSON.stringify(value)}::jsonb`;

export async function deleteSite(em: Em, siteId: string): Promise<void> {
  await db(em).deleteFrom('site').where('id', '=', siteId).execute();
}

/** The host of a proxy origin (`company.com/docs` → `company.com`), lower-cased. */
const proxyHost = (proxy: string) => proxy.split('/')[0].toLowerCase();

/**
 * Serializes changes to the addresses on these hosts, instance-wide (a transaction-scoped advisory
 * lock per host), so two organizations cannot claim one host at the same time.
 */
export async function lockSiteHosts(tx: Em, address: { hostname?: string | null; proxy?: string | null }): Promise<void> {
  const hosts = [address.hostname?.toLowerCase(), address.proxy ? proxyHost(address.proxy) : undefined].filter((h): h is string => !!h);
  for (const host of [...new Set(hosts)].sort()) {
    await db(tx)
      .selectNoFrom((eb) =>
        eb.fn('pg_advisory_xact_lock', [eb.fn('hashtextextended', [eb.val(`site-host:${host}`), eb.lit(0)])]).as('locked'),
      )
      .execute();
  }
}

/**
 * What another site already uses of this address: the hostname or the proxy (anywhere), the
 * basename (in the organization), or the host — a custom hostname or a proxy's host belongs to one
 * organization: another organization's proxy cannot live under it, nor a hostname over its proxies.
 */
export async function siteAddressTaken(
  em: Em,
  organizationId: string,
  siteId: string,
  address: { hostname?: string | null; basename?: string | null; proxy?: string | null },
): Promise<'hostname' | 'basename' | 'proxy' | 'host' | null> {
  const hostname = address.hostname?.toLowerCase() ?? null;
  const basename = address.basename ?? null;
  const proxy = address.proxy ?? null;
  const hosts = [hostname, proxy ? proxyHost(proxy) : null].filter((h): h is string => h !== null);
  // What another site `s` shares with the address; a part the address lacks matches nothing (as comparing with null would).
  const matches = (eb: ExpressionBuilder<Db & { s: Db['site'] }, 's'>) => {
    const lowerHostname = eb.fn<string>('lower', ['s.hostname']);
    const lowerProxyHost = eb.fn<string>('lower', [eb.fn<string>('split_part', ['s.proxy', eb.val('/'), eb.lit(1)])]);
    return {
      hostname: hostname !== null ? eb(lowerHostname, '=', hostname) : eb.lit(false),
      basename: basename !== null ? eb.and([eb('s.organization_id', '=', organizationId), eb('s.basename', '=', basename)]) : eb.lit(false),
      proxy: proxy !== null ? eb('s.proxy', '=', proxy) : eb.lit(false),
      onHosts: hosts.length ? eb.or([eb(lowerHostname, 'in', hosts), eb(lowerProxyHost, 'in', hosts)]) : eb.lit(false),
    };
  };
  const row = await db(em)
    .selectFrom('site as s')
    .select((eb) => {
      const m = matches(eb);
      return [
        eb.fn.agg<boolean | null>('bool_or', [m.hostname]).as('hostname'),
        eb.fn.agg<boolean | null>('bool_or', [m.basename]).as('basename'),
        eb.fn.agg<boolean | null>('bool_or', [m.proxy]).as('proxy'),
        eb.fn.agg<boolean | null>('bool_or', [eb.and([eb('s.organization_id', '<>', organizationId), m.onHosts])]).as('host'),
      ];
    })
    .where('s.id', '<>', siteId)
    .where((eb) => {
      const m = matches(eb);
      return eb.or([m.onHosts, m.basename, m.proxy]);
    })
    .executeTakeFirst();
  if (row?.hostname) return 'hostname';
  if (row?.basename) return 'basename';
  if (row?.proxy) return 'proxy';
  if (row?.host) return 'host';
  return null;
}

/** The spaces that site-spaces publish, by id (as the entity manager holds them, for presenting). */
export async function spacesByIds(em: Em, spaceIds: string[]): Promise<Space[]> {
  if (spaceIds.length === 0) return [];
  // One array parameter, whatever the count: the same statement text every time.
  const rows = await db(em)
    .selectFrom('space as sp')
    .select(SPACE_ROW_COLUMNS)
    .where('sp.id', '=', sql<string>`any(${spaceIds}::text[])`)
    .execute();
  return rows.map(spaceFromRow);
}

// Sections and groups ---------------------------------------------------------------------------

/**
 * Serializes changes to one site's structure (sections, groups, site-spaces): taken first in the
 * transaction of every such change, so concurrent ones compute paths and positions one after another
 * instead of colliding on the unique (site, path).
 */
export async function lockSiteStructure(em: Em, siteId: string): Promise<void> {
  await db(em).selectFrom('site').select('id').where('id', '=', siteId).forUpdate().execute();
}

const SECTION_COLUMNS = [
  'id',
  'site_id',
  'group_id',
  'title',
  'description',
  'path',
  'condition',
  'icon',
  'is_default',
  'position',
  'draft',
] as const;
const GROUP_COLUMNS = ['id', 'site_id', 'title', 'icon', 'position', 'draft'] as const;

// Positions are `collate "C"` columns: they order byte by byte, as the order keys are made.

export async function sectionsOf(em: Em, siteId: string): Promise<SectionRow[]> {
  return db(em)
    .selectFrom('site_section')
    .select(SECTION_COLUMNS)
    .where('site_id', '=', siteId)
    .orderBy('position')
    .orderBy('id')
    .execute();
}

export async function groupsOf(em: Em, siteId: string): Promise<GroupRow[]> {
  return db(em)
    .selectFrom('site_section_group')
    .select(GROUP_COLUMNS)
    .where('site_id', '=', siteId)
    .orderBy('position')
    .orderBy('id')
    .execute();
}

const byPosition = [
  { field: 'position', kind: 'string' },
  { field: 'id', kind: 'string' },
] as const;

/** The sections of a site in order; with `onlyIds`, just those (what a visitor may see). */
export function sectionsListing(em: Em, siteId: string, onlyIds?: string[]): Listing<SectionRow> {
  let query = db(em).selectFrom('site_section').select(SECTION_COLUMNS).where('site_id', '=', siteId);
  if (onlyIds !== undefined) query = query.where((eb) => (onlyIds.length === 0 ? eb.lit(false) : eb('id', 'in', onlyIds)));
  return { query, keys: [...byPosition] };
}

/** The section groups of a site in order. */
export function groupsListing(em: Em, siteId: string): Listing<GroupRow> {
  return { query: db(em).selectFrom('site_section_group').select(GROUP_COLUMNS).where('site_id', '=', siteId), keys: [...byPosition] };
}

export async function insertSection(em: Em, s: Omit<SectionRow, 'site_id'> & { siteId: string }): Promise<void> {
  const { siteId, ...section } = s;
  await db(em)
    .insertInto('site_section')
    .values({ ...section, site_id: siteId })
    .execute();
}

export async function updateSection(
  em: Em,
  sectionId: string,
  fields: Partial<Pick<SectionRow, 'title' | 'description' | 'path' | 'condition' | 'icon' | 'group_id' | 'position' | 'draft'>>,
): Promise<void> {
  const given = changes(fields);
  if (!given) return;
  await db(em).updateTable('site_section').set(given).where('id', '=', sectionId).execute();
}

export async function deleteSection(em: Em, sectionId: string): Promise<void> {
  await db(em).deleteFrom('site_section').where('id', '=', sectionId).execute();
}

/** Makes one section the site's default (or the first by position when `sectionId` is null). */
export async function setDefaultSection(em: Em, siteId: string, sectionId: string | null): Promise<void> {
  await db(em)
    .updateTable('site_section')
    .set((eb) => ({
      is_default: eb(
        'site_section.id',
        '=',
        sectionId ??
          eb
            .selectFrom('site_section as first')
            .select('first.id')
            .where('first.site_id', '=', siteId)
            .orderBy('first.position')
            .orderBy('first.id')
            .limit(1),
      ).$castTo<boolean>(),
    }))
    .where('site_id', '=', siteId)
    .execute();
}

export async function insertGroup(em: Em, g: GroupRow): Promise<void> {
  await db(em).insertInto('site_section_group').values(g).execute();
}

export async function updateGroup(
  em: Em,
  groupId: string,
  fields: { title?: string; icon?: string | null; position?: string; draft?: boolean },
): Promise<void> {
  const given = changes(fields);
  if (!given) return;
  await db(em).updateTable('site_section_group').set(given).where('id', '=', groupId).execute();
}

export async function deleteGroup(em: Em, groupId: string): Promise<void> {
  await db(em).deleteFrom('site_section_group').where('id', '=', groupId).execute();
}

export async function setSectionsGroup(em: Em, siteId: string, sectionIds: string[], groupId: string | null): Promise<void> {
  if (sectionIds.length === 0) return;
  await db(em).updateTable('site_section').set({ group_id: groupId }).where('site_id', '=', siteId).where('id', 'in', sectionIds).execute();
}

// Site-spaces -----------------------------------------------------------------------------------

/**
 * The live site-spaces with their space's title and revision, and `ord`: their place in the whole
 * site (the section's position, then theirs), which orders a site's listing.
 */
const siteSpaceRows = (em: Em) =>
  db(em)
    .selectFrom('site_space as ss')
    .innerJoin('site as st', 'st.id', 'ss.site_id')
    .innerJoin('space as sp', (join) =>
      join.onRef('sp.id', '=', 'ss.space_id').on('sp.deleted_at', 'is', null).onRef('sp.organization_id', '=', 'st.organization_id'),
    )
    .leftJoin('site_section as sec', 'sec.id', 'ss.section_id')
    .select([
      'ss.id',
      'ss.site_id',
      'ss.section_id',
      'ss.space_id',
      'ss.path',
      'ss.title',
      'ss.condition',
      'ss.hidden',
      'ss.is_default',
      'ss.position',
      'ss.draft',
      'sp.title as space_title',
      'sp.revision_id',
    ])
    .select((eb) =>
      eb(eb(eb.fn.coalesce('sec.position', eb.val('')), '||', eb.val(' ')), '||', eb.ref('ss.position'))
        .$castTo<string>()
        .as('ord'),
    );

/** The live site-spaces of a site (or of one section, or of the root level with `null`), in order. */
export async function siteSpacesOf(em: Em, siteId: string, sectionId?: string | null): Promise<SiteSpaceRow[]> {
  let query = siteSpaceRows(em).where('ss.site_id', '=', siteId);
  if (sectionId !== undefined) query = query.where('ss.section_id', sectionId === null ? 'is' : '=', sectionId);
  const rows = await query.orderBy('ord').orderBy('ss.id').execute();
  return rows.map(({ ord: _ord, ...row }) => row);
}

/** The site-spaces of a site in order, the default ones only or all but them; with `onlyIds`, just those (what a visitor may see). */
export function siteSpacesListing(
  em: Em,
  siteId: string,
  isDefault?: boolean,
  onlyIds?: string[],
): Listing<SiteSpaceRow & { ord: string }> {
  let query = siteSpaceRows(em).where('ss.site_id', '=', siteId);
  if (isDefault !== undefined) query = query.where('ss.is_default', '=', isDefault);
  if (onlyIds !== undefined) query = query.where((eb) => (onlyIds.length === 0 ? eb.lit(false) : eb('ss.id', 'in', onlyIds)));
  return {
    query,
    keys: [
      { field: 'ord', kind: 'string' },
      { field: 'id', kind: 'string' },
    ],
  };
}

/** Every site-space row of a section or the root level, deleted spaces included (paths stay reserved). */
export async function siteSpacePathsIn(em: Em, siteId: string, sectionId: string | null): Promise<string[]> {
  const rows = await db(em)
    .selectFrom('site_space')
    .select('path')
    .where('site_id', '=', siteId)
    .where('section_id', 'is not distinct from', sectionId)
    .execute();
  return rows.map((r) => r.path);
}

/** Ids of every root-level site-space row of a site (deleted spaces included). */
export async function siteSpaceIdsAtRoot(em: Em, siteId: string): Promise<string[]> {
  const rows = await db(em).selectFrom('site_space').select('id').where('site_id', '=', siteId).where('section_id', 'is', null).execute();
  return rows.map((r) => r.id);
}

export async function insertSiteSpace(
  em: Em,
  s: {
    id: string;
    siteId: string;
    sectionId: string | null;
    spaceId: string;
    path: string;
    title: string | null;
    isDefault: boolean;
    position: string;
    draft: boolean;
  },
) {
  await db(em)
    .insertInto('site_space')
    .values({
      id: s.id,
      site_id: s.siteId,
      section_id: s.sectionId,
      space_id: s.spaceId,
      path: s.path,
      title: s.title,
      is_default: s.isDefault,
      position: s.position,
      draft: s.draft,
    })
    .execute();
}

export async function updateSiteSpace(
  em: Em,
  id: string,
  fields: Partial<Pick<SiteSpaceRow, 'path' | 'condition' | 'hidden' | 'space_id' | 'position' | 'section_id' | 'draft'>>,
): Promise<void> {
  const given = changes(fields);
  if (!given) return;
  await db(em).updateTable('site_space').set(given).where('id', '=', id).execute();
}

export async function deleteSiteSpace(em: Em, id: string): Promise<void> {
  await db(em).deleteFrom('site_space').where('id', '=', id).execute();
}

/** Makes one site-space the default of its level (section or root), or the first live one when null. */
export async function setDefaultSiteSpace(em: Em, siteId: string, sectionId: string | null, siteSpaceId: string | null): Promise<void> {
  await db(em)
    .updateTable('site_space')
    .set((eb) => ({
      is_default: eb(
        'site_space.id',
        '=',
        siteSpaceId ??
          eb
            .selectFrom('site_space as ss')
            .innerJoin('site as st', 'st.id', 'ss.site_id')
            .innerJoin('space as sp', (join) =>
              join
                .onRef('sp.id', '=', 'ss.space_id')
                .on('sp.deleted_at', 'is', null)
                .onRef('sp.organization_id', '=', 'st.organization_id'),
            )
            .select('ss.id')
            .where('ss.site_id', '=', siteId)
            .where('ss.section_id', 'is not distinct from', sectionId)
            .orderBy('ss.position')
            .orderBy('ss.id')
            .limit(1),
      ).$castTo<boolean>(),
    }))
    .where('site_id', '=', siteId)
    .where('section_id', 'is not distinct from', sectionId)
    .execute();
}

// Share links -----------------------------------------------------------------------------------

const shareLinks = (em: Em) => db(em).selectFrom('site_share_link').select(['id', 'site_id', 'name', 'active', 'created_at']);

/** The share links of a site, oldest first. */
export function shareLinksListing(em: Em, siteId: string): Listing<ShareLinkRow> {
  return {
    query: shareLinks(em).where('site_id', '=', siteId),
    keys: [
      { field: 'created_at', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
  };
}

export async function shareLinkById(em: Em, siteId: string, id: string): Promise<ShareLinkRow | undefined> {
  return shareLinks(em).where('site_id', '=', siteId).where('id', '=', id).executeTakeFirst();
}

export async function insertShareLink(em: Em, link: { id: string; siteId: string; name: string; keyHash: string }): Promise<void> {
  await db(em)
    .insertInto('site_share_link')
    .values({ id: link.id, site_id: link.siteId, name: link.name, key_hash: link.keyHash, created_at: new Date() })
    .execute();
}

export async function updateShareLink(em: Em, id: string, fields: { name?: string; active?: boolean }): Promise<void> {
  const given = changes(fields);
  if (!given) return;
  await db(em).updateTable('site_share_link').set(given).where('id', '=', id).execute();
}

export async function deleteShareLink(em: Em, id: string): Promise<void> {
  await db(em).deleteFrom('site_share_link').where('id', '=', id).execute();
}

// Resolution ------------------------------------------------------------------------------------

/**
 * Resolution reads the site row every time (visibility, key, addresses change at once) and the
 * structure (sections and live site-spaces with their spaces' current revisions) from a
 * per-process cache keyed by the site's `structure_version`, which database triggers bump in the
 * same transaction as any change to it (sections, site-spaces, and the revision, deletion or
 * organization of a space it publishes; see Migration0013Sites). So the hot path is one small
 * indexed statement, and a second one only after a change.
 */
const visitorSites = (em: Em, keyHashes: string) =>
  db(em)
    .selectFrom('site as s')
    // The active share link whose key is one of `keyHashes` (a comma-separated list of hex hashes:
    // a prepared statement's parameters are text), with the hash it matched.
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom('site_share_link as l')
          .select(['l.id as share_link_id', 'l.key_hash as share_key_hash'])
          .whereRef('l.site_id', '=', 's.id')
          .where('l.key_hash', '=', eb.fn.any(sql<string[]>`string_to_array(${keyHashes}, ',')`))
          .where('l.active', '=', true)
          .limit(1)
          .as('l'),
      (join) => join.onTrue(),
    )
    .select([
      's.id',
      's.organization_id',
      's.title',
      's.hostname',
      's.basename',
      's.proxy',
      's.visibility',
      's.published',
      's.adaptive_content',
      's.adaptive_schema',
      's.auth_key_sealed',
      's.fallback_url',
      's.structure_version',
      'l.share_link_id',
      'l.share_key_hash',
    ]);

/** What resolution needs of a site. */
export type VisitorSite = Pick<
  SiteRow,
  | 'id'
  | 'organization_id'
  | 'title'
  | 'hostname'
  | 'basename'
  | 'proxy'
  | 'visibility'
  | 'published'
  | 'adaptive_content'
  | 'adaptive_schema'
  | 'auth_key_sealed'
  | 'fallback_url'
>;
/** `draft`: the section's, or its group's. */
export type VisitorSection = Pick<SectionRow, 'id' | 'path' | 'condition' | 'is_default' | 'position' | 'draft'>;
export type VisitorSiteSpace = Pick<
  SiteSpaceRow,
  'id' | 'section_id' | 'space_id' | 'path' | 'condition' | 'is_default' | 'position' | 'revision_id' | 'draft'
>;

/** A site as a visitor's URL resolution needs it: the site, its sections and live site-spaces, the share-key check. */
export interface SiteForVisitor {
  site: VisitorSite;
  sections: VisitorSection[];
  siteSpaces: VisitorSiteSpace[];
  shareKeyActive: boolean;
  /** The active share link whose key was given, if any. */
  shareLinkId: string | null;
  /** The hash of that share link's key: which of the keys given matched. */
  shareKeyHash: string | null;
}

type VisitorSiteRaw = VisitorSite & { structure_version: string; share_link_id: string | null; share_key_hash: string | null };
interface VisitorStructure {
  sections: VisitorSection[];
  siteSpaces: VisitorSiteSpace[];
}

/**
 * Sites whose sections and site-spaces a process keeps, each under the version it was read at,
 * within the `siteStructures` share of CACHE_MEMORY (a site of five site-spaces: about 2 KB).
 */
const structures = sharedCache<string, { version: string; structure: VisitorStructure }>('siteStructures', (value, key) =>
  entryBytes(key, value),
);

/** A site's structure version with its sections and live site-spaces, in order, read in one statement. */
async function readVisitorStructure(em: Em, siteId: string) {
  const [row] = await prepared(em, 'visitor-structure', [siteId], ([siteId]) =>
    db(em)
      .selectFrom('site as s')
      .where('s.id', '=', siteId)
      .select((eb) => [
        's.structure_version',
        eb
          .selectFrom('site_section as sec')
          .leftJoin('site_section_group as grp', 'grp.id', 'sec.group_id')
          .whereRef('sec.site_id', '=', 's.id')
          .select((agg) =>
            agg.fn
              .jsonAgg(
                jsonBuildObject({
                  id: agg.ref('sec.id'),
                  path: agg.ref('sec.path'),
                  condition: agg.ref('sec.condition'),
                  is_default: agg.ref('sec.is_default'),
                  position: agg.ref('sec.position'),
                  draft: agg.or([agg('sec.draft', '=', true), agg('grp.draft', '=', true)]),
                }),
              )
              .orderBy('sec.position')
              .orderBy('sec.id')
              .as('list'),
          )
          .$asScalar()
          .$castTo<VisitorSection[] | null>()
          .as('sections'),
        eb
          .selectFrom('site_space as ss')
          .innerJoin('space as sp', (join) =>
            join.onRef('sp.id', '=', 'ss.space_id').on('sp.deleted_at', 'is', null).onRef('sp.organization_id', '=', 's.organization_id'),
          )
          .whereRef('ss.site_id', '=', 's.id')
          .select((agg) =>
            agg.fn
              .jsonAgg(
                jsonBuildObject({
                  id: agg.ref('ss.id'),
                  section_id: agg.ref('ss.section_id'),
                  space_id: agg.ref('ss.space_id'),
                  path: agg.ref('ss.path'),
                  condition: agg.ref('ss.condition'),
                  is_default: agg.ref('ss.is_default'),
                  position: agg.ref('ss.position'),
                  revision_id: agg.ref('sp.revision_id'),
                  draft: agg.ref('ss.draft'),
                }),
              )
              .orderBy('ss.position')
              .orderBy('ss.id')
              .as('list'),
          )
          .$asScalar()
          .$castTo<VisitorSiteSpace[] | null>()
          .as('site_spaces'),
      ]),
  );
  return row;
}

async function visitorStructure(em: Em, siteId: string, version: string): Promise<VisitorStructure> {
  const cached = structures().get(siteId);
  if (cached?.version === version) return cached.structure;
  const row = await readVisitorStructure(em, siteId);
  const structure: VisitorStructure = { sections: row?.sections ?? [], siteSpaces: row?.site_spaces ?? [] };
  // Cached under the version it was read at (read with it, in the same statement).
  structures().set(siteId, { version: row?.structure_version ?? version, structure });
  return structure;
}

async function withStructure(em: Em, row: VisitorSiteRaw | undefined): Promise<SiteForVisitor | undefined> {
  if (!row) return undefined;
  const { structure_version: version, share_link_id: shareLinkId, share_key_hash: shareKeyHash, ...site } = row;
  const structure = await visitorStructure(em, site.id, version);
  return { site, ...structure, shareKeyActive: shareLinkId !== null, shareLinkId, shareKeyHash };
}

/**
 * A site by organization and basename (or id), with the active share link whose key hashes to one
 * of `keyHashes`, if any.
 */
export async function siteForVisitorByKey(
  em: Em,
  organizationId: string,
  siteKey: string,
  keyHashes: readonly string[],
): Promise<SiteForVisitor | undefined> {
  const keys = keyHashes.join(',');
  const [row] = await prepared(em, 'visitor-site-by-key', [organizationId, siteKey, keys], ([organizationId, siteKey, keyHash]) =>
    visitorSites(em, keyHash)
      .where('s.organization_id', '=', organizationId)
      .where((eb) => eb.or([eb('s.basename', '=', siteKey), eb('s.id', '=', siteKey)]))
      .orderBy(
        (eb) => eb('s.basename', '=', siteKey),
        (ob) => ob.desc().nullsLast(),
      )
      .limit(1),
  );
  return withStructure(em, row);
}

/**
 * A site by custom hostname or proxy origin (the longest proxy prefix wins). A proxy counts only
 * while no other organization holds the host as a custom hostname, so addresses claimed before
 * hosts had one owner still resolve to that host's owner. With it, the active share link whose key
 * hashes to one of `keyHashes`, if any.
 */
export async function siteForVisitorByHost(
  em: Em,
  hostname: string,
  proxies: string[],
  keyHashes: readonly string[],
): Promise<SiteForVisitor | undefined> {
  // One statement per number of proxy prefixes (a shape of its own each).
  const [row] = await prepared(
    em,
    `visitor-site-by-host/${proxies.length}`,
    [hostname, keyHashes.join(','), ...proxies],
    ([hostname, keyHash, ...proxies]) =>
      visitorSites(em, keyHash)
        .where((eb) =>
          eb.or([
            eb('s.hostname', '=', hostname),
            proxies.length === 0
              ? eb.lit(false)
              : eb.and([
                  eb('s.proxy', 'in', proxies),
                  eb.not(
                    eb.exists(
                      eb
                        .selectFrom('site as h')
                        .select('h.id')
                        .where('h.hostname', '=', hostname)
                        .whereRef('h.organization_id', '<>', 's.organization_id'),
                    ),
                  ),
                ]),
          ]),
        )
        .orderBy(
          (eb) => eb.fn('length', ['s.proxy']),
          (ob) => ob.desc().nullsLast(),
        )
        .limit(1),
  );
  return withStructure(em, row);
}

/** A site by id (for `GET …/sites/{siteId}/published`). */
export async function siteForVisitorById(
  em: Em,
  organizationId: string,
  siteId: string,
  keyHash: string,
): Promise<SiteForVisitor | undefined> {
  const [row] = await prepared(em, 'visitor-site-by-id', [organizationId, siteId, keyHash], ([organizationId, siteId, keyHash]) =>
    visitorSites(em, keyHash).where('s.organization_id', '=', organizationId).where('s.id', '=', siteId),
  );
  return withStructure(em, row);
}

// Site visitor tokens ----------------------------------------------------------------------------

/** What must still hold for a site visitor's token to work: the site as it is now. */
export interface SiteTokenState {
  organizationId: string;
  published: boolean;
  visibility: string;
  authKeySealed: string;
  /** Whether the share link the token came through (if any) is still active. */
  shareLinkActive: boolean;
  /** The spaces of the site's site-spaces (of spaces not deleted), drafts included: what a preview showing drafts reads. */
  spaceIds: string[];
  /** The spaces of the site's live structure (no draft site-space, section or group): what every other token reads. */
  liveSpaceIds: string[];
  /** The revision each of those spaces publishes now (its current revision), by space id. */
  spaceRevisions: Record<string, string>;
}

/**
 * The state of a site a visitor's token is checked against on every use: one small prepared
 * statement, plus the structure from the per-process cache (read again only after a change).
 */
export async function siteTokenState(em: Em, siteId: string, shareLinkId: string): Promise<SiteTokenState | undefined> {
  const [row] = await prepared(em, 'site-token-state', [siteId, shareLinkId], ([siteId, shareLinkId]) =>
    db(em)
      .selectFrom('site as s')
      .where('s.id', '=', siteId)
      .select(['s.organization_id', 's.published', 's.visibility', 's.auth_key_sealed', 's.structure_version'])
      .select((eb) =>
        eb
          .exists(
            eb
              .selectFrom('site_share_link as l')
              .select('l.id')
              .whereRef('l.site_id', '=', 's.id')
              .where('l.id', '=', shareLinkId)
              .where('l.active', '=', true),
          )
          .$castTo<boolean>()
          .as('share_link_active'),
      ),
  );
  if (!row) return undefined;
  const structure = await visitorStructure(em, siteId, row.structure_version);
  return {
    organizationId: row.organization_id,
    published: row.published,
    visibility: row.visibility,
    authKeySealed: row.auth_key_sealed,
    shareLinkActive: row.share_link_active,
    spaceIds: [...new Set(structure.siteSpaces.map((p) => p.space_id))],
    liveSpaceIds: [...new Set(liveStructure({ ...structure, groups: [] }).siteSpaces.map((p) => p.space_id))],
    spaceRevisions: Object.fromEntries(structure.siteSpaces.map((p) => [p.space_id, p.revision_id])),
  };
}

// Site lookup tokens ----------------------------------------------------------------------------

export type LookupTokenRow = {
  id: string;
  organization_id: string;
  label: string;
  created_by: string | null;
  created_at: Timestamp;
  last_used_at: Timestamp | null;
};

const lookupTokens = (em: Em) =>
  db(em).selectFrom('site_lookup_token').select(['id', 'organization_id', 'label', 'created_by', 'created_at', 'last_used_at']);

/** The lookup tokens of an organization, oldest first. */
export function lookupTokensListing(em: Em, organizationId: string): Listing<LookupTokenRow> {
  return {
    query: lookupTokens(em).where('organization_id', '=', organizationId),
    keys: [
      { field: 'created_at', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
  };
}

export async function lookupTokenById(em: Em, organizationId: string, id: string): Promise<LookupTokenRow | undefined> {
  return lookupTokens(em).where('organization_id', '=', organizationId).where('id', '=', id).executeTakeFirst();
}

/** The lookup token whose secret hashes to `tokenHash`. */
export async function lookupTokenByHash(em: Em, tokenHash: string): Promise<LookupTokenRow | undefined> {
  return lookupTokens(em).where('token_hash', '=', tokenHash).executeTakeFirst();
}

export async function insertLookupToken(
  em: Em,
  token: { id: string; organizationId: string; label: string; tokenHash: string; createdBy: string | null },
): Promise<void> {
  await db(em)
    .insertInto('site_lookup_token')
    .values({
      id: token.id,
      organization_id: token.organizationId,
      label: token.label,
      token_hash: token.tokenHash,
      created_by: token.createdBy,
      created_at: new Date(),
    })
    .execute();
}

export async function touchLookupToken(em: Em, id: string, at: Date): Promise<void> {
  await db(em).updateTable('site_lookup_token').set({ last_used_at: at }).where('id', '=', id).execute();
}

export async function deleteLookupToken(em: Em, id: string): Promise<void> {
  await db(em).deleteFrom('site_lookup_token').where('id', '=', id).execute();
}

// Page paths of revisions: revisions never change, so their page index is computed once per process.

/**
 * Page indexes a process keeps (least recently used first out), within the `pageIndexes` share of
 * CACHE_MEMORY: about 270 bytes a page (pageIndexBytes), so a revision of 1,000 pages takes about
 * 270 KB and the 8 MiB of the default hold about 30,000 pages in all. An index larger than the
 * share is not kept: such a revision is indexed again on each lookup.
 */
const pageIndexes = sharedCache<string, { index: PageIndex; bytes: number }>('pageIndexes', (entry, revisionId) =>
  entryBytes(revisionId, null, entry.bytes),
);
/** Indexes being computed, so that concurrent lookups of one revision share the work. */
const indexing = new Map<string, Promise<PageIndex>>();

export function revisionPageIndex(em: Em, revisionId: string): Promise<PageIndex> {
  const cached = pageIndexes().get(revisionId);
  if (cached) return Promise.resolve(cached.index);
  const pending = indexing.get(revisionId);
  if (pending) return pending;
  const loading = loadPageMap(em, revisionId, false)
    .then((map) => {
      const index = pageIndex(map);
      pageIndexes().set(revisionId, { index, bytes: pageIndexBytes(index) });
      return index;
    })
    // A failed load is not remembered.
    .finally(() => indexing.delete(revisionId));
  indexing.set(revisionId, loading);
  return loading;
}
