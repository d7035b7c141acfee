import { refineAudit } from '../../db/audit.ts';
import type { Static } from 'typebox';
import type { Space } from '../../db/entities.ts';
import {
  insertCopyRevision,
  insertSpace,
  lockLiveSpaces,
  markSpacesDeleted,
  organizationSpaceListing,
  spaceOf,
  undeleteSpace,
  updateSpaceRow,
} from '../../db/spaces.ts';
import { copyRevisionToSpace, writeRevision } from '../../db/content.ts';
import type { SpaceGitSync } from '../../db/access.ts';
import { loadGitSyncs } from '../../db/git-sync.ts';
import { positionBetween } from '../../domain/positions.ts';
import type { PageMap } from '../../domain/content/tree.ts';
import { forgetLoaded, transaction, type Em } from '../../db/orm.ts';
import { newId } from '../../domain/ids.ts';
import { parseMergeRules } from '../../domain/merge-rules.ts';
import { setSpaceMergeRules } from '../../db/merge-rules.ts';
import { raiseSpaceEvent } from '../../db/integration-events.ts';
import { announce } from '../integrations/service.ts';
import { mergeRulesOrBadRequest } from '../orgs/service.ts';
import { startSpaceSearchIndex } from '../../temporal/search-index.ts';
import { signalSpaceRestored, startSpaceDeletion } from '../../temporal/space-deletion.ts';
import { atLeast, type Role } from '../../domain/roles.ts';
import { contentRoles, grantedContent, loadOrganization, loadSpace, orgRole, requireOrganization, requireRole } from '../access.ts';
import type { AppDeps, Caller, Ctx } from '../context.ts';
import { badRequest, forbidden, isRefusal, notFound, unavailable } from '../errors.ts';
import { resolvePosition, targetCollection, type ContentPosition } from '../content-tree.ts';
import { paginate } from '../pagination.ts';
import { urlsFor } from '../object-urls.ts';
import { presentSpace } from './present.ts';
import { keptAnswer, type JsonAnswer } from '../json-answer.ts';
import type { ListQuery } from '../schemas.ts';
import type { CreateSpaceBody, MoveBody, TransferBody, UpdateSpaceBody } from './schemas.ts';

/** The rules of spaces: who may do what, and the writes each operation makes. */

const present = (ctx: Ctx, space: Space, role: Parameters<typeof presentSpace>[1], gitSync?: SpaceGitSync) =>
  presentSpace(space, role, urlsFor(ctx.deps.config.publicUrl), gitSync);

/** A space as the caller sees it, read again (after a write). */
async function fresh(ctx: Ctx, spaceId: string) {
  const { space, role, gitSync } = await loadSpace(ctx.em, ctx.caller, spaceId);
  return present(ctx, space, role, gitSync);
}

/**
 * A page of the live spaces of an organization that a viewer sees: every one for a member with a
 * role, what is granted to them (or their teams) for a guest; oldest first unless `order` says otherwise.
 */
export async function visibleSpacesPage(
  em: Em,
  organizationId: string,
  viewer: { userId: string; role: Role | null },
  query: Static<typeof ListQuery>,
  order?: 'asc' | 'desc',
) {
  const ids = viewer.role === null ? (await grantedContent(em, organizationId, viewer.userId)).spaces : undefined;
  return paginate(em, organizationSpaceListing(em, organizationId, { ids, order }), query, (rows) => rows.map(spaceOf));
}

/** The spaces of an organization: every one for members with a role, what is granted for guests. */
export async function listSpaces(ctx: Ctx, organizationId: string, query: Static<typeof ListQuery>) {
  const { em, caller } = ctx;
  const { role } = await requireOrganization(ctx, organizationId);
  const page = await visibleSpacesPage(em, organizationId, { userId: caller.user.id, role }, query);
  const [roles, syncs] = await Promise.all([
    contentRoles(em, { userId: caller.user.id, role }, 'space', page.items),
    loadGitSyncs(
      em,
      page.items.map((s) => s.id),
    ),
  ]);
  return { ...page, items: page.items.map((s) => present(ctx, s, roles.get(s.id) ?? null, syncs.get(s.id))) };
}

/** Creates a space at the organization's root or in a collection the caller may create in. */
export async function createSpaceFor(ctx: Ctx, organizationId: string, body: Static<typeof CreateSpaceBody>) {
  const { caller } = ctx;
  const space = await transaction(ctx.em, async (tx) => {
    const { role } = await loadOrganization(tx, caller, organizationId);
    if (body.parent !== undefined)
      await targetCollection(tx, caller, body.parent, organizationId, 'parent', 'create spaces in that collection');
    else requireRole(role, 'create', 'create spaces here');
    if (body.visibility === 'in-collection' && body.parent === undefined) {
      throw badRequest('visibility in-collection is only for spaces in a collection');
    }
    const created = await createSpace(
      tx,
      {
        organizationId,
        parentId: body.parent ?? null,
        title: body.title ?? '',
        emoji: body.emoji ?? '',
        visibility: body.visibility ?? (body.parent ? 'in-collection' : 'private'),
        editMode: body.editMode ?? 'live',
        defaultLevel: body.parent ? 'inherit' : null,
      },
      body.empty ? { kind: 'empty' } : { kind: 'page' },
    );
    // The audit event names the space created (src/db/audit.ts).
    refineAudit(tx, { type: 'space', id: created.id, label: created.title || undefined });
    return created;
  });
  await indexNewSpace(ctx, space);
  return fresh(ctx, space.id);
}

export async function getSpace(ctx: Ctx, spaceId: string) {
  const { space, role, gitSync } = await loadSpace(ctx.em, ctx.caller, spaceId);
  return present(ctx, space, role, gitSync);
}

export type SpaceAnswer = Awaited<ReturnType<typeof getSpace>>;

/**
 * `GET /v1/spaces/{id}`: for a member (any caller but a site's visitor or lookup token), the answer
 * as this process last read it for the same space, user and token scope, while no write has been
 * counted since, in any process (AppDeps.spaceAnswers), and for AUTH_CACHE_TTL at most; read
 * afresh and serialized by `serialize` (the route's serializer, so it is the answer Fastify would
 * send) otherwise. Only answers the caller could read are kept: a refusal is never remembered.
 */
export async function getSpaceAnswer(
  ctx: Ctx,
  spaceId: string,
  serialize: (space: SpaceAnswer) => string | Buffer | ArrayBuffer,
): Promise<SpaceAnswer | JsonAnswer> {
  const { caller } = ctx;
  if (caller.visitor || caller.siteLookup) return getSpace(ctx, spaceId);
  const key = `${spaceId}\n${caller.user.id}\n${caller.organizationId ?? ''}`;
  return keptAnswer(ctx.deps.spaceAnswers, key, () => getSpace(ctx, spaceId), serialize, ctx.caughtUp);
}

/** Title and emoji need `edit`; access, visibility and edit mode need `admin`. A locked space keeps its title and emoji. */
export async function updateSpace(ctx: Ctx, spaceId: string, body: Static<typeof UpdateSpaceBody>) {
  const { space, role } = await loadSpace(ctx.em, ctx.caller, spaceId);
  const adminOnly =
    body.defaultLevel !== undefined || body.editMode !== undefined || body.visibility !== undefined || body.mergeRules !== undefined;
  requireRole(
    role,
    adminOnly ? 'admin' : 'edit',
    adminOnly ? 'change the access, visibility, edit mode or merge rules of this space' : 'edit this space',
  );
  const mergeRules = body.mergeRules && mergeRulesOrBadRequest(() => parseMergeRules(body.mergeRules!, 'space'));
  if (space.editMode === 'locked' && body.editMode === undefined && (body.title !== undefined || body.emoji !== undefined)) {
    throw forbidden('This space is locked: unlock it (editMode "live") before editing it');
  }
  if (body.visibility === 'in-collection' && !space.parentId)
    throw badRequest('visibility in-collection is only for spaces in a collection');
  const changes = {
    ...(body.title !== undefined ? { title: body.title } : {}),
    ...(body.emoji !== undefined ? { emoji: body.emoji } : {}),
    ...(body.editMode !== undefined ? { editMode: body.editMode } : {}),
    ...(body.visibility !== undefined ? { visibility: body.visibility } : {}),
    ...(body.defaultLevel !== undefined ? { defaultLevel: body.defaultLevel } : {}),
  };
  const visibility = body.visibility !== undefined && body.visibility !== space.visibility ? body.visibility : undefined;
  const raised = await transaction(ctx.em, async (tx) => {
    await updateSpaceRow(tx, space.id, changes);
    // Integrations with `space:metadata:read` enabled on the space hear of a new visibility (GitBook's space_visibility_updated).
    return visibility
      ? raiseSpaceEvent(tx, space.id, 'space_visibility_updated', { previousVisibility: space.visibility, visibility })
      : [];
  });
  await announce(ctx, raised);
  if (mergeRules) {
    await setSpaceMergeRules(ctx.em, space.id, mergeRules);
    forgetLoaded(ctx.em);
  }
  return fresh(ctx, space.id);
}

export async function deleteSpace(ctx: Ctx, spaceId: string): Promise<void> {
  const { space, role } = await loadSpace(ctx.em, ctx.caller, spaceId);
  requireRole(role, 'admin', 'delete this space');
  // Deleted meanwhile by another request: the same answer as a deletion that came after it.
  if ((await deleteSpaces(ctx.deps, ctx.em, ctx.caller, [space])).length === 0) throw notFound('Space');
}

export async function restoreDeletedSpace(ctx: Ctx, spaceId: string) {
  const { role } = await loadSpace(ctx.em, ctx.caller, spaceId, 'deleted');
  requireRole(role, 'admin', 'restore this space');
  await restoreSpace(ctx.deps, ctx.em, spaceId);
  forgetLoaded(ctx.em);
  return fresh(ctx, spaceId);
}

/** A copy of the space and its current content, next to it; needs `create` in the organization or on the space. */
export async function duplicateSpace(ctx: Ctx, spaceId: string) {
  const { space, role } = await loadSpace(ctx.em, ctx.caller, spaceId);
  const member = await orgRole(ctx.em, ctx.caller, space.organizationId);
  if (!atLeast(member ?? null, 'create')) requireRole(role, 'create', 'duplicate this space');
  const copy = await transaction(ctx.em, (tx) =>
    createSpace(
      tx,
      {
        organizationId: space.organizationId,
        parentId: space.parentId ?? null,
        title: `${space.title} (copy)`.slice(0, 50),
        emoji: space.emoji,
        visibility: space.visibility,
        editMode: space.editMode,
        defaultLevel: space.defaultLevel ?? null,
      },
      { kind: 'copy', revisionId: space.revisionId },
    ),
  );
  await indexNewSpace(ctx, copy);
  return fresh(ctx, copy.id);
}

export async function moveSpace(ctx: Ctx, spaceId: string, body: Static<typeof MoveBody>) {
  const { space, role } = await loadSpace(ctx.em, ctx.caller, spaceId);
  requireRole(role, 'admin', 'move this space');
  const parentId = body.parent === undefined ? (space.parentId ?? null) : body.parent;
  if (parentId !== null)
    await targetCollection(ctx.em, ctx.caller, parentId, space.organizationId, 'parent', 'move spaces into that collection');
  await relocateSpace(ctx, space, space.organizationId, parentId, body.position);
  return fresh(ctx, space.id);
}

export async function transferSpace(ctx: Ctx, spaceId: string, body: Static<typeof TransferBody>) {
  const { space, role } = await loadSpace(ctx.em, ctx.caller, spaceId);
  requireRole(role, 'admin', 'transfer this space');
  // Taking a space out of an organization is the organization's decision: an admin grant on the
  // space alone (a guest's, say) is not enough.
  requireRole((await orgRole(ctx.em, ctx.caller, space.organizationId)) ?? null, 'admin', 'transfer spaces out of this organization');
  const target = await loadOrganization(ctx.em, ctx.caller, body.organization).catch((error: unknown) => {
    throw isRefusal(error) ? notFound('organization: target organization') : error;
  });
  requireRole(target.role, 'admin', 'transfer spaces into the target organization');
  if (body.collection !== undefined) {
    await targetCollection(ctx.em, ctx.caller, body.collection, body.organization, 'collection', 'add spaces to the target collection');
  }
  await relocateSpace(ctx, space, body.organization, body.collection ?? null);
  return fresh(ctx, space.id);
}

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

/**
 * Creates a space with its first revision. Runs inside the caller's transaction; once that has
 * committed, the caller starts the space's search index with `indexNewSpace`.
 */
export async function createSpace(em: Em, input: NewSpace, content: InitialContent = { kind: 'page' }): Promise<Space> {
  const id = newId();
  const now = new Date();
  const revisionId = newId();
  const position = await resolvePosition(em, input.organizationId, input.parentId, id);
  const space = await insertSpace(em, {
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
  if (content.kind === 'copy') {
    await insertCopyRevision(em, revisionId, id, content.revisionId, now);
    await copyRevisionToSpace(em, content.revisionId, id, revisionId);
  } else {
    const pages: PageMap = {};
    if (content.kind === 'page') {
      const pageId = newId();
      pages[pageId] = {
        id: pageId,
        parentId: null,
        position: positionBetween(null, null),
        type: 'document',
        title: 'Untitled',
        slug: 'untitled',
        markdown: '',
      };
    }
    await writeRevision(em, { id: revisionId, spaceId: id, parents: [], type: 'edits', base: null, pages });
  }
  return space;
}

/**
 * Starts the search index job of a space `createSpace` made, after its transaction committed (the
 * job reads the committed content). The space exists whatever happens here: if the job service is
 * unavailable, the space is searchable from its next change on (the index then catches up from
 * nothing), so a failure is logged, not answered.
 */
export async function indexNewSpace(ctx: Ctx, space: Pick<Space, 'id' | 'organizationId' | 'revisionId'>): Promise<void> {
  try {
    await startSpaceSearchIndex(ctx.deps.temporal, ctx.deps.config.temporalHeavyTaskQueue, {
      organizationId: space.organizationId,
      spaceId: space.id,
      revisionId: space.revisionId,
    });
  } catch (error) {
    ctx.log.warn({ err: error, spaceId: space.id }, 'could not start the search index job of a new space');
  }
}

/**
 * Deletes spaces restorably: each gets a `space-deletion/<id>` workflow that purges it after the
 * retention. The workflow starts first and its purge only matches this exact `deletedAt`, so a
 * failure between the two steps never purges a live space, and a Temporal outage changes nothing.
 * Both steps run while the spaces' rows are locked: concurrent deletions of one space (two API
 * processes, a client retrying) queue there, and only the first starts a deletion; the others
 * find the space deleted. Returns the ids of the spaces this call deleted.
 */
export async function deleteSpaces(
  deps: AppDeps,
  em: Em,
  caller: Caller,
  spaces: Pick<Space, 'id' | 'organizationId'>[],
): Promise<string[]> {
  const deletedAt = new Date();
  const byId = new Map(spaces.map((space) => [space.id, space]));
  return transaction(em, async (tx) => {
    const live = await lockLiveSpaces(tx, [...byId.keys()]);
    try {
      for (const id of live) {
        await startSpaceDeletion(
          deps.temporal,
          deps.config.temporalTaskQueue,
          {
            spaceId: id,
            organizationId: byId.get(id)!.organizationId,
            deletedAt: deletedAt.toISOString(),
            retentionMs: deps.config.spaceRetentionMs,
          },
          caller.user.id,
        );
      }
    } catch (error) {
      throw Object.assign(unavailable('The job service is unavailable; nothing was deleted. Try again shortly.'), { cause: error });
    }
    await markSpacesDeleted(tx, live, deletedAt);
    return live;
  });
}

/** Brings a deleted space back if it is still inside the retention window. */
export async function restoreSpace(deps: AppDeps, em: Em, spaceId: string): Promise<void> {
  if (!(await undeleteSpace(em, spaceId, deps.config.spaceRetentionMs))) throw notFound('Deleted space');
  await signalSpaceRestored(deps.temporal, spaceId);
}

/**
 * Puts a space under another parent (or at the root) of an organization, at `position` or last.
 * A space leaving its collection stops being `in-collection`: it becomes private, which the
 * integrations enabled on it hear (`space_visibility_updated`).
 */
export async function relocateSpace(ctx: Ctx, space: Space, organizationId: string, parentId: string | null, position?: ContentPosition) {
  const leaves = parentId === null && space.visibility === 'in-collection';
  const raised = await transaction(ctx.em, async (tx) => {
    const key = await resolvePosition(tx, organizationId, parentId, space.id, position);
    await updateSpaceRow(tx, space.id, { organizationId, parentId, position: key, ...(leaves ? { visibility: 'private' } : {}) });
    return leaves
      ? raiseSpaceEvent(tx, space.id, 'space_visibility_updated', { previousVisibility: space.visibility, visibility: 'private' })
      : [];
  });
  forgetLoaded(ctx.em);
  await announce(ctx, raised);
}
