import { countOpenComments as countOpen } from '../../db/comments.ts';
import type { Em } from '../../db/orm.ts';

/** The counters other resources show of comments. */

/**
 * Open (unresolved) comments on the content of each space, for the Space `comments` field: one
 * query for any number of spaces; every given id is in the map (0 when none). Comments made inside
 * change requests are counted on their change request instead.
 */
export function countOpenComments(em: Em, spaceIds: string[]): Promise<Map<string, number>> {
  return countOpen(em, 'space_id', spaceIds);
}

/** Open (unresolved) comments inside each change request, for its `comments` field: one query; 0 when none. */
export function countOpenCommentsOnChangeRequests(em: Em, changeRequestIds: string[]): Promise<Map<string, number>> {
  return countOpen(em, 'change_request_id', changeRequestIds);
}
