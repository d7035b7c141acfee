import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { listenOnLoopback } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

/**
 * GitBook's own client drives every comment operation, on a space and inside a change request;
 * every response body is checked against the schema GitBook's OpenAPI document gives for it.
 */
let t: TestApp;
let org: TestOrg;
// The package's bundled type declarations do not resolve under NodeNext, so the client is typed loosely here.
let api: any;
let commenter: any;
let space: { id: string; revision: string };
let pageId: string;

beforeAll(async () => {
  t = await startTestApp();
  const endpoint = await listenOnLoopback(t);
  org = await createTestOrg(t, 'Client comments org');
  api = new GitBookAPI({ endpoint, authToken: org.members.admin.token });
  commenter = new GitBookAPI({ endpoint, authToken: org.members.comment.token });
  space = (await api.orgs.createSpace(org.id, { title: 'Reviewed' })).data;
  pageId = (await api.spaces.listPages(space.id)).data.pages[0].id;
});
afterAll(() => t.close());

describe('GitBook client: comments', () => {
  it('drives the comment operations on a space', async () => {
    const posted = (await commenter.spaces.postCommentInSpace(space.id, { page: pageId, node: 'n1', body: { markdown: 'Looks **good**' } }))
      .data;
    expectMatchesGitBook('postCommentInSpace', posted);
    const second = (await api.spaces.postCommentInSpace(space.id, { body: { markdown: 'Another' } })).data;
    expectMatchesGitBook('postCommentInSpace', second);

    const listed = (await api.spaces.listCommentsInSpace(space.id, { limit: 1 })).data;
    expectMatchesGitBook('listCommentsInSpace', listed);
    expect(listed.items.map((c: { id: string }) => c.id)).toEqual([second.id]);
    const rest = (await api.spaces.listCommentsInSpace(space.id, { page: listed.next.page })).data;
    expectMatchesGitBook('listCommentsInSpace', rest);
    expect(rest.items.map((c: { id: string }) => c.id)).toEqual([posted.id]);
    const filtered = (
      await api.spaces.listCommentsInSpace(space.id, {
        order: 'asc',
        status: 'open',
        format: 'document',
        targetPage: pageId,
        authors: [org.members.comment.userId, org.members.edit.userId],
      })
    ).data;
    expectMatchesGitBook('listCommentsInSpace', filtered);
    expect(filtered.items.map((c: { id: string }) => c.id)).toEqual([posted.id]);

    expectMatchesGitBook('getCommentInSpace', (await api.spaces.getCommentInSpace(space.id, posted.id)).data);
    expectMatchesGitBook('getCommentInSpace', (await api.spaces.getCommentInSpace(space.id, posted.id, { format: 'document' })).data);
    expectMatchesGitBook('getCommentInSpace', (await api.spaces.getCommentInSpace(space.id, posted.id, { format: 'markdown' })).data);

    const reacted = (await api.spaces.updateCommentInSpace(space.id, posted.id, { addedReactions: ['👍'] })).data;
    expectMatchesGitBook('updateCommentInSpace', reacted);
    const resolved = (await api.spaces.updateCommentInSpace(space.id, posted.id, { resolved: true })).data;
    expectMatchesGitBook('updateCommentInSpace', resolved);
    expect(resolved.status).toBe('resolved');
    const edited = (
      await commenter.spaces.updateCommentInSpace(space.id, posted.id, {
        body: { markdown: 'Edited' },
        resolved: false,
        removedReactions: ['🎉'],
      })
    ).data;
    expectMatchesGitBook('updateCommentInSpace', edited);
    expect(edited).toMatchObject({ status: 'open', body: { markdown: 'Edited' } });

    const reply = (await commenter.spaces.postCommentReplyInSpace(space.id, posted.id, { body: { markdown: 'A reply' } })).data;
    expectMatchesGitBook('postCommentReplyInSpace', reply);
    await api.spaces.postCommentReplyInSpace(space.id, posted.id, { body: { markdown: 'Another reply' } });
    const replies = (await api.spaces.listCommentRepliesInSpace(space.id, posted.id, { limit: 1 })).data;
    expectMatchesGitBook('listCommentRepliesInSpace', replies);
    expect(replies).toMatchObject({ count: 2, next: { page: expect.any(String) } });
    expectMatchesGitBook(
      'listCommentRepliesInSpace',
      (await api.spaces.listCommentRepliesInSpace(space.id, posted.id, { page: replies.next.page, format: 'document' })).data,
    );
    expectMatchesGitBook(
      'getCommentReplyInSpace',
      (await api.spaces.getCommentReplyInSpace(space.id, posted.id, reply.id, { format: 'document' })).data,
    );
    const updatedReply = (
      await commenter.spaces.updateCommentReplyInSpace(space.id, posted.id, reply.id, {
        body: { markdown: 'Edited reply' },
        addedReactions: ['🎉'],
      })
    ).data;
    expectMatchesGitBook('updateCommentReplyInSpace', updatedReply);
    const withReplies = (await api.spaces.getCommentInSpace(space.id, posted.id)).data;
    expectMatchesGitBook('getCommentInSpace', withReplies);
    expect(withReplies.replies).toBe(2);

    const deletedReply = await api.spaces.deleteCommentReplyInSpace(space.id, posted.id, reply.id);
    expect(deletedReply.status).toBe(205);
    expectMatchesGitBook('deleteCommentReplyInSpace', deletedReply.data, 205);
    expect((await api.spaces.deleteCommentReplyInSpace(space.id, posted.id, reply.id)).status).toBe(204);
    const deleted = await api.spaces.deleteCommentInSpace(space.id, posted.id);
    expect(deleted.status).toBe(205);
    expectMatchesGitBook('deleteCommentInSpace', deleted.data, 205);
    expect((await api.spaces.deleteCommentInSpace(space.id, posted.id)).status).toBe(204);
    await expect(api.spaces.getCommentInSpace(space.id, posted.id)).rejects.toMatchObject({ code: 404 });
    await expect(api.spaces.postCommentInSpace(space.id, { body: { markdown: 'x' }, page: 'missing' })).rejects.toMatchObject({
      code: 400,
    });
  });

  it('drives the comment operations inside a change request', async () => {
    const changeRequestId = (await api.spaces.createChangeRequest(space.id, { subject: 'Edits' })).data.id;
    const s = api.spaces;
    const posted = (
      await commenter.spaces.postCommentInChangeRequest(space.id, changeRequestId, { page: pageId, body: { markdown: 'In review' } })
    ).data;
    expectMatchesGitBook('postCommentInChangeRequest', posted);
    expect(posted.target.changeRequest).toBe(changeRequestId);
    expectMatchesGitBook(
      'listCommentsInChangeRequest',
      (await s.listCommentsInChangeRequest(space.id, changeRequestId, { status: 'all', authors: [org.members.comment.userId] })).data,
    );
    expectMatchesGitBook(
      'getCommentInChangeRequest',
      (await s.getCommentInChangeRequest(space.id, changeRequestId, posted.id, { format: 'document' })).data,
    );
    expectMatchesGitBook(
      'updateCommentInChangeRequest',
      (await s.updateCommentInChangeRequest(space.id, changeRequestId, posted.id, { resolved: true, addedReactions: ['✅'] })).data,
    );
    const reply = (
      await s.postCommentReplyInChangeRequest(space.id, changeRequestId, posted.id, { body: { markdown: 'Done' } }, { format: 'markdown' })
    ).data;
    expectMatchesGitBook('postCommentReplyInChangeRequest', reply);
    expectMatchesGitBook(
      'listCommentRepliesInChangeRequest',
      (await s.listCommentRepliesInChangeRequest(space.id, changeRequestId, posted.id)).data,
    );
    expectMatchesGitBook(
      'getCommentReplyInChangeRequest',
      (await s.getCommentReplyInChangeRequest(space.id, changeRequestId, posted.id, reply.id)).data,
    );
    expectMatchesGitBook(
      'updateCommentReplyInChangeRequest',
      (await s.updateCommentReplyInChangeRequest(space.id, changeRequestId, posted.id, reply.id, { addedReactions: ['👀'] })).data,
    );
    expect((await s.deleteCommentReplyInChangeRequest(space.id, changeRequestId, posted.id, reply.id)).status).toBe(205);
    expect((await s.deleteCommentInChangeRequest(space.id, changeRequestId, posted.id)).status).toBe(205);
    expect((await s.deleteCommentInChangeRequest(space.id, changeRequestId, posted.id)).status).toBe(204);
  });
});
