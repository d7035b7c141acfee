import { sql, type ExpressionBuilder } from 'kysely';
import type { ContributionKind, ContributionTally } from '../domain/contributors.ts';
import { newId } from '../domain/ids.ts';
import { db, type Db } from './kysely.ts';
import type { Listing } from './listing.ts';
import type { Em } from './orm.ts';

/**
 * Reviews of change requests, the reviewers asked for, and who contributed to a change request
 * (tables `change_request_review`, `change_request_reviewer`, `change_request_edit`).
 */

export type ReviewStatus = 'approved' | 'changes-requested';

/** A review as read, with whether it is outdated (see reviewQuery). Times as text. */
export interface ReviewRow {
  id: string;
  change_request_id: string;
  revision_id: string;
  reviewer_id: string | null;
  requested_by: string | null;
  status: ReviewStatus;
  created_at: string;
  updated_at: string;
  outdated: boolean;
}

type ReviewScope = ExpressionBuilder<Db & { r: Db['change_request_review']; cr: Db['change_request'] }, 'r' | 'cr'>;

/**
 * Whether a review is outdated: the change request has moved to another revision since, or the
 * same reviewer reviewed again or was asked again after it (themselves, or a team of theirs).
 */
function isOutdated(eb: ReviewScope) {
  return eb.or([
    eb('r.revision_id', '<>', eb.ref('cr.revision_id')),
    eb.exists(
      eb
        .selectFrom('change_request_review as later')
        .select('later.id')
        .whereRef('later.change_request_id', '=', 'r.change_request_id')
        .whereRef('later.reviewer_id', '=', 'r.reviewer_id')
        .where((w) =>
          w.or([
            w('later.created_at', '>', w.ref('r.created_at')),
            w.and([w('later.created_at', '=', w.ref('r.created_at')), w('later.id', '>', w.ref('r.id'))]),
          ]),
        ),
    ),
    eb.exists(
      eb
        .selectFrom('change_request_reviewer as asked')
        .select('asked.user_id')
        .whereRef('asked.change_request_id', '=', 'r.change_request_id')
        .whereRef('asked.user_id', '=', 'r.reviewer_id')
        .whereRef('asked.created_at', '>', 'r.created_at'),
    ),
    eb.exists(
      eb
        .selectFrom('change_request_team_reviewer as asked_team')
        .innerJoin('team_member as tm', 'tm.team_id', 'asked_team.team_id')
        .select('asked_team.team_id')
        .whereRef('asked_team.change_request_id', '=', 'r.change_request_id')
        .whereRef('tm.user_id', '=', 'r.reviewer_id')
        .whereRef('asked_team.created_at', '>', 'r.created_at'),
    ),
  ]);
}

/** The reviews of a change request, each with `outdated`. */
function reviewQuery(em: Em, changeRequestId: string, outdated?: boolean) {
  let query = db(em)
    .selectFrom('change_request_review as r')
    .innerJoin('change_request as cr', 'cr.id', 'r.change_request_id')
    .selectAll('r')
    .select((eb) => isOutdated(eb).$castTo<boolean>().as('outdated'))
    .where('r.change_request_id', '=', changeRequestId)
    .$narrowType<{ status: ReviewStatus }>();
  if (outdated !== undefined) query = query.where((eb) => (outdated ? isOutdated(eb) : eb.not(isOutdated(eb))));
  return query;
}

/** A change request's reviews, oldest first, optionally only the outdated (or current) ones. */
export function reviewListing(em: Em, changeRequestId: string, outdated: boolean | undefined): Listing<ReviewRow> {
  return {
    query: reviewQuery(em, changeRequestId, outdated),
    keys: [
      { field: 'created_at', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
  };
}

export async function findReview(em: Em, changeRequestId: string, reviewId: string): Promise<ReviewRow | undefined> {
  return reviewQuery(em, changeRequestId).where('r.id', '=', reviewId).executeTakeFirst();
}

/**
 * Records a review of the change request's `revisionId` and clears the reviewer's pending request
 * and those of every team the reviewer belongs to (the review answers them: the requester is kept
 * on the review, the reviewer's own request first). Run it in a transaction.
 */
export async function insertReview(
  tx: Em,
  input: { changeRequestId: string; revisionId: string; reviewerId: string; status: ReviewStatus },
): Promise<string> {
  const request = await db(tx)
    .deleteFrom('change_request_reviewer')
    .where('change_request_id', '=', input.changeRequestId)
    .where('user_id', '=', input.reviewerId)
    .returning('requested_by')
    .executeTakeFirst();
  const teamRequests = await db(tx)
    .deleteFrom('change_request_team_reviewer')
    .where('change_request_id', '=', input.changeRequestId)
    .where('team_id', 'in', (eb) => eb.selectFrom('team_member').select('team_id').where('user_id', '=', input.reviewerId))
    .returning(['requested_by', 'created_at'])
    .execute();
  const teamRequest = teamRequests.sort((a, b) => (a.created_at < b.created_at ? 1 : -1))[0];
  const id = newId();
  const now = new Date();
  await db(tx)
    .insertInto('change_request_review')
    .values({
      id,
      change_request_id: input.changeRequestId,
      revision_id: input.revisionId,
      reviewer_id: input.reviewerId,
      requested_by: request?.requested_by ?? teamRequest?.requested_by ?? null,
      status: input.status,
      created_at: now,
      updated_at: now,
    })
    .execute();
  return id;
}

/** A pending review request of a user or a team, as read. */
export interface ReviewerRow {
  change_request_id: string;
  kind: 'user' | 'team';
  /** The user's or the team's id. */
  principal_id: string;
  requested_by: string | null;
  revision_id: string;
  created_at: string;
}

/** The users and teams asked to review a change request, in the order they were asked. */
export function reviewerListing(em: Em, changeRequestId: string): Listing<ReviewerRow> {
  const users = db(em)
    .selectFrom('change_request_reviewer')
    .select([
      'change_request_id',
      sql<'user' | 'team'>`'user'`.as('kind'),
      'user_id as principal_id',
      'requested_by',
      'revision_id',
      'created_at',
    ])
    .where('change_request_id', '=', changeRequestId);
  const teams = db(em)
    .selectFrom('change_request_team_reviewer')
    .select([
      'change_request_id',
      sql<'user' | 'team'>`'team'`.as('kind'),
      'team_id as principal_id',
      'requested_by',
      'revision_id',
      'created_at',
    ])
    .where('change_request_id', '=', changeRequestId);
  return {
    query: users.unionAll(teams),
    keys: [
      { field: 'created_at', kind: 'date' },
      { field: 'principal_id', kind: 'string' },
    ],
  };
}

/** Asks these users to review (asking again refreshes the request); answers the requests. */
export async function upsertReviewers(
  em: Em,
  input: { changeRequestId: string; userIds: string[]; requestedBy: string; revisionId: string },
): Promise<ReviewerRow[]> {
  if (input.userIds.length === 0) return [];
  const now = new Date();
  const rows = await db(em)
    .insertInto('change_request_reviewer')
    .values(
      input.userIds.map((userId) => ({
        change_request_id: input.changeRequestId,
        user_id: userId,
        requested_by: input.requestedBy,
        revision_id: input.revisionId,
        created_at: now,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['change_request_id', 'user_id']).doUpdateSet((eb) => ({
        requested_by: eb.ref('excluded.requested_by'),
        revision_id: eb.ref('excluded.revision_id'),
        created_at: eb.ref('excluded.created_at'),
      })),
    )
    .returningAll()
    .execute();
  return rows.map(({ user_id, ...row }) => ({ ...row, kind: 'user', principal_id: user_id }));
}

/** Asks these teams to review (asking again refreshes the request); answers the requests. */
export async function upsertTeamReviewers(
  em: Em,
  input: { changeRequestId: string; teamIds: string[]; requestedBy: string; revisionId: string },
): Promise<ReviewerRow[]> {
  if (input.teamIds.length === 0) return [];
  const now = new Date();
  const rows = await db(em)
    .insertInto('change_request_team_reviewer')
    .values(
      input.teamIds.map((teamId) => ({
        change_request_id: input.changeRequestId,
        team_id: teamId,
        requested_by: input.requestedBy,
        revision_id: input.revisionId,
        created_at: now,
      })),
    )
    .onConflict((oc) =>
      oc.columns(['change_request_id', 'team_id']).doUpdateSet((eb) => ({
        requested_by: eb.ref('excluded.requested_by'),
        revision_id: eb.ref('excluded.revision_id'),
        created_at: eb.ref('excluded.created_at'),
      })),
    )
    .returningAll()
    .execute();
  return rows.map(({ team_id, ...row }) => ({ ...row, kind: 'team', principal_id: team_id }));
}

/** Withdraws the review request of a user or of a team (ids never collide); false when there was none. */
export async function deleteReviewer(em: Em, changeRequestId: string, principalId: string): Promise<boolean> {
  const user = await db(em)
    .deleteFrom('change_request_reviewer')
    .where('change_request_id', '=', changeRequestId)
    .where('user_id', '=', principalId)
    .executeTakeFirst();
  if (Number(user.numDeletedRows) > 0) return true;
  const team = await db(em)
    .deleteFrom('change_request_team_reviewer')
    .where('change_request_id', '=', changeRequestId)
    .where('team_id', '=', principalId)
    .executeTakeFirst();
  return Number(team.numDeletedRows) > 0;
}

/** Whether a team is asked to review a change request. */
export async function isTeamRequested(em: Em, changeRequestId: string, teamId: string): Promise<boolean> {
  const row = await db(em)
    .selectFrom('change_request_team_reviewer')
    .select('team_id')
    .where('change_request_id', '=', changeRequestId)
    .where('team_id', '=', teamId)
    .executeTakeFirst();
  return row !== undefined;
}

/** The users among `userIds` that exist, by id (to name the ones that do not). */
export async function existingUsers(em: Em, userIds: string[]): Promise<Set<string>> {
  if (userIds.length === 0) return new Set();
  const rows = await db(em).selectFrom('app_user').select('id').where('id', 'in', userIds).execute();
  return new Set(rows.map((r) => r.id));
}

/**
 * Names the author of a revision written into a change request (its content edits, updates from
 * the space, content imports, a git import that opened it); null when no user is behind it.
 */
export async function recordChangeRequestEdit(em: Em, changeRequestId: string, revisionId: string, userId: string | null): Promise<void> {
  await db(em)
    .insertInto('change_request_edit')
    .values({ revision_id: revisionId, change_request_id: changeRequestId, user_id: userId, created_at: new Date() })
    .onConflict((oc) => oc.column('revision_id').doNothing())
    .execute();
}

/**
 * How often each user contributed to a change request: edits (each revision written into it; its
 * creator's opening of it counts as one) and comments (comments posted in it and replies to them).
 */
export async function changeRequestContributions(
  em: Em,
  changeRequest: { id: string; created_by: string | null; created_at: string },
): Promise<ContributionTally[]> {
  const [edits, comments, replies] = await Promise.all([
    db(em)
      .selectFrom('change_request_edit')
      .select((eb) => ['user_id', eb.fn.countAll<string>().as('n'), eb.fn.max('created_at').as('last')])
      .where('change_request_id', '=', changeRequest.id)
      .where('user_id', 'is not', null)
      .groupBy('user_id')
      .execute(),
    db(em)
      .selectFrom('comment')
      .select((eb) => ['posted_by as user_id', eb.fn.countAll<string>().as('n'), eb.fn.max('posted_at').as('last')])
      .where('change_request_id', '=', changeRequest.id)
      .where('posted_by', 'is not', null)
      .groupBy('posted_by')
      .execute(),
    db(em)
      .selectFrom('comment_reply as cr')
      .innerJoin('comment as c', 'c.id', 'cr.comment_id')
      .select((eb) => ['cr.posted_by as user_id', eb.fn.countAll<string>().as('n'), eb.fn.max('cr.posted_at').as('last')])
      .where('c.change_request_id', '=', changeRequest.id)
      .where('cr.posted_by', 'is not', null)
      .groupBy('cr.posted_by')
      .execute(),
  ]);
  const tally = (kind: ContributionKind) => (r: { user_id: string | null; n: string; last: string | Date }) => ({
    userId: r.user_id,
    kind,
    count: Number(r.n),
    last: r.last,
  });
  return [
    { userId: changeRequest.created_by, kind: 'edit', count: 1, last: changeRequest.created_at },
    ...edits.map(tally('edit')),
    ...comments.map(tally('comment')),
    ...replies.map(tally('comment')),
  ];
}

/** Every review of a change request, oldest first, each with `outdated`. */
export async function changeRequestReviews(em: Em, changeRequestId: string): Promise<ReviewRow[]> {
  return reviewQuery(em, changeRequestId).orderBy('r.created_at').orderBy('r.id').execute();
}

/** Every review of a change request as the merge rules see it: reviewer, status, outdated. */
export async function reviewStates(
  em: Em,
  changeRequestId: string,
): Promise<{ reviewerId: string | null; status: ReviewStatus; outdated: boolean }[]> {
  const rows = await reviewQuery(em, changeRequestId).execute();
  return rows.map((r) => ({ reviewerId: r.reviewer_id, status: r.status, outdated: r.outdated }));
}

/** Who is asked to review a change request and has not answered yet: user ids, and `team <id>` for teams. */
export async function pendingReviewers(em: Em, changeRequestId: string): Promise<string[]> {
  const [users, teams] = await Promise.all([
    db(em).selectFrom('change_request_reviewer').select('user_id').where('change_request_id', '=', changeRequestId).execute(),
    db(em).selectFrom('change_request_team_reviewer').select('team_id').where('change_request_id', '=', changeRequestId).execute(),
  ]);
  return [...users.map((r) => r.user_id), ...teams.map((r) => `team ${r.team_id}`)];
}
