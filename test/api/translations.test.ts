import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { expect400 } from '../support/fixtures.ts';

let t: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Translations org');
  other = await createTestOrg(t, 'Other org');
});
afterAll(() => t.close());

const admin = () => org.members.admin.api;
const base = (o: TestOrg = org) => `/v1/orgs/${o.id}/translations`;

async function create(body: object = { title: 'Docs in French' }, o: TestOrg = org) {
  const res = await o.members.admin.api.post(base(o), body);
  expect([res.status, res.body?.error]).toEqual([201, undefined]);
  return res.body;
}

describe('translation settings', () => {
  it('creates settings with canonical languages', async () => {
    const created = await create({ title: 'European docs', languages: ['fr', 'de-de', 'EN-gb', 'fr'] });
    expect(created).toEqual({
      object: 'translation',
      id: expect.any(String),
      title: 'European docs',
      languages: ['fr', 'de-DE', 'en-GB'],
      status: 'pending',
      instructions: { object: 'document', data: {}, nodes: [] },
      stats: { runs: 0, totalWords: 0, totalPages: 0, totalDuration: 0, latestRunDuration: 0, latestPages: 0, latestWords: 0 },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      permissions: { view: true, edit: true },
      urls: { location: `http://docs.test/v1/orgs/${org.id}/translations/${created.id}` },
    });
    const read = await admin().get(`${base()}/${created.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(created);
    expect((await create({ title: 'No languages' })).languages).toEqual([]);
  });

  it("accepts GitBook's source, language and instructions", async () => {
    const space = (await admin().post(`/v1/orgs/${org.id}/spaces`, { title: 'Source' })).body;
    const instructions = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes: [] }] };
    const created = await create({ title: 'From a space', source: { space: space.id, language: 'en' }, language: 'pt-br', instructions });
    expect(created).toMatchObject({ source: { space: space.id, language: 'en' }, language: 'pt-br', instructions });
    const theirSpace = (await other.members.admin.api.post(`/v1/orgs/${other.id}/spaces`, { title: 'Theirs' })).body;
    const refused = await admin().post(base(), { title: 'x', source: { space: theirSpace.id, language: 'en' } });
    expect(refused.status).toBe(404);
    expect(refused.body.error.message).toMatch(/source\.space/);
    expect400(await admin().post(base(), { title: 'x', language: 'klingon' }), /language/);
    expect400(await admin().post(base(), { title: 'x', source: { space: space.id } }), /source\.language/);
    expect400(
      await admin().post(base(), { title: 'x', instructions: { object: 'document', data: {}, nodes: ['x'.repeat(100_001)] } }),
      /instructions/,
    );
  });

  it('enforces the limits and language codes with a 400 naming the field', async () => {
    expect400(await admin().post(base(), {}), /title/);
    expect400(await admin().post(base(), { title: '' }), /title/);
    expect400(await admin().post(base(), { title: 'x'.repeat(101) }), /title/);
    expect((await admin().post(base(), { title: 'x'.repeat(100) })).status).toBe(201);
    const bad = await admin().post(base(), { title: 'Bad', languages: ['fr', 'en_US'] });
    expect400(bad, /languages\[1\] "en_US"/);
    expect400(await admin().post(base(), { title: 'Bad', languages: [{}] }), /languages/);
    expect400(await admin().post(base(), { title: 'Bad', languages: Array.from({ length: 101 }, () => 'fr') }), /languages/);
    const existing = await create();
    expect400(await admin().put(`${base()}/${existing.id}`, {}), /title/);
    expect400(await admin().put(`${base()}/${existing.id}`, { title: 'x'.repeat(101) }), /title/);
    expect400(await admin().put(`${base()}/${existing.id}`, { title: 'ok', languages: ['not a code'] }), /languages\[0\]/);
  });

  it('replaces the title and the given fields with PUT', async () => {
    const created = await create({ title: 'Before', languages: ['fr'] });
    const res = await admin().put(`${base()}/${created.id}`, { title: 'After', languages: ['ja', 'zh-hans'] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.id, title: 'After', languages: ['ja', 'zh-Hans'] });
    const titleOnly = await admin().put(`${base()}/${created.id}`, { title: 'Again' });
    expect(titleOnly.body).toMatchObject({ title: 'Again', languages: ['ja', 'zh-Hans'] });
    expect((await admin().get(`${base()}/${created.id}`)).body.title).toBe('Again');
  });

  it('deletes with 205', async () => {
    const created = await create();
    const res = await admin().delete(`${base()}/${created.id}`);
    expect(res.status).toBe(205);
    expect((await admin().get(`${base()}/${created.id}`)).status).toBe(404);
    expect((await admin().delete(`${base()}/${created.id}`)).status).toBe(404);
    expect((await admin().put(`${base()}/${created.id}`, { title: 'x' })).status).toBe(404);
  });

  it('lets members with a role read and only admins write', async () => {
    const created = await create();
    for (const role of ['create', 'review', 'edit', 'comment', 'read'] as const) {
      const api = org.members[role].api;
      expect((await api.get(base())).status).toBe(200);
      const one = await api.get(`${base()}/${created.id}`);
      expect([role, one.status]).toEqual([role, 200]);
      expect(one.body.permissions).toEqual({ view: true, edit: false });
      for (const res of [
        await api.post(base(), { title: 'No' }),
        await api.put(`${base()}/${created.id}`, { title: 'No' }),
        await api.delete(`${base()}/${created.id}`),
      ]) {
        expect([role, res.status, res.body.error.code]).toEqual([role, 403, 403]);
      }
    }
    const guest = org.members.guest.api;
    expect((await guest.get(base())).status).toBe(403);
    expect((await guest.get(`${base()}/${created.id}`)).status).toBe(403);
    const anonymous = client(t.app);
    expect((await anonymous.get(base())).status).toBe(401);
    expect((await anonymous.post(base(), { title: 'x' })).status).toBe(401);
  });

  it('does not reveal other organizations', async () => {
    const theirs = await create({ title: 'Theirs' }, other);
    expect((await admin().get(base(other))).status).toBe(404);
    expect((await admin().post(base(other), { title: 'x' })).status).toBe(404);
    for (const [method, body] of [
      ['get', undefined],
      ['put', { title: 'x' }],
      ['delete', undefined],
    ] as const) {
      expect((await (admin() as any)[method](`${base(other)}/${theirs.id}`, body)).status).toBe(404);
      // nor through our own organization's path
      expect((await (admin() as any)[method](`${base()}/${theirs.id}`, body)).status).toBe(404);
    }
  });

  it('paginates the list', async () => {
    const fresh = await createTestOrg(t, 'Paging org');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await create({ title: `T${i}` }, fresh)).id);
    const seen: string[] = [];
    let page: string | undefined;
    do {
      const res = await fresh.members.read.api.get(`${base(fresh)}?limit=2${page ? `&page=${encodeURIComponent(page)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(5);
      seen.push(...res.body.items.map((s: { id: string }) => s.id));
      page = res.body.next?.page;
    } while (page);
    expect(seen).toEqual(ids);
    expect400(await fresh.members.read.api.get(`${base(fresh)}?limit=1001`), /limit/);
  });
});
