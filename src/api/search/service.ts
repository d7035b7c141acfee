import type { Static } from 'typebox';
import { matchingSections, pageChains, searchSpace } from '../../db/search.ts';
import { decodeCursor, encodeCursor } from '../../domain/cursor.ts';
import { searchTerms } from '../../domain/content/search-terms.ts';
import { resolveTarget } from '../content/service.ts';
import type { Ctx } from '../context.ts';
import { badRequest } from '../errors.ts';
import { DEFAULT_LIMIT } from '../pagination.ts';
import { presentSearchHit, sectionKey, type HitFacts } from './present.ts';
import type { SearchQuery } from './schemas.ts';

/**
 * Full-text search of a space's current content. The index (`search_section`) always reflects the
 * current revision, so content of change requests is found only once merged. Results are pages,
 * best first, each with its matching sections; the cursor carries the offset in the ranking.
 */
export async function searchContent(ctx: Ctx, spaceId: string, query: Static<typeof SearchQuery>) {
  const target = await resolveTarget(ctx, { spaceId });
  const limit = query.limit ?? DEFAULT_LIMIT;
  const offset = decodeOffset(query.page);
  const { hits, total } = await searchSpace(ctx.em, target.space.id, query.query, offset, limit, ctx.deps.config.searchWindow);
  if (hits.length === 0) return { items: [], count: total };
  const facts = await hitFacts(
    ctx,
    target.space.id,
    target.revisionId,
    hits.map((h) => h.page_id),
    query.query,
  );
  return {
    items: hits.map((hit, i) => presentSearchHit(hit, offset + i + 1, facts, ctx.deps.config.publicUrl, target.space.id)),
    count: total,
    ...(offset + hits.length < total ? { next: { page: encodeCursor([offset + hits.length]) } } : {}),
  };
}

export function decodeOffset(cursor: string | undefined): number {
  if (cursor === undefined) return 0;
  const values = decodeCursor(cursor, ['number']);
  if (!values || !Number.isInteger(values[0]) || (values[0] as number) < 0) {
    throw badRequest('page is not a valid page cursor: pass `next.page` of the previous answer');
  }
  return values[0] as number;
}

/** Descriptions and ancestors of the pages found, and which of their sections match on their own. */
export async function hitFacts(ctx: Ctx, spaceId: string, revisionId: string, pageIds: string[], query: string): Promise<HitFacts> {
  const [chain, own] = await Promise.all([pageChains(ctx.em, revisionId, pageIds), matchingSections(ctx.em, spaceId, pageIds, query)]);
  const ancestors = new Map<string, { depth: number; title: string }[]>();
  const descriptions = new Map<string, string>();
  for (const row of chain) {
    if (row.depth === 0) descriptions.set(row.hit, row.description ?? '');
    else (ancestors.get(row.hit) ?? ancestors.set(row.hit, []).get(row.hit)!).push({ depth: row.depth, title: row.title ?? '' });
  }
  return { descriptions, ancestors, matched: new Set(own.map((r) => sectionKey(r.page_id, r.section_id))), terms: searchTerms(query) };
}
