import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { changeRequestMergeActivities } from '../../src/activities/change-request-merge.ts';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { contentPages, edit, expect400, newChangeRequest, newSpace } from '../support/fixtures.ts';

let t: TestApp;
let org: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Merge rules org');
});
afterAll(() => t.close());

type Who = 'admin' | 'create' | 'review' | 'edit' | 'comment' | 'read' | 'guest';
const as = (role: Who) => org.members[role].api;
const id = (role: Who) => org.members[role].userId;

/** A space with the given merge rules and a change request (opened by `edit`) with one edit. */
async function setup(rules: unknown[] | null, subject = 'Change') {
  const space = await newSpace(as('admin'), org.id);
  if (rules) {
    const res = await as('admin').patch(`/v1/spaces/${space.id}`, { mergeRules: { type: 'rules', rules } });
    expect(res.status).toBe(200);
  }
  const cr = await newChangeRequest(as('edit'), space.id, subject);
  const root = (await contentPages(as('admin'), space.id))[0];
  const change = (markdown: string) =>
    edit(as('edit'), space.id, cr.id, [{ operation: 'update_page', page: root.id, document: { markdown } }]);
  await change('First\n');
  const base = `/v1/spaces/${space.id}/change-requests/${cr.id}`;
  return {
    space,
    cr,
    base,
    change,
    review: (who: Who, status = 'approved') => as(who).post(`${base}/reviews`, { status }),
    merge: (who: Who = 'review') => as(who).post(`${base}/merge`),
  };
}

/** Expects a 409 refusal naming exactly these rules. */
function expectRefused(res: { status: number; body: any }, rules: string[]) {
  expect(res.status).toBe(409);
  expect(res.body.error.code).toBe(409);
  expect(res.body.error.message).toMatch(/^Merge rules not met: /);
  for (const rule of rules) expect(res.body.error.message).toContain(rule);
}

describe('merge rules: configuration', () => {
  it('stores organization and space rules and answers them', async () => {
    const orgRes = await as('admin').patch(`/v1/orgs/${org.id}`, {
      mergeRules: { type: 'rules', rules: [{ rule: 'require_at_least_one_review' }] },
    });
    expect(orgRes.status).toBe(200);
    expect(orgRes.body.mergeRules).toEqual({ type: 'rules', rules: [{ rule: 'require_at_least_one_review' }] });
    expect((await as('read').get(`/v1/orgs/${org.id}`)).body.mergeRules).toEqual(orgRes.body.mergeRules);
    const space = await newSpace(as('admin'), org.id);
    expect(space.mergeRules).toEqual({ type: 'inherit' });
    const users = [id('review')];
    const res = await as('admin').patch(`/v1/spaces/${space.id}`, {
      mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users }] },
    });
    expect(res.status).toBe(200);
    expect(res.body.mergeRules).toEqual({ type: 'rules', rules: [{ rule: 'require_specific_reviewers', users }] });
    expect((await as('read').get(`/v1/spaces/${space.id}`)).body.mergeRules).toEqual(res.body.mergeRules);
    expect((await as('admin').patch(`/v1/orgs/${org.id}`, { mergeRules: { type: 'none' } })).body.mergeRules).toEqual({ type: 'none' });
  });

  it('refuses bad rule bodies with a clear 400', async () => {
    const space = await newSpace(as('admin'), org.id);
    const put = (mergeRules: unknown) => as('admin').patch(`/v1/spaces/${space.id}`, { mergeRules });
    expect400(await put({ type: 'rules', rules: [{ rule: 'require_magic' }] }), /unknown rule "require_magic"/);
    expect400(await put({ type: 'rules', rules: [{ rule: 'require_specific_reviewers' }] }), /needs users/);
    expect400(await put({ type: 'rules', rules: [{ rule: 'require_one_of_specific_reviewers', users: [] }] }), /at least one user/);
    expect400(await put({ type: 'rules', rules: [{ rule: 'require_at_least_one_review', users: ['x'] }] }), /takes no parameters/);
    expect400(await put({ type: 'rules', rules: [{ rule: 'custom', expression: 'true' }] }), /custom merge rules are not supported yet/);
    expect400(await put({ type: 'rules' }), /rules is required/);
    expect400(await put({ type: 'whenever' }), /type must be one of/);
    expect400(await as('admin').patch(`/v1/orgs/${org.id}`, { mergeRules: { type: 'inherit' } }), /type must be one of none, rules/);
    expect((await as('read').get(`/v1/spaces/${space.id}`)).body.mergeRules).toEqual({ type: 'inherit' });
  });

  it('lets only admins set rules', async () => {
    const space = await newSpace(as('admin'), org.id);
    const body = { mergeRules: { type: 'none' } };
    for (const who of ['create', 'review', 'edit'] as const) {
      expect((await as(who).patch(`/v1/spaces/${space.id}`, body)).status).toBe(403);
      expect((await as(who).patch(`/v1/orgs/${org.id}`, body)).status).toBe(403);
    }
    expect((await as('guest').patch(`/v1/spaces/${space.id}`, body)).status).toBe(404);
    const outsider = await createTestOrg(t, 'Outsiders');
    expect((await outsider.members.admin.api.patch(`/v1/orgs/${org.id}`, body)).status).toBe(404);
    expect((await outsider.members.admin.api.patch(`/v1/spaces/${space.id}`, body)).status).toBe(404);
    expect((await as('read').get(`/v1/spaces/${space.id}`)).body.mergeRules).toEqual({ type: 'inherit' });
  });
});

describe('merge rules: enforcement', () => {
  it('require_specific_reviewers and require_one_of_specific_reviewers', async () => {
    const a = await setup([{ rule: 'require_specific_reviewers', users: [id('review'), id('admin')] }]);
    await a.review('review');
    const refused = await a.merge();
    expectRefused(refused, ['require_specific_reviewers']);
    expect(refused.body.error.message).toContain(id('admin'));
    await a.review('admin');
    expect((await a.merge()).body.result).toBe('merge');

    const b = await setup([{ rule: 'require_one_of_specific_reviewers', users: [id('admin'), id('create')] }]);
    await b.review('review');
    expectRefused(await b.merge(), ['require_one_of_specific_reviewers']);
    await b.review('create');
    expect((await b.merge()).body.result).toBe('merge');
  });

  it('require_at_least_one_review, require_at_least_one_approved_review, require_all_reviews_approved', async () => {
    const a = await setup([{ rule: 'require_at_least_one_review' }, { rule: 'require_at_least_one_approved_review' }]);
    expectRefused(await a.merge(), ['require_at_least_one_review', 'require_at_least_one_approved_review']);
    await a.review('review', 'changes-requested');
    const one = await a.merge();
    expectRefused(one, ['require_at_least_one_approved_review']);
    expect(one.body.error.message).not.toContain('require_at_least_one_review ');
    await a.review('admin');
    expect((await a.merge()).body.result).toBe('merge');

    const b = await setup([{ rule: 'require_all_reviews_approved' }]);
    await b.review('review', 'changes-requested');
    await b.review('admin');
    expectRefused(await b.merge(), ['require_all_reviews_approved']);
    expect((await as('admin').post(`${b.base}/requested-reviewers`, { users: [id('create')] })).status).toBeLessThan(300);
    await b.review('review');
    expectRefused(await b.merge(), ['require_all_reviews_approved']);
    await b.review('create');
    expect((await b.merge()).body.result).toBe('merge');
  });

  it('require_change_request_subject and require_change_request_description', async () => {
    const s = await setup([{ rule: 'require_change_request_subject' }, { rule: 'require_change_request_description' }], '');
    expectRefused(await s.merge(), ['require_change_request_subject', 'require_change_request_description']);
    const patched = await as('edit').patch(s.base, { subject: 'Typos', description: 'Fixes the typos of the intro' });
    expect(patched.status).toBe(200);
    expect(patched.body.description).toBe('Fixes the typos of the intro');
    expect((await s.merge()).body.result).toBe('merge');
  });

  it('require_author_to_merge', async () => {
    const s = await setup([{ rule: 'require_author_to_merge' }]);
    expectRefused(await s.merge('review'), ['require_author_to_merge']);
    // The author of this one (an editor) cannot merge at all; a reviewer merges their own.
    const own = await newChangeRequest(as('review'), s.space.id, 'Mine');
    expect((await as('review').post(`/v1/spaces/${s.space.id}/change-requests/${own.id}/merge`)).body.result).toBe('merge');
  });

  it('require_up_to_date_change_request: refused after the space moved, merged after an update', async () => {
    const s = await setup([{ rule: 'require_up_to_date_change_request' }]);
    const other = await newChangeRequest(as('edit'), s.space.id, 'Other');
    await edit(as('edit'), s.space.id, other.id, [{ operation: 'insert_page', title: 'Elsewhere', document: { markdown: 'x\n' } }]);
    expect((await as('review').post(`/v1/spaces/${s.space.id}/change-requests/${other.id}/merge`)).body.result).toBe('merge');
    expectRefused(await s.merge(), ['require_up_to_date_change_request']);
    expect((await as('edit').post(`${s.base}/update`)).body.result).toBe('update');
    expect((await s.merge()).body.result).toBe('merge');
  });

  it('an edit after the approval outdates it: require_at_least_one_approved_review refuses', async () => {
    const s = await setup([{ rule: 'require_at_least_one_approved_review' }]);
    await s.review('review');
    await s.change('Second\n');
    expectRefused(await s.merge(), ['require_at_least_one_approved_review']);
    await s.review('review');
    expect((await s.merge()).body.result).toBe('merge');
  });

  it('space rules override the organization’s; inherit takes them; none lifts them', async () => {
    const orgRules = await as('admin').patch(`/v1/orgs/${org.id}`, {
      mergeRules: { type: 'rules', rules: [{ rule: 'require_at_least_one_approved_review' }] },
    });
    expect(orgRules.status).toBe(200);
    try {
      const inherit = await setup(null);
      expectRefused(await inherit.merge(), ['require_at_least_one_approved_review']);
      const own = await setup([{ rule: 'require_change_request_subject' }]);
      expect((await own.merge()).body.result).toBe('merge');
      const none = await setup(null);
      expect((await as('admin').patch(`/v1/spaces/${none.space.id}`, { mergeRules: { type: 'none' } })).status).toBe(200);
      expect((await none.merge()).body.result).toBe('merge');
      expect((await as('admin').patch(`/v1/spaces/${inherit.space.id}`, { mergeRules: { type: 'inherit' } })).status).toBe(200);
      expectRefused(await inherit.merge(), ['require_at_least_one_approved_review']);
    } finally {
      await as('admin').patch(`/v1/orgs/${org.id}`, { mergeRules: { type: 'none' } });
    }
  });

  it('allow_bypass: an admin merges past unmet rules and the bypass is recorded; others are refused', async () => {
    const s = await setup([{ rule: 'require_at_least_one_review' }, { rule: 'allow_bypass', users: [] }]);
    expectRefused(await s.merge('review'), ['require_at_least_one_review']);
    const merged = await s.merge('admin');
    expect(merged.status).toBe(200);
    expect(merged.body.result).toBe('merge');
    const cr = await as('read').get(s.base);
    expect(cr.body).toMatchObject({
      status: 'merged',
      mergeRulesBypass: { by: { id: id('admin') }, rules: ['require_at_least_one_review'] },
    });

    const listed = await setup([{ rule: 'require_at_least_one_review' }, { rule: 'allow_bypass', users: [id('create')] }]);
    expectRefused(await listed.merge('admin'), ['require_at_least_one_review']);
    const none = await setup([{ rule: 'require_at_least_one_review' }]);
    expectRefused(await none.merge('admin'), ['require_at_least_one_review']);
  });

  it('the merge checks the rules again under its locks', async () => {
    const s = await setup([{ rule: 'require_at_least_one_approved_review' }]);
    await s.review('review');
    // Between the API's check and the merge: a new edit outdates the approval.
    await s.change('Sneaked in\n');
    const activities = changeRequestMergeActivities(t.orm, { publicUrl: t.config.publicUrl });
    const outcome = await activities.mergeChangeRequest({ spaceId: s.space.id, changeRequestId: s.cr.id, userId: id('review') });
    expect(outcome).toMatchObject({ result: 'refused', reason: 'merge-rules', unmet: [{ rule: 'require_at_least_one_approved_review' }] });
    expect((await as('read').get(s.base)).body.status).toBe('open');
  });

  it('the merge sees a reviewer asked since the check, and records a bypass it is told the admin may make', async () => {
    const s = await setup([{ rule: 'require_all_reviews_approved' }, { rule: 'allow_bypass', users: [id('admin')] }]);
    await s.review('review');
    expect((await as('admin').post(`${s.base}/requested-reviewers`, { users: [id('create')] })).status).toBeLessThan(300);
    const activities = changeRequestMergeActivities(t.orm, { publicUrl: t.config.publicUrl });
    const job = { spaceId: s.space.id, changeRequestId: s.cr.id };
    expect(await activities.mergeChangeRequest({ ...job, userId: id('review'), admin: false })).toMatchObject({
      result: 'refused',
      reason: 'merge-rules',
      unmet: [{ rule: 'require_all_reviews_approved' }],
    });
    // An admin the rule does not list cannot bypass either.
    expect(await activities.mergeChangeRequest({ ...job, userId: id('create'), admin: true })).toMatchObject({ result: 'refused' });
    const merged = await activities.mergeChangeRequest({ ...job, userId: id('admin'), admin: true });
    expect(merged.result).toBe('merge');
    expect((await as('read').get(s.base)).body).toMatchObject({
      status: 'merged',
      mergeRulesBypass: { by: { id: id('admin') }, rules: ['require_all_reviews_approved'] },
    });
  });
});
