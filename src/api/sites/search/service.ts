import type { Static } from 'typebox';
import { conditionalDocuments, searchSpace, sectionsMatching, type SearchHit, type SectionText } from '../../../db/search.ts';
import type { SiteSpaceRow } from '../../../db/sites.ts';
import { splitSections } from '../../../domain/content/markdown.ts';
import { encodeCursor } from '../../../domain/cursor.ts';
import { effectiveDefault } from '../../../domain/sites/order.ts';
import type { Ctx } from '../../context.ts';
import { badRequest } from '../../errors.ts';
import { DEFAULT_LIMIT } from '../../pagination.ts';
import { visibleMarkdown } from '../../content/service.ts';
import { presentSearchHit, sectionKey } from '../../search/present.ts';
import { decodeOffset, hitFacts } from '../../search/service.ts';
import { publishedReader } from '../site-access.ts';
import { asOrdered, readerStructure, type SiteStructure } from '../structure.ts';
import { groupBySpace } from './present.ts';
import type { SiteSearchBody, SiteSearchQuery } from './schemas.ts';

/**
 * Search of a published site: the current content of the site-spaces in scope (those the reader
 * sees), through each space's search index. Pages from every space are ranked together, a page of
 * the ranking is cut (the cursor is the offset in it), and its pages are answered grouped by space.
 *
 * The index holds pages as written. A site visitor reads them with the `{% if %}` branches their
 * claims exclude removed, so for a visitor the pages of the cut whose markdown holds a tag are
 * checked again against the markdown as they read it (`visibleHits`): at most `limit` pages, each
 * through the linear conditionalMarkdown and splitSections, their texts matched in one statement.
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
  // A visitor's cut as they may read it: pages whose visible text does not match are left out
  // (and not counted), the others keep the ranking's order and are numbered again.
  const visible = ctx.caller.visitor ? await visibleHits(ctx, bySpace, slice, body.query, ctx.caller.visitor.claims) : undefined;
  const shown = (visible ? slice.flatMap((f) => visible.hits.get(pageKey(f)) ?? []) : slice).map((f, i) => ({
    ...f,
    rank: offset + i + 1,
  }));

  const pages = [];
  for (const [spaceId, siteSpace] of bySpace) {
    const mine = shown.filter((f) => f.spaceId === spaceId);
    if (mine.length === 0) continue;
    const facts = await hitFacts(
      ctx,
      spaceId,
      siteSpace.revision_id,
      mine.map((f) => f.hit.page_id),
      body.query,
    );
    // The sections matching on their own, of the pages checked again, are those of the visible text.
    if (visible) {
      for (const f of mine) {
        if (!visible.checked.has(pageKey(f))) continue;
        for (const key of [...facts.matched]) if (key.startsWith(sectionKey(f.hit.page_id, ''))) facts.matched.delete(key);
        for (const s of f.hit.sections)
          if (visible.own.has(sectionKey(pageKey(f), s.id))) facts.matched.add(sectionKey(f.hit.page_id, s.id));
      }
    }
    for (const f of mine) pages.push({ spaceId, ...presentSearchHit(f.hit, f.rank, facts, ctx.deps.config.publicUrl, spaceId) });
  }
  pages.sort((a, b) => a.rank - b.rank);
  const titles = new Map([...bySpace.values()].map((s) => [s.space_id, s.space_title]));
  const more = offset + slice.length < total && slice.length === limit;
  return {
    items: groupBySpace(pages, titles),
    // Pages of this cut left out for the visitor are not counted. Those further in the ranking are
    // not checked (bounded work: at most `limit` pages a request), so a visitor's count may still
    // include later pages that only hidden text matches, found out (and left out) when reached.
    count: total - (visible?.dropped ?? 0),
    ...(more ? { next: { page: encodeCursor([offset + slice.length]) } } : {}),
  };
}

type Found = { spaceId: string; hit: SearchHit };

const pageKey = (f: Found) => `${f.spaceId}/${f.hit.page_id}`;

/**
 * The hits of a cut as a visitor with these claims may read them. The pages whose markdown holds
 * conditional content (`{%`; their markdown read in one query, the others' never leaves the
 * database) are split again into sections from the markdown as the visitor reads it
 * (content/service.ts `visibleMarkdown`, as page reads): a hit section that is no longer there
 * (by id) or whose visible text no longer matches is dropped, the others are answered with their
 * visible heading and text and ranked on them; a page left without sections is kept only when its
 * title matches (with an empty section, as the index holds for a page without intro). Matching
 * is the index's own (`sectionsMatching`: one statement for every text of the cut). A page the
 * site-space's revision does not hold (an index not yet caught up) is dropped. The pages kept keep
 * their place in the ranking (it was the index's); `dropped` counts those left out.
 */
async function visibleHits(ctx: Ctx, bySpace: Map<string, SiteSpaceRow>, slice: Found[], query: string, claims: Record<string, unknown>) {
  const hits = new Map<string, Found | null>(slice.map((f) => [pageKey(f), f]));
  const checked = new Set<string>();
  const own = new Set<string>();
  if (slice.length === 0) return { hits, checked, own, dropped: 0 };
  const revisionOf = (f: Found) => bySpace.get(f.spaceId)!.revision_id;
  const spaceOf = new Map([...bySpace.values()].map((s) => [s.revision_id, s.space_id]));
  const documents = await conditionalDocuments(
    ctx.em,
    slice.map(revisionOf),
    slice.map((f) => f.hit.page_id),
  );
  const held = new Set<string>();
  const markdownOf = new Map<string, string>();
  for (const d of documents) {
    const key = `${spaceOf.get(d.revision_id)}/${d.page_id}`;
    held.add(key);
    if (d.markdown !== null) markdownOf.set(key, d.markdown);
  }
  for (const f of slice) if (!held.has(pageKey(f))) hits.set(pageKey(f), null);
  if (markdownOf.size === 0) return { hits, checked, own, dropped: [...hits.values()].filter((h) => h === null).length };

  const visible = visibleMarkdown(claims);
  // Per page checked: its hit sections still there, then one text of the page title alone.
  const texts: SectionText[] = [];
  const plans: { f: Found; sections: { id: string; title: string; body: string }[] }[] = [];
  for (const f of slice) {
    const markdown = markdownOf.get(pageKey(f));
    if (markdown === undefined) continue;
    checked.add(pageKey(f));
    const byId = new Map(splitSections(visible(markdown)).map((s) => [s.id, s]));
    const sections = f.hit.sections.flatMap((s) => {
      const now = byId.get(s.id);
      return now ? [{ id: s.id, title: now.title, body: now.body }] : [];
    });
    plans.push({ f, sections });
    for (const s of sections) texts.push({ pageTitle: f.hit.page_title, title: s.title, body: s.body });
    texts.push({ pageTitle: f.hit.page_title, title: '', body: '' });
  }
  const results = await sectionsMatching(ctx.em, query, texts);
  let at = 0;
  for (const { f, sections } of plans) {
    const kept: SearchHit['sections'] = [];
    for (const s of sections) {
      const match = results[at++];
      if (!match.matches) continue;
      kept.push({ ...s, rank: match.rank });
      if (match.own) own.add(sectionKey(pageKey(f), s.id));
    }
    const title = results[at++];
    if (kept.length === 0 && title.matches) kept.push({ id: '', title: '', body: '', rank: title.rank });
    kept.sort((a, b) => b.rank - a.rank);
    hits.set(pageKey(f), kept.length === 0 ? null : { ...f, hit: { ...f.hit, rank: kept[0].rank, sections: kept } });
  }
  return { hits, checked, own, dropped: [...hits.values()].filter((h) => h === null).length };
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
