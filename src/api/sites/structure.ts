import {
  groupsOf,
  sectionsOf,
  siteSpacesOf,
  spacesByIds,
  type GroupRow,
  type SectionRow,
  type SiteRow,
  type SiteSpaceRow,
} from '../../db/sites.ts';
import type { Em } from '../../db/orm.ts';
import type { Role } from '../../domain/roles.ts';
import { sharedCache } from '../../domain/lru.ts';
import { entryBytes } from '../../domain/sizeof.ts';
import { conditionContext, conditionHolds, type VisitorClaims } from '../../domain/sites/conditions.ts';
import { liveStructure } from '../../domain/sites/drafts.ts';
import { effectiveDefault, sortOrdered } from '../../domain/sites/order.ts';
import { contentRoles } from '../access.ts';
import type { Ctx, VisitorGrant } from '../context.ts';
import { urlsFor } from '../object-urls.ts';
import { presentSpace } from '../spaces/present.ts';
import { presentGroup, presentSection } from './sections/present.ts';
import { siteUrls } from './site-access.ts';
import { presentSiteSpace } from './spaces/present.ts';

/** The structure of a site (sections, section groups, site-spaces) as members and share-key holders see it. */

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
 * The structure a visitor sees: the live structure (with `drafts`, a preview's, drafts too),
 * sections and site-spaces whose condition holds for their claims (none for a share-key holder),
 * and with `spaceIds` only the site-spaces of those spaces (what a visitor's token grants).
 * Members see everything.
 */
export function structureForVisitor(
  whole: SiteStructure,
  claims: VisitorClaims = { signed: {}, unsigned: {} },
  spaceIds?: string[],
  drafts = false,
): SiteStructure {
  const structure = drafts ? whole : liveStructure(whole);
  const context = conditionContext(claims);
  const granted = spaceIds ? new Set(spaceIds) : undefined;
  const sections = structure.sections.filter((s) => conditionHolds(s.condition, context));
  const shown = new Set(sections.map((s) => s.id));
  return {
    sections,
    groups: structure.groups,
    siteSpaces: structure.siteSpaces.filter(
      (p) =>
        (p.section_id === null || shown.has(p.section_id)) && conditionHolds(p.condition, context) && (!granted || granted.has(p.space_id)),
    ),
  };
}

/** Rows as the ordering rules of src/domain/sites/order.ts take them. */
export const asOrdered = <T extends { is_default: boolean; position: string; id: string }>(rows: T[]) =>
  rows.map((r) => ({ ...r, isDefault: r.is_default }));

/**
 * Presents sections (and the site-spaces in them) or root site-spaces, with the spaces as the
 * caller sees them: every space in one query, the caller's roles on them in one more.
 */
export async function structurePresenter(ctx: Ctx, site: SiteRow, structure: SiteStructure, viewerRole: Role | null | undefined) {
  const spaceIds = [...new Set(structure.siteSpaces.map((s) => s.space_id))];
  const spaces = await spacesByIds(ctx.em, spaceIds);
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

/** A visitor grant's claims as conditions read them: the signed claims, and the unsigned ones under `unsigned`. */
export function grantClaims(visitor: VisitorGrant | undefined): VisitorClaims {
  if (!visitor) return { signed: {}, unsigned: {} };
  const { unsigned, ...signed } = visitor.claims;
  const isObject = typeof unsigned === 'object' && unsigned !== null && !Array.isArray(unsigned);
  return { signed, unsigned: isObject ? (unsigned as Record<string, unknown>) : {} };
}

/**
 * Sites' structures as readers read them, each under the structure version of the site row it was
 * read after: triggers bump the version at any change of sections, groups or site-spaces, so an
 * entry is never answered for a later version. Within the `readerStructures` share of CACHE_MEMORY.
 */
const readerStructures = sharedCache<string, { version: string; structure: SiteStructure }>('readerStructures', (value, key) =>
  entryBytes(key, value),
);

async function structureAt(em: Em, site: SiteRow): Promise<SiteStructure> {
  const cached = readerStructures().get(site.id);
  if (cached?.version === site.structure_version) return cached.structure;
  const structure = await loadStructure(em, site.id);
  readerStructures().set(site.id, { version: site.structure_version, structure });
  return structure;
}

/**
 * The structure a published-site reader sees: for a member, the live structure (with `drafts`,
 * everything); for a visitor, what their claims allow of the live structure (drafts too for a
 * preview's token that shows them).
 */
export async function readerStructure(
  ctx: Ctx,
  reader: { site: SiteRow; asVisitor: boolean; visitor?: VisitorGrant },
  options: { drafts?: boolean } = {},
) {
  const all = await structureAt(ctx.em, reader.site);
  if (!reader.asVisitor) return options.drafts ? all : liveStructure(all);
  const { visitor } = reader;
  return structureForVisitor(all, grantClaims(visitor), visitor?.spaceIds, !!(visitor?.preview && visitor.drafts));
}
