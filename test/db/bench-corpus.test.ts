import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { initOrm, type Orm } from '../../src/db/orm.ts';
import { createOrganization } from '../../src/db/accounts.ts';
import { splitSections } from '../../src/domain/content/markdown.ts';
import { corpusSections, generatePages, pageMarkdown, seedSpace } from '../../bench/corpus.ts';
import { sql } from '../support/sql.ts';

/**
 * The search benchmark seeds its 100,000 pages' search rows in bulk, from the pages' known shape
 * rather than by parsing each page: those rows must be the ones the service's indexer writes.
 */
let orm: Orm;
beforeAll(async () => {
  orm = await initOrm({ databaseUrl: process.env.DATABASE_URL!, poolMax: 4 });
});
afterAll(() => orm.close(true));

async function newSpace(orgId: string, id: string): Promise<void> {
  const em = orm.em.fork();
  await sql(em, `insert into space (id, organization_id, title, visibility, revision_id, position) values (?, ?, ?, 'private', ?, 'a')`, [
    id,
    orgId,
    id,
    `${id}-r0`,
  ]);
  await sql(em, 'insert into revision (id, space_id) values (?, ?)', [`${id}-r0`, id]);
}

const rowsOf = (spaceId: string) =>
  sql(
    orm.em.fork(),
    'select page_id, section_id, page_title, page_path, title, body, tsv::text as tsv from search_section where space_id = ? order by page_id, section_id',
    [spaceId],
  );

it('splits corpus pages into the sections the markdown parser finds', () => {
  for (let i = 0; i < 200; i++) {
    const markdown = pageMarkdown(i);
    expect(corpusSections(markdown)).toEqual(splitSections(markdown));
  }
  expect(() => corpusSections('# Title\n\nSome *emphasis*.\n')).toThrow(/not a page of the benchmark corpus/);
});

it('writes the search rows and index state the service writes for the same pages', async () => {
  const org = await createOrganization(orm.em.fork(), 'Bench corpus org');
  const suffix = org.id.toLowerCase();
  const [service, bulk] = [`bc-service-${suffix}`, `bc-bulk-${suffix}`];
  await newSpace(org.id, service);
  await newSpace(org.id, bulk);
  const pages = generatePages(1_500, 'p');

  const serviceRevision = await seedSpace(orm, service, pages, 'service');
  const bulkRevision = await seedSpace(orm, bulk, pages, 'bulk');

  const expected = await rowsOf(service);
  expect(expected.length).toBe(1_500 * 4);
  expect(await rowsOf(bulk)).toEqual(expected);
  const state = await sql<{ space_id: string; revision_id: string }>(
    orm.em.fork(),
    'select space_id, revision_id from search_state where space_id in (?, ?)',
    [service, bulk],
  );
  expect(Object.fromEntries(state.map((s) => [s.space_id, s.revision_id]))).toEqual({ [service]: serviceRevision, [bulk]: bulkRevision });
});
