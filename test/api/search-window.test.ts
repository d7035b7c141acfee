import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { edit, merge, newChangeRequest, newSpace, searchCaughtUp } from '../support/fixtures.ts';

/**
 * A search whose terms are on more sections than SEARCH_WINDOW ranks a bounded window of text
 * matches plus every title match: the page titled with the term still comes first, and the count
 * is that of the pages ranked. Queries with fewer matches stay exact.
 */
let t: TestApp;
let org: TestOrg;

beforeAll(async () => {
  t = await startTestApp({ SEARCH_WINDOW: '5' });
  org = await createTestOrg(t, 'Search window org');
});
afterAll(() => t.close());

it('ranks a window of text matches plus every title match', async () => {
  const api = org.members.admin.api;
  const space = await newSpace(api, org.id);
  const cr = await newChangeRequest(api, space.id);
  const changes: unknown[] = [];
  for (let i = 0; i < 12; i++)
    changes.push({
      operation: 'insert_page',
      title: `Page ${i}`,
      document: { markdown: `Everyday words, page ${i}.${i < 2 ? ' Rare.' : ''}\n` },
    });
  // Written last, so it is not among the first text matches the window reads.
  changes.push({ operation: 'insert_page', title: 'Everyday guide', document: { markdown: 'A guide.\n' } });
  await edit(api, space.id, cr.id, changes);
  await merge(api, space.id, cr.id);
  await searchCaughtUp(t, space.id);

  const broad = await api.get(`/v1/spaces/${space.id}/search?query=everyday&limit=50`);
  expect(broad.status).toBe(200);
  expect(broad.body.items[0].title).toBe('Everyday guide');
  expect(broad.body.count).toBe(broad.body.items.length);
  expect(broad.body.count).toBeGreaterThanOrEqual(5);
  expect(broad.body.count).toBeLessThanOrEqual(6);
  expect(new Set(broad.body.items.map((i: { id: string }) => i.id)).size).toBe(broad.body.items.length);

  const rare = await api.get(`/v1/spaces/${space.id}/search?query=rare`);
  expect(rare.body.count).toBe(2);
  expect(rare.body.items.map((i: { title: string }) => i.title).sort()).toEqual(['Page 0', 'Page 1']);
});
