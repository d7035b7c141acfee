import type { Em } from './orm.ts';
import { sql } from './sql.ts';
import { documentHash, loadDocuments, tokenHash } from './content.ts';
import { allPaths, type PageMap } from '../domain/content/tree.ts';
import { splitSections } from '../domain/content/markdown.ts';

/**
 * The full-text index of a space's current revision: one row per page section, with a generated
 * tsvector and a GIN index. It is updated in the same transaction that moves the space to a new
 * revision, touching only the pages whose text, title or path changed.
 */
export async function reindexSpace(em: Em, spaceId: string, before: PageMap | null, after: PageMap): Promise<void> {
  const oldPaths = before ? allPaths(before) : new Map<string, string>();
  const newPaths = allPaths(after);
  const stale: string[] = [];
  const fresh: string[] = [];
  for (const id of Object.keys(after)) {
    const next = after[id];
    const prev = before?.[id];
    const changed =
      !prev ||
      documentHash(prev.markdown) !== documentHash(next.markdown) ||
      prev.title !== next.title ||
      oldPaths.get(id) !== newPaths.get(id) ||
      !!prev.noIndex !== !!next.noIndex;
    if (changed) {
      if (prev) stale.push(id);
      if (!next.noIndex) fresh.push(id);
    }
  }
  if (before) for (const id of Object.keys(before)) if (!after[id]) stale.push(id);
  if (stale.length > 0) {
    await sql(em, 'delete from search_section where space_id = ? and page_id in (select jsonb_array_elements_text(?::jsonb))', [
      spaceId,
      JSON.stringify(stale),
    ]);
  }
  if (fresh.length === 0) return;
  const texts = await loadDocuments(
    em,
    spaceId,
    fresh.map((id) => tokenHash(after[id].markdown)).filter((h): h is string => h !== null),
  );
  const rows: { page_id: string; section_id: string; page_title: string; page_path: string; title: string; body: string }[] = [];
  for (const id of fresh) {
    const page = after[id];
    const hash = tokenHash(page.markdown);
    const markdown = hash === null ? page.markdown : (texts.get(hash) ?? '');
    const sections = splitSections(markdown);
    const path = newPaths.get(id) ?? page.slug;
    if (!sections.some((s) => s.id === ''))
      rows.push({ page_id: id, section_id: '', page_title: page.title, page_path: path, title: '', body: '' });
    for (const section of sections)
      rows.push({ page_id: id, section_id: section.id, page_title: page.title, page_path: path, title: section.title, body: section.body });
  }
  await sql(
    em,
    `insert into search_section (space_id, page_id, section_id, page_title, page_path, title, body)
     select ?, x.page_id, x.section_id, x.page_title, x.page_path, x.title, x.body
       from jsonb_to_recordset(?::jsonb) as x(page_id text, section_id text, page_title text, page_path text, title text, body text)
     on conflict (space_id, page_id, section_id) do update set page_title = excluded.page_title, page_path = excluded.page_path,
       title = excluded.title, body = excluded.body`,
    [spaceId, JSON.stringify(rows)],
  );
  // After a bulk change the planner's statistics would be stale and it could stop using the index.
  if (rows.length + stale.length > 2000) await sql(em, 'analyze search_section');
}

export interface SearchHit {
  page_id: string;
  page_title: string;
  page_path: string;
  rank: number;
  sections: { id: string; title: string; body: string; rank: number }[];
}

/** Pages of the space matching `query`, best first, each with its matching sections. */
export async function searchSpace(
  em: Em,
  spaceId: string,
  query: string,
  offset: number,
  limit: number,
): Promise<{ hits: SearchHit[]; total: number }> {
  // Pages are ranked on narrow rows first; section texts are read only for the pages returned.
  const rows = await sql<SearchHit & { total: string }>(
    em,
    `with q as (select websearch_to_tsquery('simple', ?) as query),
     pages as (
       select s.page_id, max(ts_rank(s.tsv, q.query)) as rank
         from search_section s, q
        where s.space_id = ? and s.tsv @@ q.query
        group by s.page_id
     ),
     top as (
       select page_id, rank, count(*) over () as total from pages order by rank desc, page_id limit ? offset ?
     )
     select top.page_id, top.rank, top.total, sec.page_title, sec.page_path, sec.sections
       from top, q, lateral (
         select min(s.page_title) as page_title, min(s.page_path) as page_path,
                jsonb_agg(jsonb_build_object('id', s.section_id, 'title', s.title, 'body', s.body, 'rank', ts_rank(s.tsv, q.query))
                          order by ts_rank(s.tsv, q.query) desc) as sections
           from search_section s
          where s.space_id = ? and s.page_id = top.page_id and s.tsv @@ q.query
       ) sec
      order by top.rank desc, top.page_id`,
    [query, spaceId, limit, offset, spaceId],
  );
  return { hits: rows, total: rows.length ? Number(rows[0].total) : 0 };
}

/** A search hit's page (depth 0) or one of its ancestors in a revision, with title and description. */
export interface HitChainRow {
  hit: string;
  depth: number;
  title: string | null;
  description: string | null;
}

/** Each of the pages with its ancestors in the revision (depth 0 is the page itself). */
export async function pageChains(em: Em, revisionId: string, pageIds: string[]): Promise<HitChainRow[]> {
  return sql<HitChainRow>(
    em,
    `with recursive up as (
       select page_id as hit, page_id, parent_id, meta, 0 as depth from revision_page
        where revision_id = ? and page_id in (select jsonb_array_elements_text(?::jsonb))
       union all
       select up.hit, rp.page_id, rp.parent_id, rp.meta, up.depth + 1
         from revision_page rp join up on rp.page_id = up.parent_id and rp.revision_id = ? where up.depth < 100
     ) select hit, depth, meta->>'title' as title, meta->>'description' as description from up`,
    [revisionId, JSON.stringify(pageIds), revisionId],
  );
}

/** Sections of the pages whose own heading or text match `query` (others matched only through their page's title). */
export async function matchingSections(
  em: Em,
  spaceId: string,
  pageIds: string[],
  query: string,
): Promise<{ page_id: string; section_id: string }[]> {
  return sql<{ page_id: string; section_id: string }>(
    em,
    `select page_id, section_id from search_section
      where space_id = ? and page_id in (select jsonb_array_elements_text(?::jsonb))
        and to_tsvector('simple', title || ' ' || body) @@ websearch_to_tsquery('simple', ?)`,
    [spaceId, JSON.stringify(pageIds), query],
  );
}
