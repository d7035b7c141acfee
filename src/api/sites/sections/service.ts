import type { Static } from 'typebox';
import {
  deleteGroup as deleteGroupRow,
  deleteSection as deleteSectionRow,
  groupsListing,
  groupsOf,
  insertGroup,
  insertSection,
  insertSiteSpace,
  sectionsListing,
  sectionsOf,
  setDefaultSection,
  setDefaultSiteSpace,
  setSectionsGroup,
  siteSpaceIdsAtRoot,
  siteSpacePathsIn,
  siteSpacesOf,
  updateGroup as updateGroupRow,
  updateSection as updateSectionRow,
  updateSiteSpace,
  type GroupRow,
  type SectionRow,
  type SiteRow,
  lockSiteStructure,
} from '../../../db/sites.ts';
import { isUniqueViolation } from '../../../db/health.ts';
import { transaction, type Em } from '../../../db/orm.ts';
import { slugify } from '../../../domain/content/tree.ts';
import { newId } from '../../../domain/ids.ts';
import { conditionProblem } from '../../../domain/sites/conditions.ts';
import { lastKey, moveKey, OrderError, uniquePath } from '../../../domain/sites/order.ts';
import type { Ctx } from '../../context.ts';
import { badRequest, conflict, notFound } from '../../errors.ts';
import { paginate } from '../../pagination.ts';
import { spaceForSite } from '../published-spaces.ts';
import { requireSite, requireStructureRole, siteReader } from '../site-access.ts';
import { loadStructure, structureForVisitor, structurePresenter } from '../structure.ts';
import type {
  AddGroupBody,
  AddSectionBody,
  ListSectionsQuery,
  MoveGroupBody,
  MoveSectionBody,
  UpdateGroupBody,
  UpdateSectionBody,
} from './schemas.ts';
import type { ListQuery } from '../../schemas.ts';

/**
 * Sections and section groups of a site. Sections and groups share one order at the top of the
 * site (a grouped section keeps its key, which orders it inside its group). Once sections exist
 * exactly one is the default; deleting it promotes the first remaining one.
 */

const STRUCTURE = 'change the structure of this site';

async function presentOneSection(ctx: Ctx, site: SiteRow, sectionId: string, role: Parameters<typeof structurePresenter>[3]) {
  const structure = await loadStructure(ctx.em, site.id);
  const row = structure.sections.find((s) => s.id === sectionId);
  if (!row) throw notFound('Site section');
  return (await structurePresenter(ctx, site, structure, role)).section(row);
}

async function presentOneGroup(ctx: Ctx, site: SiteRow, groupId: string, role: Parameters<typeof structurePresenter>[3]) {
  const structure = await loadStructure(ctx.em, site.id);
  const row = structure.groups.find((g) => g.id === groupId);
  if (!row) throw notFound('Site section group');
  return (await structurePresenter(ctx, site, structure, role)).group(row);
}

async function requireSection(em: Em, site: SiteRow, sectionId: string): Promise<SectionRow> {
  const found = (await sectionsOf(em, site.id)).find((s) => s.id === sectionId);
  if (!found) throw notFound('Site section');
  return found;
}

async function requireGroup(em: Em, site: SiteRow, groupId: string): Promise<GroupRow> {
  const found = (await groupsOf(em, site.id)).find((g) => g.id === groupId);
  if (!found) throw notFound('Site section group');
  return found;
}

function checkCondition(condition: string | null | undefined) {
  if (typeof condition === 'string') {
    const problem = conditionProblem(condition);
    if (problem) throw badRequest(problem);
  }
}

/** Top-level order keys of the site: sections and groups together. */
async function topLevel(em: Em, siteId: string) {
  const [sections, groups] = [await sectionsOf(em, siteId), await groupsOf(em, siteId)];
  return [...sections, ...groups].map((r) => ({ id: r.id, position: r.position }));
}

function keyOrBadRequest(run: () => string): string {
  try {
    return run();
  } catch (error) {
    if (error instanceof OrderError) throw badRequest(error.message);
    throw error;
  }
}

// Sections --------------------------------------------------------------------------------------

export async function listSections(ctx: Ctx, organizationId: string, siteId: string, query: Static<typeof ListSectionsQuery>) {
  const { site, role, viaShareKey } = await siteReader(ctx, organizationId, siteId, query.shareKey);
  const all = await loadStructure(ctx.em, site.id);
  // A share-key holder has no claims: conditional sections and site-spaces are left out for them.
  const structure = viaShareKey ? structureForVisitor(all) : all;
  const byId = new Map(structure.sections.map((s) => [s.id, s]));
  const p = await structurePresenter(ctx, site, structure, role ?? undefined);
  return paginate(ctx.em, sectionsListing(ctx.em, site.id, viaShareKey ? [...byId.keys()] : undefined), query, (rows) =>
    rows.map((r) => p.section(byId.get(r.id)!)),
  );
}

/**
 * Adds a section holding one space. The first section of a site whose spaces sit at its root
 * takes them in a default section of their own first, so nothing published disappears.
 */
export async function addSection(ctx: Ctx, organizationId: string, siteId: string, body: Static<typeof AddSectionBody>) {
  const { site, role } = await requireSite(ctx, organizationId, siteId, 'edit', STRUCTURE);
  const draft = body.draft ?? false;
  requireStructureRole(role, !draft, STRUCTURE);
  if (body.siteSectionGroupId !== undefined) await requireGroup(ctx.em, site, body.siteSectionGroupId);
  const space = await spaceForSite(ctx, organizationId, body.spaceId, body.title ?? 'New section');
  const id = newId();
  await transaction(ctx.em, async (tx) => {
    await lockSiteStructure(tx, site.id);
    const sections = await sectionsOf(tx, site.id);
    const order = await topLevel(tx, site.id);
    const paths = sections.map((s) => s.path);
    if (sections.length === 0) {
      const rootSpaces = await siteSpacePathsIn(tx, site.id, null);
      if (rootSpaces.length > 0) {
        // Wrapping what readers see in a section changes it: not for a draft's author alone.
        requireStructureRole(role, true, STRUCTURE);
        const wrapId = newId();
        const path = uniquePath(slugify(site.title), paths);
        paths.push(path);
        const position = lastKey(order);
        order.push({ id: wrapId, position });
        await insertSection(tx, {
          id: wrapId,
          siteId: site.id,
          group_id: null,
          title: site.title,
          description: null,
          path,
          condition: null,
          icon: null,
          is_default: true,
          position,
          draft: false,
        });
        for (const row of await siteSpaceIdsAtRoot(tx, site.id)) await updateSiteSpace(tx, row, { section_id: wrapId });
      }
    }
    const title = body.title ?? (space.title.length >= 2 ? space.title.slice(0, 128) : 'Section');
    const path = uniquePath(slugify(title), paths);
    await insertSection(tx, {
      id,
      siteId: site.id,
      group_id: body.siteSectionGroupId ?? null,
      title,
      description: null,
      path,
      condition: null,
      icon: body.icon ?? null,
      is_default: order.length === 0,
      position: lastKey(order),
      draft,
    });
    await insertSiteSpace(tx, {
      id: newId(),
      siteId: site.id,
      sectionId: id,
      spaceId: space.id,
      path: uniquePath(slugify(space.title || 'space'), []),
      title: null,
      isDefault: true,
      position: lastKey([]),
      draft: false,
    });
  });
  return presentOneSection(ctx, site, id, role);
}

export async function updateSection(
  ctx: Ctx,
  organizationId: string,
  siteId: string,
  sectionId: string,
  body: Static<typeof UpdateSectionBody>,
) {
  const { site, role } = await requireSite(ctx, organizationId, siteId, 'edit', STRUCTURE);
  const section = await requireSection(ctx.em, site, sectionId);
  requireStructureRole(role, !section.draft || body.draft === false, STRUCTURE);
  checkCondition(body.condition);
  if (body.siteSectionGroupId) await requireGroup(ctx.em, site, body.siteSectionGroupId);
  await transaction(ctx.em, async (tx) => {
    await lockSiteStructure(tx, site.id);
    if (body.path !== undefined && body.path !== section.path && (await sectionsOf(tx, site.id)).some((s) => s.path === body.path)) {
      throw conflict(`path "${body.path}" is already used by another section of this site`);
    }
    if (body.defaultSiteSpace !== undefined) {
      if (!(await siteSpacesOf(tx, site.id, section.id)).some((s) => s.id === body.defaultSiteSpace)) {
        throw badRequest('defaultSiteSpace is not a site-space of this section');
      }
      await setDefaultSiteSpace(tx, site.id, section.id, body.defaultSiteSpace);
    }
    try {
      await updateSectionRow(tx, section.id, {
        title: body.title,
        path: body.path,
        condition: body.condition,
        icon: body.icon,
        description: body.description,
        group_id: body.siteSectionGroupId,
        draft: body.draft,
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(`path "${body.path}" is already used by another section of this site`);
      throw error;
    }
  });
  return presentOneSection(ctx, site, section.id, role);
}

export async function deleteSection(ctx: Ctx, organizationId: string, siteId: string, sectionId: string) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'create', STRUCTURE);
  const section = await requireSection(ctx.em, site, sectionId);
  await transaction(ctx.em, async (tx) => {
    await lockSiteStructure(tx, site.id);
    await deleteSectionRow(tx, section.id);
    if (section.is_default) await setDefaultSection(tx, site.id, null);
  });
}

export async function moveSection(
  ctx: Ctx,
  organizationId: string,
  siteId: string,
  sectionId: string,
  body: Static<typeof MoveSectionBody>,
) {
  return sortTopLevel(
    ctx,
    organizationId,
    siteId,
    { type: 'site-section', id: sectionId },
    {
      before: body.position?.before?.siteSection,
      after: body.position?.after?.siteSection,
    },
  );
}

/**
 * Moves a section or a section group among the site's top level (sections and groups share one
 * order), before or after any of them, or to the end; 404 for an item the site does not have, 400
 * for a neighbour it does not have.
 */
export async function sortTopLevel(
  ctx: Ctx,
  organizationId: string,
  siteId: string,
  item: { type: 'site-section' | 'site-section-group'; id: string },
  position: { before?: string; after?: string },
) {
  const { site, role } = await requireSite(ctx, organizationId, siteId, 'create', STRUCTURE);
  const row = item.type === 'site-section' ? await requireSection(ctx.em, site, item.id) : await requireGroup(ctx.em, site, item.id);
  const siblings = await topLevel(ctx.em, site.id);
  const key = keyOrBadRequest(() => moveKey(siblings, row.id, position));
  if (item.type === 'site-section') {
    await updateSectionRow(ctx.em, row.id, { position: key });
    return presentOneSection(ctx, site, row.id, role);
  }
  await updateGroupRow(ctx.em, row.id, { position: key });
  return presentOneGroup(ctx, site, row.id, role);
}

// Section groups --------------------------------------------------------------------------------

export async function listGroups(ctx: Ctx, organizationId: string, siteId: string, query: Static<typeof ListQuery>) {
  const { site, role } = await requireSite(ctx, organizationId, siteId);
  const structure = await loadStructure(ctx.em, site.id);
  const p = await structurePresenter(ctx, site, structure, role);
  return paginate(ctx.em, groupsListing(ctx.em, site.id), query, (rows) => rows.map((r) => p.group(r)));
}

async function requireSections(em: Em, site: SiteRow, ids: string[]) {
  const sections = await sectionsOf(em, site.id);
  for (const id of ids) if (!sections.some((s) => s.id === id)) throw badRequest(`sections: ${id} is not a section of this site`);
  return sections;
}

export async function addGroup(ctx: Ctx, organizationId: string, siteId: string, body: Static<typeof AddGroupBody>) {
  const { site, role } = await requireSite(ctx, organizationId, siteId, 'edit', STRUCTURE);
  const sectionIds = [...new Set(body.sections ?? [])];
  const draft = body.draft ?? false;
  // Grouping sections moves what readers see, unless the group and every section in it are drafts.
  const sections = await requireSections(ctx.em, site, sectionIds);
  requireStructureRole(role, !draft || sections.some((s) => sectionIds.includes(s.id) && !s.draft), STRUCTURE);
  const id = newId();
  await transaction(ctx.em, async (tx) => {
    await lockSiteStructure(tx, site.id);
    await insertGroup(tx, {
      id,
      site_id: site.id,
      title: body.title,
      icon: body.icon ?? null,
      position: lastKey(await topLevel(tx, site.id)),
      draft,
    });
    await setSectionsGroup(tx, site.id, sectionIds, id);
  });
  return presentOneGroup(ctx, site, id, role);
}

export async function updateGroup(ctx: Ctx, organizationId: string, siteId: string, groupId: string, body: Static<typeof UpdateGroupBody>) {
  const { site, role } = await requireSite(ctx, organizationId, siteId, 'edit', STRUCTURE);
  const group = await requireGroup(ctx.em, site, groupId);
  requireStructureRole(role, !group.draft || body.draft === false, STRUCTURE);
  await updateGroupRow(ctx.em, group.id, { title: body.title, icon: body.icon, draft: body.draft });
  return presentOneGroup(ctx, site, group.id, role);
}

/** Deletes a group; its sections stay, at the top level. */
export async function deleteGroup(ctx: Ctx, organizationId: string, siteId: string, groupId: string) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'create', STRUCTURE);
  const group = await requireGroup(ctx.em, site, groupId);
  await deleteGroupRow(ctx.em, group.id);
}

export async function addSectionToGroup(ctx: Ctx, organizationId: string, siteId: string, groupId: string, sectionId: string) {
  const { site, role } = await requireSite(ctx, organizationId, siteId, 'create', STRUCTURE);
  const group = await requireGroup(ctx.em, site, groupId);
  await requireSections(ctx.em, site, [sectionId]);
  await setSectionsGroup(ctx.em, site.id, [sectionId], group.id);
  return presentOneGroup(ctx, site, group.id, role);
}

export async function removeSectionFromGroup(ctx: Ctx, organizationId: string, siteId: string, groupId: string, sectionId: string) {
  const { site } = await requireSite(ctx, organizationId, siteId, 'create', STRUCTURE);
  await requireGroup(ctx.em, site, groupId);
  const section = await requireSection(ctx.em, site, sectionId);
  if (section.group_id !== groupId) throw notFound('Site section in this group');
  await setSectionsGroup(ctx.em, site.id, [sectionId], null);
}

export async function moveGroup(ctx: Ctx, organizationId: string, siteId: string, groupId: string, body: Static<typeof MoveGroupBody>) {
  return sortTopLevel(
    ctx,
    organizationId,
    siteId,
    { type: 'site-section-group', id: groupId },
    {
      before: body.position?.before?.id,
      after: body.position?.after?.id,
    },
  );
}
