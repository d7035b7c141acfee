import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { createOrganization } from '../../src/db/accounts.ts';
import { searchSpace } from '../../src/db/search.ts';
import { sql } from '../support/sql.ts';

/**
 * A search whose words are on more sections than its window ranks the first `window` matching
 * sections the scan finds. PostgreSQL starts a sequential scan of a large table where the last one
 * stopped unless told not to, so the same search would rank other sections each time, and the
 * pages of its results would overlap. The API's connections start every scan at the first page.
 */
let orm: Orm;
let spaceId = '';
beforeAll(async () => {
  orm = await initOrm({ databaseUrl: process.env.DATABASE_URL!, poolMax: 2 });
});
afterAll(async () => {
  if (spaceId) await sql(orm.em.fork(), 'delete from space where id = ?', [spaceId]);
  await orm.close(true);
});

it('ranks the same window of a frequent word on every request', async () => {
  const em = orm.em.fork();
  const org = await createOrganization(em, 'Search window order org');
  spaceId = `swo-${org.id.toLowerCase()}`;
  await sql(em, `insert into space (id, organization_id, title, visibility, revision_id, position) values (?, ?, ?, 'private', ?, 'a')`, [
    spaceId,
    org.id,
    spaceId,
    `${spaceId}-r0`,
  ]);
  await sql(em, 'insert into revision (id, space_id) values (?, ?)', [`${spaceId}-r0`, spaceId]);
  // Large enough for PostgreSQL to synchronize its scans (over a quarter of its shared buffers),
  // with the word on one section in two and each section's rank its own.
  const [{ blocks }] = await sql<{ blocks: number }>(em, `select setting::int as blocks from pg_settings where name = 'shared_buffers'`);
  for (let start = 0; ; start += 10_000) {
    await sql(
      em,
      `insert into search_section (space_id, page_id, page_title, page_path, section_id, title, body)
       select ?, 'p' || lpad(i::text, 7, '0'), 'Page ' || i, 'page-' || i, '', '',
              repeat(case when i % 2 = 0 then 'everyday ' else 'other ' end, 1 + i % 7) || repeat('filler' || (i % 97) || ' ', 80)
         from generate_series(?::int, ?::int) i`,
      [spaceId, start, start + 9_999],
    );
    const [{ size }] = await sql<{ size: string }>(em, `select pg_relation_size('search_section') / 8192 as size`);
    if (Number(size) > blocks / 4 + 2_000) break;
  }
  await sql(em, 'analyze search_section');

  const window = 2_000;
  const pages = async () => {
    const { hits, total } = await searchSpace(orm.em.fork(), spaceId, 'everyday', 0, window, window);
    expect(total).toBe(window);
    return hits.map((h) => h.page_id).sort();
  };
  const first = await pages();
  expect(await pages()).toEqual(first);
  expect(await pages()).toEqual(first);
});
