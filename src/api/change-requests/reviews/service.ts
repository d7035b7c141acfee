import type { Static } from 'typebox';
import { changeRequestPeople, lockChangeRequest, updateChangeRequest, type ChangeRequestRow } from '../../../db/change-requests.ts';
import { memberRole } from '../../../db/access.ts';
import { transaction, type Em } from '../../../db/orm.ts';
import {
  changeRequestContributions,
  deleteReviewer,
  existingUsers,
  findReview,
  insertReview,
  reviewerListing,
  reviewListing,
  upsertReviewers,
} from '../../../db/reviews.ts';
import { mergeContributions } from '../../../domain/contributors.ts';
import { atLeast, isRole } from '../../../domain/roles.ts';
import { contentRoles, loadSpace, requireRole } from '../../access.ts';
import type { Ctx } from '../../context.ts';
import { badRequest, conflict, forbidden, notFound } from '../../errors.ts';
import { paginate } from '../../pagination.ts';
import { requireChangeRequest } from '../service.ts';
import { presentContributor, presentRequestedReviewer, presentReview, userPresenter } from './present.ts';
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

export async function listReviews(ctx: Ctx, spaceId: string, changeRequestId: string, query: Static<typeof ListReviewsQuery>) {
  const { changeRequest } = await load(ctx, spaceId, changeRequestId);
  return paginate(ctx.em, reviewListing(ctx.em, changeRequest.id, query.outdated), query, async (rows) => {
    const user = await users(
      ctx,
      rows.flatMap((r) => [r.reviewer_id, r.requested_by]),
    );
    return rows.map((r) => presentReview(r, user, baseUrl(ctx, changeRequest)));
  });
}

export async function getReview(ctx: Ctx, spaceId: string, changeRequestId: string, reviewId: string) {
  const { changeRequest } = await load(ctx, spaceId, changeRequestId);
  const review = await findReview(ctx.em, changeRequest.id, reviewId);
  if (!review) throw notFound('Review');
  return presentReview(review, await users(ctx, [review.reviewer_id, review.requested_by]), baseUrl(ctx, changeRequest));
}

/**
 * A review of the change request's current revision (`review` role). It answers and clears the
 * reviewer's pending request; earlier reviews of the same reviewer become outdated.
 */
export async function submitReview(ctx: Ctx, spaceId: string, changeRequestId: string, body: Static<typeof SubmitReviewBody>) {
  const { space, role, changeRequest } = await load(ctx, spaceId, changeRequestId);
  requireRole(role, 'review', 'review change requests in this space');
  if (body.status === 'approved' && changeRequest.created_by === ctx.caller.user.id)
    throw forbidden('The author of a change request cannot approve it');
  assertReviewable(changeRequest, 'it can no longer be reviewed');
  // Under the change request's lock, which a merge takes before it checks the rules: a review
  // either lands before the merge reads the reviews, or finds the change request merged.
  const id = await transaction(ctx.em, async (tx) => {
    assertReviewable(await lockedChangeRequest(tx, space.id, changeRequest.id), 'it can no longer be reviewed');
    return insertReview(tx, {
      changeRequestId: changeRequest.id,
      // The revision the reviewer was shown: an edit since makes this review outdated at once.
      revisionId: changeRequest.revision_id,
      reviewerId: ctx.caller.user.id,
      status: body.status,
    });
  });
  return getReview(ctx, spaceId, changeRequest.id, id);
}

export async function listRequestedReviewers(ctx: Ctx, spaceId: string, changeRequestId: string, query: { page?: string; limit?: number }) {
  const { changeRequest } = await load(ctx, spaceId, changeRequestId);
  return paginate(ctx.em, reviewerListing(ctx.em, changeRequest.id), query, async (rows) => {
    const user = await users(
      ctx,
      rows.flatMap((r) => [r.user_id, r.requested_by]),
    );
    return rows.map((r) => presentRequestedReviewer(r, user));
  });
}

/**
 * Asks users to review (`edit` role, or the author). Each must be able to read the space: the
 * first who cannot is named in a 400 and nobody is asked.
 */
export async function requestReviewers(ctx: Ctx, spaceId: string, changeRequestId: string, body: Static<typeof RequestReviewersBody>) {
  const { space, role, changeRequest } = await load(ctx, spaceId, changeRequestId);
  if (changeRequest.created_by !== ctx.caller.user.id) requireRole(role, 'edit', 'request reviews on this change request');
  else requireRole(role, 'comment', 'request reviews on this change request');
  assertReviewable(changeRequest, 'reviews can no longer be requested');
  const userIds = [...new Set(body.users)];
  const known = await existingUsers(ctx.em, userIds);
  for (const userId of userIds) {
    const orgRole = known.has(userId) ? await memberRole(ctx.em, space.organizationId, userId) : undefined;
    const viewerRole = orgRole === undefined ? undefined : isRole(orgRole) ? orgRole : null;
    const roles = await contentRoles(ctx.em, { userId, role: viewerRole }, 'space', [space]);
    if (!atLeast(roles.get(space.id), 'read')) throw badRequest(`User ${userId} cannot read this space and cannot be asked to review`);
  }
  const rows = await transaction(ctx.em, async (tx) => {
    assertReviewable(await lockedChangeRequest(tx, space.id, changeRequest.id), 'reviews can no longer be requested');
    if (body.subject !== undefined) await updateChangeRequest(tx, changeRequest.id, { subject: body.subject });
    return upsertReviewers(tx, {
      changeRequestId: changeRequest.id,
      userIds,
      requestedBy: ctx.caller.user.id,
      revisionId: changeRequest.revision_id,
    });
  });
  const user = await users(
    ctx,
    rows.flatMap((r) => [r.user_id, r.requested_by]),
  );
  return { users: rows.map((r) => presentRequestedReviewer(r, user)) };
}

/** Withdraws a request (`edit`, the author, or the requested user declining); false when none. */
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
