import type { FastifyRequest } from 'fastify';
import { loadSpace, requireRole } from '../access.ts';
import { notFound } from '../errors.ts';
import { sql } from '../../db/sql.ts';
import type { Space } from '../../db/entities.ts';
import type { Role } from '../../domain/roles.ts';

/**
 * The content a request reads: a space's current revision (`/v1/spaces/{spaceId}/...`) or a change
 * request's (`/v1/spaces/{spaceId}/change-requests/{changeRequestId}/...`). One resolver for both.
 */
export interface ContentTarget {
  space: Space;
  role: Role | null;
  revisionId: string;
  changeRequest: ChangeRequestRow | null;
}

export interface ChangeRequestRow {
  id: string;
  space_id: string;
  number: number;
  status: 'draft' | 'open' | 'archived' | 'merged';
  subject: string;
  created_by: string | null;
  created_at: Date;
  updated_at: Date;
  revision_id: string;
  revision_initial: string;
  revision_merged_ancestor: string | null;
  revision_merged: string | null;
  merged_at: Date | null;
  merged_by: string | null;
  conflicts: unknown[] | null;
}

/** A change request of the space by id or by its number; 404 otherwise. */
export async function findChangeRequest(request: FastifyRequest, spaceId: string, idOrNumber: string): Promise<ChangeRequestRow> {
  const byNumber = /^\d{1,9}$/.test(idOrNumber);
  const rows = await sql<ChangeRequestRow>(
    request.em,
    `select * from change_request where space_id = ? and ${byNumber ? 'number = ?' : 'id = ?'}`,
    [spaceId, byNumber ? Number(idOrNumber) : idOrNumber],
  );
  if (!rows[0]) throw notFound('Change request');
  return rows[0];
}

export async function resolveTarget(request: FastifyRequest, min: Role = 'read'): Promise<ContentTarget> {
  const params = request.params as { spaceId: string; changeRequestId?: string };
  const { space, role } = await loadSpace(request.em, request.caller, params.spaceId);
  requireRole(role, min, 'read this content');
  if (params.changeRequestId === undefined) return { space, role, revisionId: space.revisionId, changeRequest: null };
  const changeRequest = await findChangeRequest(request, space.id, params.changeRequestId);
  return { space, role, revisionId: changeRequest.revision_id, changeRequest };
}
