import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { edit, merge, newChangeRequest, newSpace } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

/**
 * Draft mode of a site's structure as readers meet it: a draft site-space, section or section group
 * is in the members' structure (marked `draft`), never in what the published site's readers resolve,
 * list, search or read with their tokens, and in a preview unless it asks `draft=false`.
 */
let t: TestApp;
let org: TestOrg;

beforeAll(async () => {
  t = await startTestApp({ SITE_PREVIEW_BASE_URL: 'https://preview.example.com/preview/' });
  org = await createTestOrg(t, 'Drafts org');
});
afterAll(() => t.close());

const admin = () => org.members.admin.api;
const siteUrl = (id: string) => `/v1/orgs/${org.id}/sites/${id}`;

/** A space with one merged page titled `page`. */
async function spaceWithPage(title: string, page: string) {
  const space = await newSpace(admin(), org.id, { title });
  const cr = await newChangeRequest(admin(), space.id);
  await edit(admin(), space.id, cr.id, [{ operation: 'insert_page', title: page, document: { markdown: `${page} text.\n` } }]);
  await merge(admin(), space.id, cr.id);
  return space as { id: string };
}

/** A published public site with a live site-space "Guide" and a draft one "Upcoming" at its root. */
async function siteWithDraft() {
  const live = await spaceWithPage('Guide', 'Welcome');
  const staged = await spaceWithPage('Upcoming', 'Secret plans');
  const site = (await admin().post(`/v1/orgs/${org.id}/sites`, { title: 'Drafted', visibility: 'public', spaces: [live.id] })).body;
  const draft = await admin().post(`${siteUrl(site.id)}/site-spaces`, { spaceId: staged.id, draft: true });
  expect(draft.status).toBe(201);
  const published = (await admin().post(`${siteUrl(site.id)}/publish`)).body;
  return { site: published, live, staged, draftId: draft.body.id as string, draftPath: draft.body.path as string };
}

const lookup = (api: ReturnType<typeof client>, url: string) => api.post('/v1/urls/published', { url });

describe('draft site-spaces and readers', () => {
  it('readers resolve, list and read only the live structure; members see the draft in the site structure', async () => {
    const { site, live, staged, draftId, draftPath } = await siteWithDraft();
    // The draft's own path resolves to the live site-space (the path is then just a missing page).
    const root = await lookup(admin(), `${site.urls.published}${draftPath}/secret-plans`);
    expect(root.status).toBe(200);
    expectMatchesGitBook('resolvePublishedContentByUrl', root.body);
    expect(root.body.space).toBe(live.id);
    expect(root.body.page).toBeUndefined();
    const visitor = client(t.app, root.body.apiToken);
    const seen = await visitor.get(`${siteUrl(site.id)}/published`);
    expectMatchesGitBook('getPublishedContentSite', seen.body);
    expect(seen.body.structure.structure.map((s: any) => s.space.id)).toEqual([live.id]);
    // Members reading the published site see it as readers do; the site's structure shows them the draft.
    const asMember = await org.members.read.api.get(`${siteUrl(site.id)}/published`);
    expect(asMember.body.structure.structure.map((s: any) => s.space.id)).toEqual([live.id]);
    const structure = await org.members.read.api.get(`${siteUrl(site.id)}/structure`);
    expect(structure.status).toBe(200);
    expectMatchesGitBook('getSiteStructure', structure.body);
    expect(structure.body.structure.map((s: any) => [s.id, s.draft])).toEqual([
      [expect.any(String), false],
      [draftId, true],
    ]);
    // The attacker's requests: the visitor's token reading the draft's space, searching the site for its text.
    expect((await visitor.get(`/v1/spaces/${staged.id}`)).status).toBe(404);
    expect((await visitor.get(`/v1/spaces/${staged.id}/content`)).status).toBe(404);
    const search = await visitor.post(`${siteUrl(site.id)}/search`, { query: 'Secret plans' });
    expect(search.status).toBe(200);
    expect(search.body.items).toEqual([]);

    // Made live, it is resolved and read.
    expect((await admin().patch(`${siteUrl(site.id)}/site-spaces/${draftId}`, { draft: false })).status).toBe(200);
    const after = await lookup(admin(), `${site.urls.published}${draftPath}/secret-plans`);
    expect(after.body).toMatchObject({ space: staged.id, page: expect.any(String) });
    expect((await client(t.app, after.body.apiToken).get(`/v1/spaces/${staged.id}`)).status).toBe(200);
  });

  it('a site-space made a draft leaves readers at once, tokens minted before included', async () => {
    const { site, live, staged, draftId, draftPath } = await siteWithDraft();
    await admin().patch(`${siteUrl(site.id)}/site-spaces/${draftId}`, { draft: false });
    const minted = await lookup(admin(), `${site.urls.published}${draftPath}/secret-plans`);
    const visitor = client(t.app, minted.body.apiToken);
    expect((await visitor.get(`/v1/spaces/${staged.id}`)).status).toBe(200);
    expect((await admin().patch(`${siteUrl(site.id)}/site-spaces/${draftId}`, { draft: true })).status).toBe(200);
    expect((await visitor.get(`/v1/spaces/${staged.id}`)).status).toBe(404);
    expect((await visitor.get(`/v1/spaces/${live.id}`)).status).toBe(200);
    expect((await lookup(admin(), `${site.urls.published}${draftPath}/secret-plans`)).body.space).toBe(live.id);
  });

  it('a draft section hides its site-spaces, and a draft group its sections', async () => {
    const first = await spaceWithPage('First', 'One');
    const site = (await admin().post(`/v1/orgs/${org.id}/sites`, { title: 'Sectioned', visibility: 'public' })).body;
    const open = (await admin().post(`${siteUrl(site.id)}/sections`, { spaceId: first.id, title: 'Open' })).body;
    const hidden = (
      await admin().post(`${siteUrl(site.id)}/sections`, {
        spaceId: (await spaceWithPage('Second', 'Two')).id,
        title: 'Hidden',
        draft: true,
      })
    ).body;
    const grouped = (
      await admin().post(`${siteUrl(site.id)}/sections`, { spaceId: (await spaceWithPage('Third', 'Three')).id, title: 'Grouped' })
    ).body;
    const published = (await admin().post(`${siteUrl(site.id)}/publish`)).body;
    const sectionsSeen = async () => {
      const res = await lookup(admin(), published.urls.published);
      const read = await client(t.app, res.body.apiToken).get(`${siteUrl(site.id)}/published`);
      return read.body.structure.structure
        .flatMap((item: any) => (item.object === 'site-section-group' ? item.sections : [item]))
        .map((s: any) => s.id);
    };
    expect(await sectionsSeen()).toEqual([open.id, grouped.id]);
    expect((await lookup(admin(), `${published.urls.published}hidden/two`)).body.siteSection).toBe(open.id);
    const group = await admin().post(`${siteUrl(site.id)}/section-groups`, { title: 'Later', sections: [grouped.id], draft: true });
    expect(group.status).toBe(201);
    expect(await sectionsSeen()).toEqual([open.id]);
    expect((await lookup(admin(), `${published.urls.published}grouped/three`)).body.siteSection).toBe(open.id);
    await admin().patch(`${siteUrl(site.id)}/section-groups/${group.body.id}`, { draft: false });
    await admin().patch(`${siteUrl(site.id)}/sections/${hidden.id}`, { draft: false });
    expect(await sectionsSeen()).toEqual([open.id, hidden.id, grouped.id]);
    expect((await lookup(admin(), `${published.urls.published}hidden/two`)).body).toMatchObject({
      siteSection: hidden.id,
      page: expect.any(String),
    });
  });
});

describe('draft site-spaces in previews', () => {
  it('a preview shows drafts by default, and only the live structure with draft=false', async () => {
    const { site, staged, draftId, draftPath } = await siteWithDraft();
    const previewOf = async (query: string) => {
      const res = await admin().get(`${siteUrl(site.id)}/publishing/preview${query}`);
      expect(res.status).toBe(200);
      expectMatchesGitBook('getSitePublishingPreviewById', res.body);
      const url = new URL(res.body.url);
      const token = url.searchParams.get('token')!;
      url.searchParams.delete('token');
      return { base: `https://preview.example.com/preview/${site.id}/`, previewer: client(t.app, token) };
    };
    const withDrafts = await previewOf('');
    const resolved = await lookup(withDrafts.previewer, `${withDrafts.base}${draftPath}/secret-plans`);
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ siteSpace: draftId, space: staged.id, page: expect.any(String), preview: true });
    // The lookup's token keeps showing drafts: the renderer reads the published site and the draft's content with it.
    const reader = client(t.app, resolved.body.apiToken);
    const seen = await reader.get(`${siteUrl(site.id)}/published`);
    expect(seen.body.structure.structure.map((s: any) => s.id)).toContain(draftId);
    expect((await reader.get(`/v1/spaces/${staged.id}/content/page/${resolved.body.page}`)).status).toBe(200);
    // A preview without drafts: as readers see it.
    const live = await previewOf('?draft=false');
    const without = await lookup(live.previewer, `${live.base}${draftPath}/secret-plans`);
    expect(without.body.space).not.toBe(staged.id);
    const liveReader = client(t.app, without.body.apiToken);
    expect((await liveReader.get(`${siteUrl(site.id)}/published`)).body.structure.structure.map((s: any) => s.id)).not.toContain(draftId);
    expect((await liveReader.get(`/v1/spaces/${staged.id}`)).status).toBe(404);
    // A preview link for the draft site-space itself is refused without drafts.
    expect((await admin().get(`${siteUrl(site.id)}/publishing/preview?draft=false&siteSpace=${draftId}`)).status).toBe(400);
  });
});
