import { Type } from 'typebox';
import { Id, ListOf, ListQuery, Timestamp, UserRef } from '../../schemas.ts';

export const ReviewsParams = Type.Object({ spaceId: Id, changeRequestId: Id });
export const ReviewParams = Type.Object({ spaceId: Id, changeRequestId: Id, reviewId: Id });
export const ReviewerParams = Type.Object({ spaceId: Id, changeRequestId: Id, userId: Id });

export const ReviewStatus = Type.Union([Type.Literal('approved'), Type.Literal('changes-requested')]);

export const ListReviewsQuery = Type.Object({
  ...ListQuery.properties,
  outdated: Type.Optional(Type.Boolean({ description: 'Only the outdated reviews (true) or only the current ones (false)' })),
  format: Type.Optional(Type.Union([Type.Literal('document'), Type.Literal('markdown')])),
});
export const GetReviewQuery = Type.Object({ format: Type.Optional(Type.Union([Type.Literal('document'), Type.Literal('markdown')])) });

export const SubmitReviewBody = Type.Object({ status: ReviewStatus });

export const RequestReviewersBody = Type.Object({
  users: Type.Array(Id, { minItems: 1, maxItems: 50, description: 'Ids of the users asked to review' }),
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
  createdAt: Timestamp,
  updatedAt: Timestamp,
  urls: Type.Object({ location: Type.String() }),
});
export const ReviewList = ListOf(ReviewSchema);

export const RequestedReviewerSchema = Type.Object({
  object: Type.Literal('change-request-requested-reviewer'),
  kind: Type.Literal('user'),
  user: UserRef,
  revision: Type.String(),
  requestedBy: UserRef,
  createdAt: Timestamp,
});
export const RequestedReviewerList = ListOf(RequestedReviewerSchema);
export const RequestReviewersAnswer = Type.Object({ users: Type.Array(RequestedReviewerSchema) });

export const ContributorSchema = Type.Object({
  user: UserRef,
  actionType: Type.Union([Type.Literal('edit'), Type.Literal('comment')]),
  count: Type.Integer(),
  updatedAt: Timestamp,
});
export const ContributorList = ListOf(ContributorSchema);
