import { ctxOf, type RoutePlugin } from '../../context.ts';
import { errors, ListQuery, NoContent } from '../../schemas.ts';
import {
  ContributorList,
  GetReviewQuery,
  ListReviewsQuery,
  RequestedReviewerList,
  RequestReviewersAnswer,
  RequestReviewersBody,
  ReviewerParams,
  ReviewList,
  ReviewParams,
  ReviewSchema,
  ReviewsParams,
  SubmitReviewBody,
} from './schemas.ts';
import {
  getReview,
  listContributors,
  listRequestedReviewers,
  listReviews,
  removeRequestedReviewer,
  requestReviewers,
  submitReview,
} from './service.ts';

/** Reviews, requested reviewers and contributors of a change request: HTTP only. The rules are in ./service.ts. */
export const changeRequestReviewRoutes: RoutePlugin = async (app) => {
  const tags = ['change requests'];
  const base = '/v1/spaces/:spaceId/change-requests/:changeRequestId';

  app.get(
    `${base}/reviews`,
    {
      schema: {
        tags,
        summary: 'List the reviews of a change request, oldest first',
        params: ReviewsParams,
        querystring: ListReviewsQuery,
        response: { 200: ReviewList, ...errors(404) },
      },
    },
    async (request) => listReviews(ctxOf(request), request.params.spaceId, request.params.changeRequestId, request.query),
  );

  app.post(
    `${base}/reviews`,
    {
      schema: {
        tags,
        summary: 'Approve the change request or request changes (review role), optionally with a comment',
        params: ReviewsParams,
        body: SubmitReviewBody,
        response: { 201: ReviewSchema, ...errors(400, 403, 404, 409) },
      },
    },
    async (request, reply) => {
      const review = await submitReview(ctxOf(request), request.params.spaceId, request.params.changeRequestId, request.body);
      return reply.status(201).header('location', review.urls.location).send(review);
    },
  );

  app.get(
    `${base}/reviews/:reviewId`,
    {
      schema: {
        tags,
        summary: 'Get a review of a change request',
        params: ReviewParams,
        querystring: GetReviewQuery,
        response: { 200: ReviewSchema, ...errors(404) },
      },
    },
    async (request) => {
      const { spaceId, changeRequestId, reviewId } = request.params;
      return getReview(ctxOf(request), spaceId, changeRequestId, reviewId, request.query.format);
    },
  );

  app.get(
    `${base}/requested-reviewers`,
    {
      schema: {
        tags,
        summary: 'List the reviewers asked to review a change request',
        params: ReviewsParams,
        querystring: ListQuery,
        response: { 200: RequestedReviewerList, ...errors(404) },
      },
    },
    async (request) => listRequestedReviewers(ctxOf(request), request.params.spaceId, request.params.changeRequestId, request.query),
  );

  app.post(
    `${base}/requested-reviewers`,
    {
      schema: {
        tags,
        summary: 'Ask users and teams who can read the space to review a change request',
        params: ReviewsParams,
        body: RequestReviewersBody,
        response: { 200: RequestReviewersAnswer, ...errors(400, 403, 404, 409) },
      },
    },
    async (request) => requestReviewers(ctxOf(request), request.params.spaceId, request.params.changeRequestId, request.body),
  );

  app.delete(
    `${base}/requested-reviewers/:userId`,
    {
      schema: {
        tags,
        summary: 'Withdraw the review request of a user or a team (by its id): 205 when removed, 204 when there was none',
        params: ReviewerParams,
        response: { 204: NoContent, 205: NoContent, ...errors(403, 404) },
      },
    },
    async (request, reply) => {
      const { spaceId, changeRequestId, userId } = request.params;
      const removed = await removeRequestedReviewer(ctxOf(request), spaceId, changeRequestId, userId);
      return reply.status(removed ? 205 : 204).send();
    },
  );

  app.get(
    `${base}/contributors`,
    {
      schema: {
        tags,
        summary: 'List who edited and who commented on a change request',
        params: ReviewsParams,
        response: { 200: ContributorList, ...errors(404) },
      },
    },
    async (request) => listContributors(ctxOf(request), request.params.spaceId, request.params.changeRequestId),
  );
};
