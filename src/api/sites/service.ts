import { createHash, randomBytes } from 'node:crypto';
import type { Static } from 'typebox';
import { UniqueConstraintViolationException } from '@mikro-orm/core';
import { Space } from '../../db/entities.ts';
import {
  deleteSite as deleteSiteRow,
  groupsOf,
  insertSite,
  insertSiteSpace,
  sectionsOf,
  setDefaultSection,
  setDefaultSiteSpace,
  lockSiteHosts,
  siteAddressTaken,
  siteById,
  siteForVisitorById,
  sitesListing,
  siteSpacesOf,
  updateSite as updateSiteRow,
  type GroupRow,
  type SectionRow,
  type SiteRow,
  type SiteSpaceRow,
} from '../../db/sites.ts';
import type { Em } from '../../db/orm.ts';
import { slugify } from '../../domain/content/tree.ts';
import { newId } from '../../domain/ids.ts';
import { atLeast, type Role } from '../../domain/roles.ts';
import { adaptiveSchemaProblem } from '../../domain/sites/adaptive.ts';
import { effectiveCustomization, mergeCustomization, type JsonObject } from '../../domain/sites/customization.ts';
import { effectiveDefault, lastKey, sortOrdered, uniquePath } from '../../domain/sites/order.ts';
import { conditionContext, conditionHolds } from '../../domain/sites/conditions.ts';
import { contentRoles, loadSpace, requireOrganization, requireRole } from '../access.ts';
import type { AppDeps, Ctx } from '../context.ts';
import { badRequest, conflict, HttpError, notFound } from '../errors.ts';
import { paginateSql } from '../pagination.ts';
import { presentSpace } from '../spaces/present.ts';
import { createSpace } from '../spaces/service.ts';
import { urlsFor } from '../object-urls.ts';
import {
  presentAdaptiveSchema,
  presentGroup,
  presentPublishingAuth,
  presentSection,
  presentSite,
  presentSiteSpace,
  type SiteUrlsContext,
} from './present.ts';
import type {
  AdaptiveSchemaBody,
  CreateSiteBody,
  CustomizationInput,
  ListSitesQuery,
  PublishingAuthBody,
  UpdateSiteBody,
} from './schemas.ts';

/** The rules of sites: who may do what, the writes each operation makes, and the structure readers see. */

export const siteUrls = (deps: AppDeps): SiteUrlsContext => ({ publicUrl: deps.config.publicUrl, sitesUrl: deps.config.sitesUrl });

// Secrets: the visitor signing key of each site is sealed with the service's secrets key.
const box = (deps: AppDeps) => deps.secrets();
const keyContext = (siteId: string) => `site-visitor-key:${siteId}`;
export async function sealSigningKey(deps: AppDeps, siteId: string, key: string) {
  return (await box(deps)).seal(key, keyContext(siteId));
}
export async function openSigningKey(deps: AppDeps, site: Pick<SiteRow, 'id' | 'auth_key_sealed'>) {
  return (await box(deps)).open(site.auth_key_sealed, keyContext(site.id));
}
const newSigningKey = () => randomBytes(32).toString('base64url');
export const hashShareKey = (key: string) => createHash('sha256').update(key).digest('hex');

/** The site, 404 unless the caller is a member of its organization; 403 below `min`. */
export async function requireSite(ctx: Ctx, organizationId: string, siteId: string, min: Role = 'read', action = 'read this site') {
  const { role } = await requireOrganization(ctx, organizationId);
  const site = await siteById(ctx.em, organizationId, siteId);
  if (!site) throw notFound('Site');
  requireRole(role, min, action);
  return { site, role };
}

/**
 * Who may read a site's structure: a member with a role, or anyone holding an active share key
 * of the site. 404 otherwise (also for a share key that is wrong or inactive).
 */
export async function siteReader(ctx: Ctx, organizationId: string, siteId: string, shareKey?: string) {
  const membership = await requireOrganization(ctx, organizationId).catch((error: unknown) => {
    if (error instanceof HttpError && error.statusCode === 404) return undefined;
    throw error;
  });
  if (membership && atLeast(membership.role, 'read')) {
    const site = await siteById(ctx.em, organizationId, siteId);
    if (!site) throw notFound('Site');
    return { site, role: membership.role, viaShareKey: false };
  }
  if (shareKey) {
    const found = await siteForVisitorById(ctx.em, organizationId, siteId, hashShareKey(shareKey));
    if (found?.shareKeyActive && found.site.published && found.site.visibility === 'share-link') {
      const site = await siteById(ctx.em, organizationId, siteId);
      if (site) return { site, role: null, viaShareKey: true };
    }
  }
  throw notFound('Site');
}

export function isUniqueViolation(error: unknown): boolean {
  return error instanceof UniqueConstraintViolationException || (error as { code?: string })?.code === '23505';
}

async function fresh(ctx: Ctx, organizationId: string, siteId: string, role: Role | null) {
  const site = await siteById(ctx.em, organizationId, siteId);
  if (!site) throw notFound('Site');
  return presentSite(site, role, siteUrls(ctx.deps));
}

// Structure -------------------------------------------------------------------------------------

export interface SiteStructure {
  sections: SectionRow[];
  groups: GroupRow[];
  siteSpaces: SiteSpaceRow[];
}

export async function loadStructure(em: Em, siteId: string): Promise<SiteStructure> {
  const [sections, groups, siteSpaces] = [await sectionsOf(em, siteId), await groupsOf(em, siteId), await siteSpacesOf(em, siteId)];
  return { sections, groups, siteSpaces };
}

/**
 * The structure a visitor without claims sees (a share-key holder): sections and site-spaces whose
 * condition holds for nobody in particular. Members see everything.
 */
export function structureForVisitor(structure: SiteStructure): SiteStructure {
  const context = conditionContext({ signed: {}, unsigned: {} });
  const sections = structure.sections.filter((s) => conditionHolds(s.condition, context));
  const shown = new Set(sections.map((s) => s.id));
  return {
    sections,
    groups: structure.groups,
    siteSpaces: structure.siteSpaces.filter(
      (p) => (p.section_id === null || shown.has(p.section_id)) && conditionHolds(p.condition, context),
    ),
  };
}

const asOrdered = <T extends { is_default: boolean; position: string; id: string }>(rows: T[]) =>
  rows.map((r) => ({ ...r, isDefault: r.is_default }));

/**
 * Presents sections (and the site-spaces in them) or root site-spaces, with the spaces as the
 * caller sees them: every space in one query, the caller's roles on them in one more.
 */
export async function structurePresenter(ctx: Ctx, site: SiteRow, structure: SiteStructure, viewerRole: Role | null | undefined) {
  const spaceIds = [...new Set(structure.siteSpaces.map((s) => s.space_id))];
  const spaces = spaceIds.length ? await ctx.em.find(Space, { id: { $in: spaceIds } }) : [];
  const roles = await contentRoles(ctx.em, { userId: ctx.caller.user.id, role: viewerRole }, 'space', spaces);
  const urls = urlsFor(ctx.deps.config.publicUrl);
  const spaceById = new Map(spaces.map((s) => [s.id, presentSpace(s, roles.get(s.id) ?? null, urls)]));
  const siteUrlsCtx = siteUrls(ctx.deps);
  const defaultSection = effectiveDefault(asOrdered(structure.sections))?.id;
  const sectionById = new Map(structure.sections.map((s) => [s.id, s]));

  // Each level (a section, or the root) is presented once, however many of its rows are asked for.
  const levels = new Map<string | null, ReturnType<typeof presentSiteSpace>[]>();
  const siteSpacesIn = (sectionId: string | null) => {
    let presented = levels.get(sectionId);
    if (!presented) {
      const level = sortOrdered(structure.siteSpaces.filter((s) => s.section_id === sectionId));
      const def = effectiveDefault(asOrdered(level))?.id;
      presented = level.map((row) =>
        presentSiteSpace(row, spaceById.get(row.space_id), {
          isDefault: row.id === def,
          sectionPath: sectionId ? (sectionById.get(sectionId)?.path ?? null) : null,
          site,
          urls: siteUrlsCtx,
        }),
      );
      levels.set(sectionId, presented);
    }
    return presented;
  };
  const section = (row: SectionRow) =>
    presentSection(row, siteSpacesIn(row.id), { isDefault: row.id === defaultSection, site, urls: siteUrlsCtx });
  const siteSpace = (row: SiteSpaceRow) => siteSpacesIn(row.section_id).find((s) => s.id === row.id)!;
  const group = (row: GroupRow) =>
    presentGroup(
      row,
      sortOrdered(structure.sections.filter((s) => s.group_id === row.id)).map((s) => section(s)),
    );
  return { section, siteSpace, group, siteSpacesIn };
}

// Sites -----------------------------------------------------------------------------------------

export async function listSites(ctx: Ctx, organizationId: string, query: Static<typeof ListSitesQuery>) {
  const { role } = await requireOrganization(ctx, organizationId, 'read', 'list sites');
  const listing = sitesListing(organizationId, query);
  return paginateSql<SiteRow, ReturnType<typeof presentSite>>(
    ctx.em,
    {
      ...listing,
      keys: [
        { field: 'created_at', kind: 'date' },
        { field: 'id', kind: 'string' },
      ],
    },
    query,
    (rows) => rows.map((r) => presentSite(r, role, siteUrls(ctx.deps))),
  );
}

/** Live spaces of the organization the caller can read, by id; 400 naming the first that is not. */
async function usableSpaces(ctx: Ctx, organizationId: string, spaceIds: string[], field: string) {
  const out: Space[] = [];
  for (const id of spaceIds) {
    const found = await loadSpace(ctx.em, ctx.caller, id).catch((error: unknown) => {
      if (error instanceof HttpError && error.statusCode === 404) return undefined;
      throw error;
    });
    if (!found || found.space.organizationId !== organizationId)
      throw badRequest(`${field}: space ${id} does not exist in this organization`);
    out.push(found.space);
  }
  return out;
}

/**
 * The space a section or site-space publishes: an existing live space of the organization that
 * the caller can read (400 otherwise), or, for `null`, a new empty-page space titled `title`.
 */
export async function spaceForSite(ctx: Ctx, organizationId: string, spaceId: string | null, title: string): Promise<Space> {
  if (spaceId === null) {
    return ctx.em.transactional((tx) =>
      createSpace(tx, {
        organizationId,
        parentId: null,
        title: title.slice(0, 50),
        emoji: '',
        visibility: 'private',
        editMode: 'live',
        defaultLevel: null,
      }),
    );
  }
  return (await usableSpaces(ctx, organizationId, [spaceId], 'spaceId'))[0];
}

export async function createSite(ctx: Ctx, organizationId: string, body: Static<typeof CreateSiteBody>) {
  const { role } = await requireOrganization(ctx, organizationId, 'admin', 'create sites');
  const spaces = await usableSpaces(ctx, organizationId, [...new Set(body.spaces ?? [])], 'spaces');
  const id = newId();
  const sealed = await sealSigningKey(ctx.deps, id, newSigningKey());
  await ctx.em.transactional(async (tx) => {
    await insertSite(tx, {
      id,
      organizationId,
      type: body.type ?? 'basic',
      title: body.title ?? 'Docs site',
      visibility: body.visibility ?? 'public',
      authKeySealed: sealed,
    });
    const taken: string[] = [];
    const positions: { id: string; position: string }[] = [];
    for (const [i, space] of spaces.entries()) {
      const path = uniquePath(slugify(space.title || 'space'), taken);
      taken.push(path);
      const position = lastKey(positions);
      const siteSpaceId = newId();
      positions.push({ id: siteSpaceId, position });
      await insertSiteSpace(tx, {
        id: siteSpaceId,
        siteId: id,
        sectionId: null,
        spaceId: space.id,
        path,
        title: null,
        isDefault: i === 0,
        position,
      });
    }
  });
  return fresh(ctx, organizationId, id, role);
}

export async function getSite(ctx: Ctx, organizationId: string, siteId: string) {
  const { site, role } = await requireSite(ctx, organizationId, siteId);
  return presentSite(site, role, siteUrls(ctx.deps));
}

/** The host of an address, for messages: the custom hostname, or the proxy's host. */
const hostTaken = (address: { hostname?: string | null; proxy?: string | null }) =>
  [address.hostname, address.proxy?.split('/')[0]].filter(Boolean).join(', ');

export async function updateSite(ctx: Ctx, organizationId: string, siteId: string, body: Static<typeof UpdateSiteBody>) {
  const { site, role } = await requireSite(ctx, organizationId, siteId, 'admin', 'change this site');
  const address = { hostname: body.hostname, basename: body.basename, proxy: body.proxy };
  await ctx.em.transactional(async (tx) => {
    if (Object.values(address).some((v) => v)) {
      await lockSiteHosts(tx, address);
      const taken = await siteAddressTaken(tx, organizationId, site.id, address);
      if (taken === 'host') throw conflict(`That host is used by a site of another organization: ${hostTaken(address)}`);
      if (taken) throw conflict(`${taken} is already used by another site`);
    }
    if (body.defaultSiteSection !== undefined) {
      const sections = await sectionsOf(tx, site.id);
      if (!sections.some((s) => s.id === body.defaultSiteSection)) throw badRequest('defaultSiteSection is not a section of this site');
      await setDefaultSection(tx, site.id, body.defaultSiteSection);
    }
    if (body.defaultSiteSpace !== undefined) {
      const sections = await sectionsOf(tx, site.id);
      const level = sections.length ? effectiveDefault(asOrdered(sections))!.id : null;
      const siteSpaces = await siteSpacesOf(tx, site.id, level);
      if (!siteSpaces.some((s) => s.id === body.defaultSiteSpace)) {
        throw badRequest(
          level ? 'defaultSiteSpace is not a site-space of the default section' : 'defaultSiteSpace is not a site-space of this site',
        );
      }
      await setDefaultSiteSpace(tx, site.id, level, body.defaultSiteSpace);
    }
    try {
      await updateSiteRow(tx, site.id, {
        title: body.title,
        visibility: body.visibility,
        basename: body.basename,
        hostname: body.hostname,
        proxy: body.proxy,
        adaptive_content: body.adaptiveContent?.enabled,
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict('hostname, basename or proxy is already used by another site');
      throw error;
    }
  });
  return fresh(ctx, organizationId, site.id, role);
}

export async function deleteSite(ctx: Ctx, organizationId: string, siteId: string) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'admin', 'delete this site');
  await deleteSiteRow(ctx.em, site.id);
}

export async function setPublished(ctx: Ctx, organizationId: string, siteId: string, published: boolean) {
  const { site, role } = await requireSite(ctx, organizationId, siteId, 'admin', published ? 'publish this site' : 'unpublish this site');
  await updateSiteRow(ctx.em, site.id, { published });
  return fresh(ctx, organizationId, site.id, role);
}

// Adaptive schema, visitor authentication, customization ----------------------------------------

export async function getAdaptiveSchema(ctx: Ctx, organizationId: string, siteId: string) {
  const { site } = await requireSite(ctx, organizationId, siteId);
  return presentAdaptiveSchema(site);
}

export async function putAdaptiveSchema(ctx: Ctx, organizationId: string, siteId: string, body: Static<typeof AdaptiveSchemaBody>) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'admin', 'change the adaptive schema of this site');
  const problem = adaptiveSchemaProblem(body.jsonSchema);
  if (problem) throw badRequest(problem);
  await updateSiteRow(ctx.em, site.id, { adaptive_schema: body.jsonSchema, adaptive_schema_updated_at: new Date() });
  return presentAdaptiveSchema((await siteById(ctx.em, organizationId, site.id))!);
}

export async function getPublishingAuth(ctx: Ctx, organizationId: string, siteId: string) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'admin', 'read the visitor authentication settings of this site');
  return presentPublishingAuth(site, await openSigningKey(ctx.deps, site));
}

export async function updatePublishingAuth(ctx: Ctx, organizationId: string, siteId: string, body: Static<typeof PublishingAuthBody>) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'admin', 'change the visitor authentication settings of this site');
  await updateSiteRow(ctx.em, site.id, { fallback_url: body.fallbackURL, logout_url: body.logoutURL });
  const updated = (await siteById(ctx.em, organizationId, site.id))!;
  return presentPublishingAuth(updated, await openSigningKey(ctx.deps, updated));
}

/** A new signing key: visitor tokens signed with the previous one stop working at once. */
export async function regeneratePublishingAuth(ctx: Ctx, organizationId: string, siteId: string) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'admin', 'regenerate the visitor signing key of this site');
  const key = newSigningKey();
  await updateSiteRow(ctx.em, site.id, { auth_key_sealed: await sealSigningKey(ctx.deps, site.id, key) });
  return presentPublishingAuth((await siteById(ctx.em, organizationId, site.id))!, key);
}

function presentCustomization(site: SiteRow) {
  return {
    ...effectiveCustomization(site.customization as JsonObject, site.title),
    ...(site.customization_updated_at ? { updatedAt: new Date(site.customization_updated_at).toISOString() } : {}),
  };
}

export async function getCustomization(ctx: Ctx, organizationId: string, siteId: string) {
  const { site } = await requireSite(ctx, organizationId, siteId);
  return presentCustomization(site);
}

/** `replace`: the input becomes the stored customization (PUT); otherwise it is merged into it (PATCH). */
export async function changeCustomization(
  ctx: Ctx,
  organizationId: string,
  siteId: string,
  input: Static<typeof CustomizationInput>,
  replace: boolean,
) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'admin', 'customize this site');
  const { updatedAt: _ignored, ...given } = input as JsonObject;
  const stored = replace ? mergeCustomization({}, given) : mergeCustomization(site.customization as JsonObject, given);
  await updateSiteRow(ctx.em, site.id, { customization: stored, customization_updated_at: new Date() });
  return presentCustomization((await siteById(ctx.em, organizationId, site.id))!);
}

// The published site -----------------------------------------------------------------------------

/**
 * The Published site for a member (everything) or for a share key (a published share-link site):
 * the site, its structure (sections and groups, or root site-spaces) and customizations.
 */
export async function getPublishedSite(ctx: Ctx, organizationId: string, siteId: string, shareKey?: string) {
  const { site, role, viaShareKey } = await siteReader(ctx, organizationId, siteId, shareKey);
  const all = await loadStructure(ctx.em, site.id);
  const structure = viaShareKey ? structureForVisitor(all) : all;
  const p = await structurePresenter(ctx, site, structure, role ?? undefined);
  let tree;
  if (structure.sections.length > 0) {
    const items = sortOrdered([
      ...structure.groups
        .filter((g) => !viaShareKey || structure.sections.some((s) => s.group_id === g.id))
        .map((g) => ({ id: g.id, position: g.position, out: p.group(g) })),
      ...structure.sections.filter((s) => !s.group_id).map((s) => ({ id: s.id, position: s.position, out: p.section(s) })),
    ]);
    tree = { type: 'sections' as const, structure: items.map((i) => i.out) };
  } else {
    tree = { type: 'siteSpaces' as const, structure: p.siteSpacesIn(null) };
  }
  return {
    object: 'published-content-site' as const,
    site: presentSite(site, role, siteUrls(ctx.deps)),
    structure: tree,
    customizations: { site: presentCustomization(site), siteSpaces: {} },
    scripts: [],
  };
}
