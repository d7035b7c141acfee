import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { client, createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { contentPages, edit, expect400, newChangeRequest, newSpace } from '../support/fixtures.ts';

let t: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Reviews org');
  other = await createTestOrg(t, 'Elsewhere');
});
afterAll(() => t.close());

const as = (role: 'admin' | 'create' | 'review' | 'edit' | 'comment' | 'read' | 'guest') => org.members[role].api;

/** A space with a change request opened by the `edit` member. */
async function setup() {
  const space = await newSpace(as('admin'), org.id);
  const cr = await newChangeRequest(as('edit'), space.id, 'Review me');
  return { space, cr, base: `/v1/spaces/${space.id}/change-requests/${cr.id}` };
}

describe('change-request reviews', () => {
  it('records an approval bound to the revision it looked at, and reads it back', async () => {
    const { cr, base } = await setup();
    const res = await as('review').post(`${base}/reviews`, { status: 'approved' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      object: 'change-request-review',
      revision: cr.revision,
      status: 'approved',
      outdated: false,
      reviewer: { object: 'user', id: org.members.review.userId },
    });
    expect(res.body.requestedBy).toBeUndefined();
    expect(res.headers.location).toBe(res.body.urls.location);
    const one = await as('read').get(`${base}/reviews/${res.body.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(res.body);
    const list = await as('read').get(`${base}/reviews`);
    expect(list.body).toMatchObject({ count: 1, items: [{ id: res.body.id }] });
    // By number too.
    expect((await as('read').get(`/v1/spaces/${cr.space}/change-requests/${cr.number}/reviews`)).body.count).toBe(1);
  });

  it('marks earlier reviews outdated when the change request is edited, and keeps them listed', async () => {
    const { space, cr, base } = await setup();
    const first = await as('review').post(`${base}/reviews`, { status: 'changes-requested' });
    expect(first.status).toBe(201);
    const root = (await contentPages(as('admin'), space.id))[0];
    await edit(as('edit'), space.id, cr.id, [{ operation: 'update_page', page: root.id, document: { markdown: 'Fixed\n' } }]);
    const old = await as('read').get(`${base}/reviews/${first.body.id}`);
    expect(old.body).toMatchObject({ outdated: true, revision: cr.revision });
    const second = await as('admin').post(`${base}/reviews`, { status: 'approved' });
    expect(second.body.outdated).toBe(false);
    expect(second.body.revision).not.toBe(cr.revision);
    const all = await as('read').get(`${base}/reviews`);
    expect(all.body.items.map((r: { id: string; outdated: boolean }) => [r.id, r.outdated])).toEqual([
      [first.body.id, true],
      [second.body.id, false],
    ]);
    expect((await as('read').get(`${base}/reviews?outdated=true`)).body.items.map((r: { id: string }) => r.id)).toEqual([first.body.id]);
    expect((await as('read').get(`${base}/reviews?outdated=false`)).body.items.map((r: { id: string }) => r.id)).toEqual([second.body.id]);
  });

  it('outdates a reviewer’s earlier review when they review again', async () => {
    const { base } = await setup();
    const a = await as('review').post(`${base}/reviews`, { status: 'changes-requested' });
    const b = await as('review').post(`${base}/reviews`, { status: 'approved' });
    expect((await as('read').get(`${base}/reviews/${a.body.id}`)).body.outdated).toBe(true);
    expect((await as('read').get(`${base}/reviews/${b.body.id}`)).body.outdated).toBe(false);
  });

  it('pages through reviews without gaps or duplicates', async () => {
    const { base } = await setup();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await as(i % 2 ? 'admin' : 'review').post(`${base}/reviews`, { status: 'approved' })).body.id);
    const seen: string[] = [];
    let page: string | undefined;
    do {
      const res = await as('read').get(`${base}/reviews?limit=2${page ? `&page=${encodeURIComponent(page)}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(5);
      seen.push(...res.body.items.map((r: { id: string }) => r.id));
      page = res.body.next?.page;
    } while (page);
    expect(seen).toEqual(ids);
    expect400(await as('read').get(`${base}/reviews?page=garbage`), /page/);
  });

  it('refuses a bad status, callers below review, and the author approving their own', async () => {
    const { base } = await setup();
    expect400(await as('review').post(`${base}/reviews`, { status: 'lgtm' }), /status/);
    expect400(await as('review').post(`${base}/reviews`, {}), /status/);
    for (const role of ['edit', 'comment', 'read'] as const) {
      const res = await as(role).post(`${base}/reviews`, { status: 'changes-requested' });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe(403);
    }
    const admin = as('admin');
    const own = await newChangeRequest(admin, (await newSpace(admin, org.id)).id);
    const self = await admin.post(`/v1/spaces/${own.space}/change-requests/${own.id}/reviews`, { status: 'approved' });
    expect(self.status).toBe(403);
    expect(self.body.error.message).toMatch(/author/);
    // Asking for changes on one's own change request is not an approval.
    expect((await admin.post(`/v1/spaces/${own.space}/change-requests/${own.id}/reviews`, { status: 'changes-requested' })).status).toBe(
      201,
    );
  });

  it('answers 401 without a token and 404 for another organization, an unknown change request or review', async () => {
    const { space, base } = await setup();
    const anonymous = client(t.app);
    expect((await anonymous.get(`${base}/reviews`)).status).toBe(401);
    expect((await anonymous.post(`${base}/reviews`, { status: 'approved' })).status).toBe(401);
    const outsider = other.members.admin.api;
    for (const res of [
      await outsider.get(`${base}/reviews`),
      await outsider.post(`${base}/reviews`, { status: 'approved' }),
      await outsider.get(`${base}/requested-reviewers`),
      await outsider.post(`${base}/requested-reviewers`, { users: [other.members.admin.userId] }),
      await outsider.get(`${base}/contributors`),
      await as('guest').get(`${base}/reviews`),
      await as('read').get(`/v1/spaces/${space.id}/change-requests/nope/reviews`),
      await as('read').get(`${base}/reviews/nope`),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe(404);
    }
    // A review of another change request is not found through this one.
    const { base: otherBase } = await setup();
    const review = await as('review').post(`${otherBase}/reviews`, { status: 'approved' });
    expect((await as('read').get(`${base}/reviews/${review.body.id}`)).status).toBe(404);
  });
});

describe('requested reviewers', () => {
  it('asks reviewers, lists them, and a review clears the reviewer’s request', async () => {
    const { cr, base } = await setup();
    const asked = await as('edit').post(`${base}/requested-reviewers`, {
      users: [org.members.review.userId, org.members.admin.userId],
      subject: 'Please review',
    });
    expect(asked.status).toBe(200);
    expect(asked.body.users).toHaveLength(2);
    expect(asked.body.users[0]).toMatchObject({
      object: 'change-request-requested-reviewer',
      kind: 'user',
      revision: cr.revision,
      requestedBy: { id: org.members.edit.userId },
    });
    expect((await as('read').get(base)).body.subject).toBe('Please review');
    const list = await as('read').get(`${base}/requested-reviewers?limit=1`);
    expect(list.body.count).toBe(2);
    expect(list.body.items).toHaveLength(1);
    expect(list.body.next.page).toEqual(expect.any(String));
    const rest = await as('read').get(`${base}/requested-reviewers?limit=1&page=${encodeURIComponent(list.body.next.page)}`);
    expect([list.body.items[0].user.id, rest.body.items[0].user.id].sort()).toEqual(
      [org.members.review.userId, org.members.admin.userId].sort(),
    );
    expect(rest.body.next).toBeUndefined();

    const review = await as('review').post(`${base}/reviews`, { status: 'approved' });
    expect(review.body.requestedBy).toMatchObject({ id: org.members.edit.userId });
    const after = await as('read').get(`${base}/requested-reviewers`);
    expect(after.body.items.map((r: { user: { id: string } }) => r.user.id)).toEqual([org.members.admin.userId]);

    // Asking the reviewer again outdates the review they gave.
    await as('edit').post(`${base}/requested-reviewers`, { users: [org.members.review.userId] });
    expect((await as('read').get(`${base}/reviews/${review.body.id}`)).body.outdated).toBe(true);
  });

  it('removes a request: 205 when removed, 204 when there was none', async () => {
    const { base } = await setup();
    await as('edit').post(`${base}/requested-reviewers`, { users: [org.members.review.userId] });
    expect((await as('comment').delete(`${base}/requested-reviewers/${org.members.review.userId}`)).status).toBe(403);
    expect((await as('edit').delete(`${base}/requested-reviewers/${org.members.review.userId}`)).status).toBe(205);
    expect((await as('edit').delete(`${base}/requested-reviewers/${org.members.review.userId}`)).status).toBe(204);
    expect((await as('read').get(`${base}/requested-reviewers`)).body.count).toBe(0);
  });

  it('refuses reviewers who cannot read the space, naming them, and callers below edit', async () => {
    const { base } = await setup();
    const guest = org.members.guest.userId;
    const res = await as('edit').post(`${base}/requested-reviewers`, { users: [org.members.review.userId, guest] });
    expect400(res, new RegExp(guest));
    const stranger = other.members.admin.userId;
    expect400(await as('edit').post(`${base}/requested-reviewers`, { users: [stranger] }), new RegExp(stranger));
    expect400(await as('edit').post(`${base}/requested-reviewers`, { users: ['no-such-user'] }), /no-such-user/);
    expect400(await as('edit').post(`${base}/requested-reviewers`, { users: [] }), /users/);
    // Nobody was asked by the refused requests.
    expect((await as('read').get(`${base}/requested-reviewers`)).body.count).toBe(0);
    expect((await as('comment').post(`${base}/requested-reviewers`, { users: [org.members.review.userId] })).status).toBe(403);
    expect((await client(t.app).post(`${base}/requested-reviewers`, { users: [org.members.review.userId] })).status).toBe(401);
  });
});

describe('contributors', () => {
  it('counts edits and comments per user', async () => {
    const { space, cr, base } = await setup();
    const root = (await contentPages(as('admin'), space.id))[0];
    await edit(as('edit'), space.id, cr.id, [{ operation: 'update_page', page: root.id, document: { markdown: 'One\n' } }]);
    await edit(as('admin'), space.id, cr.id, [{ operation: 'update_page', page: root.id, document: { markdown: 'Two\n' } }]);
    const comment = await as('comment').post(`${base}/comments`, { page: root.id, body: { markdown: 'Nice' } });
    expect(comment.status).toBe(200);
    const res = await as('read').get(`${base}/contributors`);
    expect(res.status).toBe(200);
    const byUser = Object.fromEntries(
      res.body.items.map((c: { user: { id: string }; actionType: string; count: number }) => [`${c.actionType}:${c.user.id}`, c.count]),
    );
    expect(byUser).toEqual({
      [`edit:${org.members.edit.userId}`]: 2, // opened it, then edited it
      [`edit:${org.members.admin.userId}`]: 1,
      [`comment:${org.members.comment.userId}`]: 1,
    });
    expect(res.body.count).toBe(3);
    expect((await client(t.app).get(`${base}/contributors`)).status).toBe(401);
  });
});

describe('a review’s comment', () => {
  it('posts the comment in the change request, tied to the review, and shows it on the review', async () => {
    const { cr, base } = await setup();
    const res = await as('review').post(`${base}/reviews`, {
      status: 'changes-requested',
      comment: { markdown: 'Please fix the **title**' },
    });
    expect(res.status).toBe(201);
    expect(res.body.comment).toMatchObject({
      object: 'comment',
      body: { markdown: 'Please fix the **title**' },
      postedBy: { id: org.members.review.userId },
      target: { space: cr.space, changeRequest: cr.id, review: res.body.id, revision: cr.revision },
      status: 'open',
    });
    // The same comment among the change request's comments, and in the review's reads.
    const comments = await as('read').get(`${base}/comments`);
    expect(comments.body.items.map((c: { id: string }) => c.id)).toEqual([res.body.comment.id]);
    expect(comments.body.items[0].target.review).toBe(res.body.id);
    expect((await as('read').get(`${base}/reviews/${res.body.id}`)).body.comment.id).toBe(res.body.comment.id);
    const asDocument = await as('read').get(`${base}/reviews?format=document`);
    expect(asDocument.body.items[0].comment.body.document).toMatchObject({ object: 'document' });
    // It counts as a comment of the reviewer.
    const contributors = await as('read').get(`${base}/contributors`);
    expect(contributors.body.items).toContainEqual(
      expect.objectContaining({ actionType: 'comment', count: 1, user: expect.objectContaining({ id: org.members.review.userId }) }),
    );
    // A document comment is stored as its markdown; an empty document is no comment.
    const doc = await as('admin').post(`${base}/reviews`, {
      status: 'approved',
      comment: {
        document: {
          object: 'document',
          nodes: [
            {
              object: 'block',
              type: 'paragraph',
              nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Looks good', marks: [] }] }],
            },
          ],
        },
      },
    });
    expect(doc.status).toBe(201);
    expect(doc.body.comment.body.markdown).toContain('Looks good');
    const none = await as('admin').post(`${base}/reviews`, { status: 'approved', comment: {} });
    expect(none.status).toBe(201);
    expect(none.body.comment).toBeUndefined();
  });

  it('refuses a comment too long or of the wrong shape with a clear 400, and stores nothing', async () => {
    const { base } = await setup();
    const long = await as('review').post(`${base}/reviews`, { status: 'approved', comment: { markdown: 'x'.repeat(100_001) } });
    expect400(long, /comment/);
    const text = 'y'.repeat(60_000);
    const paragraph = { object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }] };
    const big = await as('review').post(`${base}/reviews`, {
      status: 'approved',
      comment: { document: { object: 'document', nodes: [paragraph, paragraph] } },
    });
    expect400(big, /comment is too long/);
    expect400(await as('review').post(`${base}/reviews`, { status: 'approved', comment: 'hello' }), /comment/);
    expect((await as('read').get(`${base}/reviews`)).body.count).toBe(0);
    expect((await as('read').get(`${base}/comments`)).body.count).toBe(0);
  });
});

describe('teams as requested reviewers', () => {
  async function newTeam(members: string[], o: TestOrg = org) {
    const res = await o.members.admin.api.put(`/v1/orgs/${o.id}/teams`, { title: `Reviewers ${Math.random()}`, members });
    expect(res.status).toBe(201);
    return res.body.id as string;
  }

  it('asks a team, lists it as kind team, and a review by any member clears it', async () => {
    const { cr, base } = await setup();
    const team = await newTeam([org.members.review.userId, org.members.create.userId]);
    const asked = await as('edit').post(`${base}/requested-reviewers`, { users: [org.members.admin.userId], teams: [team] });
    expect(asked.status).toBe(200);
    expect(asked.body.users).toHaveLength(2);
    expect(asked.body.users).toContainEqual(
      expect.objectContaining({
        kind: 'team',
        team: expect.objectContaining({ object: 'team', id: team, members: 2 }),
        revision: cr.revision,
      }),
    );
    const list = await as('read').get(`${base}/requested-reviewers`);
    expect(list.body.items.map((r: { kind: string }) => r.kind).sort()).toEqual(['team', 'user']);
    // The org-wide inbox finds it for a member of the team.
    const inbox = await as('read').get(`/v1/orgs/${org.id}/change-requests?requestedReviewer=${org.members.create.userId}`);
    expect(inbox.body.items.map((c: { id: string }) => c.id)).toContain(cr.id);

    const review = await as('create').post(`${base}/reviews`, { status: 'approved' });
    expect(review.status).toBe(201);
    expect(review.body.requestedBy).toMatchObject({ id: org.members.edit.userId });
    const after = await as('read').get(`${base}/requested-reviewers`);
    expect(after.body.items.map((r: { kind: string; user?: { id: string } }) => [r.kind, r.user?.id])).toEqual([
      ['user', org.members.admin.userId],
    ]);
    // Asking the team again outdates its member's review.
    await as('edit').post(`${base}/requested-reviewers`, { users: [], teams: [team] });
    expect((await as('read').get(`${base}/reviews/${review.body.id}`)).body.outdated).toBe(true);
  });

  it('withdraws a team’s request by its id: 205, then 204', async () => {
    const { base } = await setup();
    const team = await newTeam([org.members.review.userId]);
    await as('edit').post(`${base}/requested-reviewers`, { users: [], teams: [team] });
    expect((await as('comment').delete(`${base}/requested-reviewers/${team}`)).status).toBe(403);
    expect((await as('edit').delete(`${base}/requested-reviewers/${team}`)).status).toBe(205);
    expect((await as('edit').delete(`${base}/requested-reviewers/${team}`)).status).toBe(204);
    expect((await as('read').get(`${base}/requested-reviewers`)).body.count).toBe(0);
  });

  it('refuses a team of another organization, a team that cannot read the space, and callers below edit', async () => {
    const { space, base } = await setup();
    const foreign = await newTeam([other.members.review.userId], other);
    expect400(await as('edit').post(`${base}/requested-reviewers`, { users: [], teams: [foreign] }), new RegExp(foreign));
    // A team whose guest member has no grant on the space cannot read it; an empty team neither.
    const withGuest = await newTeam([org.members.review.userId, org.members.guest.userId]);
    expect400(await as('edit').post(`${base}/requested-reviewers`, { users: [], teams: [withGuest] }), new RegExp(withGuest));
    const empty = await newTeam([]);
    expect400(await as('edit').post(`${base}/requested-reviewers`, { users: [], teams: [empty] }), /cannot read/);
    expect400(await as('edit').post(`${base}/requested-reviewers`, { users: [] }), /users/);
    expect((await as('read').get(`${base}/requested-reviewers`)).body.count).toBe(0);
    // A grant to the team on the space makes it a reviewer that can read.
    expect((await as('admin').post(`/v1/spaces/${space.id}/permissions`, { role: 'read', teams: [withGuest] })).status).toBe(204);
    expect((await as('edit').post(`${base}/requested-reviewers`, { users: [], teams: [withGuest] })).status).toBe(200);
    expect((await as('comment').post(`${base}/requested-reviewers`, { users: [], teams: [withGuest] })).status).toBe(403);
    expect((await client(t.app).post(`${base}/requested-reviewers`, { users: [], teams: [withGuest] })).status).toBe(401);
  });
});
