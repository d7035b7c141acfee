import type { Static } from 'typebox';
import { changeRequestPeople, lockChangeRequest, updateChangeRequest, type ChangeRequestRow } from '../../../db/change-requests.ts';
import { memberRole, teamGrantsOn } from '../../../db/access.ts';
import { transaction, type Em } from '../../../db/orm.ts';
import { insertComment, reviewComments } from '../../../db/comments.ts';
import type { Space } from '../../../db/entities.ts';
import {
  changeRequestContributions,
  deleteReviewer,
  existingUsers,
  findReview,
  insertReview,
  reviewerListing,
  reviewListing,
  upsertReviewers,
  upsertTeamReviewers,
  type ReviewerRow,
  type ReviewRow,
} from '../../../db/reviews.ts';
import { teamFacts, teamMemberIds, teamsOf } from '../../../db/teams.ts';
import { mergeContributions } from '../../../domain/contributors.ts';
import { newId } from '../../../domain/ids.ts';
import { atLeast, isRole, type Role } from '../../../domain/roles.ts';
import { contentRoles, loadSpace, orgRole, requireRole } from '../../access.ts';
import { optionalBodyMarkdown } from '../../comments/bodies.ts';
import { commentFacts } from '../../comments/facts.ts';
import { presentComment, type BodyFormat } from '../../comments/present.ts';
import type { Ctx } from '../../context.ts';
import { badRequest, conflict, forbidden, notFound } from '../../errors.ts';
import { urlsFor } from '../../object-urls.ts';
import { paginate } from '../../pagination.ts';
import { presentTeam } from '../../people/present.ts';
import { requireChangeRequest } from '../service.ts';
import { presentContributor, presentRequestedReviewer, presentReview, userPresenter, type PresentTeam } from './present.ts';
import type { ListReviewsQuery, RequestReviewersBody, SubmitReviewBody } from './schemas.ts';

/**
 * Reviews of change requests and the reviewers asked for. Anyone who reads the space reads them;
 * reviewing takes the `review` role, and an author never approves their own change request.
 */

/** The space and change request of a route, as the caller may see them. */
async function load(ctx: Ctx, spaceId: string, changeRequestId: string) {
  const { space, role } = await loadSpace(ctx.em, ctx.caller, spaceId);
  const changeRequest = await requireChangeRequest(ctx.em, space.id, changeRequestId);
  return { space, role, changeRequest };
}

const baseUrl = (ctx: Ctx, cr: ChangeRequestRow) => `${ctx.deps.config.publicUrl}/v1/spaces/${cr.space_id}/change-requests/${cr.id}`;

/** 409 for a merged or archived change request: `what` says what can no longer happen. */
function assertReviewable(changeRequest: Pick<ChangeRequestRow, 'number' | 'status'>, what: string): void {
  if (changeRequest.status === 'merged' || changeRequest.status === 'archived')
    throw conflict(`Change request #${changeRequest.number} is ${changeRequest.status}: ${what}`);
}

/** The change request locked for the rest of the transaction (see submitReview); 404 when gone. */
async function lockedChangeRequest(tx: Em, spaceId: string, changeRequestId: string) {
  const locked = await lockChangeRequest(tx, spaceId, changeRequestId);
  if (!locked) throw notFound('Change request');
  return locked;
}

/** Presents rows that name users, loading those users once. */
async function users(ctx: Ctx, ids: (string | null)[]) {
  const known = await changeRequestPeople(ctx.em, [...new Set(ids.filter((id): id is string => !!id))]);
  return userPresenter(known, ctx.deps.config.publicUrl);
}

/** Presents reviews with the users they name and the comments posted with them, in a few queries for any number. */
async function presentReviews(ctx: Ctx, role: Role | null, changeRequest: ChangeRequestRow, rows: ReviewRow[], format?: BodyFormat) {
  const comments = await reviewComments(
    ctx.em,
    rows.map((r) => r.id),
  );
  const [user, facts] = await Promise.all([
    users(
      ctx,
      rows.flatMap((r) => [r.reviewer_id, r.requested_by]),
    ),
    commentFacts(ctx.em, [...comments.values()]),
  ]);
  const view = { caller: ctx.caller, role, format: format ?? 'markdown', urls: urlsFor(ctx.deps.config.publicUrl) } as const;
  return rows.map((r) => {
    const comment = comments.get(r.id);
    return presentReview(r, user, baseUrl(ctx, changeRequest), comment && presentComment(comment, facts, view));
  });
}

export async function listReviews(ctx: Ctx, spaceId: string, changeRequestId: string, query: Static<typeof ListReviewsQuery>) {
  const { role, changeRequest } = await load(ctx, spaceId, changeRequestId);
  return paginate(ctx.em, reviewListing(ctx.em, changeRequest.id, query.outdated), query, (rows) =>
    presentReviews(ctx, role, changeRequest, rows, query.format),
  );
}

export async function getReview(ctx: Ctx, spaceId: string, changeRequestId: string, reviewId: string, format?: BodyFormat) {
  const { role, changeRequest } = await load(ctx, spaceId, changeRequestId);
  const review = await findReview(ctx.em, changeRequest.id, reviewId);
  if (!review) throw notFound('Review');
  return (await presentReviews(ctx, role, changeRequest, [review], format))[0];
}

/**
 * A review of the change request's current revision (`review` role). It answers and clears the
 * reviewer's pending request and those of the reviewer's teams; earlier reviews of the same
 * reviewer become outdated. A comment sent with it is posted in the change request, tied to the
 * review (GitBook's `target.review`), in the same transaction.
 */
export async function submitReview(ctx: Ctx, spaceId: string, changeRequestId: string, body: Static<typeof SubmitReviewBody>) {
  const { space, role, changeRequest } = await load(ctx, spaceId, changeRequestId);
  requireRole(role, 'review', 'review change requests in this space');
  if (body.status === 'approved' && changeRequest.created_by === ctx.caller.user.id)
    throw forbidden('The author of a change request cannot approve it');
  assertReviewable(changeRequest, 'it can no longer be reviewed');
  const markdown = optionalBodyMarkdown(body.comment, 'comment');
  // Under the change request's lock, which a merge takes before it checks the rules: a review
  // either lands before the merge reads the reviews, or finds the change request merged.
  const id = await transaction(ctx.em, async (tx) => {
    assertReviewable(await lockedChangeRequest(tx, space.id, changeRequest.id), 'it can no longer be reviewed');
    const reviewId = await insertReview(tx, {
      changeRequestId: changeRequest.id,
      // The revision the reviewer was shown: an edit since makes this review outdated at once.
      revisionId: changeRequest.revision_id,
      reviewerId: ctx.caller.user.id,
      status: body.status,
    });
    if (markdown !== undefined) {
      await insertComment(tx, {
        id: newId(),
        spaceId: changeRequest.space_id,
        changeRequestId: changeRequest.id,
        reviewId,
        revisionId: changeRequest.revision_id,
        pageId: null,
        nodeId: null,
        markdown,
        postedBy: ctx.caller.user.id,
        postedAt: new Date(),
        editedAt: null,
        resolvedAt: null,
        resolvedBy: null,
      });
    }
    return reviewId;
  });
  return getReview(ctx, spaceId, changeRequest.id, id);
}

/** Presents requests with the users and teams they name, in a few queries for any number. */
async function presentRequests(ctx: Ctx, organizationId: string, rows: ReviewerRow[]) {
  const teamIds = rows.filter((r) => r.kind === 'team').map((r) => r.principal_id);
  const [user, teams, facts, callerRole] = await Promise.all([
    users(
      ctx,
      rows.flatMap((r) => [r.kind === 'user' ? r.principal_id : null, r.requested_by]),
    ),
    teamsOf(ctx.em, organizationId, teamIds),
    teamFacts(ctx.em, teamIds, ctx.caller.user.id),
    orgRole(ctx.em, ctx.caller, organizationId),
  ]);
  const byId = new Map(teams.map((t) => [t.id, t]));
  const team: PresentTeam = (id) =>
    presentTeam(byId.get(id) ?? { id, title: 'Deleted team', createdAt: new Date(0) }, facts.get(id), callerRole ?? null);
  return rows.map((r) => presentRequestedReviewer(r, user, team));
}

export async function listRequestedReviewers(ctx: Ctx, spaceId: string, changeRequestId: string, query: { page?: string; limit?: number }) {
  const { space, changeRequest } = await load(ctx, spaceId, changeRequestId);
  return paginate(ctx.em, reviewerListing(ctx.em, changeRequest.id), query, (rows) => presentRequests(ctx, space.organizationId, rows));
}

/** Whether a user can read the space (with their own role in its organization; not a member: no). */
async function userCanRead(ctx: Ctx, space: Space, userId: string): Promise<boolean> {
  const orgRoleValue = await memberRole(ctx.em, space.organizationId, userId);
  const viewerRole = orgRoleValue === undefined ? undefined : isRole(orgRoleValue) ? orgRoleValue : null;
  const roles = await contentRoles(ctx.em, { userId, role: viewerRole }, 'space', [space]);
  return atLeast(roles.get(space.id), 'read');
}

/**
 * Whether a team can read the space: a grant to the team reaches it (on the space or a collection
 * above it), or the team has members and every one of them can read it.
 */
async function teamCanRead(ctx: Ctx, space: Space, grants: string[], members: string[]): Promise<boolean> {
  if (grants.some((role) => isRole(role) && atLeast(role, 'read'))) return true;
  if (members.length === 0) return false;
  for (const userId of members) if (!(await userCanRead(ctx, space, userId))) return false;
  return true;
}

/**
 * Asks users and teams to review (`edit` role, or the author). Each user must be able to read the
 * space; each team must be a team of the organization able to read it: the first that is not is
 * named in a 400 and nobody is asked.
 */
export async function requestReviewers(ctx: Ctx, spaceId: string, changeRequestId: string, body: Static<typeof RequestReviewersBody>) {
  const { space, role, changeRequest } = await load(ctx, spaceId, changeRequestId);
  if (changeRequest.created_by !== ctx.caller.user.id) requireRole(role, 'edit', 'request reviews on this change request');
  else requireRole(role, 'comment', 'request reviews on this change request');
  assertReviewable(changeRequest, 'reviews can no longer be requested');
  const userIds = [...new Set(body.users)];
  const teamIds = [...new Set(body.teams ?? [])];
  if (userIds.length + teamIds.length === 0) throw badRequest('users: give at least one user to ask (or a team in teams)');
  const known = await existingUsers(ctx.em, userIds);
  for (const userId of userIds) {
    if (!known.has(userId) || !(await userCanRead(ctx, space, userId)))
      throw badRequest(`User ${userId} cannot read this space and cannot be asked to review`);
  }
  const teams = new Set((await teamsOf(ctx.em, space.organizationId, teamIds)).map((t) => t.id));
  const [grants, members] = await Promise.all([teamGrantsOn(ctx.em, 'space', space, teamIds), teamMemberIds(ctx.em, teamIds)]);
  for (const teamId of teamIds) {
    if (!teams.has(teamId)) throw badRequest(`Team ${teamId} is not a team of this organization`);
    if (!(await teamCanRead(ctx, space, grants.get(teamId) ?? [], members.get(teamId) ?? [])))
      throw badRequest(`Team ${teamId} cannot read this space and cannot be asked to review`);
  }
  const rows = await transaction(ctx.em, async (tx) => {
    assertReviewable(await lockedChangeRequest(tx, space.id, changeRequest.id), 'reviews can no longer be requested');
    if (body.subject !== undefined) await updateChangeRequest(tx, changeRequest.id, { subject: body.subject });
    const request = { changeRequestId: changeRequest.id, requestedBy: ctx.caller.user.id, revisionId: changeRequest.revision_id };
    return [...(await upsertReviewers(tx, { ...request, userIds })), ...(await upsertTeamReviewers(tx, { ...request, teamIds }))];
  });
  return { users: await presentRequests(ctx, space.organizationId, rows) };
}

/**
 * Withdraws the request of a user or a team, by its id (`edit`, the author, or the requested user
 * declining); false when none.
 */
export async function removeRequestedReviewer(ctx: Ctx, spaceId: string, changeRequestId: string, userId: string) {
  const { role, changeRequest } = await load(ctx, spaceId, changeRequestId);
  const self = userId === ctx.caller.user.id || changeRequest.created_by === ctx.caller.user.id;
  requireRole(role, self ? 'read' : 'edit', 'remove reviewers from this change request');
  return deleteReviewer(ctx.em, changeRequest.id, userId);
}

/** Who edited and who commented on the change request, with how often and when last. */
export async function listContributors(ctx: Ctx, spaceId: string, changeRequestId: string) {
  const { changeRequest } = await load(ctx, spaceId, changeRequestId);
  const rows = mergeContributions(await changeRequestContributions(ctx.em, changeRequest));
  const user = await users(
    ctx,
    rows.map((r) => r.userId),
  );
  return { items: rows.map((r) => presentContributor(r, user)), count: rows.length };
}
