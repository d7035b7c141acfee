import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { addMember, client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { expect400, newSpace, sql } from '../support/fixtures.ts';

let t: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Custom fields org');
  other = await createTestOrg(t, 'Other org');
});
afterAll(() => t.close());

const admin = () => org.members.admin.api;
const fieldsUrl = () => `/v1/orgs/${org.id}/custom-fields`;
let counter = 0;
const uniqueName = (prefix = 'field') => `${prefix}-${++counter}-${Date.now().toString(36)}`;

async function newField(body: Record<string, unknown>) {
  const res = await admin().post(fieldsUrl(), { name: uniqueName(), type: 'text', ...body });
  expect([res.status, res.body]).toEqual([201, expect.anything()]);
  return res.body;
}

describe('custom field definitions', () => {
  it('creates fields of every type', async () => {
    const text = await newField({
      name: 'audience',
      type: 'text',
      title: 'Audience',
      description: 'Who reads it',
      placeholder: 'e.g. developers',
    });
    expect(text).toEqual({
      id: expect.any(String),
      name: 'audience',
      title: 'Audience',
      description: 'Who reads it',
      type: 'text',
      placeholder: 'e.g. developers',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      urls: { location: `http://docs.test/v1/orgs/${org.id}/custom-fields/audience` },
      permissions: { view: true, edit: true },
    });
    const number = await newField({ type: 'number' });
    expect(number.title).toBe(number.name);
    expect(number.options).toBeUndefined();
    await newField({ type: 'boolean' });
    const select = await newField({ type: 'select', options: ['alpha', 'beta'] });
    expect(select.options).toEqual(['alpha', 'beta']);
    const multi = await newField({ type: 'multi-select', options: ['a', 'b', 'c'] });
    expect(multi.type).toBe('multi-select');
    const read = await admin().get(`${fieldsUrl()}/audience`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(text);
  });

  it('refuses a duplicate name with 409', async () => {
    const name = uniqueName();
    await newField({ name });
    const again = await admin().post(fieldsUrl(), { name, type: 'number' });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toMatch(/name/);
    // the same name in another organization is fine
    expect((await other.members.admin.api.post(`/v1/orgs/${other.id}/custom-fields`, { name, type: 'text' })).status).toBe(201);
  });

  it('enforces every limit with a 400 naming the field', async () => {
    const post = (body: object) => admin().post(fieldsUrl(), { name: uniqueName(), type: 'text', ...body });
    expect400(await post({ name: 'x'.repeat(51) }), /name/);
    expect400(await post({ name: '' }), /name/);
    expect400(await post({ name: 'Has Capitals' }), /name/);
    expect400(await post({ name: 'dots.not.allowed' }), /name/);
    expect400(await admin().post(fieldsUrl(), { name: uniqueName() }), /type/);
    expect400(await post({ type: 'date' }), /type/);
    expect400(await post({ title: 'x'.repeat(101) }), /title/);
    expect400(await post({ description: 'x'.repeat(201) }), /description/);
    expect400(await post({ placeholder: 'x'.repeat(101) }), /placeholder/);
    expect400(await post({ type: 'select', options: [] }), /options/);
    expect400(await post({ type: 'select', options: Array.from({ length: 51 }, (_, i) => `o${i}`) }), /options/);
    expect400(await post({ type: 'select', options: ['same', 'same'] }), /options/);
    expect400(await post({ type: 'select', options: ['x'.repeat(257)] }), /options/);
    expect400(await post({ type: 'select' }), /options/);
    expect400(await post({ type: 'multi-select' }), /options/);
    expect400(await post({ type: 'text', options: ['a'] }), /options/);
    expect400(await post({ type: 'boolean', options: ['a'] }), /options/);
    // exactly at the bounds is fine
    expect(
      (await post({ name: 'y'.repeat(50), title: 'x'.repeat(100), description: 'x'.repeat(200), placeholder: 'x'.repeat(100) })).status,
    ).toBe(201);
    expect((await post({ type: 'select', options: Array.from({ length: 50 }, (_, i) => `o${i}`) })).status).toBe(201);
    const field = await newField({});
    const patch = (body: object) => admin().patch(`${fieldsUrl()}/${field.name}`, body);
    expect400(await patch({ title: 'x'.repeat(101) }), /title/);
    expect400(await patch({ description: 'x'.repeat(201) }), /description/);
    expect400(await patch({ placeholder: 'x'.repeat(101) }), /placeholder/);
    expect400(await patch({ options: ['a'] }), /options/);
    expect400(await patch({}), /body/);
  });

  it('updates and deletes a field', async () => {
    const field = await newField({ type: 'select', options: ['one', 'two'] });
    const res = await admin().patch(`${fieldsUrl()}/${field.name}`, {
      title: 'Renamed',
      description: 'Now described',
      options: ['one', 'two', 'three'],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ name: field.name, title: 'Renamed', description: 'Now described', options: ['one', 'two', 'three'] });
    expect(new Date(res.body.updatedAt).getTime()).toBeGreaterThanOrEqual(new Date(field.updatedAt).getTime());
    expect400(await admin().patch(`${fieldsUrl()}/${field.name}`, { options: [] }), /options/);
    const del = await admin().delete(`${fieldsUrl()}/${field.name}`);
    expect(del.status).toBe(204);
    expect((await admin().get(`${fieldsUrl()}/${field.name}`)).status).toBe(404);
    expect((await admin().delete(`${fieldsUrl()}/${field.name}`)).status).toBe(404);
  });

  it('lets every member read and only admins write', async () => {
    const field = await newField({});
    for (const role of ['create', 'review', 'edit', 'comment', 'read', 'guest'] as const) {
      const api = org.members[role].api;
      const list = await api.get(fieldsUrl());
      expect([role, list.status]).toEqual([role, 200]);
      const one = await api.get(`${fieldsUrl()}/${field.name}`);
      expect(one.body.permissions).toEqual({ view: true, edit: false });
      for (const res of [
        await api.post(fieldsUrl(), { name: uniqueName(), type: 'text' }),
        await api.patch(`${fieldsUrl()}/${field.name}`, { title: 'No' }),
        await api.delete(`${fieldsUrl()}/${field.name}`),
      ]) {
        expect([role, res.status, res.body.error.code]).toEqual([role, 403, 403]);
      }
    }
  });

  it('needs a token', async () => {
    const anonymous = client(t.app);
    expect((await anonymous.get(fieldsUrl())).status).toBe(401);
    expect((await anonymous.post(fieldsUrl(), { name: 'x', type: 'text' })).status).toBe(401);
    expect((await anonymous.get(`${fieldsUrl()}/x`)).status).toBe(401);
  });

  it('does not reveal other organizations', async () => {
    const theirs = (await other.members.admin.api.post(`/v1/orgs/${other.id}/custom-fields`, { name: uniqueName(), type: 'text' })).body;
    const url = `/v1/orgs/${other.id}/custom-fields`;
    expect((await admin().get(url)).status).toBe(404);
    expect((await admin().post(url, { name: uniqueName(), type: 'text' })).status).toBe(404);
    expect((await admin().get(`${url}/${theirs.name}`)).status).toBe(404);
    expect((await admin().patch(`${url}/${theirs.name}`, { title: 'x' })).status).toBe(404);
    expect((await admin().delete(`${url}/${theirs.name}`)).status).toBe(404);
    // their field does not exist under our organization either
    expect((await admin().get(`${fieldsUrl()}/${theirs.name}`)).status).toBe(404);
  });

  it('paginates the list', async () => {
    const fresh = await createTestOrg(t, 'Paging org');
    const api = fresh.members.admin.api;
    const names = [];
    for (let i = 0; i < 5; i++) {
      const res = await api.post(`/v1/orgs/${fresh.id}/custom-fields`, { name: `page-${i}`, type: 'text' });
      expect(res.status).toBe(201);
      names.push(res.body.name);
    }
    const seen: string[] = [];
    let page: string | undefined;
    do {
      const res = await api.get(`/v1/orgs/${fresh.id}/custom-fields?limit=2${page ? `&page=${encodeURIComponent(page)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(5);
      expect(res.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.items.map((f: { name: string }) => f.name));
      page = res.body.next?.page;
    } while (page);
    expect(seen).toEqual(names);
    expect400(await api.get(`/v1/orgs/${fresh.id}/custom-fields?limit=1001`), /limit/);
    expect400(await api.get(`/v1/orgs/${fresh.id}/custom-fields?page=garbage`), /page/);
  });
});

describe('custom field values on spaces', () => {
  let space: any;
  let names: Record<'text' | 'number' | 'boolean' | 'select' | 'multi', string>;

  beforeAll(async () => {
    space = await newSpace(admin(), org.id, { title: 'Space' });
    names = {
      text: (await newField({ type: 'text' })).name,
      number: (await newField({ type: 'number' })).name,
      boolean: (await newField({ type: 'boolean' })).name,
      select: (await newField({ type: 'select', options: ['red', 'green'] })).name,
      multi: (await newField({ type: 'multi-select', options: ['a', 'b', 'c'] })).name,
    };
  });

  const valuesUrl = () => `/v1/spaces/${space.id}/custom-fields`;
  const valuesOf = async (api = admin()) => {
    const res = await api.get(valuesUrl());
    expect(res.status).toBe(200);
    return Object.fromEntries(res.body.map((item: any) => [item.customField.name, item.value]));
  };

  it('sets, reads and clears values of every type', async () => {
    const res = await admin().patch(valuesUrl(), {
      values: {
        [names.text]: { value: 'hello' },
        [names.number]: { value: 42.5 },
        [names.boolean]: { value: false },
        [names.select]: { value: 'green' },
        [names.multi]: { value: ['c', 'a'] },
      },
    });
    expect(res.status).toBe(204);
    const list = await admin().get(valuesUrl());
    const item = list.body.find((i: any) => i.customField.name === names.multi);
    expect(item.customField).toMatchObject({ type: 'multi-select', options: ['a', 'b', 'c'] });
    const values = await valuesOf();
    expect(values[names.text]).toBe('hello');
    expect(values[names.number]).toBe(42.5);
    expect(values[names.boolean]).toBe(false);
    expect(values[names.select]).toBe('green');
    expect(values[names.multi]).toEqual(['c', 'a']);
    // every definition of the organization is listed, with or without a value
    expect(list.body.some((i: any) => i.customField.name === 'audience' && i.value === undefined)).toBe(true);

    expect((await admin().patch(valuesUrl(), { values: { [names.text]: { value: null }, [names.number]: {} } })).status).toBe(204);
    const after = await valuesOf();
    expect(after[names.text]).toBeUndefined();
    expect(after[names.number]).toBeUndefined();
    expect(after[names.boolean]).toBe(false);
  });

  it('checks each value against its field and names it', async () => {
    const patch = (name: string, value: unknown) => admin().patch(valuesUrl(), { values: { [name]: { value } } });
    expect400(await patch(names.text, 'x'.repeat(257)), new RegExp(`values\\.${names.text}\\.value`));
    expect((await patch(names.text, 'x'.repeat(256))).status).toBe(204);
    expect400(await patch(names.text, 5), new RegExp(`values\\.${names.text}\\.value`));
    expect400(await patch(names.number, 'five'), new RegExp(`values\\.${names.number}\\.value`));
    expect400(await patch(names.boolean, 'true'), new RegExp(`values\\.${names.boolean}\\.value`));
    expect400(await patch(names.select, 'blue'), new RegExp(`values\\.${names.select}\\.value`));
    expect400(await patch(names.select, ['red']), new RegExp(`values\\.${names.select}\\.value`));
    expect400(await patch(names.multi, ['a', 'z']), new RegExp(`values\\.${names.multi}\\.value\\[1\\]`));
    expect400(await patch(names.multi, 'a'), new RegExp(`values\\.${names.multi}\\.value`));
    expect400(await patch('no-such-field', 'x'), /values\.no-such-field/);
    expect400(await admin().patch(valuesUrl(), {}), /values/);
    // a failing entry changes nothing, even next to a valid one
    await patch(names.boolean, true);
    expect400(
      await admin().patch(valuesUrl(), { values: { [names.boolean]: { value: false }, [names.select]: { value: 'nope' } } }),
      /values/,
    );
    expect((await valuesOf())[names.boolean]).toBe(true);
  });

  it('prunes values whose options were removed', async () => {
    const select = await newField({ type: 'select', options: ['keep', 'drop'] });
    const multi = await newField({ type: 'multi-select', options: ['keep', 'drop'] });
    await admin().patch(valuesUrl(), { values: { [select.name]: { value: 'drop' }, [multi.name]: { value: ['keep', 'drop'] } } });
    await admin().patch(`${fieldsUrl()}/${select.name}`, { options: ['keep'] });
    await admin().patch(`${fieldsUrl()}/${multi.name}`, { options: ['keep', 'new'] });
    const values = await valuesOf();
    expect(values[select.name]).toBeUndefined();
    expect(values[multi.name]).toEqual(['keep']);
  });

  it('removes the values when the definition is deleted', async () => {
    const field = await newField({ type: 'text' });
    const other = await newSpace(admin(), org.id, { title: 'Space' });
    for (const s of [space, other]) {
      expect((await admin().patch(`/v1/spaces/${s.id}/custom-fields`, { values: { [field.name]: { value: 'v' } } })).status).toBe(204);
    }
    const count = async () =>
      Number(
        (await sql<{ n: string }>(t, 'select count(*) as n from space_custom_field_value where custom_field_id = ?', [field.id]))[0].n,
      );
    expect(await count()).toBe(2);
    expect((await admin().delete(`${fieldsUrl()}/${field.name}`)).status).toBe(204);
    expect(await count()).toBe(0);
    expect((await valuesOf())[field.name]).toBeUndefined();
  });

  it('leaves the values behind when the space moves to another organization', async () => {
    const moving = await newSpace(admin(), org.id, { title: 'Space' });
    expect(
      (await admin().patch(`/v1/spaces/${moving.id}/custom-fields`, { values: { [names.text]: { value: 'stays here' } } })).status,
    ).toBe(204);
    const target = await createTestOrg(t, 'Transfer target');
    await addMember(t, target.id, org.members.admin.userId, 'admin');
    expect((await admin().post(`/v1/spaces/${moving.id}/transfer`, { organization: target.id })).status).toBe(200);
    expect((await sql(t, 'select 1 from space_custom_field_value where space_id = ?', [moving.id])).length).toBe(0);
    const fields = await admin().get(`/v1/spaces/${moving.id}/custom-fields`);
    expect(fields.status).toBe(200);
    expect(fields.body).toEqual([]);
  });

  it('needs edit on the space to write and read to read', async () => {
    for (const role of ['create', 'review', 'edit'] as const) {
      expect((await org.members[role].api.patch(valuesUrl(), { values: { [names.text]: { value: role } } })).status).toBe(204);
    }
    for (const role of ['comment', 'read'] as const) {
      const res = await org.members[role].api.patch(valuesUrl(), { values: { [names.text]: { value: role } } });
      expect([role, res.status]).toEqual([role, 403]);
      expect((await valuesOf(org.members[role].api))[names.text]).toBe('edit');
    }
    // a guest without a grant does not see the space at all
    expect((await org.members.guest.api.get(valuesUrl())).status).toBe(404);
    expect((await client(t.app).get(valuesUrl())).status).toBe(401);
  });

  it('refuses edits on a locked space', async () => {
    const locked = await newSpace(admin(), org.id, { title: 'Space' });
    expect((await admin().patch(`/v1/spaces/${locked.id}`, { editMode: 'locked' })).status).toBe(200);
    expect((await admin().patch(`/v1/spaces/${locked.id}/custom-fields`, { values: { [names.text]: { value: 'x' } } })).status).toBe(403);
  });

  it('does not reveal spaces of other organizations, nor use their fields', async () => {
    const theirs = await newSpace(other.members.admin.api, other.id, { title: 'Space' });
    expect((await admin().get(`/v1/spaces/${theirs.id}/custom-fields`)).status).toBe(404);
    expect((await admin().patch(`/v1/spaces/${theirs.id}/custom-fields`, { values: {} })).status).toBe(404);
    const theirField = (
      await other.members.admin.api.post(`/v1/orgs/${other.id}/custom-fields`, { name: uniqueName('theirs'), type: 'text' })
    ).body;
    expect400(
      await admin().patch(valuesUrl(), { values: { [theirField.name]: { value: 'x' } } }),
      new RegExp(`values\\.${theirField.name}`),
    );
  });
});
