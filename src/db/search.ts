import { setImmediate as nextTurn } from 'node:timers/promises';
import { sql, type Expression, type RawBuilder } from 'kysely';
import { db } from './kysely.ts';
import type { Em } from './orm.ts';
import { inChunks } from '../domain/chunks.ts';
import { documentHash, loadDocuments, loadPageMap, tokenHash } from './content.ts';
import { allPaths, type PageMap } from '../domain/content/tree.ts';
import { splitSections } from '../domain/content/markdown.ts';

/*
 * Full-text pieces Kysely has no builder for, as `sql` fragments. The index is built with the
 * 'simple' text-search configuration (no stemming, no stop words), written into the SQL text as a
 * constant so that the planner matches the expression index on page titles.
 */

/** `query` in web-search syntax ("phrases", -excluded, or) as a tsquery. */
function webSearchQuery(query: string): RawBuilder<string> {
  return sql<string>`websearch_to_tsquery('simple', ${query})`;
}

/** How well a section matches: `ts_rank` of its stored tsvector (page title A, heading B, text C) against the query. */
function sectionRank(tsv: Expression<unknown>, query: Expression<unknown>): RawBuilder<number> {
  return sql<number>`ts_rank(${tsv}, ${query})`;
}

/** Whether a tsvector matches a tsquery (`@@`). */
function matches(vector: Expression<unknown>, query: Expression<unknown>): RawBuilder<boolean> {
  return sql<boolean>`${vector} @@ ${query}`;
}

/** The tsvector of a page title alone: the expression `search_section_title_idx` indexes (for rows with section_id ''). */
function titleVector(title: Expression<unknown>): RawBuilder<string> {
  return sql<string>`to_tsvector('simple', ${title})`;
}

/** The tsvector of a section's own heading and text, without its page's title (not indexed: read for a few pages only). */
function ownTextVector(title: Expression<unknown>, body: Expression<unknown>): RawBuilder<string> {
  return sql<string>`to_tsvector('simple', ${title} || ' ' || ${body})`;
}

/** A list bound as one text[] parameter (`= any(…)`): thousands of ids take one parameter, not one each. */
function textList(values: string[]): RawBuilder<string[]> {
  return sql<string[]>`${values}::text[]`;
}

/** Index rows per insert statement: seven parameters a row, well below PostgreSQL's 65,535 a statement. */
const INSERT_CHUNK = 2000;

/**
 * Milliseconds of parsing after which the index pauses (`IndexOptions.pause`): the worker that
 * indexes also runs other jobs' workflow and activity tasks (the next merge), which would
 * otherwise wait for every page of a large write to be parsed.
 */
const PARSE_SLICE_MS = 10;

/** Gives the event loop a turn: the pause of an index that is not told otherwise. */
const nextTurnOnly = async () => {
  await nextTurn();
};

/**
 * The full-text index of a space's current revision: one row per page section, with a generated
 * tsvector and a GIN index. It is updated in the same transaction that moves the space to a new
 * revision, touching only the pages whose text, title or path changed.
 */
async function reindexSpace(em: Em, spaceId: string, before: PageMap | null, after: PageMap, pause: () => Promise<void>): Promise<void> {
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
    await db(em)
      .deleteFrom('search_section')
      .where('space_id', '=', spaceId)
      .where('page_id', '=', (eb) => eb.fn.any(textList(stale)))
      .execute();
  }
  // A thousand pages at a time: their texts, sections and rows are never all in memory at once.
  let written = 0;
  await inChunks(fresh, 1000, async (ids) => {
    const texts = await loadDocuments(
      em,
      spaceId,
      ids.map((id) => tokenHash(after[id].markdown)).filter((h): h is string => h !== null),
    );
    const rows: {
      space_id: string;
      page_id: string;
      section_id: string;
      page_title: string;
      page_path: string;
      title: string;
      body: string;
    }[] = [];
    let slice = performance.now();
    for (const id of ids) {
      if (performance.now() - slice > PARSE_SLICE_MS) {
        await pause();
        slice = performance.now();
      }
      const page = after[id];
      const hash = tokenHash(page.markdown);
      const markdown = hash === null ? page.markdown : (texts.get(hash) ?? '');
      const sections = splitSections(markdown);
      const path = newPaths.get(id) ?? page.slug;
      const row = { space_id: spaceId, page_id: id, page_title: page.title, page_path: path };
      if (!sections.some((s) => s.id === '')) rows.push({ ...row, section_id: '', title: '', body: '' });
      for (const section of sections) rows.push({ ...row, section_id: section.id, title: section.title, body: section.body });
    }
    written += rows.length;
    await inChunks(rows, INSERT_CHUNK, async (chunk) => {
      await pause();
      await db(em)
        .insertInto('search_section')
        .values(chunk)
        .onConflict((oc) =>
          oc.columns(['space_id', 'page_id', 'section_id']).doUpdateSet((eb) => ({
            page_title: eb.ref('excluded.page_title'),
            page_path: eb.ref('excluded.page_path'),
            title: eb.ref('excluded.title'),
            body: eb.ref('excluded.body'),
          })),
        )
        .execute();
    });
  });
  if (written + stale.length > 2000) {
    await pause();
    await settleSearchIndex(em, written + stale.length);
  }
}

/**
 * After a large write of `changed` index rows. Its entries wait in the GIN indexes' pending lists
 * (up to `gin_pending_list_limit`, 4 MB by default, each) until a vacuum or a later insert moves
 * them into the index, and every search reads those lists whole meanwhile: they are moved now.
 * Statistics go stale when the write is large against the whole table (a first big import into a
 * young installation): the planner could then stop using the index. Otherwise autovacuum keeps
 * them, and a merge does not pay for analysing the table.
 */
export async function settleSearchIndex(em: Em, changed: number): Promise<void> {
  // The table's GIN indexes, from the system catalog, each cleaned by PostgreSQL's function for it
  // (allowed to the index's owner only: skipped for a role that is not, as vacuum then does it).
  await sql`select gin_clean_pending_list(i.indexrelid) from pg_index i
      join pg_class c on c.oid = i.indexrelid join pg_am am on am.oid = c.relam
     where i.indrelid = 'search_section'::regclass and am.amname = 'gin' and pg_has_role(c.relowner, 'USAGE')`.execute(db(em));
  // The planner's row estimate of the table, from the system catalog (not an entity of the schema).
  const { rows } = await sql<{
    rows: number;
  }>`select reltuples::float8 as rows from pg_class where oid = 'search_section'::regclass`.execute(db(em));
  // ANALYZE is a utility statement Kysely has no builder for.
  if (changed > Math.max(rows[0]?.rows ?? 0, 0)) await sql`analyze search_section`.execute(db(em));
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
 * Whether the space's search index reflects its current revision already (or the space is gone):
 * a plain read, no lock and no write, so that an index job that has nothing to do costs one query.
 */
export async function searchIndexIsCurrent(em: Em, spaceId: string): Promise<boolean> {
  const row = await db(em)
    .selectFrom('space as s')
    .leftJoin('search_state as st', 'st.space_id', 's.id')
    .select(['s.revision_id as current', 'st.revision_id as indexed'])
    .where('s.id', '=', spaceId)
    .executeTakeFirst();
  return !row || row.current === null || row.indexed === row.current;
}

export interface IndexOptions {
  hint?: IndexHint;
  /**
   * Awaited between slices of the work (every 10 ms of parsing, before each statement that writes
   * rows); by default it gives the event loop a turn. An index job passes one that steps aside for
   * the foreground work of its process (src/lib/foreground.ts).
   */
  pause?: () => Promise<void>;
}

/**
 * Brings the space's search index to its current revision, from the revision it reflects
 * (`search_state`), in the caller's transaction; the `search_state` row is locked first, so
 * concurrent writers and index jobs apply their diffs one after the other. Returns whether it
 * changed anything. Run it after the space's `revision_id` has moved, in the same transaction.
 */
export async function syncSearchIndex(em: Em, spaceId: string, options: IndexOptions = {}): Promise<boolean> {
  const { hint, pause = nextTurnOnly } = options;
  await db(em)
    .insertInto('search_state')
    .values({ space_id: spaceId, revision_id: null })
    .onConflict((oc) => oc.column('space_id').doNothing())
    .execute();
  const state = await db(em)
    .selectFrom('search_state as st')
    .innerJoin('space as s', 's.id', 'st.space_id')
    .select(['st.revision_id as indexed', 's.revision_id as current'])
    .where('st.space_id', '=', spaceId)
    .forUpdate('st')
    .executeTakeFirst();
  if (!state || state.current === null || state.indexed === state.current) return false;
  const known = hint !== undefined && hint.from === state.indexed;
  await pause();
  const before = known ? hint.before : state.indexed === null ? null : await loadPageMap(em, state.indexed, false);
  await pause();
  const after = known ? hint.after : await loadPageMap(em, state.current, false);
  await reindexSpace(em, spaceId, before, after, pause);
  await db(em).updateTable('search_state').set({ revision_id: state.current }).where('space_id', '=', spaceId).execute();
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
  // The two scans for candidates take the query as the expression itself, not from `q`: the planner
  // folds it into a constant and judges from the column's statistics how many sections match it. A
  // word on most pages is then read in table order until the window is full (a few thousand rows,
  // about 10 ms) instead of the index building its bitmap of every match first (168,000 entries and
  // 50 ms or more for the commonest word of 100,000 pages), and a rarer word still takes the index.
  const tsquery = webSearchQuery(query);
  // Pages are ranked on narrow rows first; section texts are read only for the pages returned.
  const rows = await db(em)
    // The query, parsed once for the sections of the pages returned.
    .with('q', (qc) => qc.selectNoFrom(tsquery.as('query')))
    // At most `window` sections whose text (with their page's title) matches…
    .with('text_hits', (qc) =>
      qc
        .selectFrom('search_section as s')
        .select((eb) => ['s.page_id', sectionRank(eb.ref('s.tsv'), tsquery).as('rank')])
        .where('s.space_id', '=', spaceId)
        .where((eb) => matches(eb.ref('s.tsv'), tsquery))
        .limit(window),
    )
    // …and as many pages whose title matches (the first section of each page carries its title).
    .with('title_hits', (qc) =>
      qc
        .selectFrom('search_section as s')
        .select((eb) => ['s.page_id', sectionRank(eb.ref('s.tsv'), tsquery).as('rank')])
        .where('s.space_id', '=', spaceId)
        // A constant rather than a parameter: the predicate of the partial title index.
        .where('s.section_id', '=', sql.lit(''))
        .where((eb) => eb(titleVector(eb.ref('s.page_title')), '@@', tsquery))
        .limit(window),
    )
    .with('candidates', (qc) =>
      qc
        .selectFrom('text_hits')
        .select(['page_id', 'rank'])
        .unionAll(qc.selectFrom('title_hits').select(['page_id', 'rank'])),
    )
    .with('pages', (qc) =>
      qc
        .selectFrom('candidates')
        .select((eb) => ['page_id', eb.fn.max('rank').as('rank')])
        .groupBy('page_id'),
    )
    .with('top', (qc) =>
      qc
        .selectFrom('pages')
        .select((eb) => ['page_id', 'rank', eb.fn.countAll<string>().over().as('total')])
        .orderBy('rank', 'desc')
        .orderBy('page_id')
        .limit(limit)
        .offset(offset),
    )
    .selectFrom('top')
    .crossJoin('q')
    // The matching sections of each page returned, best first, as one JSON array.
    .crossJoinLateral((eb) =>
      eb
        .selectFrom('search_section as s')
        .select((sb) => {
          const rank = sectionRank(sb.ref('s.tsv'), sb.ref('q.query'));
          return [
            sb.fn.min('s.page_title').as('page_title'),
            sb.fn.min('s.page_path').as('page_path'),
            sb.fn
              .agg<SearchHit['sections']>('jsonb_agg', [
                sb.fn('jsonb_build_object', [
                  sql.lit('id'),
                  's.section_id',
                  sql.lit('title'),
                  's.title',
                  sql.lit('body'),
                  's.body',
                  sql.lit('rank'),
                  rank,
                ]),
              ])
              .orderBy(rank, 'desc')
              .as('sections'),
          ];
        })
        .where('s.space_id', '=', spaceId)
        .whereRef('s.page_id', '=', 'top.page_id')
        .whereRef('s.tsv', '@@', 'q.query')
        .as('sec'),
    )
    .select(['top.page_id', 'top.rank', 'top.total', 'sec.page_title', 'sec.page_path', 'sec.sections'])
    .orderBy('top.rank', 'desc')
    .orderBy('top.page_id')
    .execute();
  return { hits: rows as SearchHit[], total: rows.length ? Number(rows[0].total) : 0 };
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
    const rows = await db(em)
      .selectFrom('revision_page')
      .select([
        'page_id',
        'parent_id',
        // Fields of the jsonb page meta, as text (the entity types `meta` as opaque JSON).
        sql<string | null>`meta->>'title'`.as('title'),
        sql<string | null>`meta->>'description'`.as('description'),
      ])
      .where('revision_id', '=', revisionId)
      .where('page_id', '=', (eb) => eb.fn.any(textList([...new Set(frontier.map((f) => f.page))])))
      .execute();
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
  if (pageIds.length === 0) return [];
  return db(em)
    .selectFrom('search_section')
    .select(['page_id', 'section_id'])
    .where('space_id', '=', spaceId)
    .where('page_id', '=', (eb) => eb.fn.any(textList(pageIds)))
    .where((eb) => eb(ownTextVector(eb.ref('title'), eb.ref('body')), '@@', webSearchQuery(query)))
    .execute();
}

/** The tsvector `search_section.tsv` is generated as (page title A, heading B, text C), for texts that are not stored. */
function sectionVector(pageTitle: Expression<unknown>, title: Expression<unknown>, body: Expression<unknown>): RawBuilder<string> {
  return sql<string>`setweight(to_tsvector('simple', ${pageTitle}), 'A') || setweight(to_tsvector('simple', ${title}), 'B') || setweight(to_tsvector('simple', ${body}), 'C')`;
}

/** Lists of equal length side by side as rows `t(<columns>)` numbered from 1 (`n`): one parameter a list. */
function rowsOf<C extends string>(columns: readonly C[], lists: string[][]) {
  const arrays = sql.join(lists.map((values) => textList(values)));
  const names = sql.join([...columns, 'n'].map((c) => sql.id(c)));
  return sql<Record<C, string> & { n: string }>`unnest(${arrays}) with ordinality`.as<'t'>(sql`t(${names})`);
}

/** A text of a section as some reader sees it: its page's title, heading and text, as the index row holds them. */
export interface SectionText {
  pageTitle: string;
  title: string;
  body: string;
}

/** How a `SectionText` meets a query: `matches` as the index's rows do, `own` as `matchingSections` does, `rank` as `searchSpace` ranks. */
export interface SectionMatch {
  matches: boolean;
  own: boolean;
  rank: number;
}

/**
 * How each of the texts meets `query`, in one statement, with the index's own text-search
 * semantics (the `tsv` column's expression, `websearch_to_tsquery` and `ts_rank` with the same
 * configuration): for sections whose text is not the one indexed (what a site visitor may read of
 * a page, api/sites/search). A text of the page title alone (empty heading and text) tells
 * whether the title matches. Answers in the order of `texts`.
 */
export async function sectionsMatching(em: Em, query: string, texts: SectionText[]): Promise<SectionMatch[]> {
  if (texts.length === 0) return [];
  const rows = await db(em)
    .with('q', (qc) => qc.selectNoFrom(webSearchQuery(query).as('query')))
    .selectFrom(
      rowsOf(['page_title', 'title', 'body'], [texts.map((x) => x.pageTitle), texts.map((x) => x.title), texts.map((x) => x.body)]),
    )
    .crossJoin('q')
    .select((eb) => {
      const tsv = sectionVector(eb.ref('t.page_title'), eb.ref('t.title'), eb.ref('t.body'));
      return [
        't.n',
        matches(tsv, eb.ref('q.query')).as('matches'),
        matches(ownTextVector(eb.ref('t.title'), eb.ref('t.body')), eb.ref('q.query')).as('own'),
        sectionRank(tsv, eb.ref('q.query')).as('rank'),
      ];
    })
    .orderBy('t.n')
    .execute();
  return rows.map((r) => ({ matches: r.matches, own: r.own, rank: Number(r.rank) }));
}

/**
 * Of pages of revisions (`revisionIds[i]`, `pageIds[i]`), in one query: those the revision holds,
 * each with its markdown when the markdown holds a `{%` tag (null otherwise: the text of a page
 * without conditional content does not leave the database).
 */
export async function conditionalDocuments(
  em: Em,
  revisionIds: string[],
  pageIds: string[],
): Promise<{ revision_id: string; page_id: string; markdown: string | null }[]> {
  if (pageIds.length === 0) return [];
  return db(em)
    .selectFrom(rowsOf(['revision_id', 'page_id'], [revisionIds, pageIds]))
    .innerJoin('revision_page as rp', (join) => join.onRef('rp.revision_id', '=', 't.revision_id').onRef('rp.page_id', '=', 't.page_id'))
    .innerJoin('revision as r', 'r.id', 'rp.revision_id')
    .leftJoin('page_document as d', (join) => join.onRef('d.space_id', '=', 'r.space_id').onRef('d.hash', '=', 'rp.document_hash'))
    .select((eb) => ['rp.revision_id', 'rp.page_id', holdingTag(eb.ref('d.markdown')).as('markdown')])
    .execute();
}

/** The text when it holds a Liquid tag opening (`{%`), else null. */
function holdingTag(text: Expression<unknown>): RawBuilder<string | null> {
  return sql<string | null>`case when strpos(${text}, '{%') > 0 then ${text} end`;
}
