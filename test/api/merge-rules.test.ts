import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { changeRequestMergeActivities } from '../../src/activities/change-request-merge.ts';
import { presentMergeRulesContext } from '../../src/api/change-requests/present.ts';
import { mergeRulesContextRows } from '../../src/db/merge-rules.ts';
import { forkEm, transaction } from '../../src/db/orm.ts';
import { expectMatchesGitBookSchema } from '../support/gitbook-openapi.ts';
import { createTestOrg, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { edit, expect400, newChangeRequest, newSpace, ruledChangeRequest } from '../support/fixtures.ts';

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

/** A space with the given merge rules and a change request (opened by `edit`) with one edit; `review` merges. */
const setup = (rules: unknown[] | null, subject = 'Change') => ruledChangeRequest(org, rules, { subject, mergeAs: 'review' });

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
    expect400(
      await put({ type: 'rules', rules: [{ rule: 'require_agent_review' }] }),
      /require_agent_review merge rules are not supported/,
    );
    expect400(
      await put({
        type: 'rules',
        rules: [{ rule: 'require_at_least_one_review' }, { rule: 'custom', expression: 'changeRequest.subject ==== ""' }],
      }),
      /^mergeRules\.rules\[1\]\.expression is not a valid expression: .+/,
    );
    expect400(
      await put({ type: 'rules', rules: [{ rule: 'custom', expression: 'reviews|length > 0' }] }),
      /rules\[0\]\.expression .*Transform length/,
    );
    expect400(await put({ type: 'rules', rules: [{ rule: 'custom', expression: 'x'.repeat(1025) }] }), /at most 1024 are allowed/);
    expect400(await put({ type: 'rules', rules: [{ rule: 'custom', expression: ['true'] }] }), /rules\[0\]\.expression must be a string/);
    expect400(await put({ type: 'rules', rules: [{ rule: 'custom' }] }), /rules\[0\]: custom needs an expression/);
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
    // An empty document is no description.
    const empty = await as('edit').patch(s.base, { subject: 'Typos', description: { object: 'document', data: {}, nodes: [] } });
    expect(empty.status).toBe(200);
    expect(empty.body.description).toBeUndefined();
    expectRefused(await s.merge(), ['require_change_request_description']);
    // GitBook's client sends a JSON document; the text is kept and answered as one.
    const description = {
      object: 'document',
      data: {},
      nodes: [
        {
          object: 'block',
          type: 'paragraph',
          data: {},
          nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Fixes the typos', marks: [] }] }],
        },
      ],
    };
    const patched = await as('edit').patch(s.base, { description });
    expect(patched.status).toBe(200);
    expect(patched.body.description).toEqual({ ...description, nodes: [{ ...description.nodes[0], isVoid: false }] });
    // Plain text is taken too.
    expect(
      (await as('edit').patch(s.base, { description: 'Fixes the typos of the intro' })).body.description.nodes[0].nodes[0].leaves[0].text,
    ).toBe('Fixes the typos of the intro');
    expect((await as('edit').patch(s.base, { description: { object: 'document', nodes: 'x' } })).status).toBe(400);
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

describe('merge rules: custom expressions', () => {
  const custom = (expression: string, message?: string) => ({ rule: 'custom', expression, ...(message ? { message } : {}) });

  it('stores the expression and message and answers them, on spaces and organizations', async () => {
    const rules = [custom('changeRequest.subject != ""', 'Give the change request a subject'), custom('space.title == "Docs"')];
    const space = await newSpace(as('admin'), org.id);
    const res = await as('admin').patch(`/v1/spaces/${space.id}`, { mergeRules: { type: 'rules', rules } });
    expect(res.status).toBe(200);
    expect(res.body.mergeRules).toEqual({ type: 'rules', rules });
    expect((await as('read').get(`/v1/spaces/${space.id}`)).body.mergeRules).toEqual({ type: 'rules', rules });
    try {
      const orgRes = await as('admin').patch(`/v1/orgs/${org.id}`, { mergeRules: { type: 'rules', rules } });
      expect(orgRes.status).toBe(200);
      expect(orgRes.body.mergeRules).toEqual({ type: 'rules', rules });
    } finally {
      await as('admin').patch(`/v1/orgs/${org.id}`, { mergeRules: { type: 'none' } });
    }
  });

  it('refuses with the rule’s message when the expression is false, merges when it holds', async () => {
    const s = await setup([custom('changeRequest.subject != "WIP"', 'Change requests marked WIP do not merge')], 'WIP');
    const refused = await s.merge();
    expectRefused(refused, ['custom']);
    expect(refused.body.error.message).toBe('Merge rules not met: custom (Change requests marked WIP do not merge)');
    expect((await as('edit').patch(s.base, { subject: 'Ready' })).status).toBe(200);
    expect((await s.merge()).body.result).toBe('merge');
  });

  it('without a message, the refusal names the expression', async () => {
    const s = await setup([custom('space.title == "Handbook"')]);
    expectRefused(await s.merge(), ['custom (the expression "space.title == \\"Handbook\\"" is not true)']);
  });

  it('sees the reviews, the merging user and the space as the API presents them', async () => {
    const rules = [
      custom('reviews[.status == "approved" && !.outdated && .reviewer.id != changeRequest.createdBy.id][0]', 'An approval is needed'),
      custom(`actor.id != "${id('create')}" && space.permissions.merge == true`, 'Not this merger'),
      custom('reviews[.status == "changes-requested" && .outdated == false][0] == null', 'Changes are requested'),
    ];
    const s = await setup(rules);
    const first = await s.merge();
    expectRefused(first, ['custom (An approval is needed)']);
    expect(first.body.error.message).not.toContain('Changes are requested');
    await s.review('review');
    expect((await s.merge('create')).body.error.message).toBe('Merge rules not met: custom (Not this merger)');
    await s.review('create', 'changes-requested');
    expect((await s.merge()).body.error.message).toBe('Merge rules not met: custom (Changes are requested)');
    await s.review('create');
    expect((await s.merge()).body.result).toBe('merge');
  });

  it('an expression that cannot be evaluated at merge time does not hold', async () => {
    // Saved: on the empty context the transform is never reached. At merge time it is, and throws.
    const s = await setup([custom('changeRequest.number && changeRequest.subject|upper == "CHANGE"')]);
    const refused = await s.merge();
    expectRefused(refused, ['custom']);
    expect(refused.body.error.message).toMatch(/could not be evaluated: .*Transform upper is not defined/);
  });

  it('the evaluation context is GitBook’s MergeRulesEvaluationContext', async () => {
    const s = await setup([custom('true')]);
    await s.review('review');
    await s.review('admin', 'changes-requested');
    const rows = await transaction(forkEm(t.orm), (em) =>
      mergeRulesContextRows(em, { spaceId: s.space.id, changeRequestId: s.cr.id, userId: id('review') }),
    );
    const context = presentMergeRulesContext(rows!, { userId: id('review'), role: 'review' }, t.config.publicUrl);
    expectMatchesGitBookSchema('MergeRulesEvaluationContext', context);
    expect(context).toMatchObject({
      space: { object: 'space', id: s.space.id, permissions: { merge: true, admin: false } },
      changeRequest: { object: 'change-request', id: s.cr.id, subject: 'Change', createdBy: { id: id('edit') } },
      reviews: [
        { object: 'change-request-review', status: 'approved', outdated: false, reviewer: { id: id('review') } },
        { object: 'change-request-review', status: 'changes-requested', outdated: false, reviewer: { id: id('admin') } },
      ],
      actor: { object: 'user', id: id('review') },
    });
    // The API answers the same objects.
    const apiSpace = (await as('review').get(`/v1/spaces/${s.space.id}`)).body;
    expect(context.space).toEqual(apiSpace);
    expect(context.changeRequest).toEqual((await as('review').get(s.base)).body);
    expect(context.reviews).toEqual((await as('review').get(`${s.base}/reviews`)).body.items);
  });

  it('the merge checks custom rules again under its locks, and a bypass covers them', async () => {
    const rules = [custom('reviews[.status == "approved" && !.outdated][0]', 'An approval is needed'), { rule: 'allow_bypass', users: [] }];
    const s = await setup(rules);
    await s.review('review');
    await s.change('Sneaked in\n');
    const activities = changeRequestMergeActivities(t.orm, { publicUrl: t.config.publicUrl });
    const job = { spaceId: s.space.id, changeRequestId: s.cr.id };
    expect(await activities.mergeChangeRequest({ ...job, userId: id('review'), role: 'review' })).toMatchObject({
      result: 'refused',
      reason: 'merge-rules',
      unmet: [{ rule: 'custom', message: 'An approval is needed' }],
    });
    expect((await as('read').get(s.base)).body.status).toBe('open');
    const merged = await activities.mergeChangeRequest({ ...job, userId: id('admin'), admin: true, role: 'admin' });
    expect(merged.result).toBe('merge');
    expect((await as('read').get(s.base)).body.mergeRulesBypass).toMatchObject({ by: { id: id('admin') }, rules: ['custom'] });
  });
});
