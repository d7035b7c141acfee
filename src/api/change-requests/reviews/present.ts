import type { User } from '../../../db/entities.ts';
import type { ReviewerRow, ReviewRow } from '../../../db/reviews.ts';
import type { Contributor } from '../../../domain/contributors.ts';
import { urlsFor } from '../../object-urls.ts';
import { presentUser } from '../../users/present.ts';

/** The users named by reviews, requests and contributions; a deleted one shows as such. */
export function userPresenter(users: Map<string, User>, publicUrl: string) {
  const urls = urlsFor(publicUrl);
  return (id: string | null) => {
    const user = id ? users.get(id) : undefined;
    if (user) return presentUser({ id: user.id, displayName: user.displayName, email: user.email, photoUrl: user.photoUrl ?? null }, urls);
    return { object: 'user' as const, id: id ?? 'deleted', displayName: 'Deleted user', urls: urls.user(id ?? 'deleted') };
  };
}
export type PresentUser = ReturnType<typeof userPresenter>;

/** GitBook's ChangeRequestReview. */
export function presentReview(r: ReviewRow, user: PresentUser, base: string) {
  return {
    object: 'change-request-review' as const,
    id: r.id,
    revision: r.revision_id,
    reviewer: user(r.reviewer_id),
    ...(r.requested_by ? { requestedBy: user(r.requested_by) } : {}),
    status: r.status,
    outdated: r.outdated,
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
    urls: { location: `${base}/reviews/${r.id}` },
  };
}

/** GitBook's ChangeRequestRequestedReviewer (always a user here). */
export function presentRequestedReviewer(r: ReviewerRow, user: PresentUser) {
  return {
    object: 'change-request-requested-reviewer' as const,
    kind: 'user' as const,
    user: user(r.user_id),
    revision: r.revision_id,
    requestedBy: user(r.requested_by),
    createdAt: new Date(r.created_at).toISOString(),
  };
}

/** GitBook's ChangeRequestUserContributor. */
export function presentContributor(c: Contributor, user: PresentUser) {
  return { user: user(c.userId), actionType: c.kind, count: c.count, updatedAt: c.updatedAt };
}
