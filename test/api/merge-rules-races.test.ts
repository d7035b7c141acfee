import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql as kysql } from 'kysely';
import { createTestOrg, eventually, startTestApp, type TestApp, type TestOrg } from '../support/harness.ts';
import { edit, newChangeRequest, ruledChangeRequest, sql } from '../support/fixtures.ts';

/**
 * Merge rules under concurrency, through the real API, workflow and worker: reviews posted while a
 * merge runs, a review changed while the merge waits for its locks, edits and other merges that
 * land meanwhile. Whatever the interleaving, a merge either happens with its rules met when it
 * took its locks, or is refused with a 4xx naming the rules; never a 5xx.
 */
let t: TestApp;
let org: TestOrg;

beforeAll(async () => {
  t = await startTestApp();
  org = await createTestOrg(t, 'Merge rule races org');
});
afterAll(() => t.close());

type Who = 'admin' | 'create' | 'review' | 'edit';
const as = (role: Who) => org.members[role].api;
const id = (role: Who) => org.members[role].userId;

async function setup(rules: unknown[]) {
  const s = await ruledChangeRequest(org, rules, { mergeAs: 'create' });
  return {
    ...s,
    state: async () => {
      const [cr, reviews] = await Promise.all([as('admin').get(s.base), as('admin').get(`${s.base}/reviews?limit=100`)]);
      return { status: cr.body.status as string, reviews: reviews.body.items as { status: string; outdated: boolean }[] };
    },
  };
}

/**
 * Holds a lock on the space's row that the merge's first lock waits for, in a transaction of its
 * own, until `release`; `waiting` resolves once another session (the merge activity) waits for it.
 */
async function holdSpaceLock(spaceId: string) {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let locked!: (pid: number) => void;
  const pid = new Promise<number>((r) => (locked = r));
  const done = t.orm.em.fork().transactional(async (em) => {
    const k = em.getKysely();
    const { rows } = await kysql<{ pid: number }>`select pg_backend_pid() as pid`.execute(k);
    // NO KEY UPDATE: it blocks the merge's FOR UPDATE but not the key-share locks of rows that
    // reference the space (an edit's new revision), which the merge's own lock would block.
    await kysql`select id from space where id = ${spaceId} for no key update`.execute(k);
    locked(rows[0].pid);
    await released;
  });
  const holder = await pid;
  return {
    waiting: () =>
      eventually(
        async () => (await sql(t, 'select pid from pg_stat_activity where ? = any(pg_blocking_pids(pid))', [holder])).length > 0,
        60_000,
        50,
      ),
    release: async () => {
      release();
      await done;
    },
  };
}

const current = (reviews: { status: string; outdated: boolean }[], status: string) =>
  reviews.filter((r) => !r.outdated && r.status === status);

describe('merge rules: races', () => {
  it('two reviewers and a merge at once: merged only with the rules met, else refused naming the rule', async () => {
    const outcomes = new Set<string>();
    for (const [i, rule] of ['require_all_reviews_approved', 'require_at_least_one_approved_review'].flatMap((r) => [r, r, r]).entries()) {
      const s = await setup([{ rule }]);
      // Alternate who approves and who asks for changes, and the order the requests leave in.
      const [approver, objector] = i % 2 ? (['review', 'admin'] as const) : (['admin', 'review'] as const);
      const [merged, approval, objection] = await Promise.all([s.merge(), s.review(approver), s.review(objector, 'changes-requested')]);
      for (const res of [merged, approval, objection]) {
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) expect(res.body.error.code).toBe(res.status);
      }
      const { status, reviews } = await s.state();
      if (merged.status === 200) {
        expect(merged.body.result).toBe('merge');
        expect(status).toBe('merged');
        // Reviews that came too late were refused, not recorded on the merged change request.
        for (const res of [approval, objection])
          if (res.status !== 201) expect(res.body.error.message).toMatch(/is merged: it can no longer be reviewed/);
        if (rule === 'require_all_reviews_approved') expect(current(reviews, 'changes-requested')).toEqual([]);
        else expect(current(reviews, 'approved').length).toBeGreaterThan(0);
        outcomes.add(`merged (${reviews.length} reviews before)`);
      } else {
        expect(merged.status).toBe(409);
        expect(merged.body.error.message).toContain(rule);
        expect(status).toBe('open');
        expect([approval.status, objection.status]).toEqual([201, 201]);
        outcomes.add('refused');
      }
    }
    // Which interleavings happened depends on timing; each one above was consistent.
    expect(outcomes.size).toBeGreaterThan(0);
  });

  it('a review under way when the merge starts: merged without it, or it is recorded and the merge refused', async () => {
    // The review is held after its checks, before it writes (a lock on the request it answers).
    const noChanges = {
      rule: 'custom',
      expression: 'reviews[.status == "changes-requested" && !.outdated][0] == null',
      message: 'Changes requested',
    };
    const s = await setup([noChanges]);
    expect((await as('edit').post(`${s.base}/requested-reviewers`, { users: [id('review')] })).status).toBeLessThan(300);
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let holderPid!: (pid: number) => void;
    const holder = new Promise<number>((r) => (holderPid = r));
    const holding = t.orm.em.fork().transactional(async (em) => {
      const k = em.getKysely();
      const { rows } = await kysql<{ pid: number }>`select pg_backend_pid() as pid`.execute(k);
      await kysql`select 1 from change_request_reviewer where change_request_id = ${s.cr.id} and user_id = ${id('review')} for update`.execute(
        k,
      );
      holderPid(rows[0].pid);
      await released;
    });
    const blockedBy = async (pid: number) =>
      (await sql<{ pid: number }>(t, 'select pid from pg_stat_activity where ? = any(pg_blocking_pids(pid))', [pid])).map((r) => r.pid);
    const pid = await holder;
    let reviewing, merging;
    try {
      reviewing = s.review('review', 'changes-requested');
      const [reviewPid] = await eventually(async () => {
        const found = await blockedBy(pid);
        return found.length > 0 && found;
      });
      let settled = false;
      merging = s.merge().finally(() => (settled = true));
      // Either the merge goes through at once, or it waits for the review.
      await eventually(async () => settled || (await blockedBy(reviewPid)).length > 0, 60_000, 50);
    } finally {
      release();
      await holding;
    }
    const [review, merged] = await Promise.all([reviewing, merging]);
    const { status, reviews } = await s.state();
    if (merged.status === 200) {
      expect(review.status).toBe(409);
      expect(status).toBe('merged');
      expect(current(reviews, 'changes-requested')).toEqual([]);
    } else {
      expect(review.status).toBe(201);
      expect(merged.status).toBe(409);
      expect(merged.body.error.message).toBe('Merge rules not met: custom (Changes requested)');
      expect(status).toBe('open');
    }
  });

  it.each([
    ['require_all_reviews_approved', 'changes-requested'],
    ['require_at_least_one_approved_review', 'changes-requested'],
    ['require_all_reviews_approved', 'a reviewer asked'],
    ['custom', 'changes-requested'],
  ])('%s: a review changed (%s) while the merge waits on the workflow is seen by its check', async (rule, what) => {
    const custom = {
      rule: 'custom',
      expression: 'reviews[.status == "changes-requested" && !.outdated][0] == null',
      message: 'Changes requested',
    };
    const s = await setup([rule === 'custom' ? custom : { rule }]);
    expect((await s.review('review')).status).toBe(201);
    const lock = await holdSpaceLock(s.space.id);
    let merging;
    try {
      // The API's own check passes; the merge activity then waits for the space's lock.
      merging = s.merge();
      await lock.waiting();
      if (what === 'a reviewer asked')
        expect((await as('edit').post(`${s.base}/requested-reviewers`, { users: [id('admin')] })).status).toBeLessThan(300);
      else expect((await s.review('review', 'changes-requested')).status).toBe(201);
    } finally {
      await lock.release();
    }
    const refused = await merging;
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toContain(rule === 'custom' ? 'custom (Changes requested)' : rule);
    expect((await s.state()).status).toBe('open');
  });

  it('require_up_to_date_change_request: of two up-to-date change requests merged at once, one merges and the other is refused', async () => {
    const rules = [{ rule: 'require_up_to_date_change_request' }, { rule: 'require_at_least_one_approved_review' }];
    const a = await setup(rules);
    const other = await newChangeRequest(as('edit'), a.space.id, 'Other');
    await edit(as('edit'), a.space.id, other.id, [{ operation: 'insert_page', title: 'Elsewhere', document: { markdown: 'x\n' } }]);
    const otherBase = `/v1/spaces/${a.space.id}/change-requests/${other.id}`;
    expect((await a.review('review')).status).toBe(201);
    expect((await as('review').post(`${otherBase}/reviews`, { status: 'approved' })).status).toBe(201);
    const [first, second] = await Promise.all([a.merge(), as('create').post(`${otherBase}/merge`)]);
    expect([first.status, second.status].sort()).toEqual([200, 409]);
    const refused = first.status === 409 ? first : second;
    expect(refused.body.error.message).toMatch(/^Merge rules not met: require_up_to_date_change_request/);
    expect(refused.body.error.message).not.toContain('require_at_least_one_approved_review');

    // The refused one is brought up to date: the update is a new revision, which outdates its approval.
    const late = first.status === 409 ? a.base : otherBase;
    expect((await as('edit').post(`${late}/update`)).body.result).toBe('update');
    const again = await as('create').post(`${late}/merge`);
    expect(again.body.error.message).toBe('Merge rules not met: require_at_least_one_approved_review (no current approved review)');
    expect((await as('review').post(`${late}/reviews`, { status: 'approved' })).status).toBe(201);
    expect((await as('create').post(`${late}/merge`)).body.result).toBe('merge');
  });

  it('an edit after the approval, while the merge waits, outdates it: refused', async () => {
    const s = await setup([{ rule: 'require_up_to_date_change_request' }, { rule: 'require_at_least_one_approved_review' }]);
    expect((await s.review('review')).status).toBe(201);
    const lock = await holdSpaceLock(s.space.id);
    let merging;
    try {
      merging = s.merge();
      await lock.waiting();
      await s.change('Sneaked in\n');
    } finally {
      await lock.release();
    }
    const refused = await merging;
    expect(refused.status).toBe(409);
    expect(refused.body.error.message).toBe('Merge rules not met: require_at_least_one_approved_review (no current approved review)');
    const { status, reviews } = await s.state();
    expect(status).toBe('open');
    expect(reviews).toEqual([expect.objectContaining({ status: 'approved', outdated: true })]);
  });
});
