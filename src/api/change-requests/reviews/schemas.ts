import { Type } from 'typebox';
import { BodyInput, CommentSchema } from '../../comments/schemas.ts';
import { TeamSchema } from '../../teams/schemas.ts';
import { Id, ListOf, ListQuery, Timestamp, UserRef } from '../../schemas.ts';

export const ReviewsParams = Type.Object({ spaceId: Id, changeRequestId: Id });
export const ReviewParams = Type.Object({ spaceId: Id, changeRequestId: Id, reviewId: Id });
export const ReviewerParams = Type.Object({
  spaceId: Id,
  changeRequestId: Id,
  userId: Type.String({ minLength: 1, maxLength: 64, description: 'The requested user, or the requested team' }),
});

export const ReviewStatus = Type.Union([Type.Literal('approved'), Type.Literal('changes-requested')]);

export const ListReviewsQuery = Type.Object({
  ...ListQuery.properties,
  outdated: Type.Optional(Type.Boolean({ description: 'Only the outdated reviews (true) or only the current ones (false)' })),
  format: Type.Optional(Type.Union([Type.Literal('document'), Type.Literal('markdown')])),
});
export const GetReviewQuery = Type.Object({ format: Type.Optional(Type.Union([Type.Literal('document'), Type.Literal('markdown')])) });

export const SubmitReviewBody = Type.Object({
  status: ReviewStatus,
  /** GitBook Document: `{markdown}`, `{document}`, or `{}` for none. */
  comment: Type.Optional(BodyInput),
});

export const RequestReviewersBody = Type.Object({
  users: Type.Array(Id, { maxItems: 50, description: 'Ids of the users asked to review' }),
  teams: Type.Optional(
    Type.Array(Id, { maxItems: 50, description: 'Ids of teams of the organization asked to review (a review by any member answers)' }),
  ),
  subject: Type.Optional(Type.String({ maxLength: 100, description: 'A new subject for the change request' })),
});

export const ReviewSchema = Type.Object({
  object: Type.Literal('change-request-review'),
  id: Type.String(),
  revision: Type.String(),
  reviewer: UserRef,
  requestedBy: Type.Optional(UserRef),
  status: ReviewStatus,
  outdated: Type.Boolean(),
  comment: Type.Optional(CommentSchema),
  createdAt: Timestamp,
  updatedAt: Timestamp,
  urls: Type.Object({ location: Type.String() }),
});
export const ReviewList = ListOf(ReviewSchema);

const RequestedReviewerFields = {
  object: Type.Literal('change-request-requested-reviewer'),
  revision: Type.String(),
  requestedBy: UserRef,
  createdAt: Timestamp,
};
export const RequestedReviewerSchema = Type.Union([
  Type.Object({ ...RequestedReviewerFields, kind: Type.Literal('user'), user: UserRef }),
  Type.Object({ ...RequestedReviewerFields, kind: Type.Literal('team'), team: TeamSchema }),
]);
export const RequestedReviewerList = ListOf(RequestedReviewerSchema);
export const RequestReviewersAnswer = Type.Object({ users: Type.Array(RequestedReviewerSchema) });

export const ContributorSchema = Type.Object({
  user: UserRef,
  actionType: Type.Union([Type.Literal('edit'), Type.Literal('comment')]),
  count: Type.Integer(),
  updatedAt: Timestamp,
});
export const ContributorList = ListOf(ContributorSchema);
