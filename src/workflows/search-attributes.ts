import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Every workflow carries these, so an operator can list all jobs of an organization, a space,
 * or a kind in the Temporal UI, e.g. `DocsSpaceId = "abc" AND DocsJobKind = "space-deletion"`.
 */
export const ORGANIZATION_ID = defineSearchAttributeKey('DocsOrganizationId', SearchAttributeType.KEYWORD);
export const SPACE_ID = defineSearchAttributeKey('DocsSpaceId', SearchAttributeType.KEYWORD);
export const JOB_KIND = defineSearchAttributeKey('DocsJobKind', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTES = [ORGANIZATION_ID, SPACE_ID, JOB_KIND];
