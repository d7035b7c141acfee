import { sql } from '../../db/sql.ts';
import { Space } from '../../db/entities.ts';
import { copyRevisionToSpace, loadPageMap, writeRevision } from '../../db/content.ts';
import { reindexSpace } from '../../db/search.ts';
import { positionBetween } from '../../domain/positions.ts';
import type { PageMap } from '../../domain/content/tree.ts';
import type { Em } from '../../db/orm.ts';
import { newId } from '../../domain/ids.ts';
import { signalSpaceRestored, startSpaceDeletion } from '../../temporal/jobs.ts';
import type { AppDeps, Caller } from '../context.ts';
import { notFound, unavailable } from '../errors.ts';
import { resolvePosition, type ContentPosition } from '../content-tree.ts';

/** Space operations that touch more than one row or reach Temporal. */

export interface NewSpace {
  organizationId: string;
  parentId: string | null;
  title: string;
  emoji: string;
  visibility: string;
  editMode: string;
  defaultLevel: string | null;
}

/** What a new space starts with: one empty page, nothing, or a copy of another revision. */
export type InitialContent = { kind: 'page' } | { kind: 'empty' } | { kind: 'copy'; revisionId: string };

/** Creates a space with its first revision and search index. Runs inside the caller's transaction. */
export async function createSpace(em: Em, input: NewSpace, content: InitialContent = { kind: 'page' }): Promise<Space> {
  const id = newId();
  const now = new Date();
  const revisionId = newId();
  const position = await resolvePosition(em, input.organizationId, input.parentId, id);
  const space = em.create(Space, {
    id,
    organizationId: input.organizationId,
    parentId: input.parentId,
    title: input.title,
    emoji: input.emoji,
    visibility: input.visibility,
    editMode: input.editMode,
    defaultLevel: input.defaultLevel,
    revisionId,
    position,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  });
  await em.flush();
  if (content.kind === 'copy') {
    await sql(em, 'insert into revision (id, space_id, parents, type, created_at) values (?, ?, ?::text[], ?, ?)', [
      revisionId, id, `{"${content.revisionId}"}`, 'edits', now,
    ]);
    await copyRevisionToSpace(em, content.revisionId, id, revisionId);
  } else {
    const pages: PageMap = {};
    if (content.kind === 'page') {
      const pageId = newId();
      pages[pageId] = { id: pageId, parentId: null, position: positionBetween(null, null), type: 'document', title: 'Untitled', slug: 'untitled', markdown: '' };
    }
    await writeRevision(em, { id: revisionId, spaceId: id, parents: [], type: 'edits', base: null, pages });
  }
  await reindexSpace(em, id, null, await loadPageMap(em, revisionId, false));
  return space;
}

/**
 * Deletes spaces restorably: each gets a `space-deletion/<id>` workflow that purges it after the
 * retention. The workflow starts first and its purge only matches this exact `deletedAt`, so a
 * failure between the two steps never purges a live space, and a Temporal outage changes nothing.
 */
export async function deleteSpaces(deps: AppDeps, em: Em, caller: Caller, spaces: Space[]): Promise<void> {
  const deletedAt = new Date();
  try {
    for (const space of spaces) {
      await startSpaceDeletion(
        deps.temporal,
        deps.config.temporalTaskQueue,
        {
          spaceId: space.id,
          organizationId: space.organizationId,
          deletedAt: deletedAt.toISOString(),
          retentionMs: deps.config.spaceRetentionMs,
        },
        caller.user.id,
      );
    }
  } catch (error) {
    throw Object.assign(unavailable('The job service is unavailable; nothing was deleted. Try again shortly.'), { cause: error });
  }
  if (spaces.length > 0) {
    await em.nativeUpdate(Space, { id: { $in: spaces.map((s) => s.id) }, deletedAt: null }, { deletedAt, updatedAt: deletedAt });
  }
}

/** Brings a deleted space back if it is still inside the retention window. */
export async function restoreSpace(deps: AppDeps, em: Em, spaceId: string): Promise<void> {
  const rows = await sql<{ id: string }>(em,
    `update space set deleted_at = null, updated_at = now()
      where id = ? and deleted_at is not null and deleted_at > now() - (? * interval '1 millisecond')
      returning id`,
    [spaceId, deps.config.spaceRetentionMs],
  );
  if (rows.length === 0) throw notFound('Deleted space');
  await signalSpaceRestored(deps.temporal, spaceId);
}

/**
 * Puts a space under another parent (or at the root) of an organization, at `position` or last.
 * A space leaving its collection stops being `in-collection`: it becomes private.
 */
export async function relocateSpace(em: Em, space: Space, organizationId: string, parentId: string | null, position?: ContentPosition): Promise<void> {
  await em.transactional(async (tx) => {
    const key = await resolvePosition(tx, organizationId, parentId, space.id, position);
    await tx.nativeUpdate(Space, { id: space.id }, {
      organizationId,
      parentId,
      position: key,
      updatedAt: new Date(),
      ...(parentId === null && space.visibility === 'in-collection' ? { visibility: 'private' } : {}),
    });
  });
  em.clear();
}
