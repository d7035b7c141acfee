import type { Static } from 'typebox';
import { searchSpace, type SearchHit } from '../../../db/search.ts';
import type { SiteSpaceRow } from '../../../db/sites.ts';
import { encodeCursor } from '../../../domain/cursor.ts';
import { effectiveDefault } from '../../../domain/sites/order.ts';
import type { Ctx } from '../../context.ts';
import { badRequest } from '../../errors.ts';
import { DEFAULT_LIMIT } from '../../pagination.ts';
import { presentSearchHit } from '../../search/present.ts';
import { decodeOffset, hitFacts } from '../../search/service.ts';
import { publishedReader } from '../site-access.ts';
import { asOrdered, readerStructure, type SiteStructure } from '../structure.ts';
import { groupBySpace } from './present.ts';
import type { SiteSearchBody, SiteSearchQuery } from './schemas.ts';

/**
 * Search of a published site: the current content of the site-spaces in scope (those the reader
 * sees), through each space's search index. Pages from every space are ranked together, a page of
 * the ranking is cut (the cursor is the offset in it), and its pages are answered grouped by space.
 */

type Body = Static<typeof SiteSearchBody>;

export async function searchSite(ctx: Ctx, organizationId: string, siteId: string, body: Body, query: Static<typeof SiteSearchQuery>) {
  const reader = await publishedReader(ctx, organizationId, siteId);
  const structure = await readerStructure(ctx, reader);
  const inScope = siteSpacesInScope(structure, body);
  const limit = query.limit ?? DEFAULT_LIMIT;
  const offset = decodeOffset(query.page);

  // One site-space per space: a space published twice is searched once.
  const bySpace = new Map<string, SiteSpaceRow>();
  for (const siteSpace of inScope) if (!bySpace.has(siteSpace.space_id)) bySpace.set(siteSpace.space_id, siteSpace);
  const found: { spaceId: string; hit: SearchHit }[] = [];
  let total = 0;
  for (const spaceId of bySpace.keys()) {
    const { hits, total: n } = await searchSpace(ctx.em, spaceId, body.query, 0, offset + limit, ctx.deps.config.searchWindow);
    total += n;
    for (const hit of hits) found.push({ spaceId, hit });
  }
  found.sort((a, b) => Number(b.hit.rank) - Number(a.hit.rank) || a.spaceId.localeCompare(b.spaceId));
  const slice = found.slice(offset, offset + limit);

  const pages = [];
  for (const [spaceId, siteSpace] of bySpace) {
    const mine = slice.map((f, i) => ({ ...f, rank: offset + i + 1 })).filter((f) => f.spaceId === spaceId);
    if (mine.length === 0) continue;
    const facts = await hitFacts(
      ctx,
      spaceId,
      siteSpace.revision_id,
      mine.map((f) => f.hit.page_id),
      body.query,
    );
    for (const f of mine) pages.push({ spaceId, ...presentSearchHit(f.hit, f.rank, facts, ctx.deps.config.publicUrl, spaceId) });
  }
  pages.sort((a, b) => a.rank - b.rank);
  const titles = new Map([...bySpace.values()].map((s) => [s.space_id, s.space_title]));
  const more = offset + slice.length < total && slice.length === limit;
  return {
    items: groupBySpace(pages, titles),
    count: total,
    ...(more ? { next: { page: encodeCursor([offset + slice.length]) } } : {}),
  };
}

/**
 * The site-spaces a search covers. `all`: every one the reader sees. `default`: the default
 * site-space of each section (or of the site), with the current one, or only the current one, or
 * the defaults without it (`restrictTo`). `specific`: those given. The deprecated `mode: current`
 * is `default` from `siteSpaceId`.
 */
export function siteSpacesInScope(structure: SiteStructure, body: Body): SiteSpaceRow[] {
  const visible = structure.siteSpaces;
  const byId = new Map(visible.map((s) => [s.id, s]));
  const known = (id: string, field: string) => {
    const found = byId.get(id);
    if (!found) throw badRequest(`${field}: site-space ${id} does not exist in this site`);
    return found;
  };
  const scope =
    body.scope ??
    (body.mode === 'specific' || (body.mode === undefined && body.siteSpaceIds)
      ? { mode: 'specific' as const, siteSpaceIds: body.siteSpaceIds ?? [] }
      : body.mode === 'current'
        ? { mode: 'default' as const, currentSiteSpace: body.siteSpaceId }
        : { mode: 'all' as const });
  if (scope.mode === 'all') return visible;
  if (scope.mode === 'specific') {
    if (scope.siteSpaceIds.length === 0) throw badRequest('siteSpaceIds: at least one site-space is needed');
    return scope.siteSpaceIds.map((id) => known(id, 'siteSpaceIds'));
  }
  if (scope.restrictTo && !scope.currentSiteSpace) throw badRequest('scope.restrictTo needs scope.currentSiteSpace');
  const current = scope.currentSiteSpace ? known(scope.currentSiteSpace, 'currentSiteSpace') : undefined;
  const levels = new Set<string | null>(visible.map((s) => s.section_id));
  const defaults = [...levels].flatMap((level) => {
    const chosen = effectiveDefault(asOrdered(visible.filter((s) => s.section_id === level)));
    return chosen ? [chosen] : [];
  });
  // The current site-space stands in for the default of its own level.
  const others = defaults.filter((s) => !current || s.section_id !== current.section_id);
  if (scope.restrictTo === 'currentSiteSpace') return [current!];
  if (scope.restrictTo === 'otherSiteSpaces') return others;
  return current ? [current, ...others] : defaults;
}
