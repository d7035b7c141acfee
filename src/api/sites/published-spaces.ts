import type { Space } from '../../db/entities.ts';
import { transaction } from '../../db/orm.ts';
import { loadSpace } from '../access.ts';
import type { Ctx } from '../context.ts';
import { badRequest, HttpError } from '../errors.ts';
import { createSpace, indexNewSpace } from '../spaces/service.ts';

/** The spaces a site publishes: existing ones the caller may read, or new ones made for it. */

/** Live spaces of the organization the caller can read, by id; 400 naming the first that is not. */
export async function usableSpaces(ctx: Ctx, organizationId: string, spaceIds: string[], field: string) {
  const out: Space[] = [];
  for (const id of spaceIds) {
    const found = await loadSpace(ctx.em, ctx.caller, id).catch((error: unknown) => {
      if (error instanceof HttpError && error.statusCode === 404) return undefined;
      throw error;
    });
    if (!found || found.space.organizationId !== organizationId)
      throw badRequest(`${field}: space ${id} does not exist in this organization`);
    out.push(found.space);
  }
  return out;
}

/**
 * The space a section or site-space publishes: an existing live space of the organization that
 * the caller can read (400 otherwise), or, for `null`, a new empty-page space titled `title`.
 */
export async function spaceForSite(ctx: Ctx, organizationId: string, spaceId: string | null, title: string): Promise<Space> {
  if (spaceId === null) {
    const space = await transaction(ctx.em, (tx) =>
      createSpace(tx, {
        organizationId,
        parentId: null,
        title: title.slice(0, 50),
        emoji: '',
        visibility: 'private',
        editMode: 'live',
        defaultLevel: null,
      }),
    );
    await indexNewSpace(ctx, space);
    return space;
  }
  return (await usableSpaces(ctx, organizationId, [spaceId], 'spaceId'))[0];
}
