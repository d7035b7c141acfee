import type { Static } from 'typebox';
import {
  deleteSiteSpace as deleteSiteSpaceRow,
  insertSiteSpace,
  sectionsOf,
  setDefaultSiteSpace,
  siteSpacePathsIn,
  siteSpacesListing,
  siteSpacesOf,
  updateSiteSpace as updateSiteSpaceRow,
  type SiteRow,
  type SiteSpaceRow,
  lockSiteStructure,
} from '../../../db/sites.ts';
import { transaction, type Em } from '../../../db/orm.ts';
import { slugify } from '../../../domain/content/tree.ts';
import { newId } from '../../../domain/ids.ts';
import { conditionProblem } from '../../../domain/sites/conditions.ts';
import { effectiveDefault, lastKey, moveKey, OrderError, uniquePath } from '../../../domain/sites/order.ts';
import type { Ctx } from '../../context.ts';
import { badRequest, conflict, notFound } from '../../errors.ts';
import { paginate } from '../../pagination.ts';
import { spaceForSite } from '../published-spaces.ts';
import { requireSite, requireStructureRole, siteReader } from '../site-access.ts';
import { loadStructure, structureForVisitor, structurePresenter } from '../structure.ts';
import type { AddSiteSpaceBody, ListSiteSpacesQuery, MoveSiteSpaceBody, UpdateSiteSpaceBody } from './schemas.ts';

/**
 * Site-spaces: a space published on a site at a path, at the root (a site without sections) or in
 * a section. Each level keeps its order and exactly one default; deleting the default promotes
 * the first remaining one. A deleted space's site-spaces are hidden until it is restored.
 */

const STRUCTURE = 'change the structure of this site';

async function presentOne(ctx: Ctx, site: SiteRow, id: string, role: Parameters<typeof structurePresenter>[3]) {
  const structure = await loadStructure(ctx.em, site.id);
  const row = structure.siteSpaces.find((s) => s.id === id);
  if (!row) throw notFound('Site space');
  return (await structurePresenter(ctx, site, structure, role)).siteSpace(row);
}

async function requireSiteSpace(em: Em, site: SiteRow, id: string): Promise<SiteSpaceRow> {
  const found = (await siteSpacesOf(em, site.id)).find((s) => s.id === id);
  if (!found) throw notFound('Site space');
  return found;
}

export async function listSiteSpaces(ctx: Ctx, organizationId: string, siteId: string, query: Static<typeof ListSiteSpacesQuery>) {
  const { site, role, viaShareKey } = await siteReader(ctx, organizationId, siteId, query.shareKey);
  const all = await loadStructure(ctx.em, site.id);
  // A share-key holder has no claims: conditional site-spaces (and those of hidden sections) are left out.
  const structure = viaShareKey ? structureForVisitor(all) : all;
  const shown = new Set(structure.siteSpaces.map((s) => s.id));
  const p = await structurePresenter(ctx, site, structure, role ?? undefined);
  return paginate(ctx.em, siteSpacesListing(ctx.em, site.id, query.default, viaShareKey ? [...shown] : undefined), query, (rows) =>
    rows.map((r) => p.siteSpace(r)),
  );
}

/** Adds a space to a site: in `sectionId`, else in the default section, else at the root. */
export async function addSiteSpace(ctx: Ctx, organizationId: string, siteId: string, body: Static<typeof AddSiteSpaceBody>) {
  const { site, role } = await requireSite(ctx, organizationId, siteId, 'edit', STRUCTURE);
  const draft = body.draft ?? false;
  // An editor adds drafts to a site that has content; its first content, and anything live, needs `create`.
  requireStructureRole(role, !draft || (await siteSpacesOf(ctx.em, site.id)).length === 0, STRUCTURE);
  const space = await spaceForSite(ctx, organizationId, body.spaceId, body.title ?? 'New space');
  const id = newId();
  await transaction(ctx.em, async (tx) => {
    await lockSiteStructure(tx, site.id);
    const sections = await sectionsOf(tx, site.id);
    let sectionId: string | null = null;
    if (body.sectionId !== undefined) {
      if (!sections.some((s) => s.id === body.sectionId)) throw notFound('Site section');
      sectionId = body.sectionId;
    } else if (sections.length > 0) {
      sectionId = effectiveDefault(sections.map((s) => ({ ...s, isDefault: s.is_default })))!.id;
    }
    const level = await siteSpacesOf(tx, site.id, sectionId);
    const path = uniquePath(slugify(body.title ?? (space.title || 'space')), await siteSpacePathsIn(tx, site.id, sectionId));
    await insertSiteSpace(tx, {
      id,
      siteId: site.id,
      sectionId,
      spaceId: space.id,
      path,
      title: body.title ?? null,
      isDefault: level.length === 0,
      position: lastKey(level),
      draft,
    });
  });
  return presentOne(ctx, site, id, role);
}

export async function updateSiteSpace(
  ctx: Ctx,
  organizationId: string,
  siteId: string,
  siteSpaceId: string,
  body: Static<typeof UpdateSiteSpaceBody>,
) {
  const { site, role } = await requireSite(ctx, organizationId, siteId, 'edit', STRUCTURE);
  const row = await requireSiteSpace(ctx.em, site, siteSpaceId);
  requireStructureRole(role, !row.draft || body.draft === false, STRUCTURE);
  if (typeof body.condition === 'string') {
    const problem = conditionProblem(body.condition);
    if (problem) throw badRequest(problem);
  }
  if (body.spaceId !== undefined) await spaceForSite(ctx, organizationId, body.spaceId, '');
  if (body.path !== undefined && body.path !== row.path && (await siteSpacePathsIn(ctx.em, site.id, row.section_id)).includes(body.path)) {
    throw conflict(`path "${body.path}" is already used by another site-space at this level`);
  }
  await updateSiteSpaceRow(ctx.em, row.id, {
    path: body.path,
    condition: body.condition,
    hidden: body.hidden,
    space_id: body.spaceId,
    draft: body.draft,
  });
  return presentOne(ctx, site, row.id, role);
}

export async function deleteSiteSpace(ctx: Ctx, organizationId: string, siteId: string, siteSpaceId: string) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'create', STRUCTURE);
  const row = await requireSiteSpace(ctx.em, site, siteSpaceId);
  await transaction(ctx.em, async (tx) => {
    await lockSiteStructure(tx, site.id);
    await deleteSiteSpaceRow(tx, row.id);
    if (row.is_default) await setDefaultSiteSpace(tx, site.id, row.section_id, null);
  });
}

export async function moveSiteSpace(
  ctx: Ctx,
  organizationId: string,
  siteId: string,
  siteSpaceId: string,
  body: Static<typeof MoveSiteSpaceBody>,
) {
  return sortSiteSpace(ctx, organizationId, siteId, siteSpaceId, {
    before: body.position?.before?.siteSpace,
    after: body.position?.after?.siteSpace,
  });
}

/** Moves a site-space among the site-spaces of its section (or the root), before or after one of them, or to the end. */
export async function sortSiteSpace(
  ctx: Ctx,
  organizationId: string,
  siteId: string,
  siteSpaceId: string,
  position: { before?: string; after?: string },
) {
  const { site, role } = await requireSite(ctx, organizationId, siteId, 'create', STRUCTURE);
  const row = await requireSiteSpace(ctx.em, site, siteSpaceId);
  const siblings = await siteSpacesOf(ctx.em, site.id, row.section_id);
  let key: string;
  try {
    key = moveKey(siblings, row.id, position);
  } catch (error) {
    if (error instanceof OrderError) throw badRequest(error.message);
    throw error;
  }
  await updateSiteSpaceRow(ctx.em, row.id, { position: key });
  return presentOne(ctx, site, row.id, role);
}
