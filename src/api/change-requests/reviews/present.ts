import type { User } from '../../../db/entities.ts';
import type { ReviewerRow, ReviewRow } from '../../../db/reviews.ts';
import type { Contributor } from '../../../domain/contributors.ts';
import type { presentComment } from '../../comments/present.ts';
import { urlsFor } from '../../object-urls.ts';
import type { presentTeam } from '../../people/present.ts';
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

/** GitBook's ChangeRequestReview, with the comment posted with it (already presented) if any. */
export function presentReview(r: ReviewRow, user: PresentUser, base: string, comment?: ReturnType<typeof presentComment>) {
  return {
    object: 'change-request-review' as const,
    id: r.id,
    revision: r.revision_id,
    reviewer: user(r.reviewer_id),
    ...(r.requested_by ? { requestedBy: user(r.requested_by) } : {}),
    status: r.status,
    outdated: r.outdated,
    ...(comment ? { comment } : {}),
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
    urls: { location: `${base}/reviews/${r.id}` },
  };
}

/** A requested team as shown (GitBook's Team); a team deleted meanwhile is never listed (its requests go with it). */
export type PresentTeam = (id: string) => ReturnType<typeof presentTeam>;

/** GitBook's ChangeRequestRequestedReviewer: a user, or a team. */
export function presentRequestedReviewer(r: ReviewerRow, user: PresentUser, team: PresentTeam) {
  const common = {
    object: 'change-request-requested-reviewer' as const,
    revision: r.revision_id,
    requestedBy: user(r.requested_by),
    createdAt: new Date(r.created_at).toISOString(),
  };
  return r.kind === 'team'
    ? { ...common, kind: 'team' as const, team: team(r.principal_id) }
    : { ...common, kind: 'user' as const, user: user(r.principal_id) };
}

/** GitBook's ChangeRequestUserContributor. */
export function presentContributor(c: Contributor, user: PresentUser) {
  return { user: user(c.userId), actionType: c.kind, count: c.count, updatedAt: c.updatedAt };
}
