import type { Static } from 'typebox';
import {
  collectionListing,
  deleteCollectionKeepingSpaces,
  insertCollection,
  moveCollectionRow,
  transferCollectionRows,
  updateCollectionFields,
} from '../../db/collections.ts';
import { forgetLoaded, transaction } from '../../db/orm.ts';
import { collectionSpaceListing, liveSpacesIn, spaceOf } from '../../db/spaces.ts';
import { newId } from '../../domain/ids.ts';
import { contentRoles, grantedContent, loadCollection, loadOrganization, orgRole, requireOrganization, requireRole } from '../access.ts';
import type { Ctx } from '../context.ts';
import { collectionSubtree, resolvePosition, targetCollection } from '../content-tree.ts';
import { conflict, isRefusal, notFound } from '../errors.ts';
import { paginate } from '../pagination.ts';
import type { ListQuery } from '../schemas.ts';
import { presentSpace } from '../spaces/present.ts';
import type { MoveBody } from '../spaces/schemas.ts';
import { deleteSpaces } from '../spaces/service.ts';
import { urlsFor } from '../object-urls.ts';
import { presentCollection } from './present.ts';
import type { CreateCollectionBody, ListCollectionsQuery, TransferCollectionBody, UpdateCollectionBody } from './schemas.ts';

/** The rules of collections: who may do what, and the writes each operation makes. */

const urlsOf = (ctx: Ctx) => urlsFor(ctx.deps.config.publicUrl);

/** A collection as the caller sees it, read again (after a write). */
async function fresh(ctx: Ctx, collectionId: string) {
  const { collection, role } = await loadCollection(ctx.em, ctx.caller, collectionId);
  return presentCollection(collection, role, urlsOf(ctx));
}

/** The collections of an organization: every one for members with a role; for guests, those granted and everything below them. */
export async function listCollections(ctx: Ctx, organizationId: string, query: Static<typeof ListCollectionsQuery>) {
  const { em, caller } = ctx;
  const { role } = await requireOrganization(ctx, organizationId);
  const ids = role === null ? (await grantedContent(em, organizationId, caller.user.id)).collections : undefined;
  const page = await paginate(em, collectionListing(em, organizationId, { topLevel: query.nested === false, ids }), query, (rows) => rows);
  const roles = await contentRoles(em, { userId: caller.user.id, role }, 'collection', page.items);
  return { ...page, items: page.items.map((c) => presentCollection(c, roles.get(c.id) ?? null, urlsOf(ctx))) };
}

/** Creates a collection at the organization's root (needs `create` there) or in a collection the caller may create in. */
export async function createCollection(ctx: Ctx, organizationId: string, body: Static<typeof CreateCollectionBody>) {
  const { em, caller } = ctx;
  const { role } = await requireOrganization(ctx, organizationId);
  if (body.parent !== undefined)
    await targetCollection(em, caller, body.parent, organizationId, 'parent', 'create collections in that collection');
  else requireRole(role, 'create', 'create collections here');
  const id = newId();
  await transaction(em, async (tx) => {
    const now = new Date();
    await insertCollection(tx, {
      id,
      organizationId,
      parentId: body.parent ?? null,
      title: body.title ?? '',
      description: body.description ?? null,
      defaultLevel: body.parent ? 'inherit' : null,
      position: await resolvePosition(tx, organizationId, body.parent ?? null, id),
      createdAt: now,
      updatedAt: now,
    });
  });
  return fresh(ctx, id);
}

export async function getCollection(ctx: Ctx, collectionId: string) {
  return fresh(ctx, collectionId);
}

export async function updateCollection(ctx: Ctx, collectionId: string, body: Static<typeof UpdateCollectionBody>) {
  const { collection, role } = await loadCollection(ctx.em, ctx.caller, collectionId);
  requireRole(role, 'admin', 'update this collection');
  await updateCollectionFields(ctx.em, collection.id, {
    title: body.title,
    description: body.description === undefined ? undefined : body.description || null,
    defaultLevel: body.defaultLevel,
  });
  forgetLoaded(ctx.em);
  return fresh(ctx, collection.id);
}

/**
 * Deletes a collection and the collections below it. Their spaces go through the restorable space
 * deletion and leave for the organization root, where a restore puts them back.
 */
export async function deleteCollection(ctx: Ctx, collectionId: string): Promise<void> {
  const { em, caller } = ctx;
  const { collection, role } = await loadCollection(em, caller, collectionId);
  requireRole(role, 'admin', 'delete this collection');
  const subtree = await collectionSubtree(em, collection.id);
  const spaces = await liveSpacesIn(em, subtree);
  await deleteSpaces(ctx.deps, em, caller, spaces);
  await transaction(em, (tx) => deleteCollectionKeepingSpaces(tx, collection.id, subtree));
}

/** The live spaces directly in a collection, in their order. */
export async function listCollectionSpaces(ctx: Ctx, collectionId: string, query: Static<typeof ListQuery>) {
  const { em, caller } = ctx;
  const { collection } = await loadCollection(em, caller, collectionId);
  const { role } = await requireOrganization(ctx, collection.organizationId);
  const page = await paginate(em, collectionSpaceListing(em, collection.id), query, (rows) => rows.map(spaceOf));
  const roles = await contentRoles(em, { userId: caller.user.id, role }, 'space', page.items);
  return { ...page, items: page.items.map((s) => presentSpace(s, roles.get(s.id) ?? null, urlsOf(ctx))) };
}

/** Moves a collection under another parent (or to the root) of its organization; never into itself or below. */
export async function moveCollection(ctx: Ctx, collectionId: string, body: Static<typeof MoveBody>) {
  const { em, caller } = ctx;
  const { collection, role } = await loadCollection(em, caller, collectionId);
  requireRole(role, 'admin', 'move this collection');
  const parentId = body.parent === undefined ? (collection.parentId ?? null) : body.parent;
  if (parentId !== null) {
    await targetCollection(em, caller, parentId, collection.organizationId, 'parent', 'move collections into that collection');
  }
  await transaction(em, async (tx) => {
    if (parentId !== null && (await collectionSubtree(tx, collection.id)).includes(parentId)) {
      throw conflict('A collection cannot be moved into itself or one of its own collections');
    }
    const position = await resolvePosition(tx, collection.organizationId, parentId, collection.id, body.position);
    await moveCollectionRow(tx, collection.id, parentId, position);
  });
  forgetLoaded(em);
  return fresh(ctx, collection.id);
}

/** Transfers a collection with everything in it (spaces, deleted ones included) to the root of another organization. */
export async function transferCollection(ctx: Ctx, collectionId: string, body: Static<typeof TransferCollectionBody>) {
  const { em, caller } = ctx;
  const { collection, role } = await loadCollection(em, caller, collectionId);
  requireRole(role, 'admin', 'transfer this collection');
  // Taking a collection out of an organization is the organization's decision, not a grant's.
  requireRole((await orgRole(em, caller, collection.organizationId)) ?? null, 'admin', 'transfer collections out of this organization');
  if (body.organization === collection.organizationId) throw conflict('The collection already belongs to that organization');
  const target = await loadOrganization(em, caller, body.organization).catch((error: unknown) => {
    throw isRefusal(error) ? notFound('organization: target organization') : error;
  });
  requireRole(target.role, 'admin', 'transfer collections into the target organization');
  await transaction(em, async (tx) => {
    const subtree = await collectionSubtree(tx, collection.id);
    const position = await resolvePosition(tx, body.organization, null, collection.id);
    // Spaces move along, deleted ones included, so a restore finds them in their new home.
    await transferCollectionRows(tx, { collectionId: collection.id, subtree, organizationId: body.organization, position });
  });
  forgetLoaded(em);
  return fresh(ctx, collection.id);
}
