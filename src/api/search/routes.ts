import type { FastifyInstance } from 'fastify';
import type { Static } from 'typebox';
import { searchSpace, type SearchHit } from '../../db/search.ts';
import { sql } from '../../db/sql.ts';
import { searchTerms } from '../../domain/content/search-terms.ts';
import { snippet } from '../../domain/content/markdown.ts';
import { decodeCursor, encodeCursor } from '../../domain/cursor.ts';
import { resolveTarget } from '../content/target.ts';
import { badRequest } from '../errors.ts';
import { DEFAULT_LIMIT } from '../pagination.ts';
import { errors } from '../schemas.ts';
import { SearchParams, SearchQuery, SearchResults } from './schemas.ts';

/** Length of the extract of a section shown in a result. */
const SNIPPET_LENGTH = 200;

/**
 * Full-text search of a space's current content. The index (`search_section`) always reflects the
 * current revision, so content of change requests is found only once merged. Results are pages,
 * best first, each with its matching sections; the cursor carries the offset in the ranking.
 */
export async function searchRoutes(app: FastifyInstance) {
  const { publicUrl } = app.deps.config;

  app.get('/v1/spaces/:spaceId/search', {
    schema: {
      tags: ['space content'],
      summary: 'Search the current content of a space',
      params: SearchParams,
      querystring: SearchQuery,
      response: { 200: SearchResults, ...errors(403, 404) },
    },
  }, async (request) => {
    const { em } = request;
    const query = request.query as Static<typeof SearchQuery>;
    const target = await resolveTarget(request);
    const spaceId = target.space.id;
    const limit = query.limit ?? DEFAULT_LIMIT;
    let offset = 0;
    if (query.page !== undefined) {
      const values = decodeCursor(query.page, ['number']);
      if (!values || !Number.isInteger(values[0]) || (values[0] as number) < 0) {
        throw badRequest('page is not a valid page cursor: pass `next.page` of the previous answer');
      }
      offset = values[0] as number;
    }
    const { hits, total } = await searchSpace(em, spaceId, query.query, offset, limit);
    if (hits.length === 0) return { items: [], count: total };

    const pageIds = JSON.stringify(hits.map((h) => h.page_id));
    const [chain, own] = await Promise.all([
      // Each hit with its ancestors in the current revision (depth 0 is the page itself).
      sql<{ hit: string; depth: number; title: string | null; description: string | null }>(
        em,
        `with recursive up as (
           select page_id as hit, page_id, parent_id, meta, 0 as depth from revision_page
            where revision_id = ? and page_id in (select jsonb_array_elements_text(?::jsonb))
           union all
           select up.hit, rp.page_id, rp.parent_id, rp.meta, up.depth + 1
             from revision_page rp join up on rp.page_id = up.parent_id and rp.revision_id = ? where up.depth < 100
         ) select hit, depth, meta->>'title' as title, meta->>'description' as description from up`,
        [target.revisionId, pageIds, target.revisionId],
      ),
      // Sections whose own heading or text match (others matched only through their page's title).
      sql<{ page_id: string; section_id: string }>(
        em,
        `select page_id, section_id from search_section
          where space_id = ? and page_id in (select jsonb_array_elements_text(?::jsonb))
            and to_tsvector('simple', title || ' ' || body) @@ websearch_to_tsquery('simple', ?)`,
        [spaceId, pageIds, query.query],
      ),
    ]);
    const ancestors = new Map<string, { depth: number; title: string }[]>();
    const descriptions = new Map<string, string>();
    for (const row of chain) {
      if (row.depth === 0) descriptions.set(row.hit, row.description ?? '');
      else (ancestors.get(row.hit) ?? ancestors.set(row.hit, []).get(row.hit)!).push({ depth: row.depth, title: row.title ?? '' });
    }
    const matched = new Set(own.map((r) => `${r.page_id}\u0000${r.section_id}`));
    const terms = searchTerms(query.query);

    const items = hits.map((hit: SearchHit, i) => {
      const app = `${publicUrl}/app/spaces/${spaceId}/pages/${hit.page_id}`;
      const ownSections = hit.sections.filter((s) => matched.has(`${hit.page_id}\u0000${s.id}`));
      const resultType = ownSections.length > 0 ? ('section' as const) : ('page' as const);
      // A page found by its title alone shows its best section.
      const sections = resultType === 'section' ? ownSections : hit.sections.slice(0, 1);
      return {
        id: hit.page_id,
        title: hit.page_title,
        description: descriptions.get(hit.page_id) ?? '',
        path: hit.page_path,
        score: Number(hit.rank),
        rank: offset + i + 1,
        resultType,
        sections: sections.map((s) => ({
          id: s.id,
          title: s.title || hit.page_title,
          path: s.id ? `${hit.page_path}#${s.id}` : hit.page_path,
          score: Number(s.rank),
          resultType,
          body: snippet(s.body, terms, SNIPPET_LENGTH),
          urls: { app: s.id ? `${app}#${encodeURIComponent(s.id)}` : app },
        })),
        ancestors: (ancestors.get(hit.page_id) ?? []).sort((a, b) => b.depth - a.depth).map((a) => ({ title: a.title })),
        urls: { app },
      };
    });
    return {
      items,
      count: total,
      ...(offset + hits.length < total ? { next: { page: encodeCursor([offset + hits.length]) } } : {}),
    };
  });
}
