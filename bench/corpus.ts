/** A deterministic corpus for the content benchmarks: the same pages and queries on every run. */
import GithubSlugger from 'github-slugger';
import { sql as kysely } from 'kysely';
import type { Em, Orm } from '../src/db/orm.ts';
import { db } from '../src/db/kysely.ts';
import { writeRevision } from '../src/db/content.ts';
import { settleSearchIndex, syncSearchIndex } from '../src/db/search.ts';
import { sql } from '../test/support/sql.ts';
import { positionBetween } from '../src/domain/positions.ts';
import { allPaths, type PageMap } from '../src/domain/content/tree.ts';
import type { Section } from '../src/domain/content/search-text.ts';

let seed = 42;
const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648;
const WORDS = Array.from({ length: 4000 }, (_, i) => `w${i.toString(36)}${'xyzqv'[i % 5]}`);
export const word = () => WORDS[Math.floor(random() ** 2 * WORDS.length)];
export const sentence = (n: number) => Array.from({ length: n }, word).join(' ');
export const pageMarkdown = (i: number) =>
  `# Page ${i}\n\n${sentence(40)}.\n\n## Setup ${word()}\n\n${sentence(60)}.\n\n## Usage ${word()}\n\n${sentence(60)}.\n`;

/** `count` document pages, every tenth one top-level and the others under the last of those. */
export function generatePages(count: number, prefix: string): PageMap {
  const pages: PageMap = {};
  let position: string | null = null;
  const parents: string[] = [];
  for (let i = 0; i < count; i++) {
    const id = `${prefix}${i.toString(36).padStart(5, '0')}`;
    const parentId = i % 10 === 0 || parents.length === 0 ? null : parents[parents.length - 1];
    position = positionBetween(position, null);
    pages[id] = { id, parentId, position, type: 'document', title: `Page ${i} ${word()}`, slug: `page-${i}`, markdown: pageMarkdown(i) };
    if (i % 10 === 0) parents.push(id);
  }
  return pages;
}

/**
 * Writes `pages` as the space's next revision and indexes it for search; returns the revision id.
 * `index: 'service'` indexes through `syncSearchIndex` (every page's markdown parsed); `'bulk'`
 * (pages of `generatePages` only) writes the same rows from the pages' known shape
 * (`corpusSearchRows`, checked against the service's rows by test/db/bench-corpus.test.ts) on
 * connections of their own while the revision is written, and records the revision as indexed.
 */
export async function seedSpace(orm: Orm, spaceId: string, pages: PageMap, index: 'service' | 'bulk' = 'service'): Promise<string> {
  return orm.em.fork().transactional(async (em) => {
    // The space's index state, locked first as `syncSearchIndex` locks it: an index job of the
    // space waits for this transaction, then finds the index current.
    await sql(em, 'insert into search_state (space_id, revision_id) values (?, null) on conflict (space_id) do nothing', [spaceId]);
    await sql(em, 'select revision_id from search_state where space_id = ? for update', [spaceId]);
    const rows = index === 'bulk' ? corpusSearchRows(pages) : [];
    const inserted = index === 'bulk' ? bulkIndex(orm, spaceId, rows) : null;
    inserted?.catch(() => undefined); // awaited below; a failure must not go unhandled meanwhile
    const current = (await sql<{ revision_id: string }>(em, 'select revision_id from space where id = ?', [spaceId]))[0].revision_id;
    const revision = await writeRevision(em, { spaceId, parents: [current], type: 'edits', base: null, pages });
    await sql(em, 'update space set revision_id = ? where id = ?', [revision, spaceId]);
    if (inserted === null) await syncSearchIndex(em, spaceId);
    else {
      await inserted;
      await sql(em, 'update search_state set revision_id = ? where space_id = ?', [revision, spaceId]);
      // What `syncSearchIndex` does after a large write.
      await settleSearchIndex(em, rows.length);
    }
    return revision;
  });
}

/**
 * The sections `splitSections` finds in a page written by `pageMarkdown` (headings and plain
 * paragraphs, blocks apart by a blank line), found by splitting the text instead of parsing it.
 * Throws on anything else, so it never stands in for the parser on other markdown.
 */
export function corpusSections(markdown: string): Section[] {
  const slugger = new GithubSlugger();
  slugger.slug('');
  const sections: Section[] = [];
  let current: Section | null = null;
  for (const block of markdown.split('\n\n')) {
    const heading = /^(#{1,6}) ([\w ]+)$/.exec(block);
    if (heading) {
      if (current) sections.push(current);
      current = { id: slugger.slug(heading[2]), title: heading[2], depth: heading[1].length, body: '' };
    } else if (current && current.body === '' && /^[\w ]+\.\n?$/.test(block)) {
      current.body = block.replace(/\s+/g, ' ').trim();
    } else {
      throw new Error(`not a page of the benchmark corpus: ${JSON.stringify(block.slice(0, 80))}`);
    }
  }
  if (current) sections.push(current);
  return sections;
}

/** The search index rows of `pages` (see `reindexSpace` in src/db/search.ts), built by `corpusSections`. */
export function corpusSearchRows(pages: PageMap) {
  const paths = allPaths(pages);
  const rows: { page_id: string; section_id: string; page_title: string; page_path: string; title: string; body: string }[] = [];
  for (const page of Object.values(pages)) {
    if (page.noIndex) continue;
    const sections = corpusSections(page.markdown);
    const row = { page_id: page.id, page_title: page.title, page_path: paths.get(page.id) ?? page.slug };
    if (!sections.some((s) => s.id === '')) rows.push({ ...row, section_id: '', title: '', body: '' });
    for (const section of sections) rows.push({ ...row, section_id: section.id, title: section.title, body: section.body });
  }
  return rows;
}

/** Rows per insert: one array parameter per column, so a chunk is one statement of seven parameters. */
const BULK_CHUNK = 10_000;
/** Connections inserting at once: computing each row's tsvector is the cost, one core per connection. */
const BULK_CONNECTIONS = 2;

type SearchRow = ReturnType<typeof corpusSearchRows>[number];

/** Inserts a space's search rows, chunks spread over `BULK_CONNECTIONS` transactions of their own. */
async function bulkIndex(orm: Orm, spaceId: string, rows: SearchRow[]): Promise<void> {
  const chunks: SearchRow[][] = [];
  for (let i = 0; i < rows.length; i += BULK_CHUNK) chunks.push(rows.slice(i, i + BULK_CHUNK));
  await Promise.all(
    Array.from({ length: BULK_CONNECTIONS }, (_, worker) =>
      orm.em.fork().transactional(async (em) => {
        for (let i = worker; i < chunks.length; i += BULK_CONNECTIONS) await insertSearchRows(em, spaceId, chunks[i]);
      }),
    ),
  );
}

async function insertSearchRows(em: Em, spaceId: string, rows: SearchRow[]): Promise<void> {
  const column = (key: keyof SearchRow) => rows.map((r) => r[key]);
  await kysely`insert into search_section (space_id, page_id, section_id, page_title, page_path, title, body)
    select ${spaceId}, * from unnest(${column('page_id')}::text[], ${column('section_id')}::text[], ${column('page_title')}::text[],
      ${column('page_path')}::text[], ${column('title')}::text[], ${column('body')}::text[])`.execute(db(em));
}
