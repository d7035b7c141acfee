import type { Em } from './orm.ts';
import { inChunks, sql, textArray } from './sql.ts';
import { documentHash, loadDocuments, loadPageMap, tokenHash } from './content.ts';
import { allPaths, type PageMap } from '../domain/content/tree.ts';
import { splitSections } from '../domain/content/markdown.ts';

/**
 * The full-text index of a space's current revision: one row per page section, with a generated
 * tsvector and a GIN index. It is updated in the same transaction that moves the space to a new
 * revision, touching only the pages whose text, title or path changed.
 */
async function reindexSpace(em: Em, spaceId: string, before: PageMap | null, after: PageMap): Promise<void> {
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
  // A thousand pages at a time: their texts, sections and rows are never all in memory at once.
  let written = 0;
  await inChunks(fresh, 1000, async (ids) => {
    const texts = await loadDocuments(
      em,
      spaceId,
      ids.map((id) => tokenHash(after[id].markdown)).filter((h): h is string => h !== null),
    );
    const rows: { page_id: string; section_id: string; page_title: string; page_path: string; title: string; body: string }[] = [];
    for (const id of ids) {
      const page = after[id];
      const hash = tokenHash(page.markdown);
      const markdown = hash === null ? page.markdown : (texts.get(hash) ?? '');
      const sections = splitSections(markdown);
      const path = newPaths.get(id) ?? page.slug;
      if (!sections.some((s) => s.id === ''))
        rows.push({ page_id: id, section_id: '', page_title: page.title, page_path: path, title: '', body: '' });
      for (const section of sections)
        rows.push({
          page_id: id,
          section_id: section.id,
          page_title: page.title,
          page_path: path,
          title: section.title,
          body: section.body,
        });
    }
    written += rows.length;
    await sql(
      em,
      `insert into search_section (space_id, page_id, section_id, page_title, page_path, title, body)
       select ?, x.page_id, x.section_id, x.page_title, x.page_path, x.title, x.body
         from jsonb_to_recordset(?::jsonb) as x(page_id text, section_id text, page_title text, page_path text, title text, body text)
       on conflict (space_id, page_id, section_id) do update set page_title = excluded.page_title, page_path = excluded.page_path,
         title = excluded.title, body = excluded.body`,
      [spaceId, JSON.stringify(rows)],
    );
  });
  // Statistics go stale when a write is large against the whole table (a first big import into a
  // young installation): the planner could then stop using the index. Otherwise autovacuum keeps
  // them, and a merge does not pay for analysing the table.
  if (written + stale.length > 2000) {
    const [{ rows }] = await sql<{ rows: number }>(
      em,
      "select reltuples::float8 as rows from pg_class where oid = 'search_section'::regclass",
    );
    if (written + stale.length > Math.max(rows, 0)) await sql(em, 'analyze search_section');
  }
}

/** What a writer already knows of the change it made: the diff then needs no page map loaded. */
export interface IndexHint {
  /** The revision the writer's `before` pages are (null: the space had none). */
  from: string | null;
  before: PageMap | null;
  /** The pages of the space's current revision, as the writer wrote them. */
  after: PageMap;
}

/**
 * Brings the space's search index to its current revision, from the revision it reflects
 * (`search_state`), in the caller's transaction; the `search_state` row is locked first, so
 * concurrent writers and index jobs apply their diffs one after the other. Returns whether it
 * changed anything. Run it after the space's `revision_id` has moved, in the same transaction.
 */
export async function syncSearchIndex(em: Em, spaceId: string, hint?: IndexHint): Promise<boolean> {
  await sql(em, 'insert into search_state (space_id, revision_id) values (?, null) on conflict (space_id) do nothing', [spaceId]);
  const [state] = await sql<{ indexed: string | null; current: string | null }>(
    em,
    `select st.revision_id as indexed, s.revision_id as current
       from search_state st join space s on s.id = st.space_id
      where st.space_id = ? for update of st`,
    [spaceId],
  );
  if (!state || state.current === null || state.indexed === state.current) return false;
  const known = hint !== undefined && hint.from === state.indexed;
  const before = known ? hint.before : state.indexed === null ? null : await loadPageMap(em, state.indexed, false);
  const after = known ? hint.after : await loadPageMap(em, state.current, false);
  await reindexSpace(em, spaceId, before, after);
  await sql(em, 'update search_state set revision_id = ? where space_id = ?', [state.current, spaceId]);
  return true;
}

export interface SearchHit {
  page_id: string;
  page_title: string;
  page_path: string;
  rank: number;
  sections: { id: string; title: string; body: string; rank: number }[];
}

/**
 * Pages of the space matching `query`, best first, each with its matching sections.
 *
 * At most `window` matching sections are ranked, plus every page whose title matches: the work of
 * a query whose terms are on most pages stays bounded (a result window, as search engines have),
 * while a query with fewer matches is ranked whole. `total` counts the pages ranked, so it is exact
 * while the text matches fit in the window.
 */
export async function searchSpace(
  em: Em,
  spaceId: string,
  query: string,
  offset: number,
  limit: number,
  window: number,
): Promise<{ hits: SearchHit[]; total: number }> {
  // Pages are ranked on narrow rows first; section texts are read only for the pages returned.
  const rows = await sql<SearchHit & { total: string }>(
    em,
    `with q as (select websearch_to_tsquery('simple', ?) as query),
     candidates as (
       (select s.page_id, ts_rank(s.tsv, q.query) as rank
          from search_section s, q
         where s.space_id = ? and s.tsv @@ q.query
         limit ?)
       union all
       (select s.page_id, ts_rank(s.tsv, q.query) as rank
          from search_section s, q
         where s.space_id = ? and s.section_id = '' and to_tsvector('simple', s.page_title) @@ q.query
         limit ?)
     ),
     pages as (select page_id, max(rank) as rank from candidates group by page_id),
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
    [query, spaceId, window, spaceId, window, limit, offset, spaceId],
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

/**
 * Each of the pages with its ancestors in the revision (depth 0 is the page itself): one primary-key
 * lookup per level, so the cost follows the depth of the tree, whatever the planner believes of a
 * revision that was just written (a recursive join could hash the whole revision on each level).
 */
export async function pageChains(em: Em, revisionId: string, pageIds: string[]): Promise<HitChainRow[]> {
  const out: HitChainRow[] = [];
  let frontier = pageIds.map((id) => ({ hit: id, page: id }));
  for (let depth = 0; frontier.length > 0 && depth <= 100; depth++) {
    const rows = await sql<{ page_id: string; parent_id: string | null; title: string | null; description: string | null }>(
      em,
      `select page_id, parent_id, meta->>'title' as title, meta->>'description' as description
         from revision_page where revision_id = ? and page_id = any(?::text[])`,
      [revisionId, textArray([...new Set(frontier.map((f) => f.page))])],
    );
    const byId = new Map(rows.map((r) => [r.page_id, r]));
    const next: typeof frontier = [];
    for (const { hit, page } of frontier) {
      const row = byId.get(page);
      if (!row) continue;
      out.push({ hit, depth, title: row.title, description: row.description });
      if (row.parent_id) next.push({ hit, page: row.parent_id });
    }
    frontier = next;
  }
  return out;
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
