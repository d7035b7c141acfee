/** A deterministic corpus for the content benchmarks: the same pages and queries on every run. */
import type { Orm } from '../src/db/orm.ts';
import { writeRevision } from '../src/db/content.ts';
import { syncSearchIndex } from '../src/db/search.ts';
import { sql } from '../test/support/sql.ts';
import { positionBetween } from '../src/domain/positions.ts';
import type { PageMap } from '../src/domain/content/tree.ts';

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

/** Writes `pages` as the space's next revision and indexes it for search; returns the revision id. */
export async function seedSpace(orm: Orm, spaceId: string, pages: PageMap): Promise<string> {
  return orm.em.fork().transactional(async (em) => {
    const current = (await sql<{ revision_id: string }>(em, 'select revision_id from space where id = ?', [spaceId]))[0].revision_id;
    const revision = await writeRevision(em, { spaceId, parents: [current], type: 'edits', base: null, pages });
    await sql(em, 'update space set revision_id = ? where id = ?', [revision, spaceId]);
    await syncSearchIndex(em, spaceId);
    return revision;
  });
}
