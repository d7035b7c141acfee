import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { edit, merge, newChangeRequest, newSpace, searchCaughtUp } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

let t: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Search org');
  other = await createTestOrg(t, 'Search elsewhere');
});
afterAll(() => t.close());

const admin = () => org.members.admin.api;

/** A space whose content is the given pages, merged through one change request; returns the new page ids by title. */
async function spaceWith(changes: unknown[]) {
  const space = await newSpace(admin(), org.id);
  const cr = await newChangeRequest(admin(), space.id);
  const edited = await edit(admin(), space.id, cr.id, changes);
  await merge(admin(), space.id, cr.id);
  await searchCaughtUp(t, space.id);
  return { space, ids: edited.changes.map((c) => c.page.id) };
}

const search = (spaceId: string, query: string, extra = '') =>
  admin().get(`/v1/spaces/${spaceId}/search?query=${encodeURIComponent(query)}${extra}`);

describe('space search', () => {
  it('ranks a title match above a body match and shows matching sections with snippets', async () => {
    const filler = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(6);
    const { space, ids } = await spaceWith([
      {
        operation: 'insert_page',
        title: 'Operations',
        document: {
          markdown: `# Operations\n\nDay to day work.\n\n## Clusters\n\n${filler}We run kubernetes clusters in three regions. ${filler}\n\n## Backups\n\nNightly.\n`,
        },
      },
      {
        operation: 'insert_page',
        ref: 'k8s',
        title: 'Kubernetes',
        description: 'Container orchestration',
        document: { markdown: 'Deploying containers.\n' },
      },
      { operation: 'insert_page', into: 'k8s', title: 'Helm charts', document: { markdown: 'Charts for kubernetes.\n' } },
    ]);
    const res = await search(space.id, 'Kubernetes');
    expect(res.status).toBe(200);
    expectMatchesGitBook('searchSpaceContent', res.body);
    expect(res.body.count).toBe(3);
    const [first, ...rest] = res.body.items;
    expect(first).toMatchObject({
      id: ids[1],
      title: 'Kubernetes',
      description: 'Container orchestration',
      path: 'kubernetes',
      rank: 1,
      resultType: 'page',
      ancestors: [],
      urls: { app: `http://docs.test/app/spaces/${space.id}/pages/${ids[1]}` },
    });
    expect(first.sections).toHaveLength(1);
    expect(rest.map((r: { title: string }) => r.title).sort()).toEqual(['Helm charts', 'Operations']);
    expect(rest.every((r: { score: number }) => r.score < first.score)).toBe(true);

    const helm = rest.find((r: { title: string }) => r.title === 'Helm charts');
    expect(helm).toMatchObject({ path: 'kubernetes/helm-charts', resultType: 'section', ancestors: [{ title: 'Kubernetes' }] });
    expect(helm.sections[0]).toMatchObject({
      id: '',
      title: 'Helm charts',
      path: 'kubernetes/helm-charts',
      body: 'Charts for kubernetes.',
    });

    const operations = rest.find((r: { title: string }) => r.title === 'Operations');
    expect(operations.sections).toHaveLength(1);
    const section = operations.sections[0];
    expect(section).toMatchObject({ id: 'clusters', title: 'Clusters', path: 'operations#clusters', resultType: 'section' });
    expect(section.urls.app).toBe(`http://docs.test/app/spaces/${space.id}/pages/${ids[0]}#clusters`);
    expect(section.body.length).toBeLessThanOrEqual(200);
    expect(section.body).toMatch(/^….*We run kubernetes clusters in three regions.*…$/);
  });

  it('searches only the current revision: change request content is found once merged, deleted pages disappear', async () => {
    const { space, ids } = await spaceWith([{ operation: 'insert_page', title: 'Zoo', document: { markdown: 'An okapi lives here.\n' } }]);
    expect((await search(space.id, 'okapi')).body.items.map((i: { id: string }) => i.id)).toEqual([ids[0]]);

    const cr = await newChangeRequest(admin(), space.id);
    await edit(admin(), space.id, cr.id, [
      { operation: 'insert_page', title: 'Rare animals', document: { markdown: 'The zebracorn is rare.\n' } },
      { operation: 'delete_page', page: ids[0] },
    ]);
    expect((await search(space.id, 'zebracorn')).body).toEqual({ items: [], count: 0 });
    expect((await search(space.id, 'okapi')).body.count).toBe(1);

    await merge(admin(), space.id, cr.id);
    await searchCaughtUp(t, space.id);
    const found = await search(space.id, 'zebracorn');
    expect(found.body.items.map((i: { title: string }) => i.title)).toEqual(['Rare animals']);
    expect((await search(space.id, 'okapi')).body).toEqual({ items: [], count: 0 });
  });

  it('pages through results with an opaque cursor, keeping global ranks', async () => {
    const { space } = await spaceWith(
      Array.from({ length: 5 }, (_, i) => ({
        operation: 'insert_page',
        title: `Note ${i}`,
        document: { markdown: `${'walrus '.repeat(i + 1)}\n` },
      })),
    );
    const seen: string[] = [];
    const ranks: number[] = [];
    let cursor: string | undefined;
    let calls = 0;
    do {
      const res = await search(space.id, 'walrus', `&limit=2${cursor ? `&page=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(5);
      seen.push(...res.body.items.map((i: { id: string }) => i.id));
      ranks.push(...res.body.items.map((i: { rank: number }) => i.rank));
      cursor = res.body.next?.page;
      calls++;
    } while (cursor);
    expect(calls).toBe(3);
    expect(new Set(seen).size).toBe(5);
    expect(ranks).toEqual([1, 2, 3, 4, 5]);
    expect((await search(space.id, 'walrus', '&page=not-a-cursor')).status).toBe(400);
  });

  it('validates the query and limit', async () => {
    const space = await newSpace(admin(), org.id);
    for (const url of [
      `/v1/spaces/${space.id}/search`,
      `/v1/spaces/${space.id}/search?query=`,
      `/v1/spaces/${space.id}/search?query=${'a'.repeat(513)}`,
    ]) {
      const res = await admin().get(url);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(400);
      expect(res.body.error.message).toMatch(/query/);
    }
    expect((await search(space.id, 'a'.repeat(512))).status).toBe(200);
    const limit = await search(space.id, 'x', '&limit=1001');
    expect(limit.status).toBe(400);
    expect(limit.body.error.message).toMatch(/limit/);
  });

  it('needs a token and read access, and hides other organizations', async () => {
    const { space } = await spaceWith([{ operation: 'insert_page', title: 'Secret', document: { markdown: 'hidden words\n' } }]);
    const noToken = await t.app.inject({ url: `/v1/spaces/${space.id}/search?query=hidden` });
    expect(noToken.statusCode).toBe(401);
    expect((await org.members.read.api.get(`/v1/spaces/${space.id}/search?query=hidden`)).body.count).toBe(1);
    expect((await other.members.admin.api.get(`/v1/spaces/${space.id}/search?query=hidden`)).status).toBe(404);
    expect((await admin().get('/v1/spaces/missing/search?query=hidden')).status).toBe(404);
  });
});
