import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { findOrCreateUser, issueToken } from '../../src/db/accounts.ts';
import { newId } from '../../src/domain/ids.ts';
import { sql } from '../support/sql.ts';
import { client, createTestOrg, startTestApp, type Api, type TestApp, type TestOrg } from '../support/harness.ts';

/**
 * Organization invites: by email, and by link. The attacker's requests first, then what members
 * and admins do with them.
 */

let t: TestApp;
let org: TestOrg;
let other: TestOrg;
const log: string[] = [];

const links = (orgId: string) => `/v1/orgs/${orgId}/link-invites`;
const join = (orgId: string, inviteId: string) => `/v1/orgs/${orgId}/invites/${inviteId}`;

/** A user with an account and no membership anywhere. */
async function newcomer(): Promise<{ userId: string; email: string; api: Api }> {
  const em = t.orm.em.fork();
  const email = `newcomer-${newId(8).toLowerCase()}@example.com`;
  const user = await findOrCreateUser(em, email);
  const { token } = await issueToken(em, user.id, 'test');
  return { userId: user.id, email, api: client(t.app, token) };
}

async function createLink(body: Record<string, unknown>, orgId = org.id, api = org.members.admin.api): Promise<string> {
  const res = await api.post(links(orgId), body);
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** A user's role in the organization (null: guest); undefined when not a member. */
async function roleIn(orgId: string, userId: string) {
  const res = await org.members.admin.api.get(`/v1/orgs/${orgId}/members/${userId}`);
  return res.status === 200 ? res.body.role : undefined;
}

beforeAll(async () => {
  t = await startTestApp({}, { log });
  org = await createTestOrg(t, 'Invites org');
  other = await createTestOrg(t, 'Other invites org');
});
afterAll(() => t.close());

describe('attacks', () => {
  it('refuses a non-admin creating, listing, reading, changing or deleting links, and inviting by email', async () => {
    const id = await createLink({ role: 'read' });
    for (const role of ['create', 'read', 'guest'] as const) {
      const api = org.members[role].api;
      expect((await api.post(links(org.id), { role: 'read' })).status).toBe(403);
      expect((await api.get(links(org.id))).status).toBe(403);
      expect((await api.get(`${links(org.id)}/${id}`)).status).toBe(403);
      expect((await api.patch(`${links(org.id)}/${id}`, { disabled: true })).status).toBe(403);
      expect((await api.delete(`${links(org.id)}/${id}`)).status).toBe(403);
      expect((await api.post(`/v1/orgs/${org.id}/invites`, { emails: ['x@example.com'], role: 'read' })).status).toBe(403);
    }
    expect((await org.members.admin.api.get(`${links(org.id)}/${id}`)).body.disabled).toBe(false);
  });

  it('refuses an admin of another organization reading, changing or deleting a link of this one', async () => {
    const id = await createLink({ role: 'admin' });
    const api = other.members.admin.api;
    expect((await api.get(links(org.id))).status).toBe(404);
    expect((await api.get(`${links(org.id)}/${id}`)).status).toBe(404);
    expect((await api.patch(`${links(org.id)}/${id}`, { role: 'read' })).status).toBe(404);
    expect((await api.delete(`${links(org.id)}/${id}`)).status).toBe(404);
    // Under their own organization the id names nothing.
    expect((await api.get(`${links(other.id)}/${id}`)).status).toBe(404);
    expect((await api.delete(`${links(other.id)}/${id}`)).status).toBe(204);
    expect((await org.members.admin.api.get(`${links(org.id)}/${id}`)).status).toBe(200);
  });

  it("refuses joining with another organization's link under this organization's path", async () => {
    const foreign = await createLink({ role: 'admin' }, other.id, other.members.admin.api);
    const user = await newcomer();
    expect((await user.api.post(join(org.id, foreign))).status).toBe(404);
    expect(await roleIn(org.id, user.userId)).toBeUndefined();
    // An admin of the other organization cannot use its link to get into this one either.
    expect((await other.members.admin.api.post(join(org.id, foreign))).status).toBe(404);
  });

  it('refuses a link or an invite with a role above the creator’s own', async () => {
    // Only admins create links and invite, so the check is the admin rule here; the rule of roles
    // itself is unit-tested (test/unit/domain/invites.test.ts).
    expect((await org.members.create.api.post(links(org.id), { role: 'admin' })).status).toBe(403);
    expect((await org.members.create.api.post(`/v1/orgs/${org.id}/invites`, { emails: ['a@example.com'], role: 'admin' })).status).toBe(
      403,
    );
  });

  it('refuses joining with an expired, disabled or deleted link', async () => {
    const user = await newcomer();
    const disabled = await createLink({ role: 'edit' });
    expect((await org.members.admin.api.patch(`${links(org.id)}/${disabled}`, { disabled: true })).status).toBe(200);
    const res = await user.api.post(join(org.id, disabled));
    expect(res.status).toBe(403);
    expect(res.body.error.message).toMatch(/disabled/);

    const expiring = await createLink({ role: 'edit', expiresAt: new Date(Date.now() + 1500).toISOString() });
    await new Promise((resolve) => setTimeout(resolve, 1700));
    const expired = await user.api.post(join(org.id, expiring));
    expect(expired.status).toBe(403);
    expect(expired.body.error.message).toMatch(/expired/);

    const deleted = await createLink({ role: 'edit' });
    expect((await org.members.admin.api.delete(`${links(org.id)}/${deleted}`)).status).toBe(205);
    expect((await user.api.post(join(org.id, deleted))).status).toBe(404);
    expect((await user.api.post(join(org.id, newId(32)))).status).toBe(404);
    expect(await roleIn(org.id, user.userId)).toBeUndefined();
  });

  it('refuses joining without a token (401) and keeps link ids out of the logs', async () => {
    const id = await createLink({ role: 'read' });
    expect((await client(t.app).post(join(org.id, id))).status).toBe(401);
    const user = await newcomer();
    expect((await user.api.post(join(org.id, id))).status).toBe(200);
    await org.members.admin.api.get(`${links(org.id)}/${id}`);
    expect(log.length).toBeGreaterThan(0);
    expect(log.filter((line) => line.includes(id))).toEqual([]);
  });

  it('does not store link ids in the clear', async () => {
    const id = await createLink({ role: 'read' });
    const res = await org.members.admin.api.get(`${links(org.id)}?limit=1000`);
    expect(res.body.items.map((i: { id: string }) => i.id)).toContain(id);
    const rows = await sql<{ row: string }>(t.orm.em.fork(), 'select row_to_json(l)::text as row from organization_invite_link l');
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(id);
  });
});

describe('invite links', () => {
  it('joins with exactly the link role, keeps a higher role and raises a lower one', async () => {
    const editLink = await createLink({ role: 'edit' });
    const user = await newcomer();
    expect(await user.api.post(join(org.id, editLink))).toMatchObject({ status: 200, body: {} });
    expect(await roleIn(org.id, user.userId)).toBe('edit');

    // A second join with a lower link never lowers the role.
    const readLink = await createLink({ role: 'read' });
    expect((await user.api.post(join(org.id, readLink))).status).toBe(200);
    expect(await roleIn(org.id, user.userId)).toBe('edit');
    // A guest link for an admin changes nothing.
    const guestLink = await createLink({ role: null });
    expect((await org.members.admin.api.post(join(org.id, guestLink))).status).toBe(200);
    expect(await roleIn(org.id, org.members.admin.userId)).toBe('admin');
    // A guest who joins with a role link gets the role.
    expect((await org.members.guest.api.post(join(org.id, readLink))).status).toBe(200);
    expect(await roleIn(org.id, org.members.guest.userId)).toBe('read');
    // A newcomer joining with a guest link is a guest.
    const guest = await newcomer();
    expect((await guest.api.post(join(org.id, guestLink))).status).toBe(200);
    expect(await roleIn(org.id, guest.userId)).toBeNull();
  });

  it('creates, reads, changes and deletes links', async () => {
    const admin = org.members.admin.api;
    const created = await admin.post(links(org.id), { role: 'comment' });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'invite', role: 'comment', redundant: true, disabled: false, expiresAt: null });
    expect(created.body.id).toHaveLength(32);
    const id = created.body.id as string;
    expect((await admin.get(`${links(org.id)}/${id}`)).body).toEqual(created.body);

    const expiresAt = new Date(Date.now() + 3_600_000).toISOString();
    const changed = await admin.patch(`${links(org.id)}/${id}`, { role: 'review', expiresAt });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ role: 'review', expiresAt, disabled: false });
    expect((await admin.patch(`${links(org.id)}/${id}`, { disabled: true })).body).toMatchObject({ role: 'review', disabled: true });
    expect((await admin.patch(`${links(org.id)}/${id}`, { disabled: false, expiresAt: null })).body).toMatchObject({
      expiresAt: null,
      disabled: false,
    });
    expect((await admin.delete(`${links(org.id)}/${id}`)).status).toBe(205);
    expect((await admin.delete(`${links(org.id)}/${id}`)).status).toBe(204);
    expect((await admin.get(`${links(org.id)}/${id}`)).status).toBe(404);
    expect((await admin.patch(`${links(org.id)}/${id}`, { disabled: true })).status).toBe(404);
  });

  it('pages through the links', async () => {
    const fresh = await createTestOrg(t, 'Paged invites');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await createLink({ role: 'read' }, fresh.id, fresh.members.admin.api));
    const seen: string[] = [];
    let page: string | undefined;
    do {
      const res = await fresh.members.admin.api.get(`${links(fresh.id)}?limit=2${page ? `&page=${encodeURIComponent(page)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.items.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.items.map((i: { id: string }) => i.id));
      page = res.body.next?.page;
    } while (page);
    expect(seen).toEqual(ids);
  });

  it('answers 400 for bad bodies, content links and unknown roles', async () => {
    const admin = org.members.admin.api;
    expect((await admin.post(links(org.id), {})).status).toBe(400);
    expect((await admin.post(links(org.id), { role: 'owner' })).status).toBe(400);
    expect((await admin.post(links(org.id), { level: 'read', space: 'abc', collection: 'abc' })).status).toBe(400);
    expect((await admin.post(links(org.id), { level: 'read' })).status).toBe(400);
    expect((await admin.post(links(org.id), { role: 'read', space: 'abc' })).status).toBe(400);
    expect((await admin.post(links(org.id), { level: null, space: 'abc' })).status).toBe(400);
    expect((await admin.post(links(org.id), { role: 'read', expiresAt: 'tomorrow' })).status).toBe(400);
    expect((await admin.post(links(org.id), { role: 'read', expiresAt: '2001-01-01T00:00:00Z' })).status).toBe(400);
    const id = await createLink({ role: 'read' });
    expect((await admin.patch(`${links(org.id)}/${id}`, {})).status).toBe(400);
    expect((await admin.patch(`${links(org.id)}/${id}`, { role: 'boss' })).status).toBe(400);
    expect((await admin.patch(`${links(org.id)}/${id}`, { level: 'read' })).status).toBe(400);
    expect((await admin.get(`${links('nope')}`)).status).toBe(404);
    expect((await client(t.app).get(links(org.id))).status).toBe(401);
  });
});

describe('invites by email', () => {
  it('invites users with an account (who accept), skips emails without one, raises members and never lowers a role', async () => {
    const a = await newcomer();
    const b = await newcomer();
    const nobody = `nobody-${newId(8).toLowerCase()}@example.com`;
    const res = await org.members.admin.api.post(`/v1/orgs/${org.id}/invites`, {
      emails: [
        a.email.toUpperCase(),
        { email: b.email, role: 'review' },
        nobody,
        { email: org.members.admin.userId + '@x.io', role: null },
      ],
      role: 'comment',
    });
    // Nobody outside the organization is in the answer: they are invited, not added.
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ users: [], invited: 0 });
    expect(await roleIn(org.id, a.userId)).toBeUndefined();
    for (const [user, role] of [
      [a, 'comment'],
      [b, 'review'],
    ] as const) {
      const pending = await user.api.get('/v1/user/invites');
      expect(pending.status).toBe(200);
      expect(pending.body).toMatchObject({ count: 1, items: [{ object: 'organization-invite', role, organization: { id: org.id } }] });
      expect((await user.api.post(`/v1/user/invites/${pending.body.items[0].id}`)).status).toBe(200);
    }
    expect(await roleIn(org.id, a.userId)).toBe('comment');
    expect(await roleIn(org.id, b.userId)).toBe('review');
    // No account was made for the email without one.
    expect((await org.members.admin.api.get(`/v1/orgs/${org.id}/members?search=${nobody.split('@')[0]}`)).body.items).toEqual([]);

    // Members now: an invite raises their role directly, and never lowers it.
    const again = await org.members.admin.api.post(`/v1/orgs/${org.id}/invites`, {
      emails: [
        { email: b.email, role: 'read' },
        { email: a.email, role: 'edit' },
      ],
    });
    expect(again.body).toEqual({ users: [a.userId], invited: 1 });
    expect(await roleIn(org.id, a.userId)).toBe('edit');
    expect(await roleIn(org.id, b.userId)).toBe('review');
    expect((await a.api.get('/v1/user/invites')).body.items).toEqual([]);
  });

  it('keeps one invitation per organization (inviting again changes its role), pages them, and answers 404 for unknown ones', async () => {
    const c = await newcomer();
    const invite = (orgId: string, api: Api, role: string) => api.post(`/v1/orgs/${orgId}/invites`, { emails: [c.email], role });
    expect((await invite(org.id, org.members.admin.api, 'read')).status).toBe(200);
    expect((await invite(org.id, org.members.admin.api, 'edit')).status).toBe(200);
    expect((await invite(other.id, other.members.admin.api, 'comment')).status).toBe(200);
    const first = await c.api.get('/v1/user/invites?limit=1');
    expect(first.body).toMatchObject({ count: 2, items: [{ organization: { id: org.id }, role: 'edit' }] });
    const second = await c.api.get(`/v1/user/invites?limit=1&page=${encodeURIComponent(first.body.next.page)}`);
    expect(second.body.items).toMatchObject([{ organization: { id: other.id }, role: 'comment' }]);
    expect(second.body.next).toBeUndefined();
    expect((await c.api.post(`/v1/user/invites/${newId()}`)).status).toBe(404);
    expect((await c.api.delete(`/v1/user/invites/${newId()}`)).status).toBe(404);
    expect((await c.api.delete(`/v1/user/invites/${second.body.items[0].id}`)).status).toBe(204);
    expect((await c.api.get('/v1/user/invites')).body.count).toBe(1);
  });

  it('answers 400 for bad emails, bad roles, a missing role and SSO invites', async () => {
    const admin = org.members.admin.api;
    const url = `/v1/orgs/${org.id}/invites`;
    const bad = await admin.post(url, { emails: ['not-an-email'], role: 'read' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toMatch(/emails\[0\]/);
    expect((await admin.post(url, { emails: ['a b@example.com'], role: 'read' })).status).toBe(400);
    expect((await admin.post(url, { emails: [], role: 'read' })).status).toBe(400);
    expect((await admin.post(url, { emails: ['a@example.com'], role: 'owner' })).status).toBe(400);
    expect((await admin.post(url, { emails: [{ email: 'a@example.com', role: 'boss' }] })).status).toBe(400);
    expect((await admin.post(url, { emails: ['a@example.com'] })).status).toBe(400);
    expect((await admin.post(url, { emails: ['a@example.com'], role: 'read', sso: true })).status).toBe(400);
    expect((await client(t.app).post(url, { emails: ['a@example.com'], role: 'read' })).status).toBe(401);
    expect((await other.members.admin.api.post(url, { emails: ['a@example.com'], role: 'read' })).status).toBe(404);
  });
});

describe('content invite links', () => {
  async function newSpace(api = org.members.admin.api, orgId = org.id) {
    const res = await api.post(`/v1/orgs/${orgId}/spaces`, { title: 'Invited space' });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  it('joins a newcomer as a guest with the link level on that space only', async () => {
    const spaceId = await newSpace();
    const elsewhere = await newSpace();
    const res = await org.members.admin.api.post(links(org.id), { level: 'edit', space: spaceId });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'invite', level: 'edit', space: { object: 'space', id: spaceId }, redundant: true });
    expect(res.body.role).toBeUndefined();
    const someone = await newcomer();
    expect((await someone.api.post(join(org.id, res.body.id))).status).toBe(200);
    expect(await roleIn(org.id, someone.userId)).toBeNull();
    // The attacker's requests: the invited space at the invited level, nothing else.
    expect((await someone.api.get(`/v1/spaces/${spaceId}`)).status).toBe(200);
    expect((await someone.api.get(`/v1/spaces/${elsewhere}`)).status).toBe(404);
    const listed = await someone.api.get(`/v1/orgs/${org.id}/spaces`);
    expect(listed.body.items.map((x: { id: string }) => x.id)).toEqual([spaceId]);
    expect((await someone.api.post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Mine' })).status).toBe(201);
    expect((await someone.api.patch(`/v1/spaces/${spaceId}`, { visibility: 'public' })).status).toBe(403);
    expect((await someone.api.post(`/v1/spaces/${spaceId}/permissions`, { role: 'admin', users: [someone.userId] })).status).toBe(403);
    // The same link again, or a lower one, never lowers the level; a member keeps their organization role.
    const lower = await createLink({ level: 'read', space: spaceId });
    expect((await someone.api.post(join(org.id, lower))).status).toBe(200);
    expect((await someone.api.post(`/v1/spaces/${spaceId}/change-requests`, { subject: 'Still' })).status).toBe(201);
    expect((await org.members.edit.api.post(join(org.id, lower))).status).toBe(200);
    expect(await roleIn(org.id, org.members.edit.userId)).toBe('edit');
  });

  it('joins a collection link with the level on the collection and the spaces in it', async () => {
    const admin = org.members.admin.api;
    const collection = await admin.post(`/v1/orgs/${org.id}/collections`, { title: 'Invited collection' });
    expect(collection.status).toBe(201);
    const inside = await admin.post(`/v1/orgs/${org.id}/spaces`, { title: 'Inside', parent: collection.body.id });
    expect(inside.status).toBe(201);
    const outside = await newSpace();
    const id = await createLink({ level: 'comment', collection: collection.body.id });
    const one = await admin.get(`${links(org.id)}/${id}`);
    expect(one.body).toMatchObject({ level: 'comment', collection: { object: 'collection', id: collection.body.id } });
    const someone = await newcomer();
    expect((await someone.api.post(join(org.id, id))).status).toBe(200);
    expect((await someone.api.get(`/v1/collections/${collection.body.id}`)).status).toBe(200);
    expect((await someone.api.get(`/v1/spaces/${inside.body.id}`)).status).toBe(200);
    expect((await someone.api.get(`/v1/spaces/${outside}`)).status).toBe(404);
  });

  it('lets the create role on a space make links up to its own role, and refuses more (403)', async () => {
    const spaceId = await newSpace();
    const creator = org.members.create.api;
    const made = await creator.post(links(org.id), { level: 'create', space: spaceId });
    expect(made.status).toBe(201);
    const above = await creator.post(links(org.id), { level: 'admin', space: spaceId });
    expect(above.status).toBe(403);
    expect(above.body.error.message).toMatch(/above your own role on this space/);
    // Updating a link to a level above yours is refused too, and changes nothing.
    const raised = await creator.patch(`${links(org.id)}/${made.body.id}`, { level: 'admin' });
    expect(raised.status).toBe(403);
    expect((await creator.get(`${links(org.id)}/${made.body.id}`)).body.level).toBe('create');
    expect((await creator.patch(`${links(org.id)}/${made.body.id}`, { level: 'read' })).body.level).toBe('read');
    expect((await creator.patch(`${links(org.id)}/${made.body.id}`, { role: 'read' })).status).toBe(400);
    // Below create on the space: no content links, and no reading or changing them.
    for (const role of ['review', 'edit', 'comment', 'read'] as const) {
      const api = org.members[role].api;
      expect((await api.post(links(org.id), { level: 'read', space: spaceId })).status).toBe(403);
      expect((await api.get(`${links(org.id)}/${made.body.id}`)).status).toBe(403);
      expect((await api.patch(`${links(org.id)}/${made.body.id}`, { level: 'read' })).status).toBe(403);
      expect((await api.delete(`${links(org.id)}/${made.body.id}`)).status).toBe(403);
    }
    // A guest with create on one space (joined through a content link) invites there, and nowhere else.
    const guest = await newcomer();
    expect((await guest.api.post(join(org.id, await createLink({ level: 'create', space: spaceId })))).status).toBe(200);
    expect((await guest.api.post(links(org.id), { level: 'edit', space: spaceId })).status).toBe(201);
    expect((await guest.api.post(links(org.id), { level: 'read', space: await newSpace() })).status).toBe(404);
    expect((await guest.api.post(links(org.id), { role: null })).status).toBe(403);
    // Only admins list every link; the creator deletes theirs.
    expect((await creator.get(links(org.id))).status).toBe(403);
    expect((await creator.delete(`${links(org.id)}/${made.body.id}`)).status).toBe(205);
  });

  it("refuses another organization's space or collection (404), and links that are expired or disabled", async () => {
    const foreign = await newSpace(other.members.admin.api, other.id);
    expect((await org.members.admin.api.post(links(org.id), { level: 'read', space: foreign })).status).toBe(404);
    expect((await org.members.admin.api.post(links(org.id), { level: 'read', space: 'no-such-space' })).status).toBe(404);
    const foreignCollection = await other.members.admin.api.post(`/v1/orgs/${other.id}/collections`, { title: 'Theirs' });
    expect((await org.members.admin.api.post(links(org.id), { level: 'read', collection: foreignCollection.body.id })).status).toBe(404);
    // Their admin cannot make a link of this organization to their space either.
    expect((await other.members.admin.api.post(links(org.id), { level: 'read', space: foreign })).status).toBe(404);

    const spaceId = await newSpace();
    const id = await createLink({ level: 'read', space: spaceId });
    expect((await org.members.admin.api.patch(`${links(org.id)}/${id}`, { disabled: true })).status).toBe(200);
    const someone = await newcomer();
    expect((await someone.api.post(join(org.id, id))).body.error.message).toMatch(/disabled/);
    const expiring = await createLink({ level: 'read', space: spaceId, expiresAt: new Date(Date.now() + 1500).toISOString() });
    await new Promise((resolve) => setTimeout(resolve, 1700));
    const expired = await someone.api.post(join(org.id, expiring));
    expect(expired.status).toBe(403);
    expect(expired.body.error.message).toMatch(/expired/);
    expect(await roleIn(org.id, someone.userId)).toBeUndefined();
    expect((await someone.api.get(`/v1/spaces/${spaceId}`)).status).toBe(404);
    // A link of this organization under another organization's path is unknown there.
    const live = await createLink({ level: 'read', space: spaceId });
    expect((await someone.api.post(join(other.id, live))).status).toBe(404);
    // The space deleted: its link no longer joins.
    expect((await org.members.admin.api.delete(`/v1/spaces/${spaceId}`)).status).toBeLessThan(300);
    expect((await someone.api.post(join(org.id, live))).status).toBe(404);
    expect(await roleIn(org.id, someone.userId)).toBeUndefined();
  });
});
