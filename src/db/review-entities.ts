import { defineEntity, p, type InferEntity } from '@mikro-orm/core';

/** Change-request reviews, requested reviewers and edit authors (tables from Migration0020Reviews). */

export const ChangeRequestReview = defineEntity({
  name: 'ChangeRequestReview',
  tableName: 'change_request_review',
  properties: {
    id: p.string().primary(),
    changeRequestId: p.string(),
    /** The revision of the change request the reviewer looked at. */
    revisionId: p.string(),
    reviewerId: p.string().nullable(),
    /** Who asked for this review, when it answered a request. */
    requestedBy: p.string().nullable(),
    /** `approved` or `changes-requested`. */
    status: p.string(),
    createdAt: p.datetime().defaultRaw('now()'),
    updatedAt: p.datetime().defaultRaw('now()'),
  },
});
export type ChangeRequestReview = InferEntity<typeof ChangeRequestReview>;

export const ChangeRequestReviewer = defineEntity({
  name: 'ChangeRequestReviewer',
  tableName: 'change_request_reviewer',
  properties: {
    changeRequestId: p.string().primary(),
    userId: p.string().primary(),
    requestedBy: p.string().nullable(),
    /** The change request's revision when the review was asked for. */
    revisionId: p.string(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
export type ChangeRequestReviewer = InferEntity<typeof ChangeRequestReviewer>;

/** Teams asked to review a change request (Migration0024ReviewComments). */
export const ChangeRequestTeamReviewer = defineEntity({
  name: 'ChangeRequestTeamReviewer',
  tableName: 'change_request_team_reviewer',
  properties: {
    changeRequestId: p.string().primary(),
    teamId: p.string().primary(),
    requestedBy: p.string().nullable(),
    /** The change request's revision when the review was asked for. */
    revisionId: p.string(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
export type ChangeRequestTeamReviewer = InferEntity<typeof ChangeRequestTeamReviewer>;

export const ChangeRequestEdit = defineEntity({
  name: 'ChangeRequestEdit',
  tableName: 'change_request_edit',
  properties: {
    revisionId: p.string().primary(),
    changeRequestId: p.string(),
    userId: p.string().nullable(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
export type ChangeRequestEdit = InferEntity<typeof ChangeRequestEdit>;

export const entities = [ChangeRequestReview, ChangeRequestReviewer, ChangeRequestTeamReviewer, ChangeRequestEdit];
