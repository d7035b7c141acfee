import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { findOrCreateUser, issueToken } from '../../src/db/accounts.ts';
import { newId } from '../../src/domain/ids.ts';
import { addMember, client, createTestOrg, startTestApp, type Api, type TestApp, type TestOrg } from '../support/harness.ts';
import { newSpace } from '../support/fixtures.ts';

/**
 * Invites, attacked. A link's power is its creator's current rights: a member who made a content
 * link and was then removed (or lost their rights on the content) cannot rejoin through it, and
 * admins see and revoke every link of the organization. An email invite never makes someone a
 * member without their consent, and its answer does not tell which emails have an account.
 */

let t: TestApp;
let org: TestOrg;
let other: TestOrg;

const links = (orgId: string) => `/v1/orgs/${orgId}/link-invites`;
const join = (orgId: string, inviteId: string) => `/v1/orgs/${orgId}/invites/${inviteId}`;
const admin = () => org.members.admin.api;

/** A user with an account and no membership anywhere. */
async function newcomer(): Promise<{ userId: string; email: string; api: Api }> {
  const em = t.orm.em.fork();
  const email = `sec-invitee-${newId(8).toLowerCase()}@example.com`;
  const user = await findOrCreateUser(em, email);
  const { token } = await issueToken(em, user.id, 'test');
  return { userId: user.id, email, api: client(t.app, token) };
}

/** A user's role in the organization (null: guest); undefined when not a member. */
async function roleIn(orgId: string, userId: string, api = admin()) {
  const res = await api.get(`/v1/orgs/${orgId}/members/${userId}`);
  return res.status === 200 ? res.body.role : undefined;
}

/** Every link the admins' list shows, all pages. */
async function listed(orgId = org.id, api = admin()): Promise<{ id: string; level?: string; role?: string | null }[]> {
  const out = [];
  let page: string | undefined;
  do {
    const res = await api.get(`${links(orgId)}?limit=100${page ? `&page=${encodeURIComponent(page)}` : ''}`);
    expect(res.status).toBe(200);
    out.push(...res.body.items);
    page = res.body.next?.page;
  } while (page);
  return out;
}

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Invite attacks');
  other = await createTestOrg(t, 'Invite attacks elsewhere');
});
afterAll(() => t.close());

describe('a content link outlives its creator', () => {
  it('refuses rejoining through a link its creator made before being removed', async () => {
    const space = await newSpace(admin(), org.id, { title: 'Handbook' });
    const insider = await newcomer();
    await addMember(t, org.id, insider.userId, 'create');
    const made = await insider.api.post(links(org.id), { level: 'edit', space: space.id });
    expect(made.status).toBe(201);
    expect((await admin().delete(`/v1/orgs/${org.id}/members/${insider.userId}`)).status).toBeLessThan(300);
    expect(await roleIn(org.id, insider.userId)).toBeUndefined();

    // The attacker's request: back in, with edit rights, through the link they kept.
    const res = await insider.api.post(join(org.id, made.body.id));
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe(404);
    expect(await roleIn(org.id, insider.userId)).toBeUndefined();
    expect((await insider.api.get(`/v1/spaces/${space.id}`)).status).toBe(404);
    // Nor through an accomplice: the link is dead for everyone.
    const accomplice = await newcomer();
    expect((await accomplice.api.post(join(org.id, made.body.id))).status).toBe(404);
    expect(await roleIn(org.id, accomplice.userId)).toBeUndefined();
  });

  it('refuses a link whose creator no longer has the create role on its content, and caps one above their current role', async () => {
    const space = await newSpace(admin(), org.id, { title: 'Roadmap' });
    const insider = await newcomer();
    await addMember(t, org.id, insider.userId, 'create');
    const made = await insider.api.post(links(org.id), { level: 'create', space: space.id });
    expect(made.status).toBe(201);
    // Demoted: they could no longer make this link, so it no longer joins.
    expect((await admin().patch(`/v1/orgs/${org.id}/members/${insider.userId}`, { role: 'read' })).status).toBe(200);
    const someone = await newcomer();
    expect((await someone.api.post(join(org.id, made.body.id))).status).toBe(404);
    expect(await roleIn(org.id, someone.userId)).toBeUndefined();

    // A second admin makes an admin-level link, then is demoted to create: the link gives create at most.
    const second = await newcomer();
    await addMember(t, org.id, second.userId, 'admin');
    const high = await second.api.post(links(org.id), { level: 'admin', space: space.id });
    expect(high.status).toBe(201);
    expect((await admin().patch(`/v1/orgs/${org.id}/members/${second.userId}`, { role: 'create' })).status).toBe(200);
    const joiner = await newcomer();
    expect((await joiner.api.post(join(org.id, high.body.id))).status).toBe(200);
    const perms = await admin().get(`/v1/spaces/${space.id}/permissions/users?limit=100`);
    expect(perms.status).toBe(200);
    const granted = perms.body.items.find((p: { user: { id: string } }) => p.user.id === joiner.userId);
    expect(granted?.permission).toBe('create');
  });

  it('refuses an organization link whose creator is no longer an admin', async () => {
    const second = await newcomer();
    await addMember(t, org.id, second.userId, 'admin');
    const made = await second.api.post(links(org.id), { role: 'admin' });
    expect(made.status).toBe(201);
    expect((await admin().patch(`/v1/orgs/${org.id}/members/${second.userId}`, { role: 'edit' })).status).toBe(200);
    const someone = await newcomer();
    expect((await someone.api.post(join(org.id, made.body.id))).status).toBe(404);
    expect(await roleIn(org.id, someone.userId)).toBeUndefined();
  });

  it('lists every link of the organization to its admins, whoever made it, and lets them revoke it', async () => {
    const space = await newSpace(admin(), org.id, { title: 'Listed' });
    const collection = await admin().post(`/v1/orgs/${org.id}/collections`, { title: 'Listed collection' });
    const toSpace = await org.members.create.api.post(links(org.id), { level: 'edit', space: space.id });
    const toCollection = await admin().post(links(org.id), { level: 'read', collection: collection.body.id });
    const toOrg = await admin().post(links(org.id), { role: 'read' });
    for (const res of [toSpace, toCollection, toOrg]) expect(res.status).toBe(201);
    const seen = await listed();
    const ids = seen.map((l) => l.id);
    expect(ids).toEqual(expect.arrayContaining([toSpace.body.id, toCollection.body.id, toOrg.body.id]));
    expect(seen.find((l) => l.id === toSpace.body.id)).toMatchObject({ level: 'edit', space: { id: space.id } });
    // Other organizations' links are not in it.
    const foreign = await other.members.admin.api.post(links(other.id), { role: 'read' });
    expect(ids).not.toContain(foreign.body.id);
    // Non-admins still do not list.
    expect((await org.members.create.api.get(links(org.id))).status).toBe(403);

    expect((await admin().delete(`${links(org.id)}/${toSpace.body.id}`)).status).toBe(205);
    const someone = await newcomer();
    expect((await someone.api.post(join(org.id, toSpace.body.id))).status).toBe(404);
    expect((await listed()).map((l) => l.id)).not.toContain(toSpace.body.id);

    // A link to a space in the bin is still listed, and still revocable.
    const binned = await newSpace(admin(), org.id, { title: 'Binned' });
    const toBinned = await org.members.create.api.post(links(org.id), { level: 'read', space: binned.id });
    expect((await admin().delete(`/v1/spaces/${binned.id}`)).status).toBeLessThan(300);
    expect((await listed()).map((l) => l.id)).toContain(toBinned.body.id);
    expect((await admin().delete(`${links(org.id)}/${toBinned.body.id}`)).status).toBe(205);
    expect((await listed()).map((l) => l.id)).not.toContain(toBinned.body.id);
  });

  it("deletes a member's links when they are removed", async () => {
    const space = await newSpace(admin(), org.id, { title: 'Removal' });
    const insider = await newcomer();
    await addMember(t, org.id, insider.userId, 'create');
    const made = await insider.api.post(links(org.id), { level: 'read', space: space.id });
    expect((await listed()).map((l) => l.id)).toContain(made.body.id);
    expect((await admin().delete(`/v1/orgs/${org.id}/members/${insider.userId}`)).status).toBeLessThan(300);
    expect((await listed()).map((l) => l.id)).not.toContain(made.body.id);
  });
});

describe('an email invite adds an account without consent, and tells which emails have one', () => {
  const invite = (body: object, api = admin()) => api.post(`/v1/orgs/${org.id}/invites`, body);

  it('makes an existing account a pending invitation, answered exactly as an unknown email', async () => {
    // Someone who belongs to another organization, and someone with no organization at all.
    const outsider = await newcomer();
    await addMember(t, other.id, outsider.userId, 'admin');
    const loner = await newcomer();
    const unknown = `nobody-${newId(8).toLowerCase()}@example.com`;

    const answers = [];
    for (const email of [outsider.email, loner.email, unknown]) {
      const res = await invite({ emails: [email], role: 'admin' });
      answers.push({ status: res.status, body: res.body });
    }
    // The same status and the same body, whether or not the email has an account.
    expect(answers[0]).toEqual(answers[2]);
    expect(answers[1]).toEqual(answers[2]);
    expect(answers[2]).toEqual({ status: 200, body: { users: [], invited: 0 } });
    // Nobody became a member.
    expect(await roleIn(org.id, outsider.userId)).toBeUndefined();
    expect(await roleIn(org.id, loner.userId)).toBeUndefined();
    expect((await outsider.api.get(`/v1/orgs/${org.id}`)).status).toBe(404);

    // The invited person sees the invitation with their own token, and accepts it.
    const pending = await outsider.api.get('/v1/user/invites');
    expect(pending.status).toBe(200);
    expect(pending.body.items).toHaveLength(1);
    expect(pending.body.items[0]).toMatchObject({ object: 'organization-invite', role: 'admin', organization: { id: org.id } });
    const inviteId = pending.body.items[0].id as string;
    // Nobody else can accept or decline it.
    for (const api of [loner.api, other.members.admin.api, admin()]) {
      expect((await api.post(`/v1/user/invites/${inviteId}`)).status).toBe(404);
      expect((await api.delete(`/v1/user/invites/${inviteId}`)).status).toBe(404);
    }
    expect((await client(t.app).get('/v1/user/invites')).status).toBe(401);
    expect((await outsider.api.post(`/v1/user/invites/${inviteId}`)).status).toBe(200);
    expect(await roleIn(org.id, outsider.userId)).toBe('admin');
    expect((await outsider.api.get('/v1/user/invites')).body.items).toEqual([]);
    expect((await outsider.api.post(`/v1/user/invites/${inviteId}`)).status).toBe(404);

    // Declining leaves them out, and the invitation gone.
    const declined = (await loner.api.get('/v1/user/invites')).body.items[0];
    expect(declined.organization.id).toBe(org.id);
    expect((await loner.api.delete(`/v1/user/invites/${declined.id}`)).status).toBe(204);
    expect((await loner.api.post(`/v1/user/invites/${declined.id}`)).status).toBe(404);
    expect(await roleIn(org.id, loner.userId)).toBeUndefined();
  });

  it('answers a batch of known and unknown emails the same way as a batch of unknown ones', async () => {
    const a = await newcomer();
    const b = await newcomer();
    const mixed = await invite({
      emails: [a.email, `x-${newId(6).toLowerCase()}@example.com`, { email: b.email, role: 'edit' }],
      role: 'read',
    });
    const none = await invite({
      emails: [`y-${newId(6).toLowerCase()}@example.com`, `z-${newId(6).toLowerCase()}@example.com`],
      role: 'read',
    });
    expect({ status: mixed.status, body: mixed.body }).toEqual({ status: none.status, body: none.body });
    expect(Object.keys(mixed.headers).sort()).toEqual(Object.keys(none.headers).sort());
  });
});
