import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';
import { expect400 } from '../support/fixtures.ts';

/** The structure of sites (sections, groups, site-spaces), share links and site settings. */
let t: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  t = await startTestApp({ SECRETS_KEY: Buffer.alloc(32, 5).toString('base64') });
  org = await createTestOrg(t, 'Site structure org');
  other = await createTestOrg(t, 'Site structure elsewhere');
});
afterAll(() => t.close());

const admin = () => org.members.admin.api;
const creator = () => org.members.create.api;
const siteUrl = (id: string, orgId = org.id) => `/v1/orgs/${orgId}/sites/${id}`;

async function space(title: string, orgId = org.id, api = admin()) {
  return (await api.post(`/v1/orgs/${orgId}/spaces`, { title })).body as { id: string; title: string };
}
async function site(body: object = {}) {
  const res = await admin().post(`/v1/orgs/${org.id}/sites`, { title: 'Structured', ...body });
  expect(res.status).toBe(201);
  return res.body as { id: string };
}
const sectionIds = async (siteId: string) => (await admin().get(`${siteUrl(siteId)}/sections`)).body.items.map((s: any) => s.id);
const defaults = async (siteId: string) =>
  (await admin().get(`${siteUrl(siteId)}/sections`)).body.items.filter((s: any) => s.default).map((s: any) => s.id);

describe('sections', () => {
  it('adds sections, wrapping root site-spaces into a first default section', async () => {
    const a = await space('Alpha');
    const b = await space('Beta');
    const s = await site({ spaces: [a.id] });
    const added = await creator().post(`${siteUrl(s.id)}/sections`, { spaceId: b.id, title: 'Beta docs', icon: 'book' });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({
      object: 'site-section',
      id: expect.any(String),
      title: 'Beta docs',
      default: false,
      draft: false,
      path: 'beta-docs',
      icon: 'book',
      siteSpaces: [
        expect.objectContaining({
          object: 'site-space',
          path: 'beta',
          default: true,
          title: 'Beta',
          section: added.body.id,
          space: expect.objectContaining({ id: b.id }),
        }),
      ],
      urls: {},
    });
    const list = (await admin().get(`${siteUrl(s.id)}/sections`)).body;
    expect(list.count).toBe(2);
    expect(list.items[0]).toMatchObject({
      title: 'Structured',
      path: 'structured',
      default: true,
      siteSpaces: [expect.objectContaining({ space: expect.objectContaining({ id: a.id }) })],
    });
    expect((await admin().get(siteUrl(s.id))).body.siteSpaces).toBe(2);
    // A site-space added without a section goes to the default section.
    const c = await space('Gamma');
    const added2 = await admin().post(`${siteUrl(s.id)}/site-spaces`, { spaceId: c.id });
    expect(added2.body).toMatchObject({ section: list.items[0].id, default: false, path: 'gamma' });
  });

  it('creates a new space for a section or site-space given spaceId null', async () => {
    const s = await site();
    const section = await admin().post(`${siteUrl(s.id)}/sections`, { spaceId: null, title: 'Fresh section' });
    expect(section.status).toBe(201);
    const created = section.body.siteSpaces[0].space;
    expect(created).toMatchObject({ object: 'space', title: 'Fresh section', organization: org.id });
    expect((await admin().get(`/v1/spaces/${created.id}`)).status).toBe(200);
    const variant = await admin().post(`${siteUrl(s.id)}/site-spaces`, {
      spaceId: null,
      title: 'Fresh variant',
      sectionId: section.body.id,
    });
    expect(variant.status).toBe(201);
    expect(variant.body).toMatchObject({
      title: 'Fresh variant',
      path: 'fresh-variant',
      section: section.body.id,
      space: { title: 'Fresh variant' },
    });
  });

  it('validates bounds and conditions, and keeps unset fields unchanged', async () => {
    const s = await site();
    const sec = (await admin().post(`${siteUrl(s.id)}/sections`, { spaceId: (await space('Only')).id })).body;
    for (const body of [
      { spaceId: (await space('X')).id, title: 'x'.repeat(65) },
      { spaceId: (await space('Y')).id, title: 'x' },
      { title: 'No space' },
      { spaceId: 'unknown' },
    ]) {
      const res = await admin().post(`${siteUrl(s.id)}/sections`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe(400);
    }
    for (const body of [
      { title: 'x' },
      { title: 'x'.repeat(129) },
      { path: '' },
      { path: 'x'.repeat(101) },
      { path: 'a/b' },
      { condition: '' },
      { condition: 'x'.repeat(1025) },
      { icon: 'x'.repeat(51) },
      { description: 'x'.repeat(257) },
      { condition: 'visitor.claims ==== 1' },
      { defaultSiteSpace: 'nope' },
    ]) {
      const res = await admin().patch(`${siteUrl(s.id)}/sections/${sec.id}`, body);
      expect([body, res.status]).toEqual([body, 400]);
      expect(res.body.error.message).toMatch(new RegExp(Object.keys(body)[0]));
    }
    const patched = await admin().patch(`${siteUrl(s.id)}/sections/${sec.id}`, {
      title: 'Renamed',
      path: 'renamed',
      condition: 'visitor.claims.unsigned.beta == true',
      description: 'About it',
      icon: 'gear',
    });
    expect(patched.body).toMatchObject({
      title: 'Renamed',
      path: 'renamed',
      condition: 'visitor.claims.unsigned.beta == true',
      description: 'About it',
      icon: 'gear',
    });
    const untouched = await admin().patch(`${siteUrl(s.id)}/sections/${sec.id}`, { title: 'Renamed again' });
    expect(untouched.body).toMatchObject({
      title: 'Renamed again',
      condition: 'visitor.claims.unsigned.beta == true',
      description: 'About it',
      icon: 'gear',
    });
    const cleared = await admin().patch(`${siteUrl(s.id)}/sections/${sec.id}`, { condition: null, description: null, icon: null });
    expect(cleared.body.condition).toBeUndefined();
    expect(cleared.body.description).toBeUndefined();
    expect(cleared.body.icon).toBeUndefined();
    // Paths are unique in a site.
    const second = (await admin().post(`${siteUrl(s.id)}/sections`, { spaceId: (await space('Second')).id })).body;
    const clash = await admin().patch(`${siteUrl(s.id)}/sections/${second.id}`, { path: 'renamed' });
    expect(clash.status).toBe(409);
  });

  it('stages drafts: sections, groups and site-spaces created or turned draft, answered with draft, made live again', async () => {
    const s = await site();
    const live = (await admin().post(`${siteUrl(s.id)}/sections`, { spaceId: (await space('Live')).id, draft: false })).body;
    expect(live.draft).toBe(false);
    const staged = await admin().post(`${siteUrl(s.id)}/sections`, { spaceId: (await space('Staged')).id, draft: true });
    expect(staged.status).toBe(201);
    expectMatchesGitBook('addSectionToSite', staged.body);
    expect(staged.body).toMatchObject({ draft: true, siteSpaces: [expect.objectContaining({ draft: false })] });
    const group = await admin().post(`${siteUrl(s.id)}/section-groups`, { title: 'Staged group', draft: true });
    expect(group.status).toBe(201);
    expect(group.body.draft).toBe(true);
    const siteSpace = await admin().post(`${siteUrl(s.id)}/site-spaces`, { spaceId: (await space('Staged space')).id, draft: true });
    expect(siteSpace.status).toBe(201);
    expectMatchesGitBook('addSpaceToSite', siteSpace.body);
    expect(siteSpace.body.draft).toBe(true);
    // Listings show drafts to members, each marked.
    const sections = (await admin().get(`${siteUrl(s.id)}/sections`)).body.items;
    expect(sections.map((x: any) => [x.id, x.draft])).toEqual([
      [live.id, false],
      [staged.body.id, true],
    ]);
    expect((await admin().get(`${siteUrl(s.id)}/section-groups`)).body.items.map((g: any) => g.draft)).toEqual([true]);
    const spaces = (await admin().get(`${siteUrl(s.id)}/site-spaces`)).body;
    expectMatchesGitBook('listSiteSpaces', spaces);
    expect(spaces.items.find((x: any) => x.id === siteSpace.body.id).draft).toBe(true);
    // draft false makes each live; draft true makes a live one a draft.
    for (const [kind, id] of [
      ['sections', staged.body.id],
      ['section-groups', group.body.id],
      ['site-spaces', siteSpace.body.id],
    ]) {
      const made = await admin().patch(`${siteUrl(s.id)}/${kind}/${id}`, { draft: false });
      expect([kind, made.status, made.body.draft]).toEqual([kind, 200, false]);
    }
    expect((await admin().patch(`${siteUrl(s.id)}/sections/${live.id}`, { draft: true })).body.draft).toBe(true);
    // Only a boolean.
    expect400(await admin().patch(`${siteUrl(s.id)}/sections/${live.id}`, { draft: 'yes' }), /draft/);
  });

  it('lets an editor stage drafts on a site with content, and keeps live changes for creators', async () => {
    const s = await site({ spaces: [(await space('Content')).id] });
    const editor = org.members.edit.api;
    const reader = org.members.read.api;
    const added = await editor.post(`${siteUrl(s.id)}/site-spaces`, { spaceId: (await space('By an editor')).id, draft: true });
    expect(added.status).toBe(201);
    expect((await editor.patch(`${siteUrl(s.id)}/site-spaces/${added.body.id}`, { path: 'edited' })).body.path).toBe('edited');
    // The attacker's requests: an editor adding live content, making their draft live, or changing a live site-space; a reader staging.
    const live = await editor.post(`${siteUrl(s.id)}/site-spaces`, { spaceId: (await space('Live by editor')).id });
    expect(live.status).toBe(403);
    expect((await editor.patch(`${siteUrl(s.id)}/site-spaces/${added.body.id}`, { draft: false })).status).toBe(403);
    const first = (await admin().get(`${siteUrl(s.id)}/site-spaces`)).body.items.find((x: any) => !x.draft);
    expect((await editor.patch(`${siteUrl(s.id)}/site-spaces/${first.id}`, { draft: true })).status).toBe(403);
    expect((await reader.post(`${siteUrl(s.id)}/site-spaces`, { spaceId: (await space('By a reader')).id, draft: true })).status).toBe(403);
    expect((await editor.post(`${siteUrl(s.id)}/sections`, { spaceId: (await space('Wraps the root')).id, draft: true })).status).toBe(403);
    // A creator makes it live.
    expect((await creator().patch(`${siteUrl(s.id)}/site-spaces/${added.body.id}`, { draft: false })).body.draft).toBe(false);
    // A site without content takes its first content from a creator only, draft or not.
    const empty = await site();
    expect((await editor.post(`${siteUrl(empty.id)}/site-spaces`, { spaceId: (await space('First')).id, draft: true })).status).toBe(403);
  });

  it('keeps order under move and delete, with exactly one default promoted on delete', async () => {
    const s = await site();
    const made = [];
    for (const title of ['One', 'Two', 'Three', 'Four'])
      made.push((await admin().post(`${siteUrl(s.id)}/sections`, { spaceId: (await space(title)).id, title })).body.id);
    const [one, two, three, four] = made;
    expect(await sectionIds(s.id)).toEqual([one, two, three, four]);
    expect(await defaults(s.id)).toEqual([one]);
    const move = (id: string, position?: object) => admin().post(`${siteUrl(s.id)}/sections/${id}/move`, position ? { position } : {});
    expect((await move(four, { before: { type: 'site-section', siteSection: one } })).status).toBe(200);
    expect(await sectionIds(s.id)).toEqual([four, one, two, three]);
    await move(four, { after: { type: 'site-section', siteSection: two } });
    expect(await sectionIds(s.id)).toEqual([one, two, four, three]);
    await move(one);
    expect(await sectionIds(s.id)).toEqual([two, four, three, one]);
    await move(three, { after: { type: 'site-section', siteSection: two }, before: { type: 'site-section', siteSection: four } });
    expect(await sectionIds(s.id)).toEqual([two, three, four, one]);
    expect(
      (await move(three, { after: { type: 'site-section', siteSection: one }, before: { type: 'site-section', siteSection: two } })).status,
    ).toBe(400);
    expect((await move(three, { before: { type: 'site-section', siteSection: 'nope' } })).status).toBe(400);
    expect((await move('nope')).status).toBe(404);

    expect((await admin().patch(siteUrl(s.id), { defaultSiteSection: three })).status).toBe(200);
    expect(await defaults(s.id)).toEqual([three]);
    expect((await admin().delete(`${siteUrl(s.id)}/sections/${three}`)).status).toBe(205);
    expect(await sectionIds(s.id)).toEqual([two, four, one]);
    expect(await defaults(s.id)).toEqual([two]);
    expect((await admin().delete(`${siteUrl(s.id)}/sections/${three}`)).status).toBe(404);
    const page = await admin().get(`${siteUrl(s.id)}/sections?limit=2`);
    expect(page.body.items.map((x: any) => x.id)).toEqual([two, four]);
    expect((await admin().get(`${siteUrl(s.id)}/sections?limit=2&page=${page.body.next.page}`)).body.items.map((x: any) => x.id)).toEqual([
      one,
    ]);
  });

  it('needs the create role to change the structure, and the site in the organization', async () => {
    const s = await site();
    const sec = (await admin().post(`${siteUrl(s.id)}/sections`, { spaceId: (await space('Guarded')).id })).body;
    for (const [method, path, body] of [
      ['post', `${siteUrl(s.id)}/sections`, { spaceId: (await space('Z')).id }],
      ['patch', `${siteUrl(s.id)}/sections/${sec.id}`, { title: 'Nope' }],
      ['delete', `${siteUrl(s.id)}/sections/${sec.id}`, undefined],
      ['post', `${siteUrl(s.id)}/sections/${sec.id}/move`, {}],
      ['post', `${siteUrl(s.id)}/section-groups`, { title: 'G' }],
      ['post', `${siteUrl(s.id)}/site-spaces`, { spaceId: (await space('W')).id }],
    ] as const) {
      expect([path, (await (org.members.edit.api as any)[method](path, body)).status]).toEqual([path, 403]);
      expect([path, (await (other.members.admin.api as any)[method](path, body)).status]).toEqual([path, 404]);
      expect([path, (await (client(t.app) as any)[method](path, body)).status]).toEqual([path, 401]);
    }
    // A space of another organization cannot be added.
    const foreign = await space('Foreign', other.id, other.members.admin.api);
    expect((await admin().post(`${siteUrl(s.id)}/site-spaces`, { spaceId: foreign.id })).status).toBe(400);
    expect((await admin().post(`${siteUrl(s.id)}/sections`, { spaceId: foreign.id })).status).toBe(400);
    expect((await org.members.read.api.get(`${siteUrl(s.id)}/sections`)).status).toBe(200);
  });
});

describe('section groups', () => {
  it('creates, lists, updates, moves, takes sections in and out, and deletes', async () => {
    const s = await site();
    const a = (await admin().post(`${siteUrl(s.id)}/sections`, { spaceId: (await space('A')).id, title: 'Section A' })).body;
    const b = (await admin().post(`${siteUrl(s.id)}/sections`, { spaceId: (await space('B')).id, title: 'Section B' })).body;
    for (const body of [
      {},
      { title: '' },
      { title: 'x'.repeat(101) },
      { title: 'G', icon: 'x'.repeat(51) },
      { title: 'G', sections: ['nope'] },
    ]) {
      expect((await admin().post(`${siteUrl(s.id)}/section-groups`, body)).status).toBe(400);
    }
    const g = await admin().post(`${siteUrl(s.id)}/section-groups`, { title: 'Products', icon: 'box', sections: [a.id] });
    expect(g.status).toBe(201);
    expect(g.body).toMatchObject({
      object: 'site-section-group',
      title: 'Products',
      icon: 'box',
      draft: false,
      sections: [expect.objectContaining({ id: a.id, sectionGroup: g.body.id })],
    });
    const h = (await admin().post(`${siteUrl(s.id)}/section-groups`, { title: 'More' })).body;
    const groups = async () => (await admin().get(`${siteUrl(s.id)}/section-groups`)).body.items.map((x: any) => x.id);
    expect(await groups()).toEqual([g.body.id, h.id]);
    expect(
      (
        await admin().post(`${siteUrl(s.id)}/section-groups/${h.id}/move`, {
          position: { before: { type: 'site-section-group', id: g.body.id } },
        })
      ).status,
    ).toBe(200);
    expect(await groups()).toEqual([h.id, g.body.id]);
    const patched = await admin().patch(`${siteUrl(s.id)}/section-groups/${h.id}`, { title: 'Renamed', icon: null });
    expect(patched.body).toMatchObject({ title: 'Renamed' });
    expect(patched.body.icon).toBeUndefined();
    const withB = await admin().post(`${siteUrl(s.id)}/section-groups/${h.id}/sections`, { sectionId: b.id });
    expect(withB.status).toBe(201);
    expect(withB.body.sections.map((x: any) => x.id)).toEqual([b.id]);
    expect((await admin().post(`${siteUrl(s.id)}/section-groups/${h.id}/sections`, { sectionId: 'nope' })).status).toBe(400);
    expect((await admin().delete(`${siteUrl(s.id)}/section-groups/${h.id}/sections/${b.id}`)).status).toBe(205);
    expect((await admin().delete(`${siteUrl(s.id)}/section-groups/${h.id}/sections/${b.id}`)).status).toBe(404);
    // The published structure shows groups and ungrouped sections in order.
    const published = (await admin().get(`${siteUrl(s.id)}/published`)).body;
    expect(published.structure.type).toBe('sections');
    expect(published.structure.structure.map((x: any) => [x.object, x.id])).toEqual([
      ['site-section', b.id],
      ['site-section-group', h.id],
      ['site-section-group', g.body.id],
    ]);
    // A group changed after the published site was read is read as it is now.
    expect((await admin().patch(`${siteUrl(s.id)}/section-groups/${h.id}`, { title: 'Renamed again' })).status).toBe(200);
    const reread = (await admin().get(`${siteUrl(s.id)}/published`)).body;
    expect(reread.structure.structure.find((x: any) => x.id === h.id).title).toBe('Renamed again');
    expect((await admin().delete(`${siteUrl(s.id)}/section-groups/${g.body.id}`)).status).toBe(205);
    // Its section is shown ungrouped, the group no longer.
    const afterDelete = (await admin().get(`${siteUrl(s.id)}/published`)).body.structure.structure.map((x: any) => x.id);
    expect(afterDelete.sort()).toEqual([a.id, b.id, h.id].sort());
    expect(await groups()).toEqual([h.id]);
    expect(await sectionIds(s.id)).toEqual([a.id, b.id]);
    expect((await other.members.admin.api.get(`/v1/orgs/${org.id}/sites/${s.id}/section-groups`)).status).toBe(404);
  });
});

describe('site-spaces', () => {
  it('adds, patches, moves and deletes, promoting the next default', async () => {
    const spaces = [await space('One'), await space('Two'), await space('Three')];
    const s = await site({ spaces: spaces.map((x) => x.id) });
    const list = async () => (await admin().get(`${siteUrl(s.id)}/site-spaces`)).body.items.map((x: any) => [x.path, x.default]);
    expect(await list()).toEqual([
      ['one', true],
      ['two', false],
      ['three', false],
    ]);
    const ids = (await admin().get(`${siteUrl(s.id)}/site-spaces`)).body.items.map((x: any) => x.id);
    const move = (id: string, position: object) => admin().post(`${siteUrl(s.id)}/site-spaces/${id}/move`, { position });
    expect((await move(ids[2], { before: { type: 'site-space', siteSpace: ids[0] } })).status).toBe(200);
    expect(await list()).toEqual([
      ['three', false],
      ['one', true],
      ['two', false],
    ]);
    expect((await move(ids[2], { before: { type: 'site-space', siteSpace: ids[2] } })).status).toBe(400);
    for (const body of [
      { path: '' },
      { path: 'x'.repeat(101) },
      { condition: 'a ==== b' },
      { condition: 'x'.repeat(1025) },
      { spaceId: 'nope' },
    ]) {
      expect([body, (await admin().patch(`${siteUrl(s.id)}/site-spaces/${ids[1]}`, body)).status]).toEqual([body, 400]);
    }
    expect((await admin().patch(`${siteUrl(s.id)}/site-spaces/${ids[1]}`, { path: 'one' })).status).toBe(409);
    const patched = await admin().patch(`${siteUrl(s.id)}/site-spaces/${ids[1]}`, {
      path: 'v2',
      condition: 'visitor.claims.plan == "pro"',
      hidden: true,
    });
    expect(patched.body).toMatchObject({ path: 'v2', condition: 'visitor.claims.plan == "pro"', hidden: true });
    expect((await admin().patch(`${siteUrl(s.id)}/site-spaces/${ids[1]}`, { hidden: false })).body.condition).toBe(
      'visitor.claims.plan == "pro"',
    );
    expect((await admin().patch(`${siteUrl(s.id)}/site-spaces/${ids[1]}`, { condition: null })).body.condition).toBeUndefined();
    expect((await admin().patch(siteUrl(s.id), { defaultSiteSpace: ids[1] })).status).toBe(200);
    expect(await list()).toEqual([
      ['three', false],
      ['one', false],
      ['v2', true],
    ]);
    expect((await admin().get(`${siteUrl(s.id)}/site-spaces?default=true`)).body.items.map((x: any) => x.id)).toEqual([ids[1]]);
    expect((await admin().delete(`${siteUrl(s.id)}/site-spaces/${ids[1]}`)).status).toBe(205);
    expect(await list()).toEqual([
      ['three', true],
      ['one', false],
    ]);
    expect((await admin().get(siteUrl(s.id))).body.siteSpaces).toBe(2);
    const paged = await admin().get(`${siteUrl(s.id)}/site-spaces?limit=1`);
    expect(paged.body).toMatchObject({ count: 2, items: [expect.objectContaining({ path: 'three' })] });
    expect((await admin().get(`${siteUrl(s.id)}/site-spaces?limit=1&page=${paged.body.next.page}`)).body.items[0].path).toBe('one');
    expect((await admin().delete(`${siteUrl(s.id)}/site-spaces/${ids[1]}`)).status).toBe(404);
    expect((await other.members.admin.api.get(`${siteUrl(s.id)}/site-spaces`)).status).toBe(404);
  });
});

describe('sortSiteStructure', () => {
  it('moves a section, a group or a site-space among its siblings of the same level, and nothing else', async () => {
    const s = await site();
    const add = async (title: string) => {
      const res = await admin().post(`${siteUrl(s.id)}/sections`, { spaceId: (await space(title)).id, title: `Section ${title}` });
      expect(res.body.error).toBeUndefined();
      return res.body as { id: string };
    };
    const [a, b] = [await add('A'), await add('B')];
    const g = (await admin().post(`${siteUrl(s.id)}/section-groups`, { title: 'Group' })).body as { id: string };
    const top = async () => (await admin().get(`${siteUrl(s.id)}/structure`)).body.structure.map((x: any) => x.id);
    expect(await top()).toEqual([a.id, b.id, g.id]);
    const sort = (body: object, api = creator()) => api.patch(`${siteUrl(s.id)}/structure/sort`, body);

    // A group before a section, then a section after the group: sections and groups share the top level.
    const moved = await sort({ item: { type: 'site-section-group', id: g.id }, position: { before: { type: 'site-section', id: a.id } } });
    expect(moved.status).toBe(200);
    expectMatchesGitBook('sortSiteStructure', moved.body);
    expect(moved.body).toMatchObject({ object: 'site-section-group', id: g.id });
    expect(await top()).toEqual([g.id, a.id, b.id]);
    const section = await sort({ item: { type: 'site-section', id: b.id }, position: { after: { type: 'site-section-group', id: g.id } } });
    expect(section.body).toMatchObject({ object: 'site-section', id: b.id });
    expect(await top()).toEqual([g.id, b.id, a.id]);
    // No neighbour: the end.
    expect((await sort({ item: { type: 'site-section-group', id: g.id }, position: {} })).status).toBe(200);
    expect(await top()).toEqual([b.id, a.id, g.id]);
    // `Prefer: return=minimal` answers 204.
    const minimal = await t.app.inject({
      method: 'PATCH',
      url: `${siteUrl(s.id)}/structure/sort`,
      headers: { authorization: `Bearer ${org.members.create.token}`, prefer: 'return=minimal' },
      payload: { item: { type: 'site-section', id: a.id }, position: {} },
    });
    expect(minimal.statusCode).toBe(204);
    expect(minimal.headers['preference-applied']).toBe('return=minimal');
    expect(await top()).toEqual([b.id, g.id, a.id]);

    // Site-spaces among the site-spaces of their level (here the root of a site without sections).
    const r = await site({ spaces: [(await space('R1')).id, (await space('R2')).id] });
    const order = async () => (await admin().get(`${siteUrl(r.id)}/site-spaces`)).body.items.map((x: any) => x.id);
    const [first, second] = await order();
    const siteSpace = await creator().patch(`${siteUrl(r.id)}/structure/sort`, {
      item: { type: 'site-space', id: second },
      position: { before: { type: 'site-space', id: first } },
    });
    expect(siteSpace.status).toBe(200);
    expectMatchesGitBook('sortSiteStructure', siteSpace.body);
    expect(siteSpace.body).toMatchObject({ object: 'site-space', id: second });
    expect(await order()).toEqual([second, first]);
    const inA = first;

    // What does not fit: a neighbour of another level or not a sibling, the item itself, unknown items.
    const refused = [
      { item: { type: 'site-space', id: second }, position: { before: { type: 'site-section', id: a.id } } },
      { item: { type: 'site-section', id: a.id }, position: { before: { type: 'site-space', id: inA } } },
      { item: { type: 'site-section', id: a.id }, position: { before: { type: 'site-section', id: 'nope' } } },
      { item: { type: 'site-section', id: a.id }, position: { after: { type: 'site-section', id: a.id } } },
      {
        item: { type: 'site-section', id: a.id },
        position: { after: { type: 'site-section', id: b.id }, before: { type: 'site-section', id: b.id } },
      },
      { item: { type: 'site-page', id: a.id }, position: {} },
      { item: { type: 'site-section', id: a.id } },
    ];
    for (const body of refused) expect([body, (await sort(body)).status]).toEqual([body, 400]);
    for (const item of [
      { type: 'site-section', id: 'nope' },
      { type: 'site-section-group', id: a.id },
      { type: 'site-space', id: a.id },
      { type: 'site-external-link', id: 'link' },
    ]) {
      expect((await sort({ item, position: {} })).status).toBe(404);
    }
    expect(await top()).toEqual([b.id, g.id, a.id]);
    // Who may: the create role, in the organization.
    expect((await sort({ item: { type: 'site-section', id: a.id }, position: {} }, org.members.edit.api)).status).toBe(403);
    expect((await sort({ item: { type: 'site-section', id: a.id }, position: {} }, other.members.admin.api)).status).toBe(404);
  });
});

describe('share links', () => {
  it('returns the key once, stores it hashed, lists, renames, deactivates and deletes', async () => {
    const s = await site({ visibility: 'share-link' });
    for (const body of [{}, { name: 'x'.repeat(51) }]) expect((await admin().post(`${siteUrl(s.id)}/share-links`, body)).status).toBe(400);
    const created = await admin().post(`${siteUrl(s.id)}/share-links`, { name: 'Partners' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      object: 'share-link',
      id: expect.any(String),
      createdAt: expect.any(String),
      name: 'Partners',
      active: true,
      key: expect.any(String),
      urls: { published: `http://docs.test/sites/${org.id}/${s.id}/${created.body.key}` },
    });
    const stored = await t.orm.em.fork().getConnection().execute('select key_hash from site_share_link where id = ?', [created.body.id]);
    expect(stored[0].key_hash).not.toContain(created.body.key);
    expect(stored[0].key_hash).toMatch(/^[0-9a-f]{64}$/);
    await admin().post(`${siteUrl(s.id)}/share-links`, { name: 'Second' });
    const first = (await admin().get(`${siteUrl(s.id)}/share-links?limit=1`)).body;
    expect(first).toMatchObject({ count: 2, items: [{ id: created.body.id, name: 'Partners' }] });
    expect(first.items[0].key).toBeUndefined();
    expect((await admin().get(`${siteUrl(s.id)}/share-links?page=${first.next.page}`)).body.items[0].name).toBe('Second');
    expect((await admin().patch(`${siteUrl(s.id)}/share-links/${created.body.id}`, {})).status).toBe(400);
    const patched = await admin().patch(`${siteUrl(s.id)}/share-links/${created.body.id}`, { name: 'Renamed', active: false });
    expect(patched.body).toMatchObject({ name: 'Renamed', active: false });
    expect((await org.members.create.api.get(`${siteUrl(s.id)}/share-links`)).status).toBe(403);
    expect((await other.members.admin.api.patch(`${siteUrl(s.id)}/share-links/${created.body.id}`, { active: true })).status).toBe(404);
    expect((await admin().delete(`${siteUrl(s.id)}/share-links/${created.body.id}`)).status).toBe(205);
    expect((await admin().patch(`${siteUrl(s.id)}/share-links/${created.body.id}`, { active: true })).status).toBe(404);
  });
});

describe('site settings', () => {
  it('sets the adaptive schema only in its accepted form, saying what is wrong', async () => {
    const s = await site();
    const initial = (await admin().get(`${siteUrl(s.id)}/adaptive-schema`)).body;
    expect(initial).toMatchObject({
      object: 'site-adaptive-schema',
      jsonSchema: { type: 'object', additionalProperties: false },
      updatedAt: expect.any(String),
    });
    const good = {
      type: 'object',
      properties: {
        isBeta: { type: 'boolean', description: 'Beta program' },
        unsigned: {
          type: 'object',
          description: 'Unsigned claims of the site visitor.',
          properties: { region: { type: 'string', description: 'Region' } },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    };
    const put = await admin().put(`${siteUrl(s.id)}/adaptive-schema`, { jsonSchema: good });
    expect(put.status).toBe(200);
    expect(put.body.jsonSchema).toEqual(good);
    expect((await admin().get(`${siteUrl(s.id)}/adaptive-schema`)).body.jsonSchema).toEqual(good);
    const bad: [object, RegExp][] = [
      [{ ...good, additionalProperties: true }, /additionalProperties/],
      [{ type: 'array', properties: {}, additionalProperties: false }, /type/],
      [{ ...good, properties: { isBeta: { type: 'boolean' } } }, /isBeta/],
      [{ ...good, properties: { unsigned: { ...good.properties.unsigned, additionalProperties: true } } }, /unsigned/],
      [{ ...good, extra: 1 }, /extra/],
    ];
    for (const [jsonSchema, message] of bad) {
      const res = await admin().put(`${siteUrl(s.id)}/adaptive-schema`, { jsonSchema });
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(message);
    }
    expect((await admin().put(`${siteUrl(s.id)}/adaptive-schema`, {})).status).toBe(400);
  });

  it('reads, updates and regenerates the visitor authentication settings', async () => {
    const s = await site({ visibility: 'visitor-auth' });
    const auth = (await admin().get(`${siteUrl(s.id)}/publishing/auth`)).body;
    expect(auth).toEqual({ object: 'publishing-auth', backend: 'custom', privateKey: expect.any(String) });
    const stored = await t.orm.em.fork().getConnection().execute('select auth_key_sealed from site where id = ?', [s.id]);
    expect(stored[0].auth_key_sealed).not.toContain(auth.privateKey);
    for (const body of [{ fallbackURL: 'not a url' }, { fallbackURL: 'javascript:alert(1)' }, { backend: 'integration' }]) {
      expect((await admin().patch(`${siteUrl(s.id)}/publishing/auth`, body)).status).toBe(400);
    }
    const patched = await admin().patch(`${siteUrl(s.id)}/publishing/auth`, {
      fallbackURL: 'https://example.com/login',
      logoutURL: 'https://example.com/logout',
    });
    expect(patched.body).toMatchObject({
      fallbackURL: 'https://example.com/login',
      logoutURL: 'https://example.com/logout',
      privateKey: auth.privateKey,
    });
    const removed = await admin().patch(`${siteUrl(s.id)}/publishing/auth`, { fallbackURL: null });
    expect(removed.body.fallbackURL).toBeUndefined();
    expect(removed.body.logoutURL).toBe('https://example.com/logout');
    const regenerated = (await admin().post(`${siteUrl(s.id)}/publishing/auth/regenerate`)).body;
    expect(regenerated.privateKey).not.toBe(auth.privateKey);
    expect((await admin().get(`${siteUrl(s.id)}/publishing/auth`)).body.privateKey).toBe(regenerated.privateKey);
    expect((await org.members.create.api.get(`${siteUrl(s.id)}/publishing/auth`)).status).toBe(403);
    expect((await other.members.admin.api.post(`${siteUrl(s.id)}/publishing/auth/regenerate`)).status).toBe(404);
  });

  it('customizes with GitBook defaults, merging on PATCH and replacing on PUT', async () => {
    const s = await site({ title: 'Customized' });
    const initial = (await admin().get(`${siteUrl(s.id)}/customization`)).body;
    expect(initial).toMatchObject({
      title: 'Customized',
      styling: {
        theme: 'clean',
        primaryColor: { light: '#346DDB', dark: '#346DDB' },
        corners: 'rounded',
        font: 'Inter',
        icons: 'regular',
        sidebar: { background: 'default', list: 'default' },
        search: 'prominent',
      },
      internationalization: { locale: 'en' },
      favicon: {},
    });
    expect(initial.updatedAt).toBeUndefined();
    const patched = await admin().patch(`${siteUrl(s.id)}/customization`, {
      styling: { corners: 'straight', primaryColor: { light: '#ff0000', dark: '#00ff00' } },
      internationalization: { locale: 'fr' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      styling: { corners: 'straight', theme: 'clean', primaryColor: { light: '#ff0000', dark: '#00ff00' } },
      internationalization: { locale: 'fr' },
      updatedAt: expect.any(String),
    });
    const again = (await admin().patch(`${siteUrl(s.id)}/customization`, { styling: { theme: 'bold' } })).body;
    expect(again.styling).toMatchObject({ theme: 'bold', corners: 'straight' });
    const replaced = (await admin().put(`${siteUrl(s.id)}/customization`, { styling: { theme: 'muted' } })).body;
    expect(replaced.styling).toMatchObject({ theme: 'muted', corners: 'rounded', primaryColor: { light: '#346DDB', dark: '#346DDB' } });
    expect(replaced.internationalization.locale).toBe('en');
    for (const body of [
      { styling: { corners: 'wobbly' } },
      { styling: { primaryColor: { light: 'red', dark: 'blue' } } },
      { title: 'x' },
      { internationalization: { locale: 'xx' } },
    ]) {
      expect((await admin().patch(`${siteUrl(s.id)}/customization`, body)).status).toBe(400);
    }
    expect((await org.members.read.api.get(`${siteUrl(s.id)}/customization`)).status).toBe(200);
    expect((await org.members.create.api.patch(`${siteUrl(s.id)}/customization`, { title: 'Mine' })).status).toBe(403);
  });

  it('shows the published site to members with its structure and customizations', async () => {
    const a = await space('Root one');
    const s = await site({ spaces: [a.id] });
    const published = await org.members.read.api.get(`${siteUrl(s.id)}/published`);
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({
      object: 'published-content-site',
      site: { id: s.id },
      structure: {
        type: 'siteSpaces',
        structure: [expect.objectContaining({ object: 'site-space', default: true, space: expect.objectContaining({ id: a.id }) })],
      },
      customizations: { site: { title: 'Structured' } },
      scripts: [],
    });
    // Every site-space answered has its customization: the site's.
    const [siteSpace] = published.body.structure.structure;
    expect(published.body.customizations.siteSpaces).toEqual({ [siteSpace.id]: published.body.customizations.site });
    expect((await other.members.admin.api.get(`${siteUrl(s.id)}/published`)).status).toBe(404);
    expect((await org.members.guest.api.get(`${siteUrl(s.id)}/published`)).status).toBe(404);
  });
});
