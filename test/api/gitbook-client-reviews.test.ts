import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { GitBookAPI } from '@gitbook/api';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { listenOnLoopback } from '../support/fixtures.ts';
import { expectMatchesGitBook } from '../support/gitbook-openapi.ts';

/**
 * GitBook's own client drives the review operations of a change request (reviews, requested
 * reviewers, contributors); every response body is checked against GitBook's schema for it.
 */
let t: TestApp;
let org: TestOrg;
// The package's bundled type declarations do not resolve under NodeNext, so the client is typed loosely here.
let author: any;
let reviewer: any;
let admin: any;

beforeAll(async () => {
  t = await startTestApp();
  const endpoint = await listenOnLoopback(t);
  org = await createTestOrg(t, 'Client reviews org');
  author = new GitBookAPI({ endpoint, authToken: org.members.edit.token });
  reviewer = new GitBookAPI({ endpoint, authToken: org.members.review.token });
  admin = new GitBookAPI({ endpoint, authToken: org.members.admin.token });
});
afterAll(() => t.close());

describe('GitBook client: change-request reviews', () => {
  it('drives reviews, requested reviewers and contributors', async () => {
    const space = (await admin.orgs.createSpace(org.id, { title: 'Reviewed' })).data;
    const cr = (await author.spaces.createChangeRequest(space.id, { subject: 'Fix typo' })).data;

    const asked = (
      await author.spaces.requestReviewersForChangeRequest(space.id, cr.id, {
        users: [org.members.review.userId, org.members.admin.userId],
      })
    ).data;
    expectMatchesGitBook('requestReviewersForChangeRequest', asked);
    const requested = (await reviewer.spaces.getRequestedReviewersByChangeRequestId(space.id, cr.id, { limit: 1 })).data;
    expectMatchesGitBook('getRequestedReviewersByChangeRequestId', requested);
    expect(requested.count).toBe(2);
    const rest = (await reviewer.spaces.getRequestedReviewersByChangeRequestId(space.id, cr.id, { page: requested.next.page })).data;
    expectMatchesGitBook('getRequestedReviewersByChangeRequestId', rest);

    const review = await reviewer.spaces.submitChangeRequestReview(space.id, cr.id, { status: 'approved' });
    expect(review.status).toBe(201);
    expectMatchesGitBook('submitChangeRequestReview', review.data, 201);
    expect(review.data.requestedBy.id).toBe(org.members.edit.userId);

    const reviews = (await author.spaces.getReviewsByChangeRequestId(space.id, cr.id, { outdated: false, limit: 10 })).data;
    expectMatchesGitBook('getReviewsByChangeRequestId', reviews);
    expect(reviews.items.map((r: { id: string }) => r.id)).toEqual([review.data.id]);
    const one = (await author.spaces.getChangeRequestReviewById(space.id, cr.id, review.data.id, { format: 'document' })).data;
    expectMatchesGitBook('getChangeRequestReviewById', one);

    const removed = await author.spaces.removeRequestedReviewerFromChangeRequest(space.id, cr.id, org.members.admin.userId);
    expect(removed.status).toBe(205);
    const none = await author.spaces.removeRequestedReviewerFromChangeRequest(space.id, cr.id, org.members.admin.userId);
    expect(none.status).toBe(204);
    const left = (await author.spaces.getRequestedReviewersByChangeRequestId(space.id, cr.id)).data;
    expectMatchesGitBook('getRequestedReviewersByChangeRequestId', left);
    expect(left.items).toEqual([]);

    const contributors = (await author.spaces.getContributorsByChangeRequestId(space.id, cr.id)).data;
    expectMatchesGitBook('getContributorsByChangeRequestId', contributors);
    expect(contributors.items).toEqual([
      expect.objectContaining({ actionType: 'edit', count: 1, user: expect.objectContaining({ id: org.members.edit.userId }) }),
    ]);
  });

  it('sets a custom merge rule and merges under it', async () => {
    const space = (await admin.orgs.createSpace(org.id, { title: 'Ruled' })).data;
    const mergeRules = {
      type: 'rules',
      rules: [
        {
          rule: 'custom',
          expression: 'reviews[.status == "approved" && !.outdated][0] && changeRequest.subject != ""',
          message: 'Needs an approval',
        },
      ],
    };
    const updated = (await admin.spaces.updateSpaceById(space.id, { mergeRules })).data;
    expectMatchesGitBook('updateSpaceById', updated);
    expect(updated.mergeRules).toEqual(mergeRules);
    const read = (await author.spaces.getSpaceById(space.id)).data;
    expectMatchesGitBook('getSpaceById', read);
    expect(read.mergeRules).toEqual(mergeRules);
    await expect(
      admin.spaces.updateSpaceById(space.id, { mergeRules: { type: 'rules', rules: [{ rule: 'custom', expression: 'reviews ==== 1' }] } }),
    ).rejects.toMatchObject({ code: 400 });

    const cr = (await author.spaces.createChangeRequest(space.id, { subject: 'Fix typo' })).data;
    await expect(reviewer.spaces.mergeChangeRequest(space.id, cr.id)).rejects.toMatchObject({
      code: 409,
      message: expect.stringContaining('custom (Needs an approval)'),
    });
    await reviewer.spaces.submitChangeRequestReview(space.id, cr.id, { status: 'approved' });
    const merged = (await reviewer.spaces.mergeChangeRequest(space.id, cr.id)).data;
    expectMatchesGitBook('mergeChangeRequest', merged);
    expect(merged.result).toBe('merge');
  });

  it('submits a review with a comment and lists a requested team, in GitBook’s shapes', async () => {
    const space = (await admin.orgs.createSpace(org.id, { title: 'Reviewed with comments' })).data;
    const cr = (await author.spaces.createChangeRequest(space.id, { subject: 'Reword' })).data;
    const team = await org.members.admin.api.put(`/v1/orgs/${org.id}/teams`, {
      title: 'Client reviewers',
      members: [org.members.review.userId],
    });
    expect(team.status).toBe(201);
    const asked = await org.members.edit.api.post(`/v1/spaces/${space.id}/change-requests/${cr.id}/requested-reviewers`, {
      users: [],
      teams: [team.body.id],
    });
    expectMatchesGitBook('requestReviewersForChangeRequest', asked.body);
    const requested = (await reviewer.spaces.getRequestedReviewersByChangeRequestId(space.id, cr.id)).data;
    expectMatchesGitBook('getRequestedReviewersByChangeRequestId', requested);
    expect(requested.items[0]).toMatchObject({ kind: 'team', team: { id: team.body.id } });

    const review = await reviewer.spaces.submitChangeRequestReview(space.id, cr.id, {
      status: 'changes-requested',
      comment: { markdown: 'Reword the *second* paragraph' },
    });
    expect(review.status).toBe(201);
    expectMatchesGitBook('submitChangeRequestReview', review.data, 201);
    expect(review.data.comment.target.review).toBe(review.data.id);
    const one = (await author.spaces.getChangeRequestReviewById(space.id, cr.id, review.data.id, { format: 'document' })).data;
    expectMatchesGitBook('getChangeRequestReviewById', one);
    expect(one.comment.body.document).toBeDefined();
    const listed = (await author.spaces.getReviewsByChangeRequestId(space.id, cr.id)).data;
    expectMatchesGitBook('getReviewsByChangeRequestId', listed);
    expect((await reviewer.spaces.getRequestedReviewersByChangeRequestId(space.id, cr.id)).data.items).toEqual([]);
  });
});
