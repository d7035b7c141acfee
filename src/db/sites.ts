import type { Em } from './orm.ts';
import { prepared, sql, textArray } from './sql.ts';
import { loadPageMap } from './content.ts';
import { pageIndex, type PageIndex } from '../domain/sites/resolve.ts';
import { Lru } from '../domain/lru.ts';

/**
 * Sites, their sections, section groups, site-spaces and share links (Migration0013Sites).
 * Site-spaces whose space is deleted (restorable) are left out of every read, so deleting a space
 * hides them and restoring it brings them back; the purge removes them by cascade. So are those of a
 * space transferred to another organization (it is no longer the site's to publish).
 */

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
  adaptive_schema_updated_at: Date | null;
  customization: Record<string, unknown>;
  customization_updated_at: Date | null;
  auth_key_sealed: string;
  fallback_url: string | null;
  logout_url: string | null;
  created_at: Date;
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
};

export type GroupRow = {
  id: string;
  site_id: string;
  title: string;
  icon: string | null;
  position: string;
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
  /** Of the space: its title and current revision. */
  space_title: string;
  revision_id: string;
};

export type ShareLinkRow = {
  id: string;
  site_id: string;
  name: string;
  active: boolean;
  created_at: Date;
};

const LIVE_COUNT = `(select count(*)::int from site_space ss join space sp on sp.id = ss.space_id and sp.deleted_at is null and sp.organization_id = s.organization_id where ss.site_id = s.id)`;
const SITE_COLUMNS = `s.*, ${LIVE_COUNT} as site_spaces`;

/** A listing of the sites of an organization, with optional filters, for paginateSql. */
export function sitesListing(organizationId: string, filters: { space?: string; title?: string; published?: boolean }) {
  const where = ['s.organization_id = ?'];
  const params: unknown[] = [organizationId];
  if (filters.space !== undefined) {
    where.push(
      `exists (select 1 from site_space ss join space sp on sp.id = ss.space_id and sp.deleted_at is null and sp.organization_id = s.organization_id where ss.site_id = s.id and ss.space_id = ?)`,
    );
    params.push(filters.space);
  }
  if (filters.title !== undefined) {
    where.push(`s.title ilike ? escape '\\'`);
    params.push(`%${filters.title.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
  }
  if (filters.published !== undefined) {
    where.push('s.published = ?');
    params.push(filters.published);
  }
  return { sql: `select ${SITE_COLUMNS} from site s where ${where.join(' and ')}`, params };
}

export async function siteById(em: Em, organizationId: string, siteId: string): Promise<SiteRow | undefined> {
  const rows = await sql<SiteRow>(em, `select ${SITE_COLUMNS} from site s where s.id = ? and s.organization_id = ?`, [
    siteId,
    organizationId,
  ]);
  return rows[0];
}

export async function insertSite(
  em: Em,
  site: { id: string; organizationId: string; type: string; title: string; visibility: string; authKeySealed: string },
) {
  // created_at at millisecond precision, like the cursors that page through it.
  await sql(
    em,
    'insert into site (id, organization_id, type, title, visibility, auth_key_sealed, created_at) values (?, ?, ?, ?, ?, ?, ?)',
    [site.id, site.organizationId, site.type, site.title, site.visibility, site.authKeySealed, new Date()],
  );
}

const SITE_FIELDS = [
  'title',
  'visibility',
  'basename',
  'hostname',
  'proxy',
  'published',
  'adaptive_content',
  'adaptive_schema',
  'adaptive_schema_updated_at',
  'customization',
  'customization_updated_at',
  'auth_key_sealed',
  'fallback_url',
  'logout_url',
] as const;
export type SiteField = (typeof SITE_FIELDS)[number];

/** Sets columns of a site (only the listed ones); jsonb values are passed as objects. */
export async function updateSite(em: Em, siteId: string, fields: Partial<Record<SiteField, unknown>>): Promise<void> {
  const entries = Object.entries(fields).filter(([k, v]) => v !== undefined && (SITE_FIELDS as readonly string[]).includes(k));
  if (entries.length === 0) return;
  const sets = entries.map(([k]) => (k === 'adaptive_schema' || k === 'customization' ? `${k} = ?::jsonb` : `${k} = ?`));
  const values = entries.map(([k, v]) => ((k === 'adaptive_schema' || k === 'customization') && v !== null ? JSON.stringify(v) : v));
  await sql(em, `update site set ${sets.join(', ')}, updated_at = now() where id = ?`, [...values, siteId]);
}

export async function deleteSite(em: Em, siteId: string): Promise<void> {
  await sql(em, 'delete from site where id = ?', [siteId]);
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
    await sql(tx, `select pg_advisory_xact_lock(hashtextextended(?, 0))`, [`site-host:${host}`]);
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
  const host = address.proxy ? proxyHost(address.proxy) : null;
  const rows = await sql<{ hostname: boolean; basename: boolean; proxy: boolean; host: boolean }>(
    em,
    `with a as (select ?::text as hostname, ?::text as host, ?::text as org, ?::text as basename, ?::text as proxy, ?::text as site)
     select bool_or(lower(s.hostname) = a.hostname) as hostname,
            bool_or(s.organization_id = a.org and s.basename = a.basename) as basename,
            bool_or(s.proxy = a.proxy) as proxy,
            bool_or(s.organization_id <> a.org
                    and (lower(s.hostname) in (a.hostname, a.host) or lower(split_part(s.proxy, '/', 1)) in (a.hostname, a.host))) as host
       from site s, a
      where s.id <> a.site
        and (lower(s.hostname) in (a.hostname, a.host) or lower(split_part(s.proxy, '/', 1)) in (a.hostname, a.host)
             or (s.organization_id = a.org and s.basename = a.basename) or s.proxy = a.proxy)`,
    [hostname, host, organizationId, address.basename ?? null, address.proxy ?? null, siteId],
  );
  const row = rows[0];
  if (row?.hostname) return 'hostname';
  if (row?.basename) return 'basename';
  if (row?.proxy) return 'proxy';
  if (row?.host) return 'host';
  return null;
}

// Sections and groups ---------------------------------------------------------------------------

/**
 * Serializes changes to one site's structure (sections, groups, site-spaces): taken first in the
 * transaction of every such change, so concurrent ones compute paths and positions one after another
 * instead of colliding on the unique (site, path).
 */
export async function lockSiteStructure(em: Em, siteId: string): Promise<void> {
  await sql(em, 'select id from site where id = ? for update', [siteId]);
}

export async function sectionsOf(em: Em, siteId: string): Promise<SectionRow[]> {
  return sql<SectionRow>(em, 'select * from site_section where site_id = ? order by position collate "C", id', [siteId]);
}

export async function groupsOf(em: Em, siteId: string): Promise<GroupRow[]> {
  return sql<GroupRow>(em, 'select * from site_section_group where site_id = ? order by position collate "C", id', [siteId]);
}

/** The sections of a site; with `onlyIds`, just those (what a visitor may see). */
export function sectionsListing(siteId: string, onlyIds?: string[]) {
  if (onlyIds === undefined) return { sql: 'select * from site_section where site_id = ?', params: [siteId] };
  return { sql: 'select * from site_section where site_id = ? and id = any(?::text[])', params: [siteId, textArray(onlyIds)] };
}

export function groupsListing(siteId: string) {
  return { sql: 'select * from site_section_group where site_id = ?', params: [siteId] };
}

export async function insertSection(em: Em, s: Omit<SectionRow, 'site_id'> & { siteId: string }): Promise<void> {
  await sql(
    em,
    `insert into site_section (id, site_id, group_id, title, description, path, condition, icon, is_default, position)
                 values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    [s.id, s.siteId, s.group_id, s.title, s.description, s.path, s.condition, s.icon, s.is_default, s.position],
  );
}

const SECTION_FIELDS = ['title', 'description', 'path', 'condition', 'icon', 'group_id', 'position'] as const;

export async function updateSection(
  em: Em,
  sectionId: string,
  fields: Partial<Record<(typeof SECTION_FIELDS)[number], unknown>>,
): Promise<void> {
  const entries = Object.entries(fields).filter(([k, v]) => v !== undefined && (SECTION_FIELDS as readonly string[]).includes(k));
  if (entries.length === 0) return;
  await sql(em, `update site_section set ${entries.map(([k]) => `${k} = ?`).join(', ')} where id = ?`, [
    ...entries.map(([, v]) => v),
    sectionId,
  ]);
}

export async function deleteSection(em: Em, sectionId: string): Promise<void> {
  await sql(em, 'delete from site_section where id = ?', [sectionId]);
}

/** Makes one section the site's default (or the first by position when `sectionId` is null). */
export async function setDefaultSection(em: Em, siteId: string, sectionId: string | null): Promise<void> {
  await sql(
    em,
    `update site_section set is_default = (id = coalesce(?, (select id from site_section where site_id = ? order by position collate "C", id limit 1)))
      where site_id = ?`,
    [sectionId, siteId, siteId],
  );
}

export async function insertGroup(em: Em, g: GroupRow): Promise<void> {
  await sql(em, 'insert into site_section_group (id, site_id, title, icon, position) values (?, ?, ?, ?, ?)', [
    g.id,
    g.site_id,
    g.title,
    g.icon,
    g.position,
  ]);
}

export async function updateGroup(
  em: Em,
  groupId: string,
  fields: { title?: string; icon?: string | null; position?: string },
): Promise<void> {
  const entries = Object.entries(fields).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return;
  await sql(em, `update site_section_group set ${entries.map(([k]) => `${k} = ?`).join(', ')} where id = ?`, [
    ...entries.map(([, v]) => v),
    groupId,
  ]);
}

export async function deleteGroup(em: Em, groupId: string): Promise<void> {
  await sql(em, 'delete from site_section_group where id = ?', [groupId]);
}

export async function setSectionsGroup(em: Em, siteId: string, sectionIds: string[], groupId: string | null): Promise<void> {
  if (sectionIds.length === 0) return;
  await sql(em, 'update site_section set group_id = ? where site_id = ? and id in (select jsonb_array_elements_text(?::jsonb))', [
    groupId,
    siteId,
    JSON.stringify(sectionIds),
  ]);
}

// Site-spaces -----------------------------------------------------------------------------------

const SITE_SPACE_SELECT = `select ss.*, sp.title as space_title, sp.revision_id,
    coalesce(sec.position, '') || ' ' || ss.position as ord
  from site_space ss
  join site st on st.id = ss.site_id
  join space sp on sp.id = ss.space_id and sp.deleted_at is null and sp.organization_id = st.organization_id
  left join site_section sec on sec.id = ss.section_id`;

/** The live site-spaces of a site (or of one section, or of the root level with `null`), in order. */
export async function siteSpacesOf(em: Em, siteId: string, sectionId?: string | null): Promise<SiteSpaceRow[]> {
  const filter = sectionId === undefined ? '' : sectionId === null ? ' and ss.section_id is null' : ' and ss.section_id = ?';
  const params = sectionId ? [siteId, sectionId] : [siteId];
  return sql<SiteSpaceRow>(em, `select * from (${SITE_SPACE_SELECT} where ss.site_id = ?${filter}) q order by ord collate "C", id`, params);
}

/** The site-spaces of a site, the default ones only or all but them; with `onlyIds`, just those (what a visitor may see). */
export function siteSpacesListing(siteId: string, isDefault?: boolean, onlyIds?: string[]) {
  return {
    sql: `${SITE_SPACE_SELECT} where ss.site_id = ?${isDefault === undefined ? '' : ' and ss.is_default = ?'}${onlyIds === undefined ? '' : ' and ss.id = any(?::text[])'}`,
    params: [siteId, ...(isDefault === undefined ? [] : [isDefault]), ...(onlyIds === undefined ? [] : [textArray(onlyIds)])],
  };
}

/** Every site-space row of a section or the root level, deleted spaces included (paths stay reserved). */
export async function siteSpacePathsIn(em: Em, siteId: string, sectionId: string | null): Promise<string[]> {
  const rows = await sql<{ path: string }>(em, 'select path from site_space where site_id = ? and section_id is not distinct from ?', [
    siteId,
    sectionId,
  ]);
  return rows.map((r) => r.path);
}

/** Ids of every root-level site-space row of a site (deleted spaces included). */
export async function siteSpaceIdsAtRoot(em: Em, siteId: string): Promise<string[]> {
  const rows = await sql<{ id: string }>(em, 'select id from site_space where site_id = ? and section_id is null', [siteId]);
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
  },
) {
  await sql(
    em,
    `insert into site_space (id, site_id, section_id, space_id, path, title, is_default, position) values (?, ?, ?, ?, ?, ?, ?, ?)`,
    [s.id, s.siteId, s.sectionId, s.spaceId, s.path, s.title, s.isDefault, s.position],
  );
}

const SITE_SPACE_FIELDS = ['path', 'condition', 'hidden', 'space_id', 'position', 'section_id'] as const;

export async function updateSiteSpace(
  em: Em,
  id: string,
  fields: Partial<Record<(typeof SITE_SPACE_FIELDS)[number], unknown>>,
): Promise<void> {
  const entries = Object.entries(fields).filter(([k, v]) => v !== undefined && (SITE_SPACE_FIELDS as readonly string[]).includes(k));
  if (entries.length === 0) return;
  await sql(em, `update site_space set ${entries.map(([k]) => `${k} = ?`).join(', ')} where id = ?`, [...entries.map(([, v]) => v), id]);
}

export async function deleteSiteSpace(em: Em, id: string): Promise<void> {
  await sql(em, 'delete from site_space where id = ?', [id]);
}

/** Makes one site-space the default of its level (section or root), or the first live one when null. */
export async function setDefaultSiteSpace(em: Em, siteId: string, sectionId: string | null, siteSpaceId: string | null): Promise<void> {
  await sql(
    em,
    `update site_space set is_default = (id = coalesce(?, (
        select ss.id from site_space ss join site st on st.id = ss.site_id
          join space sp on sp.id = ss.space_id and sp.deleted_at is null and sp.organization_id = st.organization_id
         where ss.site_id = ? and ss.section_id is not distinct from ? order by ss.position collate "C", ss.id limit 1)))
      where site_id = ? and section_id is not distinct from ?`,
    [siteSpaceId, siteId, sectionId, siteId, sectionId],
  );
}

// Share links -----------------------------------------------------------------------------------

export function shareLinksListing(siteId: string) {
  return { sql: 'select id, site_id, name, active, created_at from site_share_link where site_id = ?', params: [siteId] };
}

export async function shareLinkById(em: Em, siteId: string, id: string): Promise<ShareLinkRow | undefined> {
  const rows = await sql<ShareLinkRow>(
    em,
    'select id, site_id, name, active, created_at from site_share_link where site_id = ? and id = ?',
    [siteId, id],
  );
  return rows[0];
}

export async function insertShareLink(em: Em, link: { id: string; siteId: string; name: string; keyHash: string }): Promise<void> {
  await sql(em, 'insert into site_share_link (id, site_id, name, key_hash, created_at) values (?, ?, ?, ?, ?)', [
    link.id,
    link.siteId,
    link.name,
    link.keyHash,
    new Date(),
  ]);
}

export async function updateShareLink(em: Em, id: string, fields: { name?: string; active?: boolean }): Promise<void> {
  const entries = Object.entries(fields).filter(([, v]) => v !== undefined);
  if (entries.length === 0) return;
  await sql(em, `update site_share_link set ${entries.map(([k]) => `${k} = ?`).join(', ')} where id = ?`, [
    ...entries.map(([, v]) => v),
    id,
  ]);
}

export async function deleteShareLink(em: Em, id: string): Promise<void> {
  await sql(em, 'delete from site_share_link where id = ?', [id]);
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
const VISITOR_SITE = `
  select s.id, s.organization_id, s.title, s.hostname, s.basename, s.proxy, s.visibility, s.published, s.adaptive_content,
         s.adaptive_schema, s.auth_key_sealed, s.fallback_url, s.structure_version::text as structure_version,
         exists (select 1 from site_share_link l where l.site_id = s.id and l.key_hash = $KEY and l.active) as share_key_active
    from site s`;

const VISITOR_STRUCTURE = `
  select s.structure_version::text as structure_version,
         coalesce((select json_agg(json_build_array(sec.id, sec.path, sec.condition, sec.is_default, sec.position) order by sec.position collate "C", sec.id)
                     from site_section sec where sec.site_id = s.id), '[]') as sections,
         coalesce((select json_agg(json_build_array(ss.id, ss.section_id, ss.space_id, ss.path, ss.condition, ss.is_default, ss.position, sp.revision_id)
                            order by ss.position collate "C", ss.id)
                     from site_space ss join space sp on sp.id = ss.space_id and sp.deleted_at is null and sp.organization_id = s.organization_id
                    where ss.site_id = s.id), '[]') as site_spaces
    from site s where s.id = $1`;

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
export type VisitorSection = Pick<SectionRow, 'id' | 'path' | 'condition' | 'is_default' | 'position'>;
export type VisitorSiteSpace = Pick<
  SiteSpaceRow,
  'id' | 'section_id' | 'space_id' | 'path' | 'condition' | 'is_default' | 'position' | 'revision_id'
>;

/** A site as a visitor's URL resolution needs it: the site, its sections and live site-spaces, the share-key check. */
export interface SiteForVisitor {
  site: VisitorSite;
  sections: VisitorSection[];
  siteSpaces: VisitorSiteSpace[];
  shareKeyActive: boolean;
}

type Tuple = (string | boolean | null)[];
type VisitorSiteRaw = VisitorSite & { structure_version: string; share_key_active: boolean };
interface VisitorStructure {
  sections: VisitorSection[];
  siteSpaces: VisitorSiteSpace[];
}

/** Sites whose sections and site-spaces a process keeps, each under the version it was read at. */
export const SITE_STRUCTURE_CACHE_SIZE = 1000;
const structures = new Lru<string, { version: string; structure: VisitorStructure }>(SITE_STRUCTURE_CACHE_SIZE);

async function visitorStructure(em: Em, siteId: string, version: string): Promise<VisitorStructure> {
  const cached = structures.get(siteId);
  if (cached?.version === version) return cached.structure;
  const rows = await prepared<{ structure_version: string; sections: Tuple[]; site_spaces: Tuple[] }>(
    em,
    'site_visitor_structure',
    VISITOR_STRUCTURE,
    [siteId],
  );
  const raw = rows[0] ?? { structure_version: version, sections: [], site_spaces: [] };
  const structure: VisitorStructure = {
    sections: raw.sections.map(([id, path, condition, isDefault, position]) => ({
      id: id as string,
      path: path as string,
      condition: condition as string | null,
      is_default: isDefault as boolean,
      position: position as string,
    })),
    siteSpaces: raw.site_spaces.map(([id, sectionId, spaceId, path, condition, isDefault, position, revisionId]) => ({
      id: id as string,
      section_id: sectionId as string | null,
      space_id: spaceId as string,
      path: path as string,
      condition: condition as string | null,
      is_default: isDefault as boolean,
      position: position as string,
      revision_id: revisionId as string,
    })),
  };
  // Cached under the version it was read at (read with it, in the same statement).
  structures.set(siteId, { version: raw.structure_version, structure });
  return structure;
}

async function withStructure(em: Em, row: VisitorSiteRaw | undefined): Promise<SiteForVisitor | undefined> {
  if (!row) return undefined;
  const { structure_version: version, share_key_active: shareKeyActive, ...site } = row;
  const structure = await visitorStructure(em, site.id, version);
  return { site, ...structure, shareKeyActive };
}

/** A site by organization and basename (or id). */
export async function siteForVisitorByKey(
  em: Em,
  organizationId: string,
  siteKey: string,
  keyHash: string,
): Promise<SiteForVisitor | undefined> {
  const rows = await prepared<VisitorSiteRaw>(
    em,
    'site_visitor_by_key',
    `${VISITOR_SITE.replace('$KEY', '$3')} where s.organization_id = $1 and (s.basename = $2 or s.id = $2) order by (s.basename = $2) desc nulls last limit 1`,
    [organizationId, siteKey, keyHash],
  );
  return withStructure(em, rows[0]);
}

/**
 * A site by custom hostname or proxy origin (the longest proxy prefix wins). A proxy counts only
 * while no other organization holds the host as a custom hostname, so addresses claimed before
 * hosts had one owner still resolve to that host's owner.
 */
export async function siteForVisitorByHost(
  em: Em,
  hostname: string,
  proxies: string[],
  keyHash: string,
): Promise<SiteForVisitor | undefined> {
  const rows = await prepared<VisitorSiteRaw>(
    em,
    'site_visitor_by_host',
    `${VISITOR_SITE.replace('$KEY', '$3')} where s.hostname = $1
        or (s.proxy = any($2::text[]) and not exists (select 1 from site h where h.hostname = $1 and h.organization_id <> s.organization_id))
      order by length(s.proxy) desc nulls last limit 1`,
    [hostname, proxies, keyHash],
  );
  return withStructure(em, rows[0]);
}

/** A site by id (for `GET …/sites/{siteId}/published`). */
export async function siteForVisitorById(
  em: Em,
  organizationId: string,
  siteId: string,
  keyHash: string,
): Promise<SiteForVisitor | undefined> {
  const rows = await prepared<VisitorSiteRaw>(
    em,
    'site_visitor_by_id',
    `${VISITOR_SITE.replace('$KEY', '$3')} where s.organization_id = $1 and s.id = $2`,
    [organizationId, siteId, keyHash],
  );
  return withStructure(em, rows[0]);
}

// Page paths of revisions: revisions never change, so their page index is computed once per process.

/** Revisions whose page index a process keeps (least recently used first out). */
export const PAGE_INDEX_CACHE_SIZE = 256;
const pageIndexes = new Lru<string, Promise<PageIndex>>(PAGE_INDEX_CACHE_SIZE);

export function revisionPageIndex(em: Em, revisionId: string): Promise<PageIndex> {
  const cached = pageIndexes.get(revisionId);
  if (cached) return cached;
  const loading = loadPageMap(em, revisionId, false).then(pageIndex);
  // A failed load is not remembered (unless a later load replaced it already).
  loading.catch(() => {
    if (pageIndexes.get(revisionId) === loading) pageIndexes.delete(revisionId);
  });
  pageIndexes.set(revisionId, loading);
  return loading;
}
