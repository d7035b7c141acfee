import type { FastifyRequest } from 'fastify';
import { User } from '../../db/entities.ts';
import type { Em } from '../../db/orm.ts';
import { sql } from '../../db/sql.ts';
import { presentUser } from '../users/present.ts';
import { urlsFor } from '../urls.ts';
import { countOpenCommentsOnChangeRequests } from '../comments/service.ts';
import type { ChangeRequestRow } from '../content/target.ts';
import type { ChangeOutcome } from '../../domain/content/operations.ts';

/** GitBook's ChangeRequest object. `outdated`: the space moved on since the change request's base. */
export async function presentChangeRequests(em: Em, publicUrl: string, rows: ChangeRequestRow[]) {
  if (rows.length === 0) return [];
  const urls = urlsFor(publicUrl);
  const userIds = [...new Set(rows.flatMap((r) => [r.created_by, r.merged_by]).filter((u): u is string => !!u))];
  const spaceIds = [...new Set(rows.map((r) => r.space_id))];
  const [users, spaces, comments] = await Promise.all([
    userIds.length ? em.find(User, { id: { $in: userIds } }) : Promise.resolve([]),
    sql<{ id: string; revision_id: string }>(em, 'select id, revision_id from space where id in (select jsonb_array_elements_text(?::jsonb))', [JSON.stringify(spaceIds)]),
    countOpenCommentsOnChangeRequests(em, rows.map((r) => r.id)),
  ]);
  const userById = new Map(users.map((u) => [u.id, presentUser({ id: u.id, displayName: u.displayName, email: u.email, photoUrl: u.photoUrl ?? null }, urls)]));
  const current = new Map(spaces.map((s) => [s.id, s.revision_id]));
  const ghost = (id: string | null) => (id && userById.get(id)) || { object: 'user' as const, id: id ?? 'deleted', displayName: 'Deleted user', urls: { location: `${publicUrl}/v1/users/${id ?? 'deleted'}` } };
  return rows.map((r) => ({
    object: 'change-request' as const,
    id: r.id,
    number: r.number,
    status: r.status,
    subject: r.subject,
    createdBy: ghost(r.created_by),
    createdAt: new Date(r.created_at).toISOString(),
    updatedAt: new Date(r.updated_at).toISOString(),
    space: r.space_id,
    revision: r.revision_id,
    revisionInitial: r.revision_initial,
    ...(r.revision_merged_ancestor ? { revisionMergedAncestor: r.revision_merged_ancestor } : {}),
    ...(r.revision_merged ? { revisionMerged: r.revision_merged } : {}),
    ...(r.merged_at ? { mergedAt: new Date(r.merged_at).toISOString(), mergedBy: ghost(r.merged_by) } : {}),
    comments: comments.get(r.id) ?? 0,
    outdated: r.status !== 'merged' && (r.revision_merged_ancestor ?? r.revision_initial) !== current.get(r.space_id),
    ...(r.conflicts && r.conflicts.length ? { conflicts: r.conflicts } : {}),
    urls: {
      app: `${publicUrl}/app/spaces/${r.space_id}/change-requests/${r.number}`,
      location: `${publicUrl}/v1/spaces/${r.space_id}/change-requests/${r.id}`,
    },
  }));
}

/**
 * GitBook's ChangeRequestContentUpdateChange items: created and updated pages as page references
 * with the API URL of their content (`base` is the change request's absolute API URL), deleted
 * pages as their id.
 */
export function presentContentChanges(changes: ChangeOutcome[], base: string) {
  return changes.map((c) =>
    c.object === 'deleted_page'
      ? { object: c.object, page: c.page }
      : {
          object: c.object,
          ...(c.ref !== undefined && c.object === 'created_page' ? { ref: c.ref } : {}),
          page: { object: 'page' as const, id: c.page, urls: { location: `${base}/content/page/${c.page}` } },
        },
  );
}

export async function presentChangeRequest(em: Em, publicUrl: string, row: ChangeRequestRow) {
  return (await presentChangeRequests(em, publicUrl, [row]))[0];
}

/** The change request a merge revision came from. */
export async function presentChangeRequestById(request: FastifyRequest, publicUrl: string, mergedRevisionId: string) {
  const rows = await sql<ChangeRequestRow>(request.em, 'select * from change_request where revision_merged = ?', [mergedRevisionId]);
  return rows[0] ? presentChangeRequest(request.em, publicUrl, rows[0]) : undefined;
}
