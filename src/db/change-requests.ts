import type { MergeConflict } from '../domain/content/merge.ts';
import { newId } from '../domain/ids.ts';
import { jsonb } from './content.ts';
import type { MergeBypass } from '../domain/merge-rules.ts';
import type { User } from './entities.ts';
import { db } from './kysely.ts';
import type { Listing } from './listing.ts';
import type { Em } from './orm.ts';

/** Change requests (table `change_request`) and what is shown with them. */

export type ChangeRequestStatus = 'draft' | 'open' | 'archived' | 'merged';

/** A change request as read; its times as the ORM's connection reads them (text: read them with `new Date(…)`). */
export interface ChangeRequestRow {
  id: string;
  space_id: string;
  number: number;
  status: ChangeRequestStatus;
  subject: string;
  created_by: string | null;
  /** The integration that opened it (with an installation's token); `created_by` is then null. */
  created_by_integration: string | null;
  created_at: string;
  updated_at: string;
  revision_id: string;
  revision_initial: string;
  revision_merged_ancestor: string | null;
  revision_merged: string | null;
  merged_at: string | null;
  merged_by: string | null;
  conflicts: unknown[] | null;
  description: string;
  merge_bypass: MergeBypass | null;
}

/** Every column of `change_request`, its status as the statuses it holds. */
function changeRequests(em: Em) {
  return db(em).selectFrom('change_request').selectAll().$narrowType<{ status: ChangeRequestStatus }>();
}

/** A change request of the space by id, or by number when `idOrNumber` is all digits. */
export async function findChangeRequest(em: Em, spaceId: string, idOrNumber: string): Promise<ChangeRequestRow | undefined> {
  const query = changeRequests(em).where('space_id', '=', spaceId);
  return /^\d{1,9}$/.test(idOrNumber)
    ? query.where('number', '=', Number(idOrNumber)).executeTakeFirst()
    : query.where('id', '=', idOrNumber).executeTakeFirst();
}

/** The change request a merge revision came from. */
export async function changeRequestMergedAs(em: Em, mergedRevisionId: string): Promise<ChangeRequestRow | undefined> {
  return changeRequests(em).where('revision_merged', '=', mergedRevisionId).executeTakeFirst();
}

export interface ChangeRequestFilter {
  spaceId: string;
  status: string;
  contributor: string | null;
}

/** A space's change requests with a status (and creator), newest first, as a listing for the API's paginator. */
export function changeRequestListing(em: Em, filter: ChangeRequestFilter): Listing<ChangeRequestRow> {
  let query = changeRequests(em).where('space_id', '=', filter.spaceId).where('status', '=', filter.status);
  if (filter.contributor !== null) query = query.where('created_by', '=', filter.contributor);
  return {
    query,
    keys: [
      { field: 'created_at', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
    order: 'desc',
  };
}

/** The users among `userIds` that still exist (creators and mergers of change requests), by id. */
export async function changeRequestPeople(em: Em, userIds: string[]): Promise<Map<string, User>> {
  if (userIds.length === 0) return new Map();
  const users = await db(em)
    .selectFrom('app_user')
    .select(['id', 'display_name as displayName', 'email', 'photo_url as photoUrl', 'created_at as createdAt'])
    .where('id', 'in', userIds)
    .execute();
  // The presenters take users as entities, their times as Dates.
  return new Map(users.map((u) => [u.id, { ...u, createdAt: new Date(u.createdAt) }]));
}

/**
 * A new open change request on the space's current revision, numbered from the space's counter,
 * opened by a user or by an integration (acting through one of its installations' tokens).
 * Run it in a transaction: the counter row lock makes numbers gapless and unique under
 * concurrent creation.
 */
export async function insertChangeRequest(
  tx: Em,
  spaceId: string,
  subject: string,
  createdBy: string | { integration: string },
): Promise<ChangeRequestRow> {
  const seq = await db(tx)
    .updateTable('space')
    .set((eb) => ({ change_request_seq: eb('change_request_seq', '+', 1) }))
    .where('id', '=', spaceId)
    .returning(['change_request_seq as n', 'revision_id'])
    .executeTakeFirstOrThrow();
  const now = new Date();
  return db(tx)
    .insertInto('change_request')
    .values({
      id: newId(),
      space_id: spaceId,
      number: seq.n,
      status: 'open',
      subject,
      created_by: typeof createdBy === 'string' ? createdBy : null,
      created_by_integration: typeof createdBy === 'string' ? null : createdBy.integration,
      created_at: now,
      updated_at: now,
      revision_id: seq.revision_id,
      revision_initial: seq.revision_id,
    })
    .returningAll()
    .$narrowType<{ status: ChangeRequestStatus }>()
    .executeTakeFirstOrThrow();
}

/** Sets the subject and/or status (null leaves it as it is). */
export async function updateChangeRequest(
  em: Em,
  id: string,
  changes: { subject?: string; status?: string; description?: string },
): Promise<ChangeRequestRow> {
  return db(em)
    .updateTable('change_request')
    .set({
      ...(changes.subject !== undefined ? { subject: changes.subject } : {}),
      ...(changes.status !== undefined ? { status: changes.status } : {}),
      ...(changes.description !== undefined ? { description: changes.description } : {}),
      updated_at: new Date(),
    })
    .where('id', '=', id)
    .returningAll()
    .$narrowType<{ status: ChangeRequestStatus }>()
    .executeTakeFirstOrThrow();
}

/** The change request locked for an edit (inside a transaction), with its space's edit mode. */
export async function lockChangeRequest(
  tx: Em,
  spaceId: string,
  id: string,
): Promise<(ChangeRequestRow & { edit_mode: string }) | undefined> {
  return db(tx)
    .selectFrom('change_request as cr')
    .innerJoin('space as s', 's.id', 'cr.space_id')
    .selectAll('cr')
    .select('s.edit_mode')
    .where('cr.id', '=', id)
    .where('cr.space_id', '=', spaceId)
    .forUpdate('cr')
    .$narrowType<{ status: ChangeRequestStatus }>()
    .executeTakeFirst();
}

/** Moves a change request to a new head revision (which clears its recorded conflicts). */
export async function setChangeRequestRevision(tx: Em, id: string, revisionId: string): Promise<ChangeRequestRow> {
  return db(tx)
    .updateTable('change_request')
    .set({ revision_id: revisionId, updated_at: new Date(), conflicts: null })
    .where('id', '=', id)
    .returningAll()
    .$narrowType<{ status: ChangeRequestStatus }>()
    .executeTakeFirstOrThrow();
}

/** Head revisions of the open change requests of a space, by number. */
export async function openChangeRequestRevisions(em: Em, spaceId: string): Promise<string[]> {
  const rows = await db(em)
    .selectFrom('change_request')
    .select('revision_id')
    .where('space_id', '=', spaceId)
    .where('status', '=', 'open')
    .orderBy('number')
    .execute();
  return rows.map((r) => r.revision_id);
}

/** The current revision of each given space (for `outdated`). */
export async function spaceRevisions(em: Em, spaceIds: string[]): Promise<Map<string, string>> {
  if (spaceIds.length === 0) return new Map();
  const rows = await db(em).selectFrom('space').select(['id', 'revision_id']).where('id', 'in', spaceIds).execute();
  return new Map(rows.map((s) => [s.id, s.revision_id]));
}

/* Merges and updates (the change-request-merge activities). */

/** Statements of merging a change request into its space and of updating it from the space. */

/** A change request locked for a merge or an update, with its space's organization, current revision and edit mode. */
export interface LockedChangeRequest {
  id: string;
  status: string;
  number: number;
  revision_id: string;
  revision_initial: string;
  revision_merged_ancestor: string | null;
  revision_merged: string | null;
  space_revision: string;
  edit_mode: string;
  organization_id: string;
}

/** Locks the space row, then the change request: merges into one space run one at a time. */
export async function lockChangeRequestForMerge(
  em: Em,
  spaceId: string,
  changeRequestId: string,
): Promise<LockedChangeRequest | undefined> {
  const space = await db(em)
    .selectFrom('space')
    .select(['revision_id', 'edit_mode', 'organization_id'])
    .where('id', '=', spaceId)
    .forNoKeyUpdate()
    .executeTakeFirst();
  if (!space) return undefined;
  const row = await db(em)
    .selectFrom('change_request')
    .select(['id', 'status', 'number', 'revision_id', 'revision_initial', 'revision_merged_ancestor', 'revision_merged'])
    .where('id', '=', changeRequestId)
    .where('space_id', '=', spaceId)
    .forUpdate()
    .executeTakeFirst();
  return row
    ? { ...row, space_revision: space.revision_id, edit_mode: space.edit_mode, organization_id: space.organization_id }
    : undefined;
}

/** Keeps the conflicts of a merge or update that did not go through on the change request. */
export async function recordMergeConflicts(em: Em, changeRequestId: string, conflicts: MergeConflict[]): Promise<void> {
  await db(em)
    .updateTable('change_request')
    .set({ conflicts: jsonb(conflicts), updated_at: new Date() })
    .where('id', '=', changeRequestId)
    .execute();
}

/** Moves the space's primary content to the merge revision and marks the change request merged. */
export async function markChangeRequestMerged(
  em: Em,
  input: { spaceId: string; changeRequestId: string; revisionId: string; userId: string; bypass?: MergeBypass },
): Promise<void> {
  const now = new Date();
  await db(em).updateTable('space').set({ revision_id: input.revisionId, updated_at: now }).where('id', '=', input.spaceId).execute();
  await db(em)
    .updateTable('change_request')
    .set({
      status: 'merged',
      revision_merged: input.revisionId,
      merged_at: now,
      merged_by: input.userId,
      conflicts: null,
      updated_at: now,
      ...(input.bypass ? { merge_bypass: jsonb(input.bypass) } : {}),
    })
    .where('id', '=', input.changeRequestId)
    .execute();
}

/** Moves the change request to its update revision, whose base is now the space revision `ancestor`. */
export async function markChangeRequestUpdated(em: Em, changeRequestId: string, revisionId: string, ancestor: string): Promise<void> {
  await db(em)
    .updateTable('change_request')
    .set({ revision_id: revisionId, revision_merged_ancestor: ancestor, conflicts: null, updated_at: new Date() })
    .where('id', '=', changeRequestId)
    .execute();
}

export interface OrganizationChangeRequestFilter {
  organizationId: string;
  /** Only the change requests of these spaces (a guest's grants); every live space of the organization when absent. */
  spaceIds?: string[];
  statuses: ChangeRequestStatus[];
  creator?: string;
  /** Created by, edited by or commented on by this user. */
  contributor?: string;
  /** This user's review is asked for. */
  requestedReviewer?: string;
  space?: string;
  orderBy: 'updatedAt' | 'createdAt';
}

/**
 * The change requests of an organization's live spaces, newest first by `orderBy`, as a listing
 * for the API's paginator.
 */
export function organizationChangeRequestListing(em: Em, filter: OrganizationChangeRequestFilter): Listing<ChangeRequestRow> {
  const q = db(em);
  let spaces = q.selectFrom('space').select('id').where('organization_id', '=', filter.organizationId).where('deleted_at', 'is', null);
  if (filter.spaceIds) {
    const ids = filter.spaceIds;
    spaces = spaces.where((eb) => (ids.length === 0 ? eb.lit(false) : eb('id', 'in', ids)));
  }
  if (filter.space !== undefined) spaces = spaces.where('id', '=', filter.space);
  let query = changeRequests(em)
    .where('space_id', 'in', spaces)
    .where((eb) => (filter.statuses.length === 0 ? eb.lit(false) : eb('status', 'in', filter.statuses)));
  if (filter.creator !== undefined) query = query.where('created_by', '=', filter.creator);
  const contributor = filter.contributor;
  if (contributor !== undefined)
    query = query.where((eb) =>
      eb.or([
        eb('created_by', '=', contributor),
        eb.exists(
          eb
            .selectFrom('change_request_edit as e')
            .select('e.revision_id')
            .whereRef('e.change_request_id', '=', 'change_request.id')
            .where('e.user_id', '=', contributor),
        ),
        eb.exists(
          eb
            .selectFrom('comment as c')
            .select('c.id')
            .whereRef('c.change_request_id', '=', 'change_request.id')
            .where('c.posted_by', '=', contributor),
        ),
      ]),
    );
  const reviewer = filter.requestedReviewer;
  if (reviewer !== undefined)
    query = query.where((eb) =>
      eb.or([
        eb.exists(
          eb
            .selectFrom('change_request_reviewer as r')
            .select('r.user_id')
            .whereRef('r.change_request_id', '=', 'change_request.id')
            .where('r.user_id', '=', reviewer),
        ),
        // Or asked through a team they belong to.
        eb.exists(
          eb
            .selectFrom('change_request_team_reviewer as tr')
            .innerJoin('team_member as tm', 'tm.team_id', 'tr.team_id')
            .select('tr.team_id')
            .whereRef('tr.change_request_id', '=', 'change_request.id')
            .where('tm.user_id', '=', reviewer),
        ),
      ]),
    );
  return {
    query,
    keys: [
      { field: filter.orderBy === 'createdAt' ? 'created_at' : 'updated_at', kind: 'date' },
      { field: 'id', kind: 'string' },
    ],
    order: 'desc',
  };
}
