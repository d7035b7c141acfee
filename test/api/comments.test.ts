import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { client, createTestOrg, startTestApp, type Api, type TestApp, type TestOrg } from '../support/harness.ts';
import { contentPages, edit, newChangeRequest, newSpace, sql } from '../support/fixtures.ts';
import { countOpenComments, countOpenCommentsOnChangeRequests } from '../../src/api/comments/counters.ts';
import { findOrCreateUser, issueToken, setMembership } from '../../src/db/accounts.ts';
import { newId } from '../../src/domain/ids.ts';

let t: TestApp;
let org: TestOrg;
let other: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Comments org');
  other = await createTestOrg(t, 'Other org');
});
afterAll(() => t.close());

const admin = () => org.members.admin.api;

/** Changes a space's content through a merged change request; returns the ids of the pages touched. */
async function change(spaceId: string, changes: object[]): Promise<string[]> {
  const cr = await newChangeRequest(admin(), spaceId, 'Proposal');
  const edited = await edit(admin(), spaceId, cr.id, changes);
  const merged = await admin().post(`/v1/spaces/${spaceId}/change-requests/${cr.id}/merge`);
  expect(merged.body).toMatchObject({ result: 'merge' });
  return edited.changes.map((c) => c.page.id);
}

/** A new space (through the API) and the page it starts with. */
async function newSpaceWithPage(api: Api = admin(), orgId = org.id) {
  const space = await newSpace(api, orgId, { title: 'Discussed' });
  const tree = await contentPages(api, space.id);
  expect(tree).toHaveLength(1);
  return { ...(space as { id: string; revision: string }), pageId: tree[0].id as string };
}

async function post(api: Api, spaceId: string, body: object, base = `/v1/spaces/${spaceId}`) {
  const res = await api.post(`${base}/comments`, body);
  expect(res.status).toBe(200);
  return res.body;
}

const user = (member: { userId: string }) => ({
  object: 'user',
  id: member.userId,
  displayName: expect.any(String),
  email: expect.any(String),
  urls: { location: `http://docs.test/v1/users/${member.userId}` },
});

describe('posting and reading comments', () => {
  it('posts a comment on a page with every Comment field', async () => {
    const space = await newSpaceWithPage();
    const res = await org.members.comment.api.post(`/v1/spaces/${space.id}/comments`, {
      page: space.pageId,
      node: 'node-1',
      body: { markdown: 'Is this **right**?' },
    });
    expect(res.status).toBe(200);
    const c = res.body;
    expect(c).toEqual({
      object: 'comment',
      id: expect.any(String),
      postedBy: user(org.members.comment),
      postedAt: expect.any(String),
      reactions: [],
      replies: 0,
      repliers: [],
      body: { markdown: 'Is this **right**?' },
      target: {
        space: space.id,
        revision: space.revision,
        node: { id: 'node-1' },
        page: { id: space.pageId, title: 'Untitled', path: 'untitled', outdated: false },
      },
      urls: { location: `http://docs.test/v1/spaces/${space.id}/comments/${c.id}` },
      permissions: { view: true, edit: true, reply: true, delete: true },
      status: 'open',
    });
    expect(Date.parse(c.postedAt)).not.toBeNaN();
    const read = await org.members.read.api.get(`/v1/spaces/${space.id}/comments/${c.id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual({ ...c, permissions: { view: true, edit: false, reply: false, delete: false } });
    expect((await admin().get(`/v1/spaces/${space.id}/comments/${c.id}`)).body.permissions).toEqual({
      view: true,
      edit: false,
      reply: true,
      delete: true,
    });
  });

  it('posts comments without a target and from a GitBook document body', async () => {
    const space = await newSpaceWithPage();
    const plain = await post(admin(), space.id, { body: { markdown: 'General remark' } });
    expect(plain.target).toEqual({ space: space.id, revision: space.revision });
    const fromDocument = await post(admin(), space.id, {
      body: {
        document: {
          object: 'document',
          data: {},
          nodes: [
            {
              object: 'block',
              type: 'paragraph',
              nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Bold', marks: [{ object: 'mark', type: 'bold' }] }] }],
            },
          ],
        },
      },
    });
    expect(fromDocument.body).toEqual({ markdown: '**Bold**\n' });
  });

  it('answers in the GitBook document format when asked', async () => {
    const space = await newSpaceWithPage();
    const c = await post(admin(), space.id, { body: { markdown: 'Hello *world*' } });
    const res = await admin().get(`/v1/spaces/${space.id}/comments/${c.id}?format=document`);
    expect(res.body.body).toEqual({
      document: {
        object: 'document',
        data: {},
        nodes: [
          {
            object: 'block',
            type: 'paragraph',
            data: {},
            isVoid: false,
            key: 'k0',
            nodes: [
              {
                object: 'text',
                key: 'k1',
                leaves: [
                  { object: 'leaf', text: 'Hello ', marks: [] },
                  { object: 'leaf', text: 'world', marks: [{ object: 'mark', type: 'italic' }] },
                ],
              },
            ],
          },
        ],
      },
    });
    expect((await admin().get(`/v1/spaces/${space.id}/comments/${c.id}?format=markdown`)).body.body).toEqual({ markdown: 'Hello *world*' });
    const list = await admin().get(`/v1/spaces/${space.id}/comments?format=document`);
    expect(list.body.items[0].body.document.object).toBe('document');
  });

  it('validates the body, naming the field', async () => {
    const space = await newSpaceWithPage();
    const cases: [object, RegExp][] = [
      [{}, /body\.body/],
      [{ body: {} }, /body\.body/],
      [{ body: { markdown: '   ' } }, /body\.body/],
      [{ body: 'text' }, /body\.body/],
      [{ body: { markdown: 'x'.repeat(100_001) } }, /body\.body\.markdown/],
      [{ body: { markdown: 'x' }, page: 'no-such-page' }, /^page/],
      [{ body: { markdown: 'x' }, node: 'n'.repeat(65) }, /body\.node/],
    ];
    for (const [body, field] of cases) {
      const res = await admin().post(`/v1/spaces/${space.id}/comments`, body);
      expect({ body, status: res.status }).toEqual({ body, status: 400 });
      expect(res.body.error.code).toBe(400);
      expect(res.body.error.message).toMatch(field);
    }
    expect((await admin().get(`/v1/spaces/${space.id}/comments?format=html`)).body.error.message).toMatch(/format/);
    expect((await admin().get(`/v1/spaces/${space.id}/comments?status=closed`)).body.error.message).toMatch(/status/);
    expect((await admin().get(`/v1/spaces/${space.id}/comments?order=up`)).body.error.message).toMatch(/order/);
    expect((await admin().get(`/v1/spaces/${space.id}/comments?limit=1001`)).status).toBe(400);
    expect((await admin().get(`/v1/spaces/${space.id}/comments?page=garbage`)).body.error.message).toMatch(/page/);
  });

  it('needs a token, the comment role to post, and hides other organizations', async () => {
    const space = await newSpaceWithPage();
    const c = await post(admin(), space.id, { body: { markdown: 'x' } });
    const anonymous = client(t.app);
    const base = `/v1/spaces/${space.id}/comments`;
    for (const res of [
      await anonymous.get(base),
      await anonymous.post(base, { body: { markdown: 'x' } }),
      await anonymous.get(`${base}/${c.id}`),
      await anonymous.put(`${base}/${c.id}`, { resolved: true }),
      await anonymous.delete(`${base}/${c.id}`),
      await anonymous.get(`${base}/${c.id}/replies`),
      await anonymous.post(`${base}/${c.id}/replies`, { body: { markdown: 'x' } }),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe(401);
    }
    expect((await org.members.read.api.post(base, { body: { markdown: 'x' } })).status).toBe(403);
    for (const role of ['comment', 'edit', 'review', 'create', 'admin'] as const) {
      expect((await org.members[role].api.post(base, { body: { markdown: role } })).status).toBe(200);
    }
    expect((await org.members.guest.api.get(base)).status).toBe(404);
    expect((await org.members.guest.api.post(base, { body: { markdown: 'x' } })).status).toBe(404);
    for (const res of [
      await other.members.admin.api.get(base),
      await other.members.admin.api.post(base, { body: { markdown: 'x' } }),
      await other.members.admin.api.get(`${base}/${c.id}`),
      await other.members.admin.api.put(`${base}/${c.id}`, { resolved: true }),
      await other.members.admin.api.delete(`${base}/${c.id}`),
      await other.members.admin.api.get(`${base}/${c.id}/replies`),
    ]) {
      expect(res.status).toBe(404);
    }
    const elsewhere = await newSpaceWithPage(other.members.admin.api, other.id);
    expect((await admin().get(`/v1/spaces/${elsewhere.id}/comments/${c.id}`)).status).toBe(404);
    expect((await other.members.admin.api.get(`/v1/spaces/${elsewhere.id}/comments/${c.id}`)).status).toBe(404);
    expect((await admin().get(`${base}/missing`)).status).toBe(404);
    expect((await admin().put(`${base}/missing`, { resolved: true })).status).toBe(404);
  });
  it('hides the comments of a deleted space, and shows them again once it is restored', async () => {
    const space = await newSpaceWithPage();
    const c = await post(admin(), space.id, { body: { markdown: 'kept' } });
    expect((await admin().delete(`/v1/spaces/${space.id}`)).status).toBe(205);
    expect((await admin().get(`/v1/spaces/${space.id}/comments`)).status).toBe(404);
    expect((await admin().get(`/v1/spaces/${space.id}/comments/${c.id}`)).status).toBe(404);
    expect((await admin().post(`/v1/spaces/${space.id}/restore`)).status).toBe(200);
    expect((await admin().get(`/v1/spaces/${space.id}/comments/${c.id}`)).body.id).toBe(c.id);
  });
});

describe('listing comments', () => {
  it('pages through comments newest first, or oldest first with order=asc', async () => {
    const space = await newSpaceWithPage();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await post(admin(), space.id, { body: { markdown: `c${i}` } })).id);
    const walk = async (order: string) => {
      const seen: string[] = [];
      let page: string | undefined;
      do {
        const res = await org.members.read.api.get(`/v1/spaces/${space.id}/comments?limit=2${order}${page ? `&page=${page}` : ''}`);
        expect(res.status).toBe(200);
        expect(res.body.count).toBe(5);
        expect(res.body.items.length).toBeLessThanOrEqual(2);
        seen.push(...res.body.items.map((c: { id: string }) => c.id));
        page = res.body.next?.page;
      } while (page);
      return seen;
    };
    expect(await walk('')).toEqual([...ids].reverse());
    expect(await walk('&order=desc')).toEqual([...ids].reverse());
    expect(await walk('&order=asc')).toEqual(ids);
    const last = await admin().get(`/v1/spaces/${space.id}/comments?limit=5`);
    expect(last.body.next).toBeUndefined();
  });

  it('filters by status, target page and authors', async () => {
    const created = await newSpaceWithPage();
    const [second] = await change(created.id, [{ operation: 'insert_page', title: 'Second', document: { markdown: 'Two\n' } }]);
    const space = { ...created, revision: (await admin().get(`/v1/spaces/${created.id}`)).body.revision };
    const a = await post(org.members.comment.api, space.id, { body: { markdown: 'a' }, page: space.pageId });
    const b = await post(org.members.edit.api, space.id, { body: { markdown: 'b' }, page: second });
    const c = await post(admin(), space.id, { body: { markdown: 'c' } });
    expect((await admin().put(`/v1/spaces/${space.id}/comments/${b.id}`, { resolved: true })).status).toBe(200);
    const ids = async (query: string) => {
      const res = await admin().get(`/v1/spaces/${space.id}/comments?order=asc${query}`);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(res.body.items.length);
      return res.body.items.map((x: { id: string }) => x.id);
    };
    expect(await ids('')).toEqual([a.id, b.id, c.id]);
    expect(await ids('&status=all')).toEqual([a.id, b.id, c.id]);
    expect(await ids('&status=open')).toEqual([a.id, c.id]);
    expect(await ids('&status=resolved')).toEqual([b.id]);
    expect(await ids(`&targetPage=${space.pageId}`)).toEqual([a.id]);
    expect(await ids(`&targetPage=${second}&status=open`)).toEqual([]);
    expect(await ids(`&authors=${org.members.comment.userId}`)).toEqual([a.id]);
    expect(await ids(`&authors=${org.members.comment.userId}&authors=${org.members.admin.userId}`)).toEqual([a.id, c.id]);
    expect(await ids(`&authors=${org.members.edit.userId},${org.members.admin.userId}`)).toEqual([b.id, c.id]);
    expect(await ids('&authors=nobody')).toEqual([]);
  });
});

describe('updating comments', () => {
  it('resolves and reopens, setting and clearing resolvedAt and resolvedBy', async () => {
    const space = await newSpaceWithPage();
    const c = await post(org.members.comment.api, space.id, { body: { markdown: 'fix this' } });
    const url = `/v1/spaces/${space.id}/comments/${c.id}`;
    const resolved = await org.members.review.api.put(url, { resolved: true });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ status: 'resolved', resolvedBy: user(org.members.review) });
    expect(Date.parse(resolved.body.resolvedAt)).not.toBeNaN();
    const again = await admin().put(url, { resolved: true });
    expect(again.body).toMatchObject({
      status: 'resolved',
      resolvedAt: resolved.body.resolvedAt,
      resolvedBy: { id: org.members.review.userId },
    });
    const reopened = await org.members.comment.api.put(url, { resolved: false });
    expect(reopened.status).toBe(200);
    expect(reopened.body.status).toBe('open');
    expect(reopened.body).not.toHaveProperty('resolvedAt');
    expect(reopened.body).not.toHaveProperty('resolvedBy');
    expect((await org.members.comment.api.put(url, { resolved: true })).body.resolvedBy.id).toBe(org.members.comment.userId);
    expect((await org.members.comment.api.put(url, {})).status).toBe(200);
  });

  it('lets only the author or a reviewer resolve', async () => {
    const space = await newSpaceWithPage();
    const c = await post(org.members.edit.api, space.id, { body: { markdown: 'x' } });
    const url = `/v1/spaces/${space.id}/comments/${c.id}`;
    for (const role of ['read', 'comment'] as const) {
      const res = await org.members[role].api.put(url, { resolved: true });
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe(403);
    }
    expect((await org.members.edit.api.put(url, { resolved: true })).status).toBe(200);
    expect((await org.members.create.api.put(url, { resolved: false })).status).toBe(200);
    expect((await org.members.review.api.put(url, { resolved: true })).status).toBe(200);
  });

  it('lets only the author edit the body, and records editedAt', async () => {
    const space = await newSpaceWithPage();
    const c = await post(org.members.comment.api, space.id, { body: { markdown: 'typo' } });
    const url = `/v1/spaces/${space.id}/comments/${c.id}`;
    for (const role of ['admin', 'review', 'read'] as const) {
      expect((await org.members[role].api.put(url, { body: { markdown: 'hijack' } })).status).toBe(403);
    }
    const edited = await org.members.comment.api.put(url, { body: { markdown: 'fixed' } });
    expect(edited.status).toBe(200);
    expect(edited.body.body).toEqual({ markdown: 'fixed' });
    expect(Date.parse(edited.body.editedAt)).toBeGreaterThanOrEqual(Date.parse(c.postedAt));
    expect((await org.members.comment.api.put(url, { body: { markdown: '' } })).body.error.message).toMatch(/body\.body/);
  });

  it('aggregates reactions per emoji, idempotently per user', async () => {
    const space = await newSpaceWithPage();
    const c = await post(admin(), space.id, { body: { markdown: 'react' } });
    const url = `/v1/spaces/${space.id}/comments/${c.id}`;
    const first = await org.members.comment.api.put(url, { addedReactions: ['👍'] });
    expect(first.status).toBe(200);
    const reactedAt = first.body.reactions[0].users[0].reactedAt;
    await org.members.edit.api.put(url, { addedReactions: ['👍', '🎉'] });
    const twice = await org.members.comment.api.put(url, { addedReactions: ['👍', '👍'] });
    expect(twice.body.reactions).toEqual([
      {
        emoji: '👍',
        count: 2,
        users: [
          { user: user(org.members.comment), reactedAt },
          { user: user(org.members.edit), reactedAt: expect.any(String) },
        ],
      },
      { emoji: '🎉', count: 1, users: [{ user: user(org.members.edit), reactedAt: expect.any(String) }] },
    ]);
    const removed = await org.members.edit.api.put(url, { removedReactions: ['👍', '❤️'] });
    expect(removed.body.reactions.map((r: { emoji: string; count: number }) => [r.emoji, r.count])).toEqual([
      ['👍', 1],
      ['🎉', 1],
    ]);
    expect((await org.members.read.api.put(url, { addedReactions: ['👍'] })).status).toBe(403);
    const both = await admin().put(url, { addedReactions: ['👍'], removedReactions: ['👍'] });
    expect(both.status).toBe(400);
    expect(both.body.error.message).toMatch(/addedReactions/);
    expect((await admin().put(url, { addedReactions: [''] })).body.error.message).toMatch(/addedReactions/);
    expect((await admin().put(url, { removedReactions: [7, {}] })).body.error.message).toMatch(/removedReactions/);
  });
});

describe('deleting comments', () => {
  it('lets the author or an admin delete; 204 when there is nothing to delete', async () => {
    const space = await newSpaceWithPage();
    const base = `/v1/spaces/${space.id}/comments`;
    const mine = await post(org.members.comment.api, space.id, { body: { markdown: 'mine' } });
    const theirs = await post(org.members.edit.api, space.id, { body: { markdown: 'theirs' } });
    await org.members.comment.api.post(`${base}/${theirs.id}/replies`, { body: { markdown: 'reply' } });
    for (const role of ['comment', 'review', 'create', 'read'] as const) {
      expect((await org.members[role].api.delete(`${base}/${theirs.id}`)).status).toBe(403);
    }
    expect((await org.members.comment.api.delete(`${base}/${mine.id}`)).status).toBe(205);
    expect((await admin().get(`${base}/${mine.id}`)).status).toBe(404);
    expect((await admin().delete(`${base}/${theirs.id}`)).status).toBe(205);
    expect(await sql(t, 'select count(*)::int as n from comment_reply where comment_id = ?', [theirs.id])).toEqual([{ n: 0 }]);
    const gone = await admin().delete(`${base}/${theirs.id}`);
    expect(gone.status).toBe(204);
    expect(gone.body).toBeFalsy();
  });
});

describe('replies', () => {
  it('posts, lists, reads, edits, reacts to and deletes replies, keeping the comment count', async () => {
    const space = await newSpaceWithPage();
    const c = await post(admin(), space.id, { body: { markdown: 'thread' } });
    const base = `/v1/spaces/${space.id}/comments/${c.id}/replies`;
    const posted = await org.members.comment.api.post(base, { body: { markdown: 'first reply' } });
    expect(posted.status).toBe(200);
    const r = posted.body;
    expect(r).toEqual({
      object: 'comment-reply',
      id: expect.any(String),
      postedBy: user(org.members.comment),
      postedAt: expect.any(String),
      reactions: [],
      body: { markdown: 'first reply' },
      urls: { location: `http://docs.test${base}/${r.id}` },
      permissions: { view: true, edit: true, reply: true, delete: true },
    });
    const ids = [r.id];
    for (let i = 0; i < 3; i++) ids.push((await org.members.edit.api.post(base, { body: { markdown: `r${i}` } })).body.id);
    const comment = (await admin().get(`/v1/spaces/${space.id}/comments/${c.id}`)).body;
    expect(comment.replies).toBe(4);
    expect(comment.repliers).toEqual(
      expect.arrayContaining([
        { user: user(org.members.comment), count: 1, updatedAt: expect.any(String) },
        { user: user(org.members.edit), count: 3, updatedAt: expect.any(String) },
      ]),
    );
    expect(comment.repliers).toHaveLength(2);

    const seen: string[] = [];
    let page: string | undefined;
    do {
      const res = await org.members.read.api.get(`${base}?limit=3${page ? `&page=${page}` : ''}`);
      expect(res.status).toBe(200);
      expect(res.body.count).toBe(4);
      seen.push(...res.body.items.map((x: { id: string }) => x.id));
      page = res.body.next?.page;
    } while (page);
    expect(seen).toEqual(ids);
    expect((await admin().get(`${base}?format=document`)).body.items[0].body.document.object).toBe('document');
    expect((await admin().get(`${base}?limit=0`)).status).toBe(400);

    const got = await org.members.read.api.get(`${base}/${r.id}`);
    expect(got.body).toEqual({ ...r, permissions: { view: true, edit: false, reply: false, delete: false } });
    expect((await admin().get(`${base}/${r.id}?format=document`)).body.body.document.nodes).toHaveLength(1);
    expect((await admin().get(`${base}/missing`)).status).toBe(404);

    expect((await admin().put(`${base}/${r.id}`, { body: { markdown: 'hijack' } })).status).toBe(403);
    const edited = await org.members.comment.api.put(`${base}/${r.id}`, { body: { markdown: 'edited reply' }, addedReactions: ['🚀'] });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ body: { markdown: 'edited reply' }, reactions: [{ emoji: '🚀', count: 1 }] });
    expect(edited.body.editedAt).toEqual(expect.any(String));
    const again = await admin().put(`${base}/${r.id}`, { addedReactions: ['🚀'] });
    expect(again.body.reactions).toEqual([
      {
        emoji: '🚀',
        count: 2,
        users: [expect.objectContaining({ user: user(org.members.comment) }), expect.objectContaining({ user: user(org.members.admin) })],
      },
    ]);
    expect((await admin().put(`${base}/${r.id}`, { addedReactions: ['🚀'] })).body.reactions[0].count).toBe(2);
    expect((await admin().put(`${base}/${r.id}`, { removedReactions: ['🚀'] })).body.reactions[0].count).toBe(1);
    expect((await org.members.read.api.put(`${base}/${r.id}`, { addedReactions: ['🚀'] })).status).toBe(403);
    expect((await admin().put(`${base}/${r.id}`, { body: {} })).status).toBe(403);
    expect((await org.members.comment.api.put(`${base}/${r.id}`, { body: {} })).body.error.message).toMatch(/body\.body/);

    expect((await org.members.read.api.post(base, { body: { markdown: 'no' } })).status).toBe(403);
    expect((await admin().post(base, {})).body.error.message).toMatch(/body\.body/);
    expect((await client(t.app).get(`${base}/${r.id}`)).status).toBe(401);
    expect((await other.members.admin.api.get(`${base}/${r.id}`)).status).toBe(404);
    expect((await admin().post(`/v1/spaces/${space.id}/comments/missing/replies`, { body: { markdown: 'x' } })).status).toBe(404);

    expect((await org.members.review.api.delete(`${base}/${ids[1]}`)).status).toBe(403);
    expect((await org.members.edit.api.delete(`${base}/${ids[1]}`)).status).toBe(205);
    expect((await admin().delete(`${base}/${ids[2]}`)).status).toBe(205);
    expect((await admin().delete(`${base}/${ids[2]}`)).status).toBe(204);
    expect((await admin().get(`/v1/spaces/${space.id}/comments/${c.id}`)).body.replies).toBe(2);
  });
});

describe('targets and counters', () => {
  it('shows the path of nested pages and flags comments whose page changed or went away', async () => {
    const space = await newSpaceWithPage();
    const [child] = await change(space.id, [
      { operation: 'insert_page', into: space.pageId, title: 'Setup', document: { markdown: 'Install it.\n' } },
    ]);
    const revision = (await admin().get(`/v1/spaces/${space.id}`)).body.revision;
    const onChild = await post(admin(), space.id, { body: { markdown: 'x' }, page: child });
    const onRoot = await post(admin(), space.id, { body: { markdown: 'y' }, page: space.pageId });
    expect(onChild.target).toEqual({
      space: space.id,
      revision,
      page: { id: child, title: 'Setup', path: 'untitled/setup', outdated: false },
    });

    await change(space.id, [{ operation: 'update_page', page: child, document: { markdown: 'Install it twice.\n' } }]);
    const changed = (await admin().get(`/v1/spaces/${space.id}/comments/${onChild.id}`)).body.target;
    expect(changed).toEqual({ space: space.id, revision, page: { id: child, title: 'Setup', path: 'untitled/setup', outdated: true } });
    expect((await admin().get(`/v1/spaces/${space.id}/comments/${onRoot.id}`)).body.target.page.outdated).toBe(false);

    await change(space.id, [
      { operation: 'delete_page', page: child },
      { operation: 'update_page', page: space.pageId, title: 'Renamed' },
    ]);
    const removed = (await admin().get(`/v1/spaces/${space.id}/comments/${onChild.id}`)).body.target.page;
    expect(removed).toEqual({ id: child, title: 'Setup', path: 'untitled/setup', outdated: true });
    expect((await admin().get(`/v1/spaces/${space.id}/comments/${onRoot.id}`)).body.target.page).toMatchObject({
      title: 'Renamed',
      outdated: false,
    });
    const refused = await admin().post(`/v1/spaces/${space.id}/comments`, { body: { markdown: 'z' }, page: child });
    expect(refused.status).toBe(400);
    expect(refused.body.error.message).toMatch(/^page/);
  });

  it('counts open comments per space and per change request', async () => {
    const space = await newSpaceWithPage();
    const empty = await newSpaceWithPage();
    const cr = await newChangeRequest(admin(), space.id, 'Proposal');
    const a = await post(admin(), space.id, { body: { markdown: 'a' } });
    await post(admin(), space.id, { body: { markdown: 'b' } });
    await post(admin(), space.id, { body: { markdown: 'c' } }, `/v1/spaces/${space.id}/change-requests/${cr.id}`);
    await admin().put(`/v1/spaces/${space.id}/comments/${a.id}`, { resolved: true });
    const em = t.orm.em.fork();
    expect(await countOpenComments(em, [space.id, empty.id, 'missing'])).toEqual(
      new Map([
        [space.id, 1],
        [empty.id, 0],
        ['missing', 0],
      ]),
    );
    expect(await countOpenComments(em, [])).toEqual(new Map());
    expect(await countOpenCommentsOnChangeRequests(em, [cr.id, 'other'])).toEqual(
      new Map([
        [cr.id, 1],
        ['other', 0],
      ]),
    );
  });

  it('keeps comments of a user who no longer exists', async () => {
    const space = await newSpaceWithPage();
    const em = t.orm.em.fork();
    const leaver = await findOrCreateUser(em, `leaver-${newId(6).toLowerCase()}@example.com`, 'Leaver');
    await setMembership(em, org.id, leaver.id, 'comment');
    const api = client(t.app, (await issueToken(em, leaver.id, 'test')).token);
    const c = await post(api, space.id, { body: { markdown: 'bye' } });
    await api.put(`/v1/spaces/${space.id}/comments/${c.id}`, { resolved: true, addedReactions: ['👋'] });
    await sql(t, 'delete from app_user where id = ?', [leaver.id]);
    const res = await admin().get(`/v1/spaces/${space.id}/comments/${c.id}`);
    expect(res.body).toMatchObject({
      postedBy: { object: 'user', id: 'deleted', displayName: 'Deleted user' },
      status: 'resolved',
      resolvedBy: { id: 'deleted' },
      reactions: [],
    });
  });
});

describe('comments in change requests', () => {
  it('keeps change-request comments apart from the space and targets the change request', async () => {
    const space = await newSpaceWithPage();
    const cr = await newChangeRequest(admin(), space.id, 'Proposal');
    const [draftPage] = (
      await edit(admin(), space.id, cr.id, [{ operation: 'insert_page', title: 'Draft', emoji: '📝', document: { markdown: 'New\n' } }])
    ).changes.map((c) => c.page.id);
    const crRevision = (await admin().get(`/v1/spaces/${space.id}/change-requests/${cr.id}`)).body.revision;
    const base = `/v1/spaces/${space.id}/change-requests/${cr.id}/comments`;
    const posted = await org.members.comment.api.post(base, { body: { markdown: 'in the CR' }, page: draftPage });
    expect(posted.status).toBe(200);
    const c = posted.body;
    expect(c.target).toEqual({
      space: space.id,
      revision: crRevision,
      changeRequest: cr.id,
      page: { id: draftPage, title: 'Draft', emoji: '📝', path: 'draft', outdated: false },
    });
    expect(c.urls.location).toBe(`http://docs.test${base}/${c.id}`);
    expect(
      (await admin().post(`/v1/spaces/${space.id}/comments`, { body: { markdown: 'x' }, page: draftPage })).body.error.message,
    ).toMatch(/page/);
    const onSpace = await post(admin(), space.id, { body: { markdown: 'on the space' } });

    expect((await admin().get(base)).body.items.map((x: { id: string }) => x.id)).toEqual([c.id]);
    expect(
      (await admin().get(`/v1/spaces/${space.id}/change-requests/${cr.number}/comments`)).body.items.map((x: { id: string }) => x.id),
    ).toEqual([c.id]);
    expect((await admin().get(`/v1/spaces/${space.id}/comments`)).body.items.map((x: { id: string }) => x.id)).toEqual([onSpace.id]);
    expect((await admin().get(`/v1/spaces/${space.id}/comments/${c.id}`)).status).toBe(404);
    expect((await admin().get(`${base}/${onSpace.id}`)).status).toBe(404);
    expect((await admin().get(`/v1/spaces/${space.id}/change-requests/missing/comments`)).status).toBe(404);
    expect((await other.members.admin.api.get(base)).status).toBe(404);
    expect((await org.members.read.api.post(base, { body: { markdown: 'x' } })).status).toBe(403);

    const reply = await org.members.edit.api.post(`${base}/${c.id}/replies`, { body: { markdown: 'answer' } });
    expect(reply.body.urls.location).toBe(`http://docs.test${base}/${c.id}/replies/${reply.body.id}`);
    expect((await admin().get(`${base}/${c.id}/replies`)).body.count).toBe(1);
    expect((await org.members.review.api.put(`${base}/${c.id}`, { resolved: true })).body.status).toBe('resolved');
    expect((await admin().delete(`${base}/${c.id}/replies/${reply.body.id}`)).status).toBe(205);
    expect((await admin().delete(`${base}/${c.id}`)).status).toBe(205);
    await sql(t, 'delete from change_request where id = ?', [cr.id]);
    expect(await sql(t, 'select count(*)::int as n from comment where change_request_id = ?', [cr.id])).toEqual([{ n: 0 }]);
  });
});

describe('reference', () => {
  it('documents every comment operation in the OpenAPI document', async () => {
    const doc = (await client(t.app).get('/openapi.json')).body;
    for (const base of ['/v1/spaces/{spaceId}', '/v1/spaces/{spaceId}/change-requests/{changeRequestId}']) {
      expect(Object.keys(doc.paths[`${base}/comments`]).sort()).toEqual(['get', 'post']);
      expect(Object.keys(doc.paths[`${base}/comments/{commentId}`]).sort()).toEqual(['delete', 'get', 'put']);
      expect(Object.keys(doc.paths[`${base}/comments/{commentId}/replies`]).sort()).toEqual(['get', 'post']);
      expect(Object.keys(doc.paths[`${base}/comments/{commentId}/replies/{commentReplyId}`]).sort()).toEqual(['delete', 'get', 'put']);
    }
    const { validate } = await import('@readme/openapi-parser');
    const result = await validate(structuredClone(doc));
    expect(result.valid ? [] : result.errors).toEqual([]);
  });
});
