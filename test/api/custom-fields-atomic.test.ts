import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';

/**
 * PATCH /v1/spaces/{spaceId}/custom-fields writes its whole batch in one transaction: when a later
 * write fails in the database, the earlier clears and upserts of the same batch are rolled back.
 *
 * The failure is made real in the database: a trigger, scoped to one custom field created by this
 * file, raises on any write of a value for that field. The request passes every check of the API
 * (the field exists, the value is a valid text value) and fails only when the row is written.
 */

let t: TestApp;
let org: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Custom fields atomic org');
});
afterAll(async () => {
  await sql('drop trigger if exists custom_fields_atomic_test_refuse on space_custom_field_value');
  await sql('drop function if exists custom_fields_atomic_test_refuse()');
  await t.close();
});

const admin = () => org.members.admin.api;

async function sql<T = Record<string, unknown>>(text: string, params: unknown[] = []): Promise<T[]> {
  return t.orm.em.fork().getConnection().execute<T[]>(text, params);
}

async function newField(name: string) {
  const res = await admin().post(`/v1/orgs/${org.id}/custom-fields`, { name, type: 'text' });
  expect(res.status).toBe(201);
  return res.body as { id: string; name: string };
}

/** The stored values of a space, by field name. */
async function storedValues(spaceId: string) {
  const res = await admin().get(`/v1/spaces/${spaceId}/custom-fields`);
  expect(res.status).toBe(200);
  const out: Record<string, unknown> = {};
  for (const item of res.body as { customField: { name: string }; value?: unknown }[]) {
    if (item.value !== undefined) out[item.customField.name] = item.value;
  }
  return out;
}

describe('PATCH /v1/spaces/{spaceId}/custom-fields is atomic', () => {
  it('rolls back the clears and upserts before a write that fails in the database', async () => {
    const suffix = Date.now().toString(36);
    const first = await newField(`atomic-first-${suffix}`);
    const cleared = await newField(`atomic-cleared-${suffix}`);
    const refused = await newField(`atomic-refused-${suffix}`);
    const spaceRes = await admin().post(`/v1/orgs/${org.id}/spaces`, { title: 'Atomic' });
    expect(spaceRes.status).toBe(201);
    const spaceId = spaceRes.body.id as string;

    const before = { [first.name]: 'first before', [cleared.name]: 'cleared before', [refused.name]: 'refused before' };
    const set = await admin().patch(`/v1/spaces/${spaceId}/custom-fields`, {
      values: Object.fromEntries(Object.entries(before).map(([name, value]) => [name, { value }])),
    });
    expect(set.status).toBe(204);
    expect(await storedValues(spaceId)).toEqual(before);

    // From now on the database refuses any write of a value of `refused` (and of no other field).
    await sql(`create or replace function custom_fields_atomic_test_refuse() returns trigger language plpgsql as $$
      begin
        raise exception 'custom_fields_atomic_test: write refused';
      end
      $$`);
    await sql(`create trigger custom_fields_atomic_test_refuse
      before insert or update on space_custom_field_value
      for each row when (new.custom_field_id = '${refused.id}')
      execute function custom_fields_atomic_test_refuse()`);

    // The batch, in order: an upsert that succeeds, a clear, then the write the database refuses.
    const batch = await admin().patch(`/v1/spaces/${spaceId}/custom-fields`, {
      values: {
        [first.name]: { value: 'first after' },
        [cleared.name]: { value: null },
        [refused.name]: { value: 'refused after' },
      },
    });
    expect(batch.status).toBe(500);
    expect(batch.body).toEqual({ error: { code: 500, message: expect.any(String) } });

    // Nothing of the batch remains: the earlier upsert and the clear were rolled back with it.
    expect(await storedValues(spaceId)).toEqual(before);
    const rows = await sql<{ value: unknown }>('select value from space_custom_field_value where space_id = ? order by value::text', [
      spaceId,
    ]);
    expect(rows.map((r) => r.value)).toEqual(['cleared before', 'first before', 'refused before']);

    // The same batch without the refused write goes through whole.
    const ok = await admin().patch(`/v1/spaces/${spaceId}/custom-fields`, {
      values: { [first.name]: { value: 'first after' }, [cleared.name]: { value: null } },
    });
    expect(ok.status).toBe(204);
    expect(await storedValues(spaceId)).toEqual({ [first.name]: 'first after', [refused.name]: 'refused before' });
  });
});
